/* reader.c: the read-ahead thread and its ring of aligned buffers.
 *
 * Slots are filled and released strictly in order, so the ring is two
 * counters: `ready` chunks published and not yet taken, `used` slots
 * published and not yet released.  The producer may fill slot `head`
 * while used < n.
 *
 * Sources are read with POSIX_FADV_SEQUENTIAL (larger readahead); a file
 * that was not in the page cache before we read it is dropped behind us
 * with POSIX_FADV_DONTNEED, so copying a card does not evict the rest of
 * the system's cache, while a file the user had cached stays cached. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachestat.h"
#include "cleanup.h"
#include "debug.h"
#include "reader.h"

#define DROP_BACK (2u << 20) /* the largest page cache folio on x86-64 */

struct reader {
	const struct plan *plan;
	size_t chunk;
	unsigned n;
	void **bufs;
	struct reader_chunk *slots;
	atomic_bool *cancel;

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t more;   /* a chunk was published, or the end */
	pthread_cond_t room;   /* a slot was released, or stop */
	unsigned head, tail, used, ready;
	bool finished, stop;
};

static bool should_stop(struct reader *r)
{
	return r->stop || (r->cancel && atomic_load(r->cancel));
}

/* Wait for a free slot; false when told to stop. */
static bool wait_room(struct reader *r)
{
	bool ok;

	pthread_mutex_lock(&r->lock);
	while (r->used == r->n && !should_stop(r))
		pthread_cond_wait(&r->room, &r->lock);
	ok = !should_stop(r);
	pthread_mutex_unlock(&r->lock);
	return ok;
}

static void publish(struct reader *r, const struct reader_chunk *c)
{
	pthread_mutex_lock(&r->lock);
	r->slots[r->head] = *c;
	r->head = (r->head + 1) % r->n;
	r->used++;
	r->ready++;
	pthread_cond_signal(&r->more);
	pthread_mutex_unlock(&r->lock);
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* DONTNEED skips a large folio that is not wholly inside the range, and
 * one may straddle two chunks: each drop reaches back over the previous
 * chunk's end, and the last one to the end of the file. */
static void drop_pages(int fd, uint64_t off, size_t len, bool last)
{
	uint64_t from = off > DROP_BACK ? off - DROP_BACK : 0;

	posix_fadvise(fd, (off_t)from, last ? 0 : (off_t)(off + len - from), POSIX_FADV_DONTNEED);
}

static bool was_cached(int fd)
{
	struct file_cache fc;

	return cachestat_fd(fd, 0, 0, &fc) == 0 && fc.cached > 0;
}

/* Read one file into the ring; false when told to stop. */
static bool read_file(struct reader *r, size_t idx)
{
	const struct plan_entry *e = &r->plan->entries[idx];
	_cleanup_close_ int fd = open(e->src, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct reader_chunk c = { .entry = idx };
	bool drop_behind;

	if (fd < 0) {
		c.err = -errno;
		c.last = true;
		if (!wait_room(r))
			return false;
		c.slot = r->head;
		publish(r, &c);
		return true;
	}
	/* a file that fits one read gains nothing from a larger readahead */
	if ((uint64_t)e->st.st_size > r->chunk)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	drop_behind = !was_cached(fd);
	for (;;) {
		ssize_t n;

		if (!wait_room(r))
			return false;
		c.slot = r->head;
		c.buf = r->bufs[c.slot];
		n = read_full(fd, c.buf, r->chunk);
		if (n < 0) {
			c.err = (int)n;
			c.len = 0;
		} else {
			c.len = (size_t)n;
		}
		c.last = n < 0 || (size_t)n < r->chunk;
		/* n == 0: a size that is a multiple of the chunk ends here */
		if (n >= 0 && drop_behind)
			drop_pages(fd, c.offset, (size_t)n, c.last);
		publish(r, &c);
		if (c.last)
			return true;
		c.offset += c.len;
	}
}

static void *reader_thread(void *arg)
{
	struct reader *r = arg;

	for (size_t i = 0; i < r->plan->n_entries; i++) {
		const struct plan_entry *e = &r->plan->entries[i];

		if (e->type != PLAN_FILE || e->skip_existing)
			continue;
		if (!read_file(r, i))
			break;
	}
	pthread_mutex_lock(&r->lock);
	r->finished = true;
	pthread_cond_broadcast(&r->more);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static int alloc_ring(struct reader *r, const struct write_plan *wp)
{
	r->n = wp->ring_slots ? wp->ring_slots : 3;
	r->chunk = wp->chunk;
	r->bufs = calloc(r->n, sizeof(*r->bufs));
	r->slots = calloc(r->n, sizeof(*r->slots));
	if (!r->bufs || !r->slots)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n; i++) {
		int e = posix_memalign(&r->bufs[i], MAX(wp->mem_align, 4096), r->chunk);

		if (e)
			return -e;
	}
	return 0;
}

int reader_start(const struct plan *p, const struct write_plan *wp,
		 atomic_bool *cancel, struct reader **ret)
{
	struct reader *r = calloc(1, sizeof(*r));
	int e;

	if (!r)
		return -ENOMEM;
	r->plan = p;
	r->cancel = cancel;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->more, NULL);
	pthread_cond_init(&r->room, NULL);
	e = alloc_ring(r, wp);
	if (e == 0) {
		e = -pthread_create(&r->thread, NULL, reader_thread, r);
		r->started = e == 0;
	}
	if (e < 0) {
		reader_free(r);
		return e;
	}
	DEBUG(DEBUG_COPY, "reader: %u slots of %zu bytes", r->n, r->chunk);
	*ret = r;
	return 0;
}

int reader_next(struct reader *r, struct reader_chunk *ret)
{
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	while (r->ready == 0 && !r->finished && !should_stop(r))
		pthread_cond_wait(&r->more, &r->lock);
	if (r->ready > 0) {
		*ret = r->slots[r->tail];
		r->tail = (r->tail + 1) % r->n;
		r->ready--;
	} else {
		rc = should_stop(r) ? -ECANCELED : 1;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void reader_release(struct reader *r, const struct reader_chunk *c)
{
	(void)c; /* slots come back in order; the count is enough */
	pthread_mutex_lock(&r->lock);
	r->used--;
	pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->lock);
}

void reader_free(struct reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->room);
	pthread_cond_broadcast(&r->more);
	pthread_mutex_unlock(&r->lock);
	if (r->started)
		pthread_join(r->thread, NULL);
	for (unsigned i = 0; r->bufs && i < r->n; i++)
		free(r->bufs[i]);
	free(r->bufs);
	free(r->slots);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->more);
	pthread_cond_destroy(&r->room);
	free(r);
}
