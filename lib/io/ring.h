/* ring.h: one producer, N consumers at their own pace, bounded memory.
 *
 * One aligned arena of buffers.  The producer claims the next slot (the
 * bytes it needs, from the arena), fills it and publishes it with a small
 * record of what it holds (meta, meta_size bytes, copied).  Each consumer has a cursor: it takes the
 * slots in order, one at a time, and releases each before taking the
 * next.  A slot is reused only when every cursor still in the ring has
 * released it, so the slowest cursor bounds how far the producer runs
 * ahead, and memory stays the arena whatever the number of consumers.
 *
 * A cursor that holds the producer back while another cursor waits for
 * data, for longer than the producer tolerates, is the laggard: the
 * producer may detach it.  A detached cursor no longer holds any slot
 * but the one it has taken; its next take returns RING_DETACHED with the
 * sequence number it would have taken, and its consumer goes on from
 * another source (a second read of the same data).  A cursor whose
 * consumer stopped leaves the ring.  The ring never prints and knows
 * nothing of files. */
#ifndef SAFECP_RING_H
#define SAFECP_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RING_CURSORS_MAX 16

struct ring;

/* take: this cursor was detached (see above) */
#define RING_DETACHED 2

/* The slots share one buffer of arena_bytes: each claim takes the bytes
 * it asks for, rounded up to align, so many small chunks fit where one
 * large one would.  At most n_slots are in the ring at a time. */
int ring_new_arena(unsigned n_slots, size_t arena_bytes, size_t align, size_t meta_size,
		   unsigned n_cursors, struct ring **ret);
void ring_free(struct ring *r);

unsigned ring_slots(const struct ring *r);
size_t ring_arena_bytes(const struct ring *r);
unsigned ring_cursors(const struct ring *r);

/* Producer: wait for a free slot with room for bytes (at most the arena's
 * size) and return its buffer in *buf.  0; -EINVAL for more than the
 * arena; -ECANCELED after ring_stop(); 1 with *laggard set when the
 * producer has been held for hold_s seconds in all by cursor *laggard
 * while another cursor had nothing to take (hold_s <= 0: never).  The
 * caller may then ring_detach() it and claim again. */
int ring_claim_size(struct ring *r, size_t bytes, double hold_s, void **buf, unsigned *laggard);
/* Publish the claimed slot with its record. */
void ring_publish(struct ring *r, const void *meta);
/* No more slots: takes past the last published one return 1. */
void ring_finish(struct ring *r);
/* Wake and fail every wait (claims and takes return -ECANCELED). */
void ring_stop(struct ring *r);

/* Sequence number of the next slot the producer will publish. */
uint64_t ring_produced(const struct ring *r);
/* The oldest seq some cursor still holds or has yet to take (what it
 * published before is free), or ring_produced() when none. */
uint64_t ring_oldest(const struct ring *r);
/* The record of published slot seq, still in the ring (producer only:
 * valid for the seqs at or after the slowest cursor's); false if gone. */
bool ring_meta(const struct ring *r, uint64_t seq, void *meta);

/* Producer: detach cursor c; *next: the seq it would take next. */
void ring_detach(struct ring *r, unsigned c, uint64_t *next);

/* Consumer c: the next slot in order.  0 with *meta and *buf filled; 1
 * after the last one; -ECANCELED after stop; RING_DETACHED with *next. */
int ring_take(struct ring *r, unsigned c, void *meta, void **buf, uint64_t *next);
/* Consumer c gives back the slot it took. */
void ring_release(struct ring *r, unsigned c);
/* Consumer c stops taking (it finished or failed); what it holds is freed. */
void ring_leave(struct ring *r, unsigned c);

#endif
