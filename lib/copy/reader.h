/* reader.h: reads the plan's source files ahead of the writer.
 *
 * A thread reads every regular file of the plan, in plan order, into a
 * ring of aligned buffers, so a slow source (a camera card) and a slow
 * destination work at the same time and O_DIRECT can write straight from
 * the buffers.  The consumer takes chunks in order and gives each back
 * before taking the next; a chunk lent from the source (read by the
 * write itself) it checks first (reader_chunk_written(), reader_chunk.h).
 * Every file the plan copies yields at least one chunk, the last one
 * flagged.
 *
 * The reader trusts nothing about the source tree but the plan: each
 * file is opened from its directory's fd by name (dirstack.h), without
 * following a symlink (but with -L), without blocking (O_NONBLOCK, so a
 * FIFO swapped in cannot hang the copy) and without becoming a
 * controlling tty; it must be the regular file the plan saw (st_dev,
 * st_ino).  It reads no more than the plan's size, and a file whose
 * size, mtime or ctime differ from the plan's after the read, or that
 * has more or fewer bytes, is flagged changed: GNU tar's "file changed
 * as we read it", which the engine does not publish.
 *
 * That is the default feed; a job may give the bytes of each entry from
 * another (source_feed.h: an archive being written or read). */
#ifndef SAFECP_READER_H
#define SAFECP_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "copy/plan.h"
#include "copy/reader_chunk.h"
#include "io/sizing.h"

struct reader;
struct reader_cursor;

/* What the reading cost, for the end of the copy. */
struct reader_stats {
	uint64_t bytes_read;    /* all reads of the source, second reads included */
	uint64_t bytes_reread;  /* second reads only (by detached cursors) */
	unsigned detached;      /* cursors that went on from a second read */
	uint64_t mismatches;    /* second-read chunks whose bytes differed */
};

/* What a reader reads, and for whom.  Only plans, n and wp are needed;
 * the rest is off when zero. */
/* Where the reader starts a file other than at 0: a partial kept at
 * every destination that writes it (resume.h). */
struct reader_start {
	size_t entry;
	uint64_t from;  /* a multiple of the reader's chunk */
};

struct source_feed;
struct reader_opts {
	/* plans[i] is destination i's plan (the same source tree, shared:
	 * plan_same_source()); cursor i yields the files that plan writes
	 * (not its -n kept ones); 1 <= n <= RING_CURSORS_MAX */
	const struct plan *const *plans;
	unsigned n;
	/* the ring holds wp->ring_slots chunks of wp->chunk bytes aligned
	 * to wp->mem_align */
	const struct write_plan *wp;
	/* the bytes of each entry (source_feed.h); NULL: the plans' files.
	 * A stream feed's cursors are never detached and nothing is lent */
	const struct source_feed *feed;
	/* sees every chunk of the first read (NULL: none) */
	const struct reader_tap *tap;
	/* a consumer looks at the bytes in user space (hashes them), so
	 * nothing is lent */
	bool bytes_seen;
	/* each file is hashed as it is read and, before its last chunk is
	 * published, read again past the page cache (read_back.h) and
	 * compared: a card that returned wrong bytes once (reread_differs).
	 * With a feed: -EINVAL */
	bool verify_source;
	atomic_bool *cancel;            /* the job's; NULL: none */
	/* sorted by entry, the caller's until reader_free(); n_starts 0: every
	 * file from its start.  A cursor gets a file's chunks from there on */
	const struct reader_start *starts;
	size_t n_starts;
};

/* Start one reader for o->n destinations: 0 with *ret, or -errno.  With
 * several cursors each chunk is hashed, and a cursor that keeps the
 * others waiting for longer than a moment is detached: it goes on from
 * a reader of its own, which reads the source again from where it was,
 * checks every chunk the first read also had against its hash, and
 * flags a difference as changed. */
int reader_start(const struct reader_opts *o, struct reader **ret);

/* Cursor i of the reader (i < n). */
struct reader_cursor *reader_cursor(struct reader *r, unsigned i);

/* The cursor's next chunk in plan order: 0 with *ret filled, 1 when every
 * file has been read, -ECANCELED after cancel, or -errno (a second reader
 * could not start). */
int reader_next(struct reader_cursor *c, struct reader_chunk *ret);

/* This cursor does not need the files of entries [from, to): each one
 * still yields its chunks up to its last, which the consumer drains.
 * Where no other cursor wants it either, the file is not read (further):
 * it then ends early with a last chunk of err -ECANCELED.  The consumer
 * calls it for entries it is at or before. */
void reader_skip(struct reader_cursor *c, size_t from, size_t to);

/* Give the chunk's buffer back. */
void reader_release(struct reader_cursor *c, const struct reader_chunk *ch);

/* The cursor's consumer takes nothing more (it finished or stopped). */
void reader_leave(struct reader_cursor *c);

void reader_stats(const struct reader *r, struct reader_stats *ret);

/* Stop the threads, join them, free the buffers. */
void reader_free(struct reader *r);

#endif
