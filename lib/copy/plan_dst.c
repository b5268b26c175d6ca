/* plan_dst.c: where a plan's entries go, without a path per entry.
 *
 * A million-file plan keeps 16 bytes per entry (plan.h): destination
 * paths are built on demand from the names, the way source_tree.c builds
 * source paths (from the tree's entries, not plan_entry.source: those
 * are linked only once the tree is complete, and a walk in progress
 * asks for its directories' paths).  What differs from the source's names is kept aside in
 * plan.names, sorted by entry: each top entry's path and name, and the
 * names --rename-invalid gave (a renamed directory's descendants follow
 * it with no change of their own).  So are the records of what lstat
 * found at the destinations that exist (plan.existing): a fresh copy
 * has none. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"

static const struct plan_existing nothing_there;

const struct plan_existing *plan_existing_of(const struct plan *p, const struct plan_entry *e)
{
	return e->dst_exists ? &p->existing[e->existing] : &nothing_there;
}

int plan_set_existing(struct plan *p, struct plan_entry *e, const struct plan_existing *x,
		      bool reuse)
{
	if (reuse && e->existing < p->n_existing) {
		p->existing[e->existing] = *x;
		return 0;
	}
	if (p->n_existing >= UINT32_MAX ||
	    GROW(p->existing, p->cap_existing, p->n_existing + 1, 64) < 0)
		return -ENOMEM;
	p->existing[p->n_existing] = *x;
	e->existing = (uint32_t)p->n_existing++;
	return 0;
}

/* Entry idx's record in p->names, or NULL. */
static struct plan_name *name_of(const struct plan *p, size_t idx)
{
	size_t lo = 0, hi = p->n_names;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->names[mid].idx == idx)
			return &p->names[mid];
		if (p->names[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Room for entry idx's record in order; *ret points at it (zeroed). */
static int name_insert(struct plan *p, size_t idx, struct plan_name **ret)
{
	size_t at = p->n_names;

	if (GROW(p->names, p->cap_names, p->n_names + 1, 16) < 0)
		return -ENOMEM;
	while (at > 0 && p->names[at - 1].idx > idx)
		at--;
	memmove(&p->names[at + 1], &p->names[at], (p->n_names - at) * sizeof(*p->names));
	p->n_names++;
	p->names[at] = (struct plan_name){ .idx = idx };
	*ret = &p->names[at];
	return 0;
}

int plan_name_top(struct plan *p, size_t idx, const char *dst, const char *name)
{
	struct plan_name *n;
	char *copy = strdup(dst);
	const char *slash;

	if (!copy || name_insert(p, idx, &n) < 0) {
		free(copy);
		return -ENOMEM;
	}
	n->dst = copy;
	slash = strrchr(copy, '/');
	n->name = strcmp(name, ".") == 0 ? "." : slash ? slash + 1 : copy;
	p->entries[idx].dst_named = true;
	return 0;
}

int plan_rename_entry(struct plan *p, size_t idx, const char *name)
{
	struct plan_name *n = name_of(p, idx);
	char *copy = strdup(name);

	if (!copy)
		return -ENOMEM;
	if (n && n->dst) { /* a top entry: its path's last component */
		const char *slash = strrchr(n->dst, '/');
		size_t dir = slash ? (size_t)(slash - n->dst) + 1 : 0;
		char *dst = malloc(dir + strlen(name) + 1);

		if (!dst) {
			free(copy);
			return -ENOMEM;
		}
		memcpy(dst, n->dst, dir);
		strcpy(dst + dir, name);
		free(copy);
		free(n->dst);
		n->dst = dst;
		n->name = dst + dir;
		return 0;
	}
	if (!n && name_insert(p, idx, &n) < 0) {
		free(copy);
		return -ENOMEM;
	}
	free((char *)n->name);
	n->name = copy;
	p->entries[idx].dst_named = true;
	return 0;
}

const char *plan_dst_name(const struct plan *p, size_t idx)
{
	const struct plan_name *n = p->entries[idx].dst_named ? name_of(p, idx) : NULL;

	return n ? n->name : source_name(&p->tree->entries[idx]);
}

/* The names from idx up to its top entry, joined as plan_join() joins,
 * built from the end of buf back and then moved to its start. */
int plan_dst(const struct plan *p, size_t idx, char *buf, size_t size)
{
	size_t at = size;
	const struct plan_name *top;

	if (size == 0)
		return -ENAMETOOLONG;
	buf[--at] = '\0';
	for (;;) {
		const struct plan_entry *e = &p->entries[idx];
		const struct plan_name *n = e->dst_named ? name_of(p, idx) : NULL;
		const struct source_entry *s;
		const char *name;
		size_t l;

		if (n && n->dst) {
			top = n;
			break;
		}
		s = &p->tree->entries[idx];
		name = n ? n->name : source_name(s);
		l = strlen(name);
		idx = source_parent(s, idx);
		if (idx == PLAN_TOP || l + 1 > at)
			return -ENAMETOOLONG; /* a top entry always has its record */
		at -= l;
		memcpy(buf + at, name, l);
		buf[--at] = '/';
	}
	{
		size_t l = strlen(top->dst);

		/* plan_join(): no second '/' after a path that ends in one */
		if (at < size - 1 && l > 0 && top->dst[l - 1] == '/')
			at++;
		if (l > at)
			return -ENAMETOOLONG;
		at -= l;
		memcpy(buf + at, top->dst, l);
	}
	memmove(buf, buf + at, size - at);
	return 0;
}

const char *plan_dst_path(const struct plan *p, size_t idx, char *buf)
{
	if (plan_dst(p, idx, buf, PATH_MAX) < 0)
		snprintf(buf, PATH_MAX, "?");
	return buf;
}

void plan_dst_free(struct plan *p)
{
	for (size_t i = 0; i < p->n_names; i++) {
		if (p->names[i].dst)
			free(p->names[i].dst);
		else
			free((char *)p->names[i].name);
	}
	free(p->names);
	for (size_t i = 0; i < p->n_existing; i++)
		free(p->existing[i].judged_sums);
	free(p->existing);
}
