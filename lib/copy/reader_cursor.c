/* reader_cursor.c: the consumers' side of the reader, one cursor per
 * destination, each on its destination's thread: take the next chunk,
 * skip files, give chunks back, leave.  A detached cursor's calls go to
 * its second reader's one cursor, which its first take after the detach
 * starts (reader_second.c). */
#include <pthread.h>

#include "copy/reader.h"
#include "copy/reader_internal.h"
#include "io/ring.h"

struct reader_cursor *reader_cursor(struct reader *r, unsigned i)
{
	return &r->cursors[i];
}

int reader_next(struct reader_cursor *k, struct reader_chunk *ret)
{
	for (;;) {
		void *buf;
		uint64_t next;
		int rc;

		if (k->second.reader)
			return reader_next(&k->second.reader->cursors[0], ret);
		rc = ring_take(k->r->ring, k->idx, ret, &buf, &next);
		if (rc == RING_DETACHED) {
			rc = second_start(k);
			if (rc < 0)
				return rc;
			continue;
		}
		if (rc != 0)
			return rc;
		if (!ret->lent)
			ret->buf = buf;
		if (reader_wants(k->plan, ret->entry))
			return 0;
		/* another destination's file (-n kept it here) */
		ring_release(k->r->ring, k->idx);
	}
}

void reader_skip(struct reader_cursor *k, size_t from, size_t to)
{
	pthread_mutex_lock(&k->r->first->lock);
	k->skip_from = from;
	k->skip_to = to;
	pthread_mutex_unlock(&k->r->first->lock);
	if (k->second.reader)
		reader_skip(&k->second.reader->cursors[0], from, to);
}

void reader_release(struct reader_cursor *k, const struct reader_chunk *ch)
{
	if (k->second.reader) {
		reader_release(&k->second.reader->cursors[0], ch);
		return;
	}
	/* one cursor gives lent chunks back in order: this is the oldest;
	 * with several, the loop closes what all of them are past */
	if (ch->lent && k->r->n == 1)
		lend_return_oldest(k->r, ch);
	ring_release(k->r->ring, k->idx);
}

void reader_leave(struct reader_cursor *k)
{
	struct reader *f = k->r->first;

	pthread_mutex_lock(&f->lock);
	k->left = true;
	pthread_mutex_unlock(&f->lock);
	ring_leave(k->r->ring, k->idx);
	if (k->second.reader)
		reader_leave(&k->second.reader->cursors[0]);
}
