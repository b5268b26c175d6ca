/* reader_feed.c: a stream feed's entry into the ring, in place of a file.
 *
 * A job may give a stream feed (source_feed.h) in place of the files:
 * then the loop (reader.c) enters no directory and opens no file; each
 * wanted entry's bytes are the feed's, read into the ring's slots a
 * whole chunk at a time, never lent, never mapped, never hashed for a
 * second read (a stream cannot be read again, so no cursor is detached:
 * the slowest destination sets the pace). */
#include <errno.h>

#include "copy/reader_internal.h"
#include "copy/source_feed.h"

/* A stream feed's entry idx into the ring (source_feed.h's contract),
 * whole chunks but for the last; false when told to stop. */
bool feed_read(struct reader *r, size_t idx)
{
	const struct source_feed *f = r->feed;
	struct reader_chunk c = { .entry = idx };
	bool end = false, changed = false;
	int rc = f->ops->open(f->ctx, idx, r->cancel);

	if (rc < 0)
		return reader_publish_end(r, &c, rc, false);
	for (;;) {
		ssize_t n;

		if (reader_skipped(r, idx)) {
			f->ops->close(f->ctx, &changed);
			return reader_publish_end(r, &c, -ECANCELED, false);
		}
		c.buf = reader_claim(r, idx, c.offset, r->slot);
		if (!c.buf) {
			f->ops->close(f->ctx, &changed);
			return false;
		}
		n = f->ops->read(f->ctx, c.buf, r->slot, &end);
		if (n == -ECANCELED && reader_should_stop(r)) {
			f->ops->close(f->ctx, &changed);
			return false;
		}
		if (n >= 0 && (size_t)n < r->slot && !end)
			n = -EIO; /* the feed broke its contract */
		c.err = n < 0 ? (int)n : 0;
		c.len = n < 0 ? 0 : (size_t)n;
		c.last = n < 0 || end;
		atomic_fetch_add(&r->bytes_read, c.len);
		if (c.last) {
			rc = f->ops->close(f->ctx, &changed);
			if (!c.err && rc < 0)
				c.err = rc;
			c.changed = !c.err && changed;
		}
		reader_publish(r, &c);
		if (c.last)
			return true;
		c.offset += c.len;
	}
}
