/* ring.c: the slots are numbered by a 64-bit sequence that only grows;
 * slot seq's record lives at seq % n.  A cursor is its next seq to take
 * and whether it holds the one before; the producer may publish seq
 * `produced` while produced - (the oldest seq still held or not yet
 * taken by a cursor in the ring) < n, and the bytes it asks for fit in
 * the arena between the newest slot's end and the oldest pinned slot's
 * start.  Slots are released in order, so the arena is a FIFO: a chunk
 * that does not fit before the end starts again at 0. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/ring.h"
#include "base/cleanup.h"
#include "base/clock.h"

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
	size_t arena_bytes, align;
	unsigned char *arena;
	size_t *start, *end;     /* per slot record: its bytes in the arena */
	size_t claim_at, claim_len; /* the claimed slot's place */
	unsigned char *meta;
	unsigned n_cursors;
	struct cursor cursors[RING_CURSORS_MAX];
	pthread_mutex_t lock;
	pthread_cond_t room, more;
	uint64_t produced;
	bool finished, stop;
	double held_s;           /* see ring_claim_size() */
	size_t room_wanted;      /* a producer waits for this much room (0: none) */
};

int ring_new_arena(unsigned n_slots, size_t arena_bytes, size_t align, size_t meta_size,
		   unsigned n_cursors, struct ring **ret)
{
	struct ring *r;
	int e;

	if (n_slots == 0 || n_cursors == 0 || n_cursors > RING_CURSORS_MAX)
		return -EINVAL;
	if (align < sizeof(void *))
		align = sizeof(void *);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->n = n_slots;
	r->meta_size = meta_size;
	r->n_cursors = n_cursors;
	r->align = align;
	r->arena_bytes = (arena_bytes + align - 1) / align * align;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->room, NULL);
	pthread_cond_init(&r->more, NULL);
	r->meta = calloc(n_slots, meta_size ? meta_size : 1);
	r->start = calloc(n_slots, sizeof(*r->start));
	r->end = calloc(n_slots, sizeof(*r->end));
	e = posix_memalign((void **)&r->arena, align, r->arena_bytes ? r->arena_bytes : 1);
	if (e)
		r->arena = NULL;
	if (!r->meta || !r->start || !r->end || !r->arena) {
		ring_free(r);
		return e ? -e : -ENOMEM;
	}
	*ret = r;
	return 0;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	free(r->arena);
	free(r->start);
	free(r->end);
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

size_t ring_arena_bytes(const struct ring *r)
{
	return r->arena_bytes;
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

/* Where `len` bytes fit, given the oldest pinned seq; false if not yet.
 * Starts only grow from the oldest slot in the ring to the newest, but
 * for one return to 0: the newest starting before the oldest means the
 * bytes in use wrap around the end. */
static bool fits(const struct ring *r, uint64_t pin, size_t len, size_t *at)
{
	size_t tail, head;

	if (pin == UINT64_MAX || pin >= r->produced) {
		*at = 0; /* nothing in the ring */
		return true;
	}
	if (r->produced - pin >= r->n)
		return false;
	tail = r->start[pin % r->n];
	head = r->end[(r->produced - 1) % r->n];
	if (r->start[(r->produced - 1) % r->n] >= tail) {
		/* in use: [tail, head) */
		if (r->arena_bytes - head >= len) {
			*at = head;
			return true;
		}
		if (tail >= len) {
			*at = 0;
			return true;
		}
		return false;
	}
	/* in use: [tail, end) and [0, head) */
	if (tail - head >= len) {
		*at = head;
		return true;
	}
	return false;
}

/* Room enough to wake a waiting producer: its claim and a quarter of
 * the arena, a quarter of the slots free.  It then refills in bursts
 * instead of a wake-up per released slot (small files: one per file),
 * and a consumer that lets the ring fill still finds three quarters of
 * it queued. */
static bool room_for_burst(const struct ring *r)
{
	uint64_t pin;
	size_t at;

	oldest_in(r, &pin);
	if (pin < r->produced && r->n - (r->produced - pin) < MAX(r->n / 4, 1u))
		return false;
	return fits(r, pin, r->room_wanted, &at); /* an empty ring fits */
}

/* The laggard: the time the producer spent held back while another
 * cursor had nothing to take adds up across claims, and starts again at
 * 0 when a claim finds no cursor starving: a destination that keeps its
 * own pace but lets the ring fill is not a laggard, one that the others
 * wait for chunk after chunk is. */
int ring_claim_size(struct ring *r, size_t bytes, double hold_s, void **buf, unsigned *laggard)
{
	size_t len = (bytes + r->align - 1) / r->align * r->align, at = 0;
	int rc = 0;

	if (len > r->arena_bytes)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		uint64_t pin;
		int who = oldest_in(r, &pin);

		if (r->stop) {
			rc = -ECANCELED;
			break;
		}
		if (fits(r, pin, len, &at)) {
			r->claim_at = at;
			r->claim_len = len;
			*buf = r->arena + at;
			if (who < 0 || !someone_starves(r, (unsigned)who))
				r->held_s = 0;
			break;
		}
		if (hold_s > 0 && who >= 0 && someone_starves(r, (unsigned)who)) {
			double before = clock_monotonic();

			if (r->held_s >= hold_s) {
				*laggard = (unsigned)who;
				r->held_s = 0;
				rc = 1;
				break;
			}
			wait_until(&r->room, &r->lock, 0.05);
			r->held_s += clock_monotonic() - before;
		} else {
			size_t quarter = (r->arena_bytes / 4 + r->align - 1) / r->align * r->align;

			r->room_wanted = MAX(len, MIN(r->arena_bytes, quarter));
			pthread_cond_wait(&r->room, &r->lock);
		}
	}
	r->room_wanted = 0;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void ring_publish(struct ring *r, const void *meta)
{
	pthread_mutex_lock(&r->lock);
	memcpy(r->meta + (size_t)(r->produced % r->n) * r->meta_size, meta, r->meta_size);
	r->start[r->produced % r->n] = r->claim_at;
	r->end[r->produced % r->n] = r->claim_at + r->claim_len;
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

uint64_t ring_oldest(const struct ring *r)
{
	struct ring *w = (struct ring *)r;
	uint64_t pin;

	pthread_mutex_lock(&w->lock);
	oldest_in(r, &pin);
	if (pin > r->produced)
		pin = r->produced;
	pthread_mutex_unlock(&w->lock);
	return pin;
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
			*buf = r->arena + r->start[k->taken % r->n];
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
	if (!r->room_wanted || room_for_burst(r))
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
