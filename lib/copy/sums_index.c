/* sums_index.c: checksum lists read back into a sorted array of names, each
 * with the digests every list gave it (sums_index.h).
 *
 * Each list is read whole (lists are a line per file, ~100 bytes) and
 * split at LF; sums_line_parse() reads a line as the checking tool does.
 * After each list the array is sorted and names given twice are merged:
 * the same digest twice is one, two different ones make the name
 * untrusted.  Lookups are a binary search. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "copy/sums_index.h"
#include "hash/sums_list.h"
#include "base/cleanup.h"
#include "base/grow.h"
#include "util/whole_file.h"

/* A list larger than this is not one we wrote: refused, not read. */
#define LIST_MAX_BYTES (1ULL << 30)

struct sums_item {
	char *name;
	bool untrusted; /* two lines, two digests */
	struct checksum_result sums;
};

struct sums_index {
	struct sums_item *v;
	size_t n, cap;
	checksum_set algs;
};

struct sums_index *sums_index_new(void)
{
	return calloc(1, sizeof(struct sums_index));
}

void sums_index_free(struct sums_index *idx)
{
	if (!idx)
		return;
	for (size_t i = 0; i < idx->n; i++)
		free(idx->v[i].name);
	free(idx->v);
	free(idx);
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct sums_item *)a)->name, ((const struct sums_item *)b)->name);
}

/* Sort, then fold each run of one name into its first item. */
static void merge(struct sums_index *idx)
{
	size_t out = 0;

	if (idx->n > 1) /* qsort(NULL, 0) is undefined */
		qsort(idx->v, idx->n, sizeof(*idx->v), cmp_item);
	for (size_t i = 0; i < idx->n; i++) {
		struct sums_item *it = &idx->v[i], *keep = out ? &idx->v[out - 1] : NULL;

		if (!keep || strcmp(keep->name, it->name) != 0) {
			idx->v[out++] = *it;
			continue;
		}
		for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
			if (!(it->sums.algs & CHECKSUM_BIT(a)))
				continue;
			if ((keep->sums.algs & CHECKSUM_BIT(a)) &&
			    strcmp(keep->sums.text[a], it->sums.text[a]) != 0)
				keep->untrusted = true;
			keep->sums.algs |= CHECKSUM_BIT(a);
			memcpy(keep->sums.text[a], it->sums.text[a], sizeof(it->sums.text[a]));
		}
		keep->untrusted |= it->untrusted;
		free(it->name);
	}
	idx->n = out;
}

static int add_item(struct sums_index *idx, enum checksum_alg alg, char *name,
		    const char *digest)
{
	struct sums_item *it;

	if (GROW(idx->v, idx->cap, idx->n + 1, 256) < 0)
		return -ENOMEM;
	it = &idx->v[idx->n++];
	*it = (struct sums_item){ .name = name };
	it->sums.algs = CHECKSUM_BIT(alg);
	snprintf(it->sums.text[alg], sizeof(it->sums.text[alg]), "%s", digest);
	return 0;
}

int sums_index_add_list(struct sums_index *idx, enum checksum_alg alg, const char *path,
			size_t *ret_bad)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0, bad = 0;
	int r = whole_file_read_at(AT_FDCWD, path, 0, LIST_MAX_BYTES, &text, &len);

	for (size_t at = 0; r == 0 && at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		char digest[CHECKSUM_TEXT_MAX], *name = NULL;
		int p = sums_line_parse(alg, text + at, n, digest, &name);

		if (p == -ENOMEM)
			r = p;
		else if (p < 0)
			bad++;
		else if ((r = add_item(idx, alg, name, digest)) < 0)
			free(name);
		at += n + 1;
	}
	if (r < 0)
		return r;
	idx->algs |= CHECKSUM_BIT(alg);
	merge(idx);
	if (ret_bad)
		*ret_bad = bad;
	return 0;
}

size_t sums_index_count(const struct sums_index *idx)
{
	return idx->n;
}

checksum_set sums_index_algs(const struct sums_index *idx)
{
	return idx->algs;
}

static const struct sums_item *find(const struct sums_index *idx, const char *rel)
{
	struct sums_item key = { .name = (char *)rel };
	const struct sums_item *it = idx->n ? bsearch(&key, idx->v, idx->n, sizeof(*idx->v),
						      cmp_item) : NULL;

	return it && !it->untrusted ? it : NULL;
}

const char *sums_index_text(const struct sums_index *idx, const char *rel,
			    enum checksum_alg alg)
{
	const struct sums_item *it = find(idx, rel);

	return it && (it->sums.algs & CHECKSUM_BIT(alg)) ? it->sums.text[alg] : NULL;
}

static int lookup(const void *ctx, const char *rel, struct recorded_file *ret)
{
	const struct sums_item *it = find(ctx, rel);

	if (!it)
		return 0;
	*ret = (struct recorded_file){ .action = RECORDED_GOOD, .sums = it->sums };
	return 1;
}

struct recorded_sums sums_index_recorded(const struct sums_index *idx)
{
	return (struct recorded_sums){ .lookup = lookup, .ctx = idx,
				       .basis = PLAN_IDENTICAL_LIST };
}
