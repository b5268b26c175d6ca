/* reader_chunk.h: what the reader (reader.h) hands its consumers: a
 * chunk of one source file, the tap that sees each chunk first, and the
 * consumer's own check of a lent chunk once its write has taken the
 * bytes.
 *
 * Below the reader's files, so that its parts (reader_internal.h) have
 * these types without the reader's API. */
#ifndef SAFECP_READER_CHUNK_H
#define SAFECP_READER_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "copy/source_tree.h"

struct reader_chunk {
	size_t entry;     /* plan entry index */
	uint64_t offset;  /* in the source file */
	void *buf;        /* aligned to the write plan's mem_align */
	size_t len;       /* chunk bytes, less for the last; may be 0 */
	bool last;        /* the file ends with this chunk (EOF or error) */
	int err;          /* -errno: reading the source failed; skip the file */
	bool hole;        /* len bytes of zeros the source keeps as a hole:
			   * buf holds nothing (reader_chunk_bytes() gives
			   * them from a zero page); never lent */
	bool changed;     /* last: the file is not the one the plan saw, or
			   * changed while it was read, or a second read gave
			   * other bytes than the first; skip the file */
	uint64_t hash;    /* chunk_hash() of the bytes, with several cursors */
	bool reread_differs; /* last: verify_source read the file again from
			      * the device and got other bytes; skip the file */
	bool lent;        /* the bytes are left in the source, read as the
			   * write takes them (reader_chunk_written): from
			   * src_fd at offset (writer_splice), or from buf
			   * when mapped; else buf holds nothing */
	bool mapped;      /* lent and buf maps them, for a tap (reader_lend.c) */
	int src_fd;       /* lent: the source's, until the release */
	const struct source_entry *seen; /* lent: the source as the plan saw it */
};

/* Zeros for a hole's bytes: READER_ZEROS of them, page aligned (an
 * O_DIRECT write may take them), never written: untouched pages of the
 * bss, the kernel's one zero page, cost no memory. */
#define READER_ZEROS (1u << 20)
const char *reader_zeros(void);

/* Hand chunk c's bytes from skip on to fn, in order: its buffer, or for
 * a hole zeros in pieces of at most READER_ZEROS (a digest of the bytes
 * sees a hole as the zeros it reads as). */
typedef void (*reader_bytes_fn)(void *ctx, const void *buf, size_t len);
void reader_chunk_bytes(const struct reader_chunk *c, size_t skip, reader_bytes_fn fn, void *ctx);

/* A chunk tap: sees every chunk of the first read, in plan order, from
 * the reader's thread, before any destination takes it (the place for
 * per-file checksums: a second read is checked against the first, so
 * what the tap saw is what every destination got).  It must not block. */
struct reader_tap {
	void *ctx;
	void (*chunk)(void *ctx, const struct reader_chunk *c);
};

/* After writing chunk ch (write_result: the writer's 0 or -errno): for a
 * lent chunk, a write that could not read the source (-EFAULT) sets
 * ch->err (the source's read error) or ch->changed (it shrank), and
 * after the file's last chunk ch->changed says whether the file changed
 * while it was written.  Nothing for other chunks.  A chunk flagged here
 * that is not the last leaves the file's other chunks to drain.
 *
 * The consumer judges its own copy of the chunk from what the chunk
 * carries (src_fd, seen); the reader is told nothing: what the write
 * learnt flows on to the consumer's decision, never back upstream. */
void reader_chunk_written(struct reader_chunk *ch, int write_result);

#endif
