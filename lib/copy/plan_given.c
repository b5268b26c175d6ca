/* plan_given.c: plans over a listed tree (plan_given.h).  The tree is
 * made from the caller's entries once; each destination's plan is its
 * directory checked as -t DIR's is, then every entry classified, the top
 * ones as names in that directory, the rest below their parents' as
 * plan_add_child() does for a walk. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/plan_given.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"
#include "base/cleanup.h"

/* A name of one component. */
static bool one_name(const char *name)
{
	return name && *name && !strchr(name, '/');
}

static int tree_from(const struct source_found *entries, size_t n, struct source_tree **ret)
{
	const struct plan_options walked = { .recursive = true };
	struct source_tree *t = source_tree_new(&walked);
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r == 0; i++) {
		const struct source_found *e = &entries[i];

		if ((e->parent != PLAN_TOP && (e->parent >= i || entries[e->parent].type != PLAN_DIR)) ||
		    !one_name(e->name) || (e->parent == PLAN_TOP && (!e->src || !e->rel)))
			r = -EINVAL;
		else
			r = source_tree_add(t, e, NULL);
	}
	/* pre-order: a directory ends where its last descendant does */
	for (size_t i = n; r == 0 && i-- > 0;) {
		size_t p = source_parent(&t->entries[i], i);

		if (p != PLAN_TOP && t->entries[i].end > t->entries[p].end)
			t->entries[p].end = t->entries[i].end;
	}
	if (r < 0) {
		source_tree_unref(t);
		return r;
	}
	*ret = t;
	return 0;
}

/* dest as -t DIR: an existing, writable directory, the plan's dest_dir
 * and dest_root. */
static int dest_take(struct plan_builder *b, const char *dest)
{
	struct plan *p = b->p;
	struct stat st;
	int r;

	if (strlen(dest) >= PATH_MAX)
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, dest, NULL, ENAMETOOLONG);
	r = plan_dest_need_dir(b, dest, &st);
	if (r >= 0 && b->opts->beneath)
		r = plan_dest_dir_stat(b->opts, dest, dest, b->problem, &st);
	if (r < 0)
		return r;
	p->dest_dir = strdup(dest);
	p->dest_root = strdup(dest);
	if (!p->dest_dir || !p->dest_root)
		return -ENOMEM;
	plan_strip_slashes(p->dest_dir);
	plan_strip_slashes(p->dest_root);
	p->dest_dir_dev = st.st_dev;
	p->dest_dir_ino = st.st_ino;
	p->dest_root_entry = PLAN_TOP;
	if (faccessat(AT_FDCWD, dest, W_OK | X_OK, AT_EACCESS) < 0)
		return plan_refuse(b->problem, PLAN_DEST_UNWRITABLE, NULL, dest, errno);
	return 0;
}

static int add_top(struct plan_builder *b, size_t idx)
{
	const struct source_entry *s = &b->p->tree->entries[idx];
	struct plan_entry e = { 0 };
	struct plan_existing x = { 0 };
	char dst[PATH_MAX], src[PATH_MAX];
	struct plan_src ps;
	int r;

	plan_src_of(s, &ps, src);
	if (plan_join(dst, b->p->dest_dir, source_name(s)) < 0)
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, src, NULL, ENAMETOOLONG);
	r = plan_classify_dst(b->opts, &ps, dst, &e, &x, b->problem);
	return r < 0 ? r : plan_add_entry(b, &e, &x, dst, strrchr(dst, '/') + 1);
}

static int build(struct source_tree *t, const char *dest, const struct plan_options *opts,
		 struct plan **ret, struct plan_problem *problem)
{
	struct plan_problem scratch = { .kind = PLAN_OK };
	struct plan_builder b = { .opts = opts, .problem = problem ? problem : &scratch };
	int r;

	*b.problem = (struct plan_problem){ .kind = PLAN_OK };
	b.p = calloc(1, sizeof(*b.p));
	if (!b.p) {
		source_tree_unref(t);
		return -ENOMEM;
	}
	b.p->opts = *opts;
	b.p->opts.recursive = true;
	b.p->tree = t; /* the plan's reference from here on */
	r = dest_take(&b, dest);
	for (size_t i = 0; i < t->n_entries && r >= 0; i++)
		r = source_parent(&t->entries[i], i) == PLAN_TOP ? add_top(&b, i) : plan_add_child(&b, i);
	if (r >= 0) {
		plan_link_sources(b.p);
		r = plan_find_stale(b.p);
	}
	if (r < 0) {
		plan_free(b.p);
		plan_problem_done(&scratch);
		return r;
	}
	plan_count(b.p);
	*ret = b.p;
	return 0;
}

int plan_build_given(const struct source_found *entries, size_t n, const char *dest,
		     const struct plan_options *opts, struct plan **ret,
		     struct plan_problem *problem)
{
	struct source_tree *t;
	int r = tree_from(entries, n, &t);

	if (problem)
		*problem = (struct plan_problem){ .kind = PLAN_OK };
	return r < 0 ? r : build(t, dest, opts, ret, problem);
}

int plan_build_given_beside(const struct plan *first, const char *dest,
			    const struct plan_options *opts, struct plan **ret,
			    struct plan_problem *problem)
{
	first->tree->refs++;
	return build(first->tree, dest, opts, ret, problem);
}
