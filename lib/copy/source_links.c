/* source_links.c: which entries of a source tree are one file under
 * several names (cp's --preserve=links).
 *
 * Only files whose st_nlink says they have other names are looked at;
 * they are sorted by (st_dev, st_ino, index), and each run of one inode
 * is a group whose first entry (in write order) leads: the engine writes
 * its data, and links each follower to it once it is durable under its
 * name (copy_link.c).  Names of the file outside the tree are not the
 * copy's business: a group of one is a plain file. */
#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"
#include "copy/source_tree.h"

static int cmp_inode(const void *a, const void *b, void *tree)
{
	const struct source_tree *t = tree;
	const struct source_entry *x = &t->entries[*(const uint32_t *)a];
	const struct source_entry *y = &t->entries[*(const uint32_t *)b];

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_idx(const void *a, const void *b)
{
	const struct source_link *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool same_inode(const struct source_entry *a, const struct source_entry *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

int source_tree_link_groups(struct source_tree *t)
{
	uint32_t *v = NULL;
	size_t n = 0, cap = 0, cap_links = 0;

	for (size_t i = 0; i < t->n_entries; i++) {
		if (!(t->entries[i].flags & SOURCE_NLINK))
			continue;
		if (GROW(v, cap, n + 1, 64) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = (uint32_t)i;
	}
	if (n > 1) /* qsort's array may not be NULL, even empty */
		qsort_r(v, n, sizeof(*v), cmp_inode, t);
	for (size_t i = 1, lead = 0; i < n; i++) {
		if (!same_inode(&t->entries[v[i]], &t->entries[v[lead]])) {
			lead = i; /* the next group's first */
			continue;
		}
		if (GROW(t->links, cap_links, t->n_links + 1, 64) < 0) {
			free(v);
			return -ENOMEM;
		}
		t->links[t->n_links++] = (struct source_link){ .idx = v[i], .leader = v[lead] };
		t->entries[v[i]].flags |= SOURCE_FOLLOWER;
	}
	free(v);
	if (t->n_links > 1)
		qsort(t->links, t->n_links, sizeof(*t->links), cmp_idx);
	return 0;
}

size_t source_leader(const struct source_tree *t, size_t idx)
{
	size_t lo = 0, hi = t->n_links;

	if (!(t->entries[idx].flags & SOURCE_FOLLOWER))
		return PLAN_TOP;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->links[mid].idx == idx)
			return t->links[mid].leader;
		if (t->links[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return PLAN_TOP;
}
