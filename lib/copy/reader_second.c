/* reader_second.c: a detached cursor's second reader.
 *
 * With several destinations the first reader hashes each chunk it reads
 * into the ring (a lent one is not: reader_lend.c), and a cursor that
 * holds the ring full while another waits for data for a moment
 * (reader.c's DETACH_HOLD_S) is detached, on the first reader's thread:
 * its destination goes on from a second reader of its own, which the
 * cursor's consumer starts at its next take and which reads the source
 * again from the cursor's place.  The first reader leaves the second an
 * expectation for every chunk the second will read again (those still
 * in the ring when it was detached, and those the first reads after,
 * while the second is not past them), and the second compares: bytes
 * that differ mean the source changed between the reads, and that file
 * is flagged changed for that destination.
 *
 * The second reader runs the loop of reader.c with one cursor of its
 * own; its state is the served cursor's struct reader_second.  It shares
 * the first's lock and counters, drops behind itself what the first
 * found uncached, and lends what the first lends. */
#include <search.h>
#include <stdlib.h>

#include "copy/reader.h"
#include "copy/reader_internal.h"
#include "hash/chunk_hash.h"
#include "io/ring.h"
#include "util/debug.h"

/* A chunk the first read hashed, for a detached cursor to compare. */
struct expect {
	size_t entry;
	uint64_t offset;
	uint64_t hash;
};

static int cmp_expect(const void *a, const void *b)
{
	const struct expect *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* First reader, under its lock: remember chunk c for detached cursor k,
 * unless k's own reader is already past it. */
static void expect_add(struct reader_cursor *k, const struct reader_chunk *c)
{
	struct reader_second *s = &k->second;
	struct expect *x, **found;

	if (c->len == 0 || c->lent || c->hole || c->err || !s->detached || k->left ||
	    atomic_load(&s->at) > c->entry)
		return;
	x = malloc(sizeof(*x));
	if (!x)
		return; /* that chunk is then not compared, only read twice */
	*x = (struct expect){ c->entry, c->offset, c->hash };
	found = tsearch(x, &s->expect, cmp_expect);
	if (!found || *found != x)
		free(x);
}

/* Second reader: does chunk c match the first read of it, where there
 * was one? */
static bool expect_check(struct reader *r, const struct reader_chunk *c)
{
	struct reader *f = r->first;
	struct reader_second *s = r->second;
	struct expect key = { c->entry, c->offset, 0 }, **found, *x;
	bool same = true;

	pthread_mutex_lock(&f->lock);
	found = tfind(&key, &s->expect, cmp_expect);
	if (found) {
		x = *found;
		same = x->hash == c->hash;
		tdelete(&key, &s->expect, cmp_expect);
		free(x);
	}
	pthread_mutex_unlock(&f->lock);
	if (!same)
		atomic_fetch_add(&f->mismatches, 1);
	return same;
}

/* First reader: detach cursor lag, which holds the ring full.  It goes
 * on from the oldest chunk it has not taken, or, when it has taken them
 * all, from the one being read now. */
void second_detach(struct reader *r, unsigned lag)
{
	struct reader_cursor *k = &r->cursors[lag];
	struct reader_second *s = &k->second;
	struct reader_chunk m;
	uint64_t next, produced;

	pthread_mutex_lock(&r->lock);
	ring_detach(r->ring, lag, &next);
	produced = ring_produced(r->ring);
	s->entry = r->at_entry;
	s->offset = r->at_offset;
	if (next < produced && ring_meta(r->ring, next, &m)) {
		s->entry = m.entry;
		s->offset = m.offset;
	}
	s->detached = true;
	for (uint64_t q = next; q < produced; q++)
		if (ring_meta(r->ring, q, &m))
			expect_add(k, &m);
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add(&r->detached, 1);
	DEBUG(DEBUG_COPY, "reader: cursor %u detached at entry %zu offset %llu", lag, s->entry,
	      (unsigned long long)s->offset);
}

/* Chunk c is about to be published: with several cursors hash it; the
 * first reader then remembers it for its detached cursors, a second
 * reader compares it with the first read and flags a difference. */
void second_note(struct reader *r, struct reader_chunk *c)
{
	if (r->second)
		atomic_store(&r->second->at, c->entry);
	/* a lent chunk has no bytes here: see reader_lend.c */
	if (!r->hashing || c->lent || c->hole || c->len == 0 || c->err)
		return;
	c->hash = chunk_hash(c->buf, c->len);
	if (r->second) {
		if (!expect_check(r, c))
			c->changed = c->last = true;
		return;
	}
	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < r->n; i++)
		expect_add(&r->cursors[i], c);
	pthread_mutex_unlock(&r->lock);
}

/* Detached cursor k goes on from a reader of its own (its first one's
 * chunk size, alignment and share of the ring), which starts where k
 * was; on the consumer's thread. */
int second_start(struct reader_cursor *k)
{
	struct reader *f = k->r, *own;
	unsigned slots = (unsigned)(ring_arena_bytes(f->ring) / f->chunk) / f->n;
	int e = reader_new(&k->plan, 1, f->chunk, f->align, slots, f->cancel, &own);

	if (e < 0)
		return e;
	own->first = f;
	own->second = &k->second;
	own->hashing = true;
	pthread_mutex_lock(&f->lock);
	own->start_entry = k->second.entry;
	own->start_offset = k->second.offset;
	own->cursors[0].skip_from = k->skip_from;
	own->cursors[0].skip_to = k->skip_to;
	atomic_store(&k->second.at, k->second.entry);
	pthread_mutex_unlock(&f->lock);
	e = reader_run(own);
	if (e < 0) {
		reader_free(own);
		return e;
	}
	k->second.reader = own;
	return 0;
}

/* The first reader's thread is joined: end cursor k's second reader and
 * drop what was left for it. */
void second_end(struct reader_cursor *k)
{
	reader_free(k->second.reader);
	k->second.reader = NULL;
	tdestroy(k->second.expect, free);
	k->second.expect = NULL;
}
