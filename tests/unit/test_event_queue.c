/* test_event_queue.c: lib/util/event_queue, the queue a job's threads
 * tell their caller through. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/event_queue.h"
#include "test.h"

struct rec {
	unsigned producer;
	unsigned seq;
	char *owned;
};

static bool readable(const struct event_queue *q)
{
	struct pollfd p = { .fd = event_queue_fd(q), .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

TEST(fifo_and_fd_readable_exactly_while_not_empty)
{
	struct event_queue *q;
	struct rec r;

	CHECK_INT(event_queue_new(sizeof(struct rec), &q), 0);
	CHECK(!readable(q));
	CHECK_INT(event_queue_pop(q, 0, &r), 0);
	/* past the first capacity, with the head moved in between */
	for (unsigned i = 0; i < 10; i++)
		CHECK(event_queue_push(q, &(struct rec){ 0, i, NULL }));
	for (unsigned i = 0; i < 5; i++) {
		CHECK_INT(event_queue_pop(q, 0, &r), 1);
		CHECK_INT(r.seq, i);
	}
	for (unsigned i = 10; i < 100; i++)
		CHECK(event_queue_push(q, &(struct rec){ 0, i, NULL }));
	CHECK(readable(q));
	for (unsigned i = 5; i < 100; i++) {
		CHECK(readable(q));
		CHECK_INT(event_queue_pop(q, -1, &r), 1);
		CHECK_INT(r.seq, i);
	}
	CHECK(!readable(q));
	event_queue_free(q, NULL);
}

TEST(pop_waits_no_longer_than_asked)
{
	struct event_queue *q;
	struct rec r;

	CHECK_INT(event_queue_new(sizeof(struct rec), &q), 0);
	CHECK_INT(event_queue_pop(q, 20, &r), 0);
	event_queue_free(q, NULL);
}

static void free_owned(void *record)
{
	free(((struct rec *)record)->owned);
}

TEST(free_releases_what_was_never_popped)
{
	struct event_queue *q;

	CHECK_INT(event_queue_new(sizeof(struct rec), &q), 0);
	for (unsigned i = 0; i < 3; i++)
		CHECK(event_queue_push(q, &(struct rec){ 0, i, malloc(16) }));
	event_queue_free(q, free_owned); /* LeakSanitizer: nothing left */
}

#define PRODUCERS 4
#define EACH 20000

struct producer {
	struct event_queue *q;
	unsigned id;
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	for (unsigned i = 0; i < EACH; i++)
		while (!event_queue_push(p->q, &(struct rec){ p->id, i, NULL })) {
			/* no memory: try again */
		}
	return NULL;
}

/* Several threads push while one pops, blocking: every record arrives
 * once, each producer's in its order. */
TEST(threads_push_one_pops_in_each_ones_order)
{
	struct producer p[PRODUCERS];
	pthread_t t[PRODUCERS];
	unsigned next[PRODUCERS] = { 0 };
	struct event_queue *q;
	struct rec r;
	bool in_order = true;

	CHECK_INT(event_queue_new(sizeof(struct rec), &q), 0);
	for (unsigned i = 0; i < PRODUCERS; i++) {
		p[i] = (struct producer){ q, i };
		pthread_create(&t[i], NULL, produce, &p[i]);
	}
	for (unsigned n = 0; n < PRODUCERS * EACH; n++) {
		if (event_queue_pop(q, 5000, &r) != 1) {
			FAIL_AT("record %u did not come", n);
			break;
		}
		in_order = in_order && r.producer < PRODUCERS && r.seq == next[r.producer];
		if (r.producer < PRODUCERS)
			next[r.producer]++;
	}
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	CHECK(in_order);
	for (unsigned i = 0; i < PRODUCERS; i++)
		CHECK_INT(next[i], EACH);
	CHECK(!readable(q));
	event_queue_free(q, NULL);
}

int main(void)
{
	RUN(fifo_and_fd_readable_exactly_while_not_empty);
	RUN(pop_waits_no_longer_than_asked);
	RUN(free_releases_what_was_never_popped);
	RUN(threads_push_one_pops_in_each_ones_order);
	return test_summary();
}
