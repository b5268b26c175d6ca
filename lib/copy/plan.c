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
 *   4. the sources are added and walked in argument order (plan_walk.c).
 * The tree walk and the per-entry destination check live in plan_walk.c;
 * space and size limits in plan_check.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "copy/plan_internal.h"

static const char *const kind_names[] = {
	[PLAN_OK] = "ok",
	[PLAN_SOURCE_MISSING] = "source-missing",
	[PLAN_SOURCE_UNREADABLE] = "source-unreadable",
	[PLAN_OMIT_DIRECTORY] = "omit-directory",
	[PLAN_SAME_FILE] = "same-file",
	[PLAN_INTO_ITSELF] = "into-itself",
	[PLAN_DEST_NOT_DIR] = "dest-not-dir",
	[PLAN_DEST_MISSING] = "dest-missing",
	[PLAN_DIR_ONTO_NONDIR] = "dir-onto-nondir",
	[PLAN_NONDIR_ONTO_DIR] = "nondir-onto-dir",
	[PLAN_NO_SPACE] = "no-space",
	[PLAN_FILE_TOO_BIG] = "file-too-big",
	[PLAN_LOOP] = "loop",
	[PLAN_DEST_CLASH] = "dest-clash",
	[PLAN_NAME_TOO_LONG] = "name-too-long",
	[PLAN_DEST_UNWRITABLE] = "dest-unwritable",
	[PLAN_NO_INODES] = "no-inodes",
	[PLAN_NAME_INVALID] = "name-invalid",
	[PLAN_NAME_RESERVED] = "name-reserved",
	[PLAN_NAME_CLASH] = "name-clash",
	[PLAN_SOURCE_CHANGED] = "source-changed",
};

const char *plan_problem_kind_name(enum plan_problem_kind kind)
{
	if ((size_t)kind >= ARRAY_SIZE(kind_names) || !kind_names[kind])
		return "unknown";
	return kind_names[kind];
}

void plan_problem_done(struct plan_problem *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->path2);
	*p = (struct plan_problem){ .kind = PLAN_OK };
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_entries; i++)
		free(p->entries[i].src); /* the block holding all four strings */
	free(p->entries);
	free(p->dest_root);
	free(p->dest_dir);
	stale_temps_free(&p->stale);
	free(p);
}

int plan_problem_set(struct plan_problem *pr, enum plan_problem_kind kind,
		     const char *path, const char *path2)
{
	plan_problem_done(pr);
	pr->path = path ? strdup(path) : NULL;
	pr->path2 = path2 ? strdup(path2) : NULL;
	if ((path && !pr->path) || (path2 && !pr->path2)) {
		plan_problem_done(pr);
		return -ENOMEM;
	}
	pr->kind = kind;
	return 0;
}

int plan_refuse(struct plan_builder *b, enum plan_problem_kind kind,
		const char *path, const char *path2, int err)
{
	int r = plan_problem_set(b->problem, kind, path, path2);

	if (r < 0)
		return r;
	b->problem->err = err;
	return err > 0 ? -err : -EINVAL;
}

int plan_join(char buf[PATH_MAX], const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
	int n = snprintf(buf, PATH_MAX, "%s%s%s", dir, sep, name);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

enum plan_entry_type plan_type_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return PLAN_DIR;
	if (S_ISREG(mode))
		return PLAN_FILE;
	if (S_ISLNK(mode))
		return PLAN_SYMLINK;
	return PLAN_SKIP;
}

/* ptr, if it points into the string old, moved to the same place in new. */
static const char *rebase(const char *ptr, const char *old, const char *new)
{
	if (!ptr || ptr < old || ptr > old + strlen(old))
		return ptr;
	return new + (ptr - old);
}

/* One allocation per entry keeps 100k entries cheap: src\0dst\0rel\0link\0.
 * Points n's four strings into a new block holding copies of these
 * (which may be n's own old ones); src_name moves along.  The caller
 * frees the old block. */
static int pack_strings(struct plan_entry *n, const char *src, const char *dst,
			const char *rel, const char *link)
{
	size_t ls = strlen(src) + 1, ld = strlen(dst) + 1, lr = strlen(rel) + 1;
	size_t ll = link ? strlen(link) + 1 : 0;
	char *block = malloc(ls + ld + lr + ll);

	if (!block)
		return -ENOMEM;
	n->src = memcpy(block, src, ls);
	n->src_name = rebase(n->src_name, src, n->src);
	n->dst = memcpy(block + ls, dst, ld);
	n->rel = memcpy(block + ls + ld, rel, lr);
	n->link_target = ll ? memcpy(block + ls + ld + lr, link, ll) : NULL;
	return 0;
}

int plan_add_entry(struct plan_builder *b, const struct plan_entry *e, size_t *ret_idx)
{
	struct plan *p = b->p;
	struct plan_entry *n;

	if (p->n_entries == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct plan_entry *grown = reallocarray(p->entries, cap, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		p->entries = grown;
		b->cap = cap;
	}
	n = &p->entries[p->n_entries];
	*n = *e;
	if (pack_strings(n, e->src, e->dst, e->rel, e->link_target) < 0)
		return -ENOMEM;
	n->dst_name = rebase(e->dst_name, e->dst, n->dst);
	n->end = p->n_entries + 1;
	if (ret_idx)
		*ret_idx = p->n_entries;
	p->n_entries++;
	return 0;
}

/* A new block for e with dst replaced; dst_name follows to dst's last
 * component unless it is the literal "." of a copy into dest_dir. */
int plan_entry_set_dst(struct plan_entry *e, const char *dst)
{
	bool name_in_dst = e->dst_name && e->dst_name >= e->dst &&
			   e->dst_name <= e->dst + strlen(e->dst);
	char *old = e->src;
	const char *slash;

	if (pack_strings(e, old, dst, e->rel, e->link_target) < 0)
		return -ENOMEM;
	free(old);
	slash = strrchr(e->dst, '/');
	if (name_in_dst)
		e->dst_name = slash ? slash + 1 : e->dst;
	return 0;
}

/* "a/b//" -> "a/b"; "/" and "//" stay "/". */
static void strip_slashes(char *s)
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
	strip_slashes(buf);
	slash = strrchr(buf, '/');
	if (!slash)
		snprintf(buf, PATH_MAX, ".");
	else if (slash == buf)
		buf[1] = '\0';
	else {
		*slash = '\0';
		strip_slashes(buf);
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

static int dest_need_dir(struct plan_builder *b, const char *dest)
{
	struct stat st;

	if (stat(dest, &st) < 0)
		return plan_refuse(b, errno == ENOTDIR ? PLAN_DEST_NOT_DIR : PLAN_DEST_MISSING,
				   dest, dest, errno);
	if (!S_ISDIR(st.st_mode))
		return plan_refuse(b, PLAN_DEST_NOT_DIR, dest, dest, ENOTDIR);
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
		return plan_refuse(b, PLAN_NAME_TOO_LONG, dest, NULL, ENAMETOOLONG);
	snprintf(d->path, sizeof(d->path), "%s", dest);
	strip_slashes(d->path);
	if (o->target_directory || (n_sources > 1 && !o->no_target_directory)) {
		r = dest_need_dir(b, dest);
		if (r < 0)
			return r;
		d->into_dir = true;
		snprintf(d->root, sizeof(d->root), "%s", d->path);
		return 0;
	}
	if (!o->no_target_directory && stat(dest, &st) == 0 && S_ISDIR(st.st_mode)) {
		d->into_dir = true;
		snprintf(d->root, sizeof(d->root), "%s", d->path);
		return 0;
	}
	if (!o->no_target_directory && has_trailing_slash(dest)) {
		/* "DEST/": GNU cp creates it only for a directory source */
		if (lstat(d->path, &st) == 0)
			return plan_refuse(b, PLAN_DEST_NOT_DIR, dest, dest, ENOTDIR);
		d->must_be_dir_source = true;
	}
	parent_of(d->path, d->root);
	if (stat(d->root, &st) < 0)
		return plan_refuse(b, PLAN_DEST_MISSING, dest, d->root, errno);
	if (!S_ISDIR(st.st_mode))
		return plan_refuse(b, PLAN_DEST_MISSING, dest, d->root, ENOTDIR);
	return 0;
}

/* Sources are held as small heap strings: `safecp *.JPG /media/usb` may
 * pass tens of thousands. */
struct source {
	const char *arg;
	struct plan_entry e;    /* src is arg; dst, rel, link_target owned */
};

static void sources_free(struct source *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].e.dst);
		free(s[i].e.rel);
		free(s[i].e.link_target);
	}
	free(s);
}

/* The name a source gets: its last component; "." and "/" have none (GNU
 * cp copies their contents into DEST); ".." is named after what it is. */
static int source_name(const char *arg, char name[PATH_MAX], char rel[PATH_MAX])
{
	char buf[PATH_MAX], real[PATH_MAX];
	const char *base;

	if (strlen(arg) >= PATH_MAX)
		return -ENAMETOOLONG;
	snprintf(buf, sizeof(buf), "%s", arg);
	strip_slashes(buf);
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

static int source_stat(struct plan_builder *b, struct source *s)
{
	const struct plan_options *o = b->opts;
	bool follow = o->follow_symlinks || !o->recursive;
	int r = follow ? stat(s->arg, &s->e.st) : lstat(s->arg, &s->e.st);
	char link[PATH_MAX];
	ssize_t n;

	if (r < 0)
		return plan_refuse(b, errno == ENOENT || errno == ENOTDIR ?
				   PLAN_SOURCE_MISSING : PLAN_SOURCE_UNREADABLE,
				   s->arg, NULL, errno);
	s->e.type = plan_type_of(s->e.st.st_mode);
	if (s->e.type == PLAN_DIR && !o->recursive)
		return plan_refuse(b, PLAN_OMIT_DIRECTORY, s->arg, NULL, 0);
	if (s->e.type == PLAN_SYMLINK) {
		n = readlink(s->arg, link, sizeof(link) - 1);
		if (n < 0)
			return plan_refuse(b, PLAN_SOURCE_UNREADABLE, s->arg, NULL, errno);
		link[n] = '\0';
		s->e.link_target = strdup(link);
		if (!s->e.link_target)
			return -ENOMEM;
	}
	return 0;
}

/* Step 2 of the file comment. */
static int source_prepare(struct plan_builder *b, const struct dest *d, struct source *s)
{
	char name[PATH_MAX], rel[PATH_MAX], dst[PATH_MAX];
	int r;

	r = source_stat(b, s);
	if (r < 0)
		return r;
	if (d->must_be_dir_source && s->e.type != PLAN_DIR)
		return plan_refuse(b, PLAN_DEST_NOT_DIR, d->given, d->given, ENOTDIR);
	if (strlen(s->arg) >= PATH_MAX)
		return plan_refuse(b, PLAN_NAME_TOO_LONG, s->arg, NULL, ENAMETOOLONG);
	r = source_name(s->arg, name, rel);
	if (r < 0)
		return plan_refuse(b, PLAN_SOURCE_UNREADABLE, s->arg, NULL, -r);
	if (!d->into_dir || !*name)
		snprintf(dst, sizeof(dst), "%s", d->path);
	else if (plan_join(dst, d->path, name) < 0)
		return plan_refuse(b, PLAN_NAME_TOO_LONG, d->path, NULL, ENAMETOOLONG);
	s->e.src = (char *)s->arg;
	s->e.parent = PLAN_TOP;
	s->e.dst = strdup(dst);
	s->e.rel = strdup(rel);
	if (!s->e.dst || !s->e.rel)
		return -ENOMEM;
	if (d->into_dir && !*name)
		s->e.dst_name = "."; /* "cp -r . DEST": the contents go into DEST */
	else
		s->e.dst_name = strrchr(s->e.dst, '/') ? strrchr(s->e.dst, '/') + 1 : s->e.dst;
	return 0;
}

static int cmp_source_dst(const void *a, const void *b)
{
	const struct source *const *x = a, *const *y = b;
	int c = strcmp((*x)->e.dst, (*y)->e.dst);

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
	for (size_t i = 1; i < n; i++)
		if (strcmp(v[i - 1]->e.dst, v[i]->e.dst) == 0)
			return plan_refuse(b, PLAN_DEST_CLASH, v[i]->arg, v[i]->e.dst, 0);
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

/* realpath of a destination that may not exist yet (its parent does). */
static int dst_realpath(const char *dst, char real[PATH_MAX])
{
	char parent[PATH_MAX], buf[PATH_MAX];
	const char *base;

	if (realpath(dst, real))
		return 0;
	if (errno != ENOENT)
		return -errno;
	parent_of(dst, parent);
	snprintf(buf, sizeof(buf), "%s", dst);
	strip_slashes(buf);
	base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
	if (!realpath(parent, real))
		return -errno;
	return plan_join(real, strcpy(parent, real), base);
}

static int check_into_itself(struct plan_builder *b, const struct source *s)
{
	char src_real[PATH_MAX], dst_real[PATH_MAX];
	int r;

	if (s->e.type != PLAN_DIR)
		return 0;
	if (!realpath(s->arg, src_real))
		return plan_refuse(b, PLAN_SOURCE_UNREADABLE, s->arg, NULL, errno);
	r = dst_realpath(s->e.dst, dst_real);
	if (r < 0)
		return plan_refuse(b, PLAN_DEST_MISSING, s->e.dst, s->e.dst, -r);
	if (path_within(dst_real, src_real))
		return plan_refuse(b, PLAN_INTO_ITSELF, s->arg, s->e.dst, 0);
	return 0;
}

void plan_count(struct plan *p)
{
	p->n_dirs = p->n_skipped = p->n_existing_kept = p->n_symlinks = p->n_files = 0;
	p->total_bytes = 0;
	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];

		if (e->type == PLAN_DIR)
			p->n_dirs++;
		else if (e->type == PLAN_SKIP)
			p->n_skipped++;
		else if (e->skip_existing)
			p->n_existing_kept++;
		else if (e->type == PLAN_SYMLINK)
			p->n_symlinks++;
		else {
			p->n_files++;
			p->total_bytes += (uint64_t)e->st.st_size;
		}
	}
}

/* Only the directories this copy writes into: a dead copy's temporaries
 * elsewhere are none of its business.  dest_dir only when it is the
 * destination root (-rT merges into DEST: its parent, perhaps /media, is
 * not ours to sweep).  A directory that cannot be read just goes
 * unswept; the engine removes them through its own checked fds. */
static int find_stale(struct plan *p)
{
	int r = 0;

	if (p->dest_root_entry == PLAN_TOP) {
		_cleanup_close_ int fd = open(p->dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		r = fd < 0 ? -errno : stale_temps_find_at(fd, p->dest_dir, PLAN_TOP, &p->stale);
	}
	for (size_t i = 0; r != -ENOMEM && i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];
		_cleanup_close_ int fd = -1;

		if (e->type != PLAN_DIR || !e->dst_exists)
			continue;
		fd = open(e->dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = fd < 0 ? -errno : stale_temps_find_at(fd, e->dst, i, &p->stale);
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

	p->dest_dir = strdup(d->root);
	if (!p->dest_dir)
		return -ENOMEM;
	if (stat(d->root, &st) < 0)
		return plan_refuse(b, PLAN_DEST_MISSING, d->given, d->root, errno);
	p->dest_dir_dev = st.st_dev;
	p->dest_dir_ino = st.st_ino;
	p->dest_root_entry = PLAN_TOP;
	if (!d->into_dir && n == 1 && s[0].e.type == PLAN_DIR && s[0].e.dst_exists) {
		snprintf(d->root, sizeof(d->root), "%s", s[0].e.dst);
		p->dest_root_entry = 0;
	}
	if (faccessat(AT_FDCWD, d->root, W_OK | X_OK, AT_EACCESS) < 0)
		return plan_refuse(b, PLAN_DEST_UNWRITABLE, NULL, d->root, errno);
	return 0;
}

static int plan_sources(struct plan_builder *b, const char *const *sources, size_t n,
			struct dest *d)
{
	struct source *s = calloc(n, sizeof(*s));
	size_t idx;
	int r = s ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r >= 0; i++) {
		s[i].arg = sources[i];
		r = source_prepare(b, d, &s[i]);
	}
	if (r >= 0)
		r = check_clashes(b, s, n);
	for (size_t i = 0; i < n && r >= 0; i++) {
		r = plan_classify_dst(b, &s[i].e);
		if (r >= 0)
			r = check_into_itself(b, &s[i]);
	}
	if (r >= 0)
		r = dest_root_check(b, d, s, n);
	for (size_t i = 0; i < n && r >= 0; i++) {
		r = plan_add_entry(b, &s[i].e, &idx);
		if (r >= 0 && s[i].e.type == PLAN_DIR)
			r = b->tree ? plan_walk_tree(b, idx) : plan_walk(b, idx);
	}
	sources_free(s, n);
	return r;
}

static int build(const struct plan *tree, const char *const *sources, size_t n_sources,
		 const char *dest, const struct plan_options *opts, struct plan **ret,
		 struct plan_problem *problem)
{
	struct plan_problem scratch = { .kind = PLAN_OK };
	struct plan_builder b = { .opts = opts, .problem = problem ? problem : &scratch,
				  .tree = tree };
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
		r = b.p->dest_root ? find_stale(b.p) : -ENOMEM;
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

int plan_build_beside(const struct plan *tree, const char *const *sources, size_t n_sources,
		      const char *dest, const struct plan_options *opts, struct plan **ret,
		      struct plan_problem *problem)
{
	return build(tree, sources, n_sources, dest, opts, ret, problem);
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool plan_same_source(const struct plan *a, const struct plan *b)
{
	if (a->n_entries != b->n_entries)
		return false;
	for (size_t i = 0; i < a->n_entries; i++) {
		const struct plan_entry *x = &a->entries[i], *y = &b->entries[i];

		if (x->type != y->type || x->parent != y->parent || x->end != y->end ||
		    x->st.st_dev != y->st.st_dev || x->st.st_ino != y->st.st_ino ||
		    x->st.st_size != y->st.st_size || !same_time(&x->st.st_mtim, &y->st.st_mtim) ||
		    !same_time(&x->st.st_ctim, &y->st.st_ctim) || !same_str(x->src, y->src) ||
		    !same_str(x->src_name, y->src_name) || !same_str(x->link_target, y->link_target))
			return false;
	}
	return true;
}
