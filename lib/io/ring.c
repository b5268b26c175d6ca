/* ring.c: the slots are numbered by a 64-bit sequence that only grows;
 * slot seq lives in buffer seq % n.  A cursor is its next seq to take
 * and whether it holds the one before; the producer may publish seq
 * `produced` while produced - (the oldest seq still held or not yet
 * taken by a cursor in the ring) < n. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/ring.h"
#include "util/clock.h"

enum cursor_state { CURSOR_IN, CURSOR_DETACHED, CURSOR_LEFT };

struct cursor {
	uint64_t taken;   /* seqs below this were taken */
	bool held;        /* seq taken - 1 is not released yet */
	bool waiting;     /* in ring_take() with nothing to take */
	enum cursor_state state;
};

struct ring {
	unsigned n;
	size_t meta_size;
	void **bufs;
	unsigned char *meta;
	unsigned n_cursors;
	struct cursor cursors[RING_CURSORS_MAX];
	pthread_mutex_t lock;
	pthread_cond_t room, more;
	uint64_t produced;
	bool finished, stop;
};

int ring_new(unsigned n_slots, size_t slot_bytes, size_t align, size_t meta_size,
	     unsigned n_cursors, struct ring **ret)
{
	struct ring *r;

	if (n_slots == 0 || n_cursors == 0 || n_cursors > RING_CURSORS_MAX)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->n = n_slots;
	r->meta_size = meta_size;
	r->n_cursors = n_cursors;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->room, NULL);
	pthread_cond_init(&r->more, NULL);
	r->bufs = calloc(n_slots, sizeof(*r->bufs));
	r->meta = calloc(n_slots, meta_size ? meta_size : 1);
	if (!r->bufs || !r->meta) {
		ring_free(r);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n_slots; i++) {
		int e = posix_memalign(&r->bufs[i], align < sizeof(void *) ? sizeof(void *) : align,
				       slot_bytes ? slot_bytes : 1);

		if (e) {
			r->bufs[i] = NULL;
			ring_free(r);
			return -e;
		}
	}
	*ret = r;
	return 0;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	for (unsigned i = 0; r->bufs && i < r->n; i++)
		free(r->bufs[i]);
	free(r->bufs);
	free(r->meta);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->room);
	pthread_cond_destroy(&r->more);
	free(r);
}

unsigned ring_slots(const struct ring *r)
{
	return r->n;
}

unsigned ring_cursors(const struct ring *r)
{
	return r->n_cursors;
}

/* The oldest seq cursor c keeps in the ring, or UINT64_MAX for none. */
static uint64_t pin_of(const struct cursor *c)
{
	switch (c->state) {
	case CURSOR_IN:
		return c->held ? c->taken - 1 : c->taken;
	case CURSOR_DETACHED:
		return c->held ? c->taken - 1 : UINT64_MAX;
	default:
		return UINT64_MAX;
	}
}

/* The cursor in the ring that pins the oldest slot (ties: the first), or -1. */
static int oldest_in(const struct ring *r, uint64_t *pin)
{
	int who = -1;

	*pin = UINT64_MAX;
	for (unsigned i = 0; i < r->n_cursors; i++) {
		uint64_t p = pin_of(&r->cursors[i]);

		if (p < *pin) {
			*pin = p;
			who = r->cursors[i].state == CURSOR_IN ? (int)i : -1;
		}
	}
	return who;
}

static bool someone_starves(const struct ring *r, unsigned except)
{
	for (unsigned i = 0; i < r->n_cursors; i++)
		if (i != except && r->cursors[i].state == CURSOR_IN && r->cursors[i].waiting)
			return true;
	return false;
}

static void wait_until(pthread_cond_t *c, pthread_mutex_t *m, double seconds)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)seconds;
	ts.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(c, m, &ts);
}

int ring_claim(struct ring *r, double hold_s, void **buf, unsigned *laggard)
{
	double held_since = -1;
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		uint64_t pin;
		int who = oldest_in(r, &pin);

		if (r->stop) {
			rc = -ECANCELED;
			break;
		}
		if (pin == UINT64_MAX || r->produced - pin < r->n) {
			*buf = r->bufs[r->produced % r->n];
			break;
		}
		if (hold_s > 0 && who >= 0 && someone_starves(r, (unsigned)who)) {
			double now = clock_monotonic();

			if (held_since < 0)
				held_since = now;
			else if (now - held_since >= hold_s) {
				*laggard = (unsigned)who;
				rc = 1;
				break;
			}
			wait_until(&r->room, &r->lock, 0.05);
		} else {
			held_since = -1;
			pthread_cond_wait(&r->room, &r->lock);
		}
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void ring_publish(struct ring *r, const void *meta)
{
	pthread_mutex_lock(&r->lock);
	memcpy(r->meta + (size_t)(r->produced % r->n) * r->meta_size, meta, r->meta_size);
	r->produced++;
	pthread_cond_broadcast(&r->more);
	pthread_mutex_unlock(&r->lock);
}

void ring_finish(struct ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->finished = true;
	pthread_cond_broadcast(&r->more);
	pthread_mutex_unlock(&r->lock);
}

void ring_stop(struct ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->more);
	pthread_cond_broadcast(&r->room);
	pthread_mutex_unlock(&r->lock);
}

uint64_t ring_produced(const struct ring *r)
{
	struct ring *w = (struct ring *)r;
	uint64_t p;

	pthread_mutex_lock(&w->lock);
	p = r->produced;
	pthread_mutex_unlock(&w->lock);
	return p;
}

bool ring_meta(const struct ring *r, uint64_t seq, void *meta)
{
	struct ring *w = (struct ring *)r;
	bool ok;

	pthread_mutex_lock(&w->lock);
	ok = seq < r->produced && r->produced - seq <= r->n;
	if (ok)
		memcpy(meta, r->meta + (size_t)(seq % r->n) * r->meta_size, r->meta_size);
	pthread_mutex_unlock(&w->lock);
	return ok;
}

void ring_detach(struct ring *r, unsigned c, uint64_t *next)
{
	pthread_mutex_lock(&r->lock);
	r->cursors[c].state = CURSOR_DETACHED;
	*next = r->cursors[c].taken;
	pthread_cond_broadcast(&r->more);
	pthread_cond_broadcast(&r->room);
	pthread_mutex_unlock(&r->lock);
}

int ring_take(struct ring *r, unsigned c, void *meta, void **buf, uint64_t *next)
{
	struct cursor *k = &r->cursors[c];
	int rc;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (k->state == CURSOR_DETACHED) {
			*next = k->taken;
			rc = RING_DETACHED;
			break;
		}
		if (k->taken < r->produced) {
			memcpy(meta, r->meta + (size_t)(k->taken % r->n) * r->meta_size, r->meta_size);
			*buf = r->bufs[k->taken % r->n];
			k->taken++;
			k->held = true;
			rc = 0;
			break;
		}
		if (r->stop || r->finished) {
			rc = r->stop ? -ECANCELED : 1;
			break;
		}
		/* a producer held by a laggard sleeps until someone starves:
		 * tell it, or a cursor that stalled for good is never detached */
		k->waiting = true;
		pthread_cond_broadcast(&r->room);
		pthread_cond_wait(&r->more, &r->lock);
		k->waiting = false;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void ring_release(struct ring *r, unsigned c)
{
	pthread_mutex_lock(&r->lock);
	r->cursors[c].held = false;
	pthread_cond_broadcast(&r->room);
	pthread_mutex_unlock(&r->lock);
}

void ring_leave(struct ring *r, unsigned c)
{
	pthread_mutex_lock(&r->lock);
	r->cursors[c].state = CURSOR_LEFT;
	r->cursors[c].held = false;
	pthread_cond_broadcast(&r->room);
	pthread_mutex_unlock(&r->lock);
}
