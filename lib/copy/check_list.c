/* check_list.c: the reference of a check, path by path (check.h).
 *
 * Digests are appended as they come (a manifest, or several lists, each in
 * its own order), then sorted by path once and merged: one entry per path
 * with the cheapest algorithm any of them gave. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "copy/check.h"
#include "base/grow.h"

void check_list_init(struct check_list *l)
{
	*l = (struct check_list){ 0 };
}

void check_list_free(struct check_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->entries[i].path);
	free(l->entries);
	check_list_init(l);
}

int check_list_add(struct check_list *l, const char *path, enum checksum_alg alg,
		   const char *digest, uint64_t size, bool failed)
{
	struct check_entry *e;

	if ((unsigned)alg >= CHECKSUM_ALG_COUNT || strlen(digest) != checksum_text_len(alg))
		return -EINVAL;
	if (GROW(l->entries, l->cap, l->n + 1, 64) < 0)
		return -ENOMEM;
	e = &l->entries[l->n];
	*e = (struct check_entry){
		.path = strdup(path),
		.size = size,
		.has_size = size != UINT64_MAX,
		.failed_before = failed,
		.alg = alg,
	};
	if (!e->path)
		return -ENOMEM;
	memcpy(e->digest, digest, strlen(digest) + 1);
	l->n++;
	return 0;
}

static int by_path(const void *a, const void *b)
{
	const struct check_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	/* equal paths: the cheapest algorithm first, so the merge keeps it */
	return c ? c : (int)x->alg - (int)y->alg;
}

/* Folds the entry at FROM into the one at INTO (the same path). */
static void merge(struct check_entry *into, struct check_entry *from)
{
	if (!into->has_size && from->has_size) {
		into->size = from->size;
		into->has_size = true;
	}
	into->failed_before = into->failed_before || from->failed_before;
	free(from->path);
}

void check_list_finish(struct check_list *l)
{
	size_t w = 0;

	if (l->n == 0)
		return;
	qsort(l->entries, l->n, sizeof(*l->entries), by_path);
	for (size_t i = 1; i < l->n; i++) {
		if (strcmp(l->entries[w].path, l->entries[i].path) == 0)
			merge(&l->entries[w], &l->entries[i]);
		else
			l->entries[++w] = l->entries[i];
	}
	l->n = w + 1;
}

const char *check_result_name(enum check_result r)
{
	static const char *const names[CHECK_RESULT_COUNT] = {
		[CHECK_MATCH] = "match",
		[CHECK_DIFFERS] = "differs",
		[CHECK_SIZE_DIFFERS] = "size-differs",
		[CHECK_FAILED_BEFORE] = "failed-before",
		[CHECK_MISSING] = "missing",
		[CHECK_SYMLINK] = "symlink",
		[CHECK_OUTSIDE] = "outside",
		[CHECK_NOT_REGULAR] = "not-regular",
		[CHECK_UNREADABLE] = "unreadable",
	};

	return (unsigned)r < CHECK_RESULT_COUNT ? names[r] : NULL;
}
