/* file_sums.c: per-file checksums fed by the reader's tap (file_sums.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "copy/file_sums.h"

struct file_sums {
	checksum_set algs;
	size_t n;
	/* per entry: the texts of algs in alg order, each with its NUL;
	 * stored once, by the reader's thread, with release order */
	_Atomic(char *) *texts;
	/* the reader's thread only */
	struct checksum_state *state;
	size_t cur;
	bool cur_bad;
};

int file_sums_new(const struct plan *tree, checksum_set algs, struct file_sums **ret)
{
	struct file_sums *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->algs = algs;
	s->n = tree->n_entries;
	s->cur = SIZE_MAX;
	s->texts = calloc(s->n + 1, sizeof(*s->texts));
	s->state = checksum_new(algs);
	if (!s->texts || !s->state) {
		file_sums_free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

void file_sums_free(struct file_sums *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->texts && i < s->n; i++)
		free(atomic_load(&s->texts[i]));
	free(s->texts);
	checksum_free(s->state);
	free(s);
}

static void store(struct file_sums *s, size_t idx)
{
	struct checksum_result res;
	size_t len = 0;
	char *t, *p;

	checksum_final(s->state, &res);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		if (s->algs & CHECKSUM_BIT(a))
			len += strlen(res.text[a]) + 1;
	t = p = malloc(len ? len : 1);
	if (!t)
		return; /* that file then has no checksum: it is not listed */
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		if (s->algs & CHECKSUM_BIT(a))
			p = stpcpy(p, res.text[a]) + 1;
	atomic_store_explicit(&s->texts[idx], t, memory_order_release);
}

static void add_bytes(void *ctx, const void *buf, size_t len)
{
	struct file_sums *s = ctx;

	checksum_update(s->state, buf, len);
}

static void on_chunk(void *ctx, const struct reader_chunk *c)
{
	struct file_sums *s = ctx;

	if (c->entry >= s->n)
		return;
	if (c->entry != s->cur) {
		checksum_reset(s->state);
		s->cur = c->entry;
		s->cur_bad = false;
	}
	if (c->err || c->changed)
		s->cur_bad = true;
	else if (!s->cur_bad)
		reader_chunk_bytes(c, 0, add_bytes, s); /* a hole: its zeros */
	if (!c->last)
		return;
	if (!s->cur_bad && !atomic_load(&s->texts[c->entry]))
		store(s, c->entry);
	checksum_reset(s->state);
	s->cur = SIZE_MAX;
}

struct reader_tap file_sums_tap(struct file_sums *s)
{
	return (struct reader_tap){ .ctx = s, .chunk = on_chunk };
}

const char *file_sums_text(const struct file_sums *s, size_t idx, enum checksum_alg alg)
{
	const char *t;

	if (idx >= s->n || !(s->algs & CHECKSUM_BIT(alg)))
		return NULL;
	t = atomic_load_explicit(&s->texts[idx], memory_order_acquire);
	for (int a = 0; t && a < (int)alg; a++)
		if (s->algs & CHECKSUM_BIT(a))
			t += strlen(t) + 1;
	return t;
}
