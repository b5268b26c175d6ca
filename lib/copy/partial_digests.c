/* partial_digests.c: see partial_digests.h. */
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/grow.h"
#include "base/sorted.h"
#include "copy/partial_digests.h"
#include "hash/chunk_hash.h"

/* One file's digests: few files are large, so a sorted list, not a
 * table over every entry. */
struct wanted {
	size_t idx;
	uint64_t chunk, from;
	size_t n;                 /* whole chunks in the file */
	_Atomic uint64_t *digest; /* n of them, valid where ready */
	_Atomic bool *ready;
};

struct partial_digests {
	struct wanted *v;
	size_t n, cap;
	/* the reader's thread only */
	struct chunk_hash_stream *stream;
	size_t cur;               /* the wanted entry being read (SIZE_MAX: none yet) */
	size_t next;              /* the first not yet reached */
	uint64_t at;              /* its next byte */
	bool bad;                 /* its read failed: nothing more of it */
};

int partial_digests_new(struct partial_digests **ret)
{
	struct partial_digests *d = calloc(1, sizeof(*d));

	if (!d || !(d->stream = chunk_hash_stream_new())) {
		free(d);
		return -ENOMEM;
	}
	d->cur = SIZE_MAX;
	*ret = d;
	return 0;
}

void partial_digests_free(struct partial_digests *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].digest);
		free(d->v[i].ready);
	}
	free(d->v);
	chunk_hash_stream_free(d->stream);
	free(d);
}

int partial_digests_want(struct partial_digests *d, size_t idx, uint64_t size, uint64_t chunk,
			 uint64_t from)
{
	struct wanted w = { idx, chunk, from, (size_t)(size / chunk), NULL, NULL };

	if (chunk == 0 || from % chunk || (d->n && d->v[d->n - 1].idx >= idx))
		return -EINVAL;
	w.digest = calloc(w.n + 1, sizeof(*w.digest));
	w.ready = calloc(w.n + 1, sizeof(*w.ready));
	if (!w.digest || !w.ready || GROW(d->v, d->cap, d->n + 1, 8) < 0) {
		free(w.digest);
		free(w.ready);
		return -ENOMEM;
	}
	d->v[d->n++] = w;
	return 0;
}

static const struct wanted *find(const struct partial_digests *d, size_t idx)
{
	size_t i = sorted_find(d->v, d->n, sizeof(*d->v), offsetof(struct wanted, idx), idx);

	return i < d->n ? &d->v[i] : NULL;
}

/* The bytes from d->at on into the stream; a digest stored at each
 * chunk's end (a reader_bytes_fn: a hole comes as zeros). */
struct take {
	struct partial_digests *d;
	struct wanted *w;
};

static void take(void *ctx, const void *buf, size_t len)
{
	struct partial_digests *d = ((struct take *)ctx)->d;
	struct wanted *w = ((struct take *)ctx)->w;
	const char *p = buf;
	size_t left = len;

	while (left > 0) {
		uint64_t end = (d->at / w->chunk + 1) * w->chunk;
		size_t n = (size_t)(end - d->at < left ? end - d->at : left);
		uint64_t k = d->at / w->chunk;

		chunk_hash_stream_add(d->stream, p, n);
		p += n;
		left -= n;
		d->at += n;
		if (d->at == end && k < w->n) {
			atomic_store_explicit(&w->digest[k], chunk_hash_stream_digest(d->stream),
					      memory_order_relaxed);
			atomic_store_explicit(&w->ready[k], true, memory_order_release);
			chunk_hash_stream_reset(d->stream);
		}
	}
}

static void on_chunk(void *ctx, const struct reader_chunk *c)
{
	struct partial_digests *d = ctx;
	struct wanted *w;

	/* entries come in plan order: the last wanted one at or before c's */
	while (d->next < d->n && d->v[d->next].idx <= c->entry) {
		d->cur = d->next++;
		d->at = d->v[d->cur].from;
		d->bad = false;
		chunk_hash_stream_reset(d->stream);
	}
	if (d->cur == SIZE_MAX || d->v[d->cur].idx != c->entry)
		return;
	w = &d->v[d->cur];
	if (d->bad || c->err || c->changed || c->offset != d->at) {
		d->bad = true; /* what follows is not the file as one read */
		return;
	}
	reader_chunk_bytes(c, 0, take, &(struct take){ d, w });
}

struct reader_tap partial_digests_tap(struct partial_digests *d)
{
	return (struct reader_tap){ d, on_chunk };
}

bool partial_digests_get(const struct partial_digests *d, size_t idx, uint64_t k,
			 uint64_t *ret)
{
	const struct wanted *w = find(d, idx);

	if (!w || k >= w->n || !atomic_load_explicit(&w->ready[k], memory_order_acquire))
		return false;
	*ret = atomic_load_explicit(&w->digest[k], memory_order_relaxed);
	return true;
}
