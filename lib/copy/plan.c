/* plan.c: cp's argument semantics, decided before the first byte.
 *
 * Owns plan_build(): where DEST points (a directory to copy into, or the
 * name of the copy), what each source argument is, and the checks GNU cp
 * makes one file at a time, made here for every top-level source before
 * any tree is walked, so a bad argument is refused in milliseconds:
 *   1. DEST: -t DIR must be a directory; several sources need a
 *      directory; otherwise a directory (through symlinks) is copied
 *      into, anything else is the copy's name and its parent must exist.
 *   2. each source: stat (followed with -L or without -r), a directory
 *      needs -r, then its destination name (basename, trailing slashes
 *      ignored as GNU cp does: "src/" copies the directory named src).
 *   3. no two sources to one name; each destination classified
 *      (plan_classify_dst: same file, type clashes, -n); a directory
 *      must not go into itself (realpaths compared component-wise).
 *   4. the sources are added and walked in argument order into the
 *      source tree (source_walk.c), each entry classified against DEST
 *      as it comes (plan_view.c); another destination of the same copy
 *      takes that tree instead (plan_build_beside()).
 * Space and size limits live in plan_check.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/beneath.h"
#include "base/cleanup.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"

void plan_free(struct plan *p)
{
	if (!p)
		return;
	plan_dst_free(p);
	free(p->entries);
	source_tree_unref(p->tree);
	free(p->dest_root);
	free(p->dest_dir);
	stale_temps_free(&p->stale);
	free(p);
}

int plan_join(char buf[PATH_MAX], const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
	int n = snprintf(buf, PATH_MAX, "%s%s%s", dir, sep, name);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

void plan_strip_slashes(char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
}

/* The directory holding path (slashes stripped): "x" -> ".", "/x" -> "/". */
static void parent_of(const char *path, char buf[PATH_MAX])
{
	char *slash;

	snprintf(buf, PATH_MAX, "%s", path);
	plan_strip_slashes(buf);
	slash = strrchr(buf, '/');
	if (!slash)
		snprintf(buf, PATH_MAX, ".");
	else if (slash == buf)
		buf[1] = '\0';
	else {
		*slash = '\0';
		plan_strip_slashes(buf);
	}
}

static bool has_trailing_slash(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && s[n - 1] == '/';
}

struct dest {
	const char *given;      /* DEST as typed, for messages */
	bool into_dir;          /* top-level entries go to dir/basename */
	bool must_be_dir_source;/* "DEST/" that does not exist: only a directory may be copied */
	char path[PATH_MAX];    /* into_dir: the directory; else the copy's own name */
	char root[PATH_MAX];    /* the directory the top-level entries go into */
};

/* stat(2) of a destination path; with o->beneath, of what the walk from
 * that root reaches (-ELOOP, -EXDEV: a link, ".." or mount on the way). */
static int dest_stat(const struct plan_options *o, const char *path, struct stat *st)
{
	_cleanup_close_ int fd = -1;

	if (!o->beneath)
		return stat(path, st) < 0 ? -errno : 0;
	fd = beneath_open_path(o->beneath, path, O_PATH);
	if (fd < 0)
		return fd;
	return fstat(fd, st) < 0 ? -errno : 0;
}

/* A refusal for dest_stat()'s error r: the walk left o->beneath, or
 * dest (or the directory that should hold it) is missing. */
static int refuse_dest(struct plan_builder *b, const char *dest, int r)
{
	if (b->opts->beneath && (r == -EXDEV || r == -ELOOP))
		return plan_refuse(b->problem, PLAN_DEST_NOT_BENEATH, dest, b->opts->beneath, -r);
	return plan_refuse(b->problem, r == -ENOTDIR ? PLAN_DEST_NOT_DIR : PLAN_DEST_MISSING, dest,
			   dest, -r);
}

int plan_dest_need_dir(struct plan_builder *b, const char *dest, struct stat *ret)
{
	struct stat st;
	int r = dest_stat(b->opts, dest, &st);

	if (r < 0)
		return refuse_dest(b, dest, r);
	if (!S_ISDIR(st.st_mode))
		return plan_refuse(b->problem, PLAN_DEST_NOT_DIR, dest, dest, ENOTDIR);
	if (ret)
		*ret = st;
	return 0;
}

/* DEST a link to a file (target: what stat found): cp writes through it,
 * so the file it leads to is replaced (whole, by rename), where it stays
 * on the link's own filesystem: a link someone left on a stick must not
 * send root's copy to another disk.  Else, and as cp does with
 * --remove-destination or --backup, the link itself is replaced.  One
 * that leads nowhere is plan_classify_dst()'s refusal. */
static int dest_file_link(struct plan_builder *b, struct dest *d, const struct stat *target)
{
	const struct plan_options *o = b->opts;
	char parent[PATH_MAX], real[PATH_MAX];
	struct stat link, dir;

	if (o->beneath || o->remove_destination || o->backup != BACKUP_NONE ||
	    lstat(d->path, &link) < 0 || !S_ISLNK(link.st_mode))
		return 0;
	parent_of(d->path, parent);
	if (stat(parent, &dir) < 0 || dir.st_dev != target->st_dev)
		return 0;
	if (!realpath(d->path, real))
		return refuse_dest(b, d->given, -errno);
	snprintf(d->path, sizeof(d->path), "%s", real);
	return 0;
}

/* Step 1 of the file comment. */
static int dest_resolve(struct plan_builder *b, size_t n_sources, const char *dest,
			struct dest *d)
{
	const struct plan_options *o = b->opts;
	struct stat st;
	int r;

	d->given = dest;
	/* a longer DEST would be cut to another, existing path */
	if (strlen(dest) >= PATH_MAX)
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, dest, NULL, ENAMETOOLONG);
	snprintf(d->path, sizeof(d->path), "%s", dest);
	plan_strip_slashes(d->path);
	if (o->target_directory || (n_sources > 1 && !o->no_target_directory)) {
		r = plan_dest_need_dir(b, dest, NULL);
		if (r < 0)
			return r;
		d->into_dir = true;
		snprintf(d->root, sizeof(d->root), "%s", d->path);
		return 0;
	}
	r = dest_stat(o, dest, &st);
	if (r == -EXDEV || r == -ELOOP)
		return refuse_dest(b, dest, r);
	if (!o->no_target_directory && r == 0 && S_ISDIR(st.st_mode)) {
		d->into_dir = true;
		snprintf(d->root, sizeof(d->root), "%s", d->path);
		return 0;
	}
	if (r == 0 && S_ISREG(st.st_mode) && (r = dest_file_link(b, d, &st)) < 0)
		return r;
	if (!o->no_target_directory && has_trailing_slash(dest)) {
		/* "DEST/": GNU cp creates it only for a directory source */
		if (lstat(d->path, &st) == 0)
			return plan_refuse(b->problem, PLAN_DEST_NOT_DIR, dest, dest, ENOTDIR);
		d->must_be_dir_source = true;
	}
	parent_of(d->path, d->root);
	return plan_dest_dir_stat(o, dest, d->root, b->problem, &st);
}

static void sources_free(struct source *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].path);
		free(s[i].dst);
		free((char *)s[i].e.rel);
		free((char *)s[i].e.link_target);
	}
	free(s);
}

/* The name a source gets: its last component; "." and "/" have none (GNU
 * cp copies their contents into DEST); ".." is named after what it is. */
static int operand_name(const char *arg, char name[PATH_MAX], char rel[PATH_MAX])
{
	char buf[PATH_MAX], real[PATH_MAX];
	const char *base;

	if (strlen(arg) >= PATH_MAX)
		return -ENAMETOOLONG;
	snprintf(buf, sizeof(buf), "%s", arg);
	plan_strip_slashes(buf);
	base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
	if (strcmp(base, "..") == 0) {
		if (!realpath(arg, real))
			return -errno;
		base = strrchr(real, '/') + 1;
		snprintf(buf, sizeof(buf), "%s", base);
		base = buf;
	}
	snprintf(rel, PATH_MAX, "%s", *base ? base : "/");
	snprintf(name, PATH_MAX, "%s", strcmp(base, ".") == 0 ? "" : base);
	return 0;
}

/* Step 2 of the file comment. */
static int source_prepare(struct plan_builder *b, const struct dest *d, struct source *s)
{
	char name[PATH_MAX], rel[PATH_MAX], dst[PATH_MAX];
	int r;

	r = source_examine(b->opts, s->arg, &s->e, b->problem);
	if (r < 0)
		return r;
	if (d->must_be_dir_source && s->e.type != PLAN_DIR)
		return plan_refuse(b->problem, PLAN_DEST_NOT_DIR, d->given, d->given, ENOTDIR);
	if (strlen(s->arg) >= PATH_MAX)
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, s->arg, NULL, ENAMETOOLONG);
	if (b->opts->parents &&
	    (r = parents_prepare(b, d->given, d->into_dir ? d->path : NULL, s)) != 1)
		return r;
	r = operand_name(s->arg, name, rel);
	if (r < 0)
		return plan_refuse(b->problem, PLAN_SOURCE_UNREADABLE, s->arg, NULL, -r);
	if (!d->into_dir || !*name)
		snprintf(dst, sizeof(dst), "%s", d->path);
	else if (plan_join(dst, d->path, name) < 0)
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, d->path, NULL, ENAMETOOLONG);
	s->dst = strdup(dst);
	s->e.rel = strdup(rel);
	if (!s->dst || !s->e.rel)
		return -ENOMEM;
	if (d->into_dir && !*name)
		s->dst_name = "."; /* "cp -r . DEST": the contents go into DEST */
	else
		s->dst_name = strrchr(s->dst, '/') ? strrchr(s->dst, '/') + 1 : s->dst;
	return 0;
}

static int cmp_source_dst(const void *a, const void *b)
{
	const struct source *const *x = a, *const *y = b;
	int c = strcmp((*x)->dst, (*y)->dst);

	/* ties in argument order, so the later source is the one reported */
	return c ? c : ((*x) > (*y)) - ((*x) < (*y));
}

static int check_clashes(struct plan_builder *b, struct source *s, size_t n)
{
	_cleanup_free_ struct source **v = NULL;

	if (n < 2)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = &s[i];
	qsort(v, n, sizeof(*v), cmp_source_dst);
	for (size_t i = 1; i < n; i++) {
		const struct source *x = v[i - 1], *y = v[i];

		if (strcmp(x->dst, y->dst) != 0)
			continue;
		/* one file named twice (a glob and a path, "a" and "./a") */
		if (x->e.st.st_dev == y->e.st.st_dev && x->e.st.st_ino == y->e.st.st_ino)
			return plan_refuse(b->problem, PLAN_SOURCE_TWICE, y->arg, x->arg, 0);
		return plan_refuse(b->problem, PLAN_DEST_CLASH, y->arg, y->dst, 0);
	}
	return 0;
}

/* Is path equal to dir or below it?  Component-wise: /a/bc is not in /a/b. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* realpath of a destination that may not exist yet: its deepest existing
 * ancestor's, and the rest (with --parents, directories below DEST may
 * not exist either). */
static int dst_realpath(const char *dst, char real[PATH_MAX])
{
	char head[PATH_MAX], tail[PATH_MAX] = "", buf[PATH_MAX], up[PATH_MAX];

	snprintf(head, sizeof(head), "%s", dst);
	plan_strip_slashes(head);
	while (!realpath(head, real)) {
		const char *base = strrchr(head, '/') ? strrchr(head, '/') + 1 : head;

		if (errno != ENOENT)
			return -errno;
		if (snprintf(buf, sizeof(buf), "%s%s%s", base, *tail ? "/" : "", tail) >= PATH_MAX)
			return -ENAMETOOLONG;
		memcpy(tail, buf, sizeof(tail));
		parent_of(head, up);
		if (strcmp(up, head) == 0)
			return -ENOENT;
		memcpy(head, up, sizeof(head));
	}
	if (!*tail)
		return 0;
	memcpy(buf, real, sizeof(buf));
	return plan_join(real, buf, tail);
}

static int check_into_itself(struct plan_builder *b, const struct source *s)
{
	char src_real[PATH_MAX], dst_real[PATH_MAX];
	int r;

	if (s->e.type != PLAN_DIR)
		return 0;
	if (!realpath(s->arg, src_real))
		return plan_refuse(b->problem, PLAN_SOURCE_UNREADABLE, s->arg, NULL, errno);
	r = dst_realpath(s->dst, dst_real);
	if (r < 0)
		return plan_refuse(b->problem, PLAN_DEST_MISSING, s->dst, s->dst, -r);
	if (path_within(dst_real, src_real))
		return plan_refuse(b->problem, PLAN_INTO_ITSELF, s->arg, s->dst, 0);
	return 0;
}

int plan_dest_dir_stat(const struct plan_options *o, const char *dest, const char *dir,
		       struct plan_problem *pr, struct stat *ret)
{
	int r = dest_stat(o, dir, ret);

	if (r == 0 && !S_ISDIR(ret->st_mode))
		r = -ENOTDIR;
	if (r < 0 && o->beneath && (r == -EXDEV || r == -ELOOP))
		return plan_refuse(pr, PLAN_DEST_NOT_BENEATH, dest, o->beneath, -r);
	return r < 0 ? plan_refuse(pr, PLAN_DEST_MISSING, dest, dir, -r) : 0;
}

/* Only the directories this copy writes into: a dead copy's temporaries
 * elsewhere are none of its business.  dest_dir only when it is the
 * destination root (-rT merges into DEST: its parent, perhaps /media, is
 * not ours to sweep).  A directory that cannot be read just goes
 * unswept; the engine removes them through its own checked fds. */
int plan_find_stale(struct plan *p)
{
	int r = 0;

	if (p->dest_root_entry == PLAN_TOP) {
		_cleanup_close_ int fd = open(p->dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		r = fd < 0 ? -errno : stale_temps_find_at(fd, p->dest_dir, PLAN_TOP, &p->stale);
	}
	for (size_t i = 0; r != -ENOMEM && i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];
		_cleanup_close_ int fd = -1;
		char dst[PATH_MAX];

		if (e->source->type != PLAN_DIR || !e->dst_exists)
			continue;
		plan_dst_path(p, i, dst);
		fd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = fd < 0 ? -errno : stale_temps_find_at(fd, dst, i, &p->stale);
	}
	return r == -ENOMEM ? r : 0;
}

/* The directory new top-level names go into: DEST's parent, unless the one
 * source is a directory merged into an existing DEST (-rT, "cp -r src/
 * existing"): then DEST itself, which may be writable when its parent
 * (/media) is not. */
static int dest_root_check(struct plan_builder *b, struct dest *d, const struct source *s,
			   size_t n)
{
	struct plan *p = b->p;
	struct stat st;
	int r;

	p->dest_dir = strdup(d->root);
	if (!p->dest_dir)
		return -ENOMEM;
	r = plan_dest_dir_stat(b->opts, d->given, d->root, b->problem, &st);
	if (r < 0)
		return r;
	p->dest_dir_dev = st.st_dev;
	p->dest_dir_ino = st.st_ino;
	p->dest_root_entry = PLAN_TOP;
	if (!d->into_dir && n == 1 && s[0].e.type == PLAN_DIR && s[0].d.dst_exists) {
		snprintf(d->root, sizeof(d->root), "%s", s[0].dst);
		p->dest_root_entry = 0;
	}
	if (faccessat(AT_FDCWD, d->root, W_OK | X_OK, AT_EACCESS) < 0)
		return plan_refuse(b->problem, PLAN_DEST_UNWRITABLE, NULL, d->root, errno);
	return 0;
}

/* plan_build(): the tree is walked now, each entry classified against
 * this destination as it is added (source_walk.c's file comment). */
static int walk_tree(struct plan_builder *b, const struct source *s, size_t n)
{
	struct source_tree *t = source_tree_new(b->opts);
	size_t idx;
	int r = t ? 0 : -ENOMEM;

	b->p->tree = t;
	for (size_t i = 0; i < n && r >= 0; i++) {
		r = source_tree_add(t, &s[i].e, &idx);
		if (r >= 0)
			r = source_tree_mark_holes(t, idx, &s[i].e.st);
		if (r >= 0)
			r = plan_add_entry(b, &s[i].d, &s[i].x, s[i].dst, s[i].dst_name);
		if (r >= 0 && s[i].e.type == PLAN_DIR)
			r = source_walk(t, idx, b->problem, plan_add_child, b);
	}
	if (r >= 0 && b->opts->keep_links)
		r = source_tree_link_groups(t);
	return r;
}

/* plan_build_beside(): first's tree, shared; operand i is its i-th
 * top-level entry.  A directory must still be the one walked (its tree
 * is what this destination gets); any other change is for
 * plan_same_source() to refuse. */
static int take_tree(struct plan_builder *b, const struct source *s, size_t n)
{
	struct source_tree *t = b->first->tree;
	size_t k = 0;
	int r = 0;

	b->p->tree = t;
	t->refs++;
	for (size_t i = 0; i < n && r >= 0; k = t->entries[k].end, i++) {
		const struct source_entry *top = k < t->n_entries ? &t->entries[k] : NULL;
		bool dir = s[i].e.type == PLAN_DIR || (top && top->type == PLAN_DIR);

		if (!top || (dir && (top->type != s[i].e.type || strcmp(source_arg(top), s[i].e.src) ||
				     top->dev != s[i].e.st.st_dev || top->ino != s[i].e.st.st_ino)))
			return plan_refuse(b->problem, PLAN_SOURCE_CHANGED, s[i].arg, NULL, 0);
		b->p->sources_changed |= !source_entry_same(top, &s[i].e);
		r = plan_add_entry(b, &s[i].d, &s[i].x, s[i].dst, s[i].dst_name);
		for (size_t j = k + 1; r >= 0 && j < top->end; j++)
			r = plan_add_child(b, j);
	}
	if (r >= 0 && k != t->n_entries) /* the tree has operands these sources do not */
		return plan_refuse(b->problem, PLAN_SOURCE_CHANGED, s[0].arg, NULL, 0);
	return r;
}

static int plan_sources(struct plan_builder *b, const char *const *sources, size_t n,
			struct dest *d)
{
	struct source *s = calloc(n, sizeof(*s));
	int r = s ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r >= 0; i++) {
		s[i].arg = sources[i];
		r = source_prepare(b, d, &s[i]);
	}
	if (r >= 0)
		r = check_clashes(b, s, n);
	if (r >= 0 && b->opts->parents)
		parents_sort(s, n);
	for (size_t i = 0; i < n && r >= 0; i++) {
		struct plan_src ps = { .type = s[i].e.type, .dev = s[i].e.st.st_dev,
				       .ino = s[i].e.st.st_ino, .path = s[i].e.src };

		r = plan_classify_dst(b->opts, &ps, s[i].dst, &s[i].d, &s[i].x, b->problem);
		if (r >= 0)
			r = check_into_itself(b, &s[i]);
	}
	if (r >= 0)
		r = dest_root_check(b, d, s, n);
	if (r >= 0 && b->opts->parents)
		r = parents_tree(b, s, n);
	else if (r >= 0)
		r = b->first ? take_tree(b, s, n) : walk_tree(b, s, n);
	if (r >= 0)
		plan_link_sources(b->p);
	sources_free(s, n);
	return r;
}

static int build(const struct plan *first, const char *const *sources, size_t n_sources,
		 const char *dest, const struct plan_options *opts, struct plan **ret,
		 struct plan_problem *problem)
{
	struct plan_problem scratch = { .kind = PLAN_OK };
	struct plan_builder b = { .opts = opts, .problem = problem ? problem : &scratch,
				  .first = first };
	_cleanup_free_ struct dest *d = calloc(1, sizeof(*d));
	int r;

	*b.problem = (struct plan_problem){ .kind = PLAN_OK };
	if (n_sources == 0 || !dest || (opts->target_directory && opts->no_target_directory) ||
	    (opts->no_target_directory && n_sources > 1))
		return -EINVAL;
	if (!d)
		return -ENOMEM;
	b.p = calloc(1, sizeof(*b.p));
	if (!b.p)
		return -ENOMEM;
	b.p->opts = *opts;
	r = dest_resolve(&b, n_sources, dest, d);
	if (r >= 0)
		r = plan_sources(&b, sources, n_sources, d);
	if (r >= 0) {
		b.p->dest_root = strdup(d->root);
		r = b.p->dest_root ? plan_find_stale(b.p) : -ENOMEM;
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

int plan_build(const char *const *sources, size_t n_sources, const char *dest,
	       const struct plan_options *opts, struct plan **ret,
	       struct plan_problem *problem)
{
	return build(NULL, sources, n_sources, dest, opts, ret, problem);
}

int plan_build_beside(const struct plan *first, const char *const *sources, size_t n_sources,
		      const char *dest, const struct plan_options *opts, struct plan **ret,
		      struct plan_problem *problem)
{
	return build(first, sources, n_sources, dest, opts, ret, problem);
}

bool plan_same_source(const struct plan *a, const struct plan *b)
{
	return a->tree == b->tree && !a->sources_changed && !b->sources_changed;
}

bool plan_dest_rel(const struct plan *p, size_t idx, char *buf, size_t size)
{
	const struct plan_entry *e = &p->entries[idx];
	size_t parent = source_parent(e->source, idx), len;
	const char *name = plan_dst_name(p, idx);
	int n;

	if (parent == PLAN_TOP)
		return strcmp(name, ".") != 0 &&
		       (n = snprintf(buf, size, "%s", name)) >= 0 && (size_t)n < size;
	/* under -rT's top entry, dest_dir itself: names start there */
	if (!plan_dest_rel(p, parent, buf, size)) {
		if (source_parent(p->entries[parent].source, parent) != PLAN_TOP ||
		    strcmp(plan_dst_name(p, parent), ".") != 0)
			return false;
		buf[0] = '\0';
	}
	len = strlen(buf);
	n = snprintf(buf + len, size - len, "%s%s", len ? "/" : "", name);
	return n >= 0 && (size_t)n < size - len;
}
