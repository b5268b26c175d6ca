/* event_queue.c: see event_queue.h.  The eventfd is written and drained
 * under the lock, so "readable" and "not empty" are the same fact. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/event_queue.h"
#include "base/grow.h"

struct event_queue {
	pthread_mutex_t lock;
	int efd;
	size_t elem;
	unsigned char *records; /* cap records; the live ones from head, len of them */
	size_t head, len, cap;
};

int event_queue_new(size_t elem, struct event_queue **ret)
{
	struct event_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->efd < 0) {
		int err = -errno;

		free(q);
		return err;
	}
	q->elem = elem;
	pthread_mutex_init(&q->lock, NULL);
	*ret = q;
	return 0;
}

int event_queue_fd(const struct event_queue *q)
{
	return q->efd;
}

bool event_queue_push(struct event_queue *q, const void *record)
{
	static const uint64_t one = 1;
	bool ok = true;

	pthread_mutex_lock(&q->lock);
	if (q->head + q->len == q->cap && q->head > 0) {
		memmove(q->records, q->records + q->head * q->elem, q->len * q->elem);
		q->head = 0;
	}
	if (q->len == q->cap)
		ok = grow_array(&q->records, &q->cap, q->len + 1, q->elem, 32) == 0;
	if (ok) {
		memcpy(q->records + (q->head + q->len++) * q->elem, record, q->elem);
		/* only the first record makes it readable: a tree of small files
		 * pushes two events per file, and a write (and a wake-up) each
		 * would cost more than the file.  A counter far below its limit:
		 * this write cannot block or fail */
		if (q->len == 1)
			(void)!write(q->efd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&q->lock);
	return ok;
}

/* The oldest record, if any: true. */
static bool take(struct event_queue *q, void *ret)
{
	uint64_t drained;
	bool got;

	pthread_mutex_lock(&q->lock);
	got = q->len > 0;
	if (got) {
		memcpy(ret, q->records + q->head * q->elem, q->elem);
		q->head++;
		if (--q->len == 0) {
			q->head = 0;
			(void)!read(q->efd, &drained, sizeof(drained));
		}
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

int event_queue_pop(struct event_queue *q, int timeout_ms, void *ret)
{
	struct pollfd p = { .fd = q->efd, .events = POLLIN };

	for (;;) {
		int n;

		if (take(q, ret))
			return 1;
		if (timeout_ms == 0)
			return 0;
		n = poll(&p, 1, timeout_ms);
		if (n < 0)
			return errno == EINTR ? -EINTR : -errno;
		if (n == 0)
			return 0;
	}
}

void event_queue_free(struct event_queue *q, void (*done)(void *record))
{
	if (!q)
		return;
	for (size_t i = 0; done && i < q->len; i++)
		done(q->records + (q->head + i) * q->elem);
	free(q->records);
	close(q->efd);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
