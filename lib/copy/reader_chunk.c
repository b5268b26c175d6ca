/* reader_chunk.c: the consumer's check of a lent chunk after its write,
 * and a hole's bytes as the zeros it reads as.
 *
 * A lent chunk's bytes are read by the write itself (reader_lend.c), so
 * only the write knows whether it got them, and only after the file's
 * last write can "did the file change while it was read" be answered.
 * Both answers are the consumer's, made on its own copy of the chunk
 * from the source fd and the plan's stat it carries. */
#include <errno.h>
#include <stdlib.h>

#include "copy/reader_chunk.h"
#include "copy/source_open.h"
#include "base/cleanup.h"

static char zeros[READER_ZEROS] __attribute__((aligned(4096)));

const char *reader_zeros(void)
{
	return zeros;
}

void reader_chunk_bytes(const struct reader_chunk *c, size_t skip, reader_bytes_fn fn, void *ctx)
{
	size_t left = c->len > skip ? c->len - skip : 0;

	if (!c->hole) {
		if (left > 0)
			fn(ctx, (const char *)c->buf + skip, left);
		return;
	}
	while (left > 0) {
		size_t n = MIN(left, (size_t)READER_ZEROS);

		fn(ctx, zeros, n);
		left -= n;
	}
}

void reader_chunk_written(struct reader_chunk *ch, int write_result)
{
	void *buf;
	ssize_t n;

	if (!ch->lent || (write_result != -EFAULT && (write_result < 0 || !ch->last)))
		return;
	if (write_result == 0) {
		ch->changed = ch->changed || !source_unchanged(ch->src_fd, ch->seen);
		return;
	}
	/* the write could not read the source: read the bytes to learn why
	 * (into a buffer of our own: other destinations share the slot) */
	buf = malloc(ch->len);
	n = buf ? source_pread_full(ch->src_fd, buf, ch->len, ch->offset) : -ENOMEM;
	free(buf);
	if (n >= 0 && (size_t)n < ch->len)
		ch->changed = true;
	else
		ch->err = n < 0 ? (int)n : -EIO;
}
