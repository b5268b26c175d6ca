/* plan_parents.c: cp's --parents.  "safecp --parents a/b/c DEST" copies c
 * to DEST/a/b/c, making DEST/a and DEST/a/b.  Those directories are tree
 * entries of their own (SOURCE_ON_PATH), tops and children as on the
 * source's path, so the engine makes them as any directory: without
 * following a link on the stick, with the source directory's metadata
 * (cp -p --parents keeps it too), merged into where they exist.  Only the
 * one child on the operand's path is in such a directory, and operands
 * sharing directories share their entries: the operands are sorted so
 * that they come together (the copy's order, not cp's argument order).
 * A ".." on the path would lead out of DEST (cp writes there): refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"

int parents_prepare(struct plan_builder *b, const char *given, const char *dir, struct source *s)
{
	char path[PATH_MAX], dst[PATH_MAX];
	const char *p = s->arg;
	size_t len = 0;

	while (*p) {
		size_t l = strcspn(p, "/");

		if (l == 2 && p[0] == '.' && p[1] == '.')
			return plan_refuse(b->problem, PLAN_DEST_NOT_BENEATH, s->arg, given, EINVAL);
		if (l && !(l == 1 && p[0] == '.')) {
			if (len + !!len + l >= sizeof(path))
				return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, s->arg, NULL,
						   ENAMETOOLONG);
			if (len)
				path[len++] = '/';
			memcpy(path + len, p, l);
			len += l;
		}
		p += l + (p[l] == '/');
	}
	path[len] = '\0';
	if (!len)
		return 1; /* "." or "/": no path, copied as without --parents */
	if (!dir)
		return plan_refuse(b->problem, PLAN_DEST_NOT_DIR, given, given, ENOTDIR);
	if (plan_join(dst, dir, path) < 0)
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, dir, NULL, ENAMETOOLONG);
	s->path = strdup(path);
	s->dst = strdup(dst);
	s->e.rel = strdup(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (!s->path || !s->dst || !s->e.rel)
		return -ENOMEM;
	s->dst_name = strrchr(s->dst, '/') + 1;
	return 0;
}

/* Absolute paths apart; then component by component ('/' below every
 * byte), so the operands under one directory come together. */
static int cmp_paths(const void *a, const void *b)
{
	const struct source *x = a, *y = b;
	const unsigned char *p = (const unsigned char *)(x->path ? x->path : "");
	const unsigned char *q = (const unsigned char *)(y->path ? y->path : "");
	int ax = x->arg[0] == '/', ay = y->arg[0] == '/';

	if (ax != ay)
		return ax - ay;
	for (; *p && *p == *q; p++, q++)
		;
	if (*p == *q)
		return (x > y) - (x < y);
	return (*p == '/' ? 0 : *p ? *p : -1) - (*q == '/' ? 0 : *q ? *q : -1);
}

void parents_sort(struct source *s, size_t n)
{
	if (n > 1)
		qsort(s, n, sizeof(*s), cmp_paths);
}

/* The building: the path's directories of the operand before (chain),
 * how deep they are shared. */
struct parents {
	struct plan_builder *b;
	struct source_tree *t;
	size_t *chain;
	size_t depth;
	const struct source *prev;
};

/* How many leading directories of s's path are prev's too. */
static size_t shared_dirs(const struct source *prev, const struct source *s)
{
	const char *p, *q;
	size_t n = 0;

	if (!prev || !prev->path || (prev->arg[0] == '/') != (s->arg[0] == '/'))
		return 0;
	for (p = prev->path, q = s->path;;) {
		size_t lp = strcspn(p, "/"), lq = strcspn(q, "/");

		/* only directories: a component with no '/' after it is a name */
		if (!p[lp] || !q[lq] || lp != lq || memcmp(p, q, lp) != 0)
			return n;
		n++;
		p += lp + 1;
		q += lq + 1;
	}
}

/* Entry idx of the tree taken (another destination): it must be what the
 * first destination's walk added. */
static int take_entry(struct parents *w, const char *path, const struct stat *st, size_t *idx)
{
	const struct source_entry *e;

	*idx = w->b->p->n_entries;
	e = *idx < w->t->n_entries ? &w->t->entries[*idx] : NULL;
	if (!e || e->dev != st->st_dev || e->ino != st->st_ino)
		return plan_refuse(w->b->problem, PLAN_SOURCE_CHANGED, path, NULL, 0);
	return 0;
}

/* Directory j of s's path (its first j + 1 components): an entry,
 * classified at the destination. */
static int add_path_dir(struct parents *w, const struct source *s, const char *dest, size_t j)
{
	char src[PATH_MAX], dst[PATH_MAX], name[PATH_MAX];
	const char *p = s->path;
	struct source_found f = { .type = PLAN_DIR };
	size_t idx;
	int r;

	for (size_t k = 0; k < j; k++)
		p += strcspn(p, "/") + 1;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, "/"), p);
	snprintf(src, sizeof(src), "%s%.*s", s->arg[0] == '/' ? "/" : "",
		 (int)(p - s->path + strlen(name)), s->path);
	if (stat(src, &f.st) < 0)
		return plan_refuse(w->b->problem, PLAN_SOURCE_UNREADABLE, src, NULL, errno);
	if (!S_ISDIR(f.st.st_mode))
		return plan_refuse(w->b->problem, PLAN_SOURCE_UNREADABLE, src, NULL, ENOTDIR);
	f.parent = j ? w->chain[j - 1] : PLAN_TOP;
	f.name = j ? name : NULL;
	f.src = j ? NULL : src;
	f.rel = j ? NULL : name;
	r = w->b->first ? take_entry(w, src, &f.st, &idx) : source_tree_add(w->t, &f, &idx);
	if (r < 0)
		return r;
	w->t->entries[idx].flags |= SOURCE_ON_PATH;
	w->chain[j] = idx;
	if (j)
		return plan_add_child(w->b, idx);
	struct plan_src ps = { .type = PLAN_DIR, .dev = f.st.st_dev, .ino = f.st.st_ino, .path = src };
	struct plan_entry e = { 0 };
	struct plan_existing x = { 0 };

	if (plan_join(dst, dest, name) < 0)
		return plan_refuse(w->b->problem, PLAN_NAME_TOO_LONG, dest, NULL, ENAMETOOLONG);
	r = plan_classify_dst(w->b->opts, &ps, dst, &e, &x, w->b->problem);
	return r < 0 ? r : plan_add_entry(w->b, &e, &x, dst, strrchr(dst, '/') + 1);
}

/* The operand itself, below its path's last directory (or a top), and
 * what is below it. */
static int add_operand(struct parents *w, const struct source *s, size_t dirs)
{
	struct source_found f = s->e;
	size_t idx;
	int r;

	if (dirs) {
		f.parent = w->chain[dirs - 1];
		f.name = s->dst_name;
		f.src = NULL;
	}
	if (w->b->first)
		r = take_entry(w, s->arg, &s->e.st, &idx);
	else if ((r = source_tree_add(w->t, &f, &idx)) >= 0)
		r = source_tree_mark_holes(w->t, idx, &s->e.st);
	if (r < 0)
		return r;
	if (dirs)
		w->t->entries[idx].flags |= SOURCE_OPERAND;
	r = dirs ? plan_add_child(w->b, idx) : plan_add_entry(w->b, &s->d, &s->x, s->dst, s->dst_name);
	if (r < 0 || s->e.type != PLAN_DIR)
		return r;
	if (!w->b->first)
		return source_walk(w->t, idx, w->b->problem, plan_add_child, w->b);
	for (size_t j = idx + 1; r >= 0 && j < w->t->entries[idx].end; j++)
		r = plan_add_child(w->b, j);
	return r;
}

/* Two tops to one name: "a" and "a/b" (a top a, and a directory a made
 * for a/b), or /etc/x and etc/y. */
static int cmp_top_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The last operand whose path starts with name (sorted: the later one). */
static const char *operand_under(const struct source *s, size_t n, const char *name)
{
	size_t l = strlen(name);

	for (size_t i = n; i-- > 0;) {
		const char *p = s[i].path ? s[i].path : s[i].arg;

		if (strncmp(p, name, l) == 0 && (p[l] == '/' || !p[l]))
			return s[i].arg;
	}
	return s[0].arg;
}

static int tops_apart(struct plan_builder *b, const struct source *s, size_t n_sources)
{
	struct plan *p = b->p;
	_cleanup_free_ const char **v = calloc(p->n_entries + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_entries; i++)
		if (!p->tree->entries[i].up)
			v[n++] = plan_dst_name(p, i);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_top_names);
	for (size_t i = 1; i < n; i++) {
		char dst[PATH_MAX];

		if (strcmp(v[i - 1], v[i]) != 0)
			continue;
		if (plan_join(dst, p->dest_dir, v[i]) < 0)
			return -ENAMETOOLONG;
		return plan_refuse(b->problem, PLAN_DEST_CLASH, operand_under(s, n_sources, v[i]),
				   dst, 0);
	}
	return 0;
}

/* Is s's path below the directory operand d's (a/b/c below a/b)? */
static bool inside(const struct source *d, const struct source *s)
{
	size_t l = d && s->path ? strlen(d->path) : 0;

	return l && (d->arg[0] == '/') == (s->arg[0] == '/') && strncmp(s->path, d->path, l) == 0 &&
	       s->path[l] == '/';
}

int parents_tree(struct plan_builder *b, const struct source *s, size_t n)
{
	struct parents w = { .b = b };
	const struct source *dir_op = NULL;
	_cleanup_free_ size_t *chain = calloc(PATH_MAX / 2, sizeof(*chain));
	int r = chain ? 0 : -ENOMEM;

	w.chain = chain;
	if (r == 0 && b->first) {
		w.t = b->p->tree = b->first->tree;
		w.t->refs++;
	} else if (r == 0) {
		w.t = b->p->tree = source_tree_new(b->opts);
		r = w.t ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < n && r >= 0; i++) {
		const char *p = s[i].path ? s[i].path : "";
		size_t dirs = 0;

		/* sorted: what is inside a directory operand comes right after it */
		if (inside(dir_op, &s[i])) {
			char dst[PATH_MAX];

			r = plan_join(dst, b->p->dest_dir, dir_op->path) < 0
				    ? -ENAMETOOLONG
				    : plan_refuse(b->problem, PLAN_DEST_CLASH, s[i].arg, dst, 0);
			break;
		}
		if (s[i].e.type == PLAN_DIR && s[i].path)
			dir_op = &s[i];

		for (; *p; p++)
			dirs += *p == '/';
		w.depth = shared_dirs(w.prev, &s[i]);
		for (size_t j = w.depth; j < dirs && r >= 0; j++)
			r = add_path_dir(&w, &s[i], b->p->dest_dir, j);
		if (r >= 0)
			r = add_operand(&w, &s[i], dirs);
		/* the first destination's walk sets the ends; a taken tree has them */
		for (size_t j = 0; !b->first && j < dirs; j++)
			w.t->entries[w.chain[j]].end = (uint32_t)w.t->n_entries;
		w.prev = &s[i];
	}
	if (r >= 0 && b->first && b->p->n_entries != w.t->n_entries)
		return plan_refuse(b->problem, PLAN_SOURCE_CHANGED, s[0].arg, NULL, 0);
	if (r >= 0)
		r = tops_apart(b, s, n);
	if (r >= 0 && !b->first && b->opts->keep_links)
		r = source_tree_link_groups(w.t);
	return r;
}
