/* reader.h: reads the plan's source files ahead of the writer.
 *
 * A thread reads every regular file of the plan, in plan order, into a
 * ring of aligned buffers, so a slow source (a camera card) and a slow
 * destination work at the same time and O_DIRECT can write straight from
 * the buffers.  The consumer takes chunks in order and gives each back
 * before taking the next. */
#ifndef SAFECP_READER_H
#define SAFECP_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "sizing.h"

struct reader;

struct reader_chunk {
	size_t entry;     /* plan entry index */
	uint64_t offset;  /* in the source file */
	void *buf;        /* aligned to the write plan's mem_align */
	size_t len;       /* chunk bytes, less for the last; may be 0 */
	bool last;        /* the file ends with this chunk (EOF or error) */
	int err;          /* -errno: reading the source failed; skip the file */
	unsigned slot;
};

int reader_start(const struct plan *p, const struct write_plan *wp,
		 atomic_bool *cancel, struct reader **ret);

/* The next chunk in plan order: 0 with *ret filled, 1 when every file has
 * been read, -ECANCELED after cancel. */
int reader_next(struct reader *r, struct reader_chunk *ret);

/* Give the chunk's buffer back to the ring. */
void reader_release(struct reader *r, const struct reader_chunk *c);

/* Stop the thread, join it, free the buffers. */
void reader_free(struct reader *r);

#endif
