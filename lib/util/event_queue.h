/* event_queue.h: records from a library's threads to the one thread that
 * polls them, in the order they were put in.
 *
 * A queue of fixed-size records under a lock, and an eventfd that is
 * readable exactly while the queue holds something, so a caller can put
 * it into its own poll loop.  The threads that push never call into the
 * caller and never wait for it. */
#ifndef SAFECP_EVENT_QUEUE_H
#define SAFECP_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

struct event_queue;

/* A queue of records of elem bytes: 0, or -errno. */
int event_queue_new(size_t elem, struct event_queue **ret);

/* Readable while an event waits; the queue's own (never close it). */
int event_queue_fd(const struct event_queue *q);

/* Copy the record in; false when there is no memory for it (then the
 * caller still owns what the record points to). */
bool event_queue_push(struct event_queue *q, const void *record);

/* The oldest record into ret: 1; 0 when none came within timeout_ms
 * (0: do not wait, -1: wait for one); -EINTR when a signal the thread
 * does not block came first. */
int event_queue_pop(struct event_queue *q, int timeout_ms, void *ret);

/* Free the queue; done(record) releases each record never popped. */
void event_queue_free(struct event_queue *q, void (*done)(void *record));

#endif
