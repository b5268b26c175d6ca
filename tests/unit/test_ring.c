/* test_ring.c: the ring of one producer and N cursors.
 *
 * The producer writes seq into every word of slot seq's buffer and into
 * its record; a consumer checks both when it takes the slot and again
 * just before it releases it, so a slot handed out twice, skipped, or
 * overwritten while a cursor holds it fails the case.  Waits are on
 * conditions (polled, with a deadline); the few short sleeps only give a
 * thread time to run into a block that the assertion after them checks
 * it is still in: correct code passes them whatever the timing. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/ring.h"
#include "base/clock.h"
#include "test.h"

#define SLOT_BYTES 512
#define WORDS (SLOT_BYTES / sizeof(uint64_t))
#define DEADLINE_S 20.0

struct meta {
	uint64_t seq;
	uint64_t check; /* ~seq: a torn or stale record shows */
};

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* Poll until *v >= want; false after DEADLINE_S. */
static bool wait_at_least(_Atomic uint64_t *v, uint64_t want)
{
	double end = clock_monotonic() + DEADLINE_S;

	while (atomic_load(v) < want)
		if (clock_monotonic() > end)
			return false;
		else
			sleep_s(0.001);
	return true;
}

static bool buf_holds(const void *buf, uint64_t seq)
{
	const uint64_t *w = buf;

	for (size_t i = 0; i < WORDS; i++)
		if (w[i] != seq)
			return false;
	return true;
}

/* The producer: publishes seqs [0, total), then finishes.  When a claim
 * names a laggard, it detaches it (when told to) and notes what it saw. */
struct producer {
	struct ring *r;
	uint64_t total;
	double hold_s;
	bool detach;
	/* bound check: released[c] counts the slots cursor c released
	 * (bumped before ring_release); NULL: not checked */
	_Atomic uint64_t *released;
	unsigned n_check;
	pthread_t thread;
	_Atomic uint64_t claimed, published;
	_Atomic uint64_t laggards;
	unsigned lag;
	uint64_t det_next, det_at_published;
	double det_at;
	_Atomic uint64_t overruns;
	int rc;
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	for (uint64_t seq = 0; seq < p->total;) {
		struct meta m = { seq, ~seq };
		unsigned lag = 99;
		void *buf;
		int rc = ring_claim_size(p->r, SLOT_BYTES, p->hold_s, &buf, &lag);

		if (rc < 0) {
			p->rc = rc;
			return NULL;
		}
		if (rc == 1) {
			p->lag = lag;
			p->det_at = clock_monotonic();
			p->det_at_published = seq;
			if (p->detach)
				ring_detach(p->r, lag, &p->det_next);
			atomic_fetch_add(&p->laggards, 1);
			if (!p->detach)
				sleep_s(0.01);
			continue;
		}
		atomic_fetch_add(&p->claimed, 1);
		/* seq reuses seq - n's buffer: every cursor must be done with it */
		for (unsigned c = 0; p->released && c < p->n_check; c++)
			if (seq >= ring_slots(p->r) &&
			    atomic_load(&p->released[c]) < seq - ring_slots(p->r) + 1)
				atomic_fetch_add(&p->overruns, 1);
		for (size_t i = 0; i < WORDS; i++)
			((uint64_t *)buf)[i] = seq;
		ring_publish(p->r, &m);
		atomic_store(&p->published, seq + 1);
		seq++;
	}
	ring_finish(p->r);
	return NULL;
}

static void producer_start(struct producer *p, struct ring *r, uint64_t total, double hold_s)
{
	p->r = r;
	p->total = total;
	p->hold_s = hold_s;
	if (pthread_create(&p->thread, NULL, produce, p) != 0) {
		perror("test_ring: pthread_create");
		exit(99);
	}
}

/* Join t; if it does not end in time, stop the ring so it does, and fail. */
static bool joined(pthread_t t, struct ring *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)DEADLINE_S;
	if (pthread_timedjoin_np(t, NULL, &ts) == 0)
		return true;
	printf("# a thread still blocked after %.0f s: stopping the ring\n", DEADLINE_S);
	ring_stop(r);
	pthread_join(t, NULL);
	return false;
}

/* A consumer: takes cursor c's slots from `next` on and checks each. */
struct consumer {
	struct ring *r;
	unsigned c;
	uint64_t next;       /* the seq it expects */
	uint64_t stop_at;    /* take no further than this (UINT64_MAX: to the end) */
	unsigned pace;       /* yield every pace slots (0: never) */
	unsigned nap_every;  /* hold a slot for a moment every so many (0: never) */
	_Atomic uint64_t *released;
	pthread_t thread;
	_Atomic uint64_t taken;
	unsigned bad_order, bad_content, overwritten;
	int end;             /* ring_take's last result */
};

static bool take_one(struct consumer *k)
{
	struct meta m;
	void *buf;
	uint64_t next;

	k->end = ring_take(k->r, k->c, &m, &buf, &next);
	if (k->end != 0)
		return false;
	atomic_fetch_add(&k->taken, 1);
	if (m.seq != k->next || m.check != ~m.seq)
		k->bad_order++;
	if (!buf_holds(buf, m.seq))
		k->bad_content++;
	if (k->pace && k->next % k->pace == 0)
		sched_yield();
	if (k->nap_every && k->next % k->nap_every == 0)
		sleep_s(0.002);
	if (!buf_holds(buf, m.seq))
		k->overwritten++;
	k->next = m.seq + 1;
	if (k->released)
		atomic_fetch_add(&k->released[k->c], 1);
	ring_release(k->r, k->c);
	return true;
}

static void *consume(void *arg)
{
	struct consumer *k = arg;

	while (k->next < k->stop_at && take_one(k))
		;
	return NULL;
}

static void consumer_start(struct consumer *k, struct ring *r, unsigned c)
{
	k->r = r;
	k->c = c;
	if (!k->stop_at)
		k->stop_at = UINT64_MAX;
	if (pthread_create(&k->thread, NULL, consume, k) != 0) {
		perror("test_ring: pthread_create");
		exit(99);
	}
}

#define CHECK_CONSUMER(k, total) \
	do { \
		CHECK_INT((k).bad_order, 0); \
		CHECK_INT((k).bad_content, 0); \
		CHECK_INT((k).overwritten, 0); \
		CHECK_U64((k).next, (total)); \
		CHECK_INT((k).end, 1); \
	} while (0)

static struct ring *ring_of(unsigned slots, unsigned cursors)
{
	struct ring *r = NULL;

	CHECK_INT(ring_new_arena(slots, (size_t)(slots) * 4096, 4096, sizeof(struct meta), cursors, &r), 0);
	if (!r)
		exit(99);
	return r;
}

TEST(new_refuses_no_slots_or_too_many_cursors)
{
	struct ring *r = NULL;

	CHECK_INT(ring_new_arena(0, (size_t)(0) * 4096, 4096, sizeof(struct meta), 1, &r), -EINVAL);
	CHECK_INT(ring_new_arena(4, (size_t)(4) * 4096, 4096, sizeof(struct meta), 0, &r), -EINVAL);
	CHECK_INT(ring_new_arena(4, (size_t)(4) * 4096, 4096, sizeof(struct meta), RING_CURSORS_MAX + 1, &r),
		  -EINVAL);
	CHECK(r == NULL);
	r = ring_of(4, RING_CURSORS_MAX);
	CHECK_INT(ring_slots(r), 4);
	CHECK_INT(ring_cursors(r), RING_CURSORS_MAX);
	ring_free(r);
}

TEST(one_cursor_gets_every_slot_in_order)
{
	struct ring *r = ring_of(4, 1);
	struct producer p = { 0 };
	struct consumer k = { .r = r, .c = 0, .stop_at = UINT64_MAX, .pace = 3 };

	producer_start(&p, r, 5000, 0);
	while (take_one(&k))
		;
	CHECK(joined(p.thread, r));
	CHECK_CONSUMER(k, 5000);
	CHECK_INT(p.rc, 0);
	/* and after the end, still the end */
	k.end = 0;
	take_one(&k);
	CHECK_INT(k.end, 1);
	ring_free(r);
}

/* Three cursors at different paces: each gets every slot, in order, as
 * published; the producer never claims the buffer of a seq some cursor
 * has not released. */
TEST(three_cursors_get_every_slot_none_overwritten)
{
	enum { N = 3, TOTAL = 4000 };
	struct ring *r = ring_of(4, N);
	_Atomic uint64_t released[N] = { 0 };
	struct producer p = { .released = released, .n_check = N };
	struct consumer k[N] = {
		{ .released = released },
		{ .released = released, .pace = 2 },
		{ .released = released, .pace = 1, .nap_every = 500 },
	};

	for (unsigned c = 0; c < N; c++)
		consumer_start(&k[c], r, c);
	producer_start(&p, r, TOTAL, 0);
	CHECK(joined(p.thread, r));
	for (unsigned c = 0; c < N; c++) {
		CHECK(joined(k[c].thread, r));
		CHECK_CONSUMER(k[c], TOTAL);
	}
	CHECK_U64(p.overruns, 0);
	CHECK_INT(p.laggards, 0);
	ring_free(r);
}

/* n_slots = 4: the producer runs at most 4 slots ahead of the slowest
 * cursor, whether that one takes nothing or holds what it took. */
TEST(producer_stays_within_slots_of_the_slowest)
{
	struct ring *r = ring_of(4, 2);
	struct producer p = { 0 };
	struct consumer slow = { .r = r, .c = 0, .stop_at = UINT64_MAX };
	struct consumer fast = { .stop_at = 4 };
	struct meta m;
	void *buf;
	uint64_t next;

	producer_start(&p, r, 100, 0);
	consumer_start(&fast, r, 1);
	CHECK(wait_at_least(&p.published, 4));
	CHECK(joined(fast.thread, r));
	sleep_s(0.05); /* time to claim a fifth, which it must not get */
	CHECK_U64(p.claimed, 4);
	/* the slow one takes seq 0 and holds it: still no room */
	CHECK_INT(ring_take(r, 0, &m, &buf, &next), 0);
	CHECK_U64(m.seq, 0);
	sleep_s(0.05);
	CHECK_U64(p.claimed, 4);
	CHECK(buf_holds(buf, 0));
	/* released: room for exactly one more */
	ring_release(r, 0);
	slow.next = 1;
	CHECK(wait_at_least(&p.published, 5));
	sleep_s(0.05);
	CHECK_U64(p.claimed, 5);
	/* the fast one takes the fifth; the slow one is still the bound */
	fast = (struct consumer){ .next = 4, .stop_at = 5 };
	consumer_start(&fast, r, 1);
	CHECK(joined(fast.thread, r));
	sleep_s(0.05);
	CHECK_U64(p.claimed, 5);
	/* both to the end */
	fast = (struct consumer){ .next = 5 };
	consumer_start(&fast, r, 1);
	while (take_one(&slow))
		;
	CHECK(joined(p.thread, r));
	CHECK(joined(fast.thread, r));
	CHECK_CONSUMER(slow, 100);
	CHECK_CONSUMER(fast, 100);
	ring_free(r);
}

/* A producer held by a full ring is woken when a quarter of it is free,
 * not at each released slot: 8 slots, one released is not enough, two
 * are (a wake-up per file was half the system calls of a small-file
 * copy). */
TEST(full_ring_wakes_the_producer_for_a_quarter)
{
	struct ring *r = ring_of(8, 1);
	struct producer p = { 0 };
	struct consumer k = { .r = r, .c = 0, .stop_at = UINT64_MAX };

	producer_start(&p, r, 40, 0);
	CHECK(wait_at_least(&p.published, 8));
	CHECK(take_one(&k));
	sleep_s(0.05); /* time to claim a ninth, which it must not get yet */
	CHECK_U64(p.claimed, 8);
	CHECK(take_one(&k));
	CHECK(wait_at_least(&p.claimed, 9));
	while (take_one(&k))
		;
	CHECK(joined(p.thread, r));
	CHECK_CONSUMER(k, 40);
	ring_free(r);
}

/* A cursor that takes nothing holds the producer until it leaves; what
 * it holds when it leaves is freed with it. */
TEST(leave_unblocks_the_producer)
{
	struct ring *r = ring_of(4, 2);
	struct producer p = { 0 };
	struct consumer fast = { 0 };
	struct meta m;
	void *buf;
	uint64_t next;

	producer_start(&p, r, 50, 0);
	consumer_start(&fast, r, 1);
	CHECK_INT(ring_take(r, 0, &m, &buf, &next), 0);
	CHECK_U64(m.seq, 0);
	CHECK(wait_at_least(&p.published, 4));
	sleep_s(0.05);
	CHECK_U64(p.claimed, 4);
	ring_leave(r, 0);
	CHECK(joined(p.thread, r));
	CHECK(joined(fast.thread, r));
	CHECK_CONSUMER(fast, 50);
	ring_free(r);
}

/* Cursor 0 takes two slots and stops; cursor 1 takes all there is and
 * waits.  After hold_s of that the claim names cursor 0, which is then
 * detached: its next take says so, with the seq it would have taken. */
TEST(laggard_detached_after_hold)
{
	enum { TOTAL = 40 };
	struct ring *r = ring_of(4, 2);
	struct producer p = { .detach = true };
	struct consumer fast = { .stop_at = 6 };
	struct meta m;
	void *buf;
	uint64_t next = 0;
	double starved_from;

	producer_start(&p, r, TOTAL, 0.1);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(ring_take(r, 0, &m, &buf, &next), 0);
		CHECK_U64(m.seq, (uint64_t)i);
		ring_release(r, 0);
	}
	/* cursor 1 takes seqs 0-5, the most the ring lets it have */
	consumer_start(&fast, r, 1);
	CHECK(joined(fast.thread, r));
	CHECK_U64(p.laggards, 0);
	/* and now waits for seq 6, from no earlier than starved_from */
	fast.stop_at = UINT64_MAX;
	starved_from = clock_monotonic();
	consumer_start(&fast, r, 1);
	CHECK(joined(p.thread, r));
	CHECK(joined(fast.thread, r));
	CHECK_CONSUMER(fast, TOTAL);
	CHECK_INT(p.laggards, 1);
	CHECK_INT(p.lag, 0);
	CHECK_U64(p.det_next, 2);
	/* held at seq 6 (ring full), and not before the hold ran out */
	CHECK_U64(p.det_at_published, 6);
	CHECK(p.det_at - starved_from >= 0.1);
	next = 0;
	CHECK_INT(ring_take(r, 0, &m, &buf, &next), RING_DETACHED);
	CHECK_U64(next, 2);
	next = 0;
	CHECK_INT(ring_take(r, 0, &m, &buf, &next), RING_DETACHED);
	CHECK_U64(next, 2);
	ring_free(r);
}

/* A full ring with no cursor waiting for data is no reason to detach:
 * not while every cursor stalls, not while they keep in step, and not
 * when the stalled cursor is the only one. */
TEST(no_laggard_unless_another_starves)
{
	enum { TOTAL = 200 };
	struct ring *r = ring_of(4, 2);
	struct producer p = { .detach = true };
	struct consumer k[2] = { { .r = r, .c = 0 }, { .r = r, .c = 1 } };
	bool more = true;

	producer_start(&p, r, TOTAL, 0.1);
	CHECK(wait_at_least(&p.published, 4));
	sleep_s(0.3); /* three holds: a wrong detach would have come */
	CHECK_INT(p.laggards, 0);
	CHECK_U64(p.claimed, 4);
	/* in step: whoever waits for data, the other is level with it, so
	 * the ring is not full */
	while (more)
		more = take_one(&k[0]) & take_one(&k[1]);
	CHECK(joined(p.thread, r));
	CHECK_CONSUMER(k[0], TOTAL);
	CHECK_CONSUMER(k[1], TOTAL);
	CHECK_INT(p.laggards, 0);
	ring_free(r);

	r = ring_of(4, 1);
	p = (struct producer){ .detach = true };
	k[0] = (struct consumer){ .r = r, .c = 0 };
	producer_start(&p, r, TOTAL, 0.1);
	CHECK(wait_at_least(&p.published, 4));
	sleep_s(0.3);
	CHECK_INT(p.laggards, 0);
	CHECK_U64(p.claimed, 4);
	while (take_one(&k[0]))
		;
	CHECK(joined(p.thread, r));
	CHECK_CONSUMER(k[0], TOTAL);
	CHECK_INT(p.laggards, 0);
	ring_free(r);
}

/* Detached while it holds seq 2: that slot is not reused (and the cursor
 * not named again) until it gives it back; then it learns it is
 * detached, at seq 3. */
TEST(detached_cursor_keeps_its_slot_until_released)
{
	enum { TOTAL = 30 };
	struct ring *r = ring_of(4, 2);
	struct producer p = { .detach = true };
	struct consumer fast = { 0 };
	struct meta m;
	void *held = NULL, *buf;
	uint64_t next = 0;

	producer_start(&p, r, TOTAL, 0.1);
	for (int i = 0; i < 3; i++) {
		CHECK_INT(ring_take(r, 0, &m, &held, &next), 0);
		CHECK_U64(m.seq, (uint64_t)i);
		if (i < 2)
			ring_release(r, 0);
	}
	consumer_start(&fast, r, 1);
	CHECK(wait_at_least(&fast.taken, 6));
	CHECK(wait_at_least(&p.laggards, 1));
	CHECK_INT(p.lag, 0);
	CHECK_U64(p.det_next, 3);
	sleep_s(0.3); /* a detached holder is no laggard: no second detach */
	CHECK_INT(p.laggards, 1);
	CHECK_U64(p.claimed, 6);
	CHECK(buf_holds(held, 2));
	ring_release(r, 0);
	CHECK(joined(p.thread, r));
	CHECK(joined(fast.thread, r));
	CHECK_CONSUMER(fast, TOTAL);
	CHECK_INT(p.laggards, 1);
	CHECK_INT(ring_take(r, 0, &m, &buf, &next), RING_DETACHED);
	CHECK_U64(next, 3);
	ring_free(r);
}

/* ring_stop fails a take waiting for data and a claim waiting for room. */
TEST(stop_wakes_take_and_claim)
{
	struct ring *r = ring_of(4, 2);
	struct producer p = { 0 };
	struct consumer k = { 0 };

	consumer_start(&k, r, 0);
	sleep_s(0.05); /* let it block: it fails the same if not yet */
	ring_stop(r);
	CHECK(joined(k.thread, r));
	CHECK_INT(k.end, -ECANCELED);
	CHECK_U64(k.taken, 0);
	ring_free(r);

	r = ring_of(4, 2);
	producer_start(&p, r, 100, 0);
	CHECK(wait_at_least(&p.published, 4));
	sleep_s(0.05);
	ring_stop(r);
	CHECK(joined(p.thread, r));
	CHECK_INT(p.rc, -ECANCELED);
	CHECK_U64(p.claimed, 4);
	ring_free(r);

	/* and one that waits for room behind a laggard, with a hold */
	r = ring_of(4, 2);
	p = (struct producer){ 0 };
	k = (struct consumer){ 0 };
	producer_start(&p, r, 100, 30);
	consumer_start(&k, r, 1);
	CHECK(wait_at_least(&k.taken, 4));
	sleep_s(0.05);
	ring_stop(r);
	CHECK(joined(p.thread, r));
	CHECK(joined(k.thread, r));
	CHECK_INT(p.rc, -ECANCELED);
	CHECK_INT(k.end, -ECANCELED);
	CHECK_INT(p.laggards, 0);
	ring_free(r);
}

/* ring_finish ends a take waiting for data: 1, after the slots there are. */
TEST(finish_ends_takes)
{
	struct ring *r = ring_of(4, 2);
	struct consumer k = { 0 }, k2 = { .r = r, .c = 0 };
	struct meta m = { 0, ~0ULL };
	void *buf;

	consumer_start(&k, r, 1);
	CHECK_INT(ring_claim_size(r, SLOT_BYTES, 0, &buf, NULL), 0);
	for (size_t i = 0; i < WORDS; i++)
		((uint64_t *)buf)[i] = 0;
	ring_publish(r, &m);
	CHECK(wait_at_least(&k.taken, 1));
	sleep_s(0.05); /* let it block on seq 1 */
	ring_finish(r);
	CHECK(joined(k.thread, r));
	CHECK_CONSUMER(k, 1);
	while (take_one(&k2))
		;
	CHECK_CONSUMER(k2, 1);
	ring_free(r);
}

/* The arena: chunks of many sizes (a page to a quarter of the arena)
 * share one buffer; each holds its seq in every byte, and two cursors at
 * different paces must see every one intact, in order, through many
 * returns to the arena's start. */
#define ARENA (64 * 1024)
#define ARENA_TOTAL 3000

static size_t arena_len(uint64_t seq)
{
	return 1 + (size_t)((seq * 2654435761u) % (ARENA / 4));
}

struct arena_cursor {
	struct ring *r;
	unsigned c;
	unsigned pause_every;
	_Atomic uint64_t bad, seen;
	pthread_t thread;
};

static void *arena_consumer(void *arg)
{
	struct arena_cursor *k = arg;
	struct meta m;
	void *buf;
	uint64_t next;

	while (ring_take(k->r, k->c, &m, &buf, &next) == 0) {
		const unsigned char *b = buf;
		size_t len = arena_len(m.seq);

		if (m.seq != atomic_load(&k->seen) || m.check != ~m.seq)
			atomic_fetch_add(&k->bad, 1);
		/* slow enough that the arena is full most of the time */
		if (k->pause_every && m.seq % k->pause_every == 0)
			sleep_s(0.0002);
		for (size_t i = 0; i < len; i++)
			if (b[i] != (unsigned char)m.seq) {
				atomic_fetch_add(&k->bad, 1);
				break;
			}
		atomic_fetch_add(&k->seen, 1);
		ring_release(k->r, k->c);
	}
	return NULL;
}

TEST(arena_chunks_of_every_size)
{
	struct ring *r = NULL;
	struct arena_cursor k[2] = { { .c = 0 }, { .c = 1, .pause_every = 3 } };

	CHECK_INT(ring_new_arena(32, ARENA, 4096, sizeof(struct meta), 2, &r), 0);
	if (!r)
		return;
	CHECK_U64(ring_arena_bytes(r), ARENA);
	for (int i = 0; i < 2; i++) {
		k[i].r = r;
		pthread_create(&k[i].thread, NULL, arena_consumer, &k[i]);
	}
	for (uint64_t seq = 0; seq < ARENA_TOTAL; seq++) {
		size_t len = arena_len(seq);
		void *buf;
		unsigned lag;
		struct meta m = { seq, ~seq };

		if (ring_claim_size(r, len, 0, &buf, &lag) != 0) {
			CHECK(false);
			break;
		}
		/* page aligned, inside the arena */
		CHECK(((uintptr_t)buf & 4095) == 0);
		memset(buf, (int)(unsigned char)seq, len);
		ring_publish(r, &m);
	}
	ring_finish(r);
	for (int i = 0; i < 2; i++) {
		pthread_join(k[i].thread, NULL);
		CHECK_U64(atomic_load(&k[i].seen), ARENA_TOTAL);
		CHECK_U64(atomic_load(&k[i].bad), 0);
	}
	/* more than the arena cannot be claimed */
	{
		void *buf;
		unsigned lag;

		CHECK_INT(ring_claim_size(r, ARENA + 1, 0, &buf, &lag), -EINVAL);
	}
	ring_free(r);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(12);
	RUN(arena_chunks_of_every_size);
	RUN(new_refuses_no_slots_or_too_many_cursors);
	RUN(one_cursor_gets_every_slot_in_order);
	RUN(three_cursors_get_every_slot_none_overwritten);
	RUN(producer_stays_within_slots_of_the_slowest);
	RUN(leave_unblocks_the_producer);
	RUN(full_ring_wakes_the_producer_for_a_quarter);
	RUN(laggard_detached_after_hold);
	RUN(no_laggard_unless_another_starves);
	RUN(detached_cursor_keeps_its_slot_until_released);
	RUN(stop_wakes_take_and_claim);
	RUN(finish_ends_takes);
	return test_summary();
}
