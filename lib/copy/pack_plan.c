/* pack_plan.c: what an archive packs and where it goes, decided before
 * the first byte (pack.h, pieces 1 and 2).
 *
 * The sources are examined and walked as plan.c does for a recursive
 * copy (source_examine, source_walk), into a tree of their own that no
 * destination classifies: nothing of the sources is written as a file.
 * The destination's plan has one entry, the archive, whose "source" is
 * a made-up regular file: the first source's path (for messages), the
 * archive's name, st_size the bound, the time of planning.  Its dst is
 * classified like any file's (replaced when it exists, refused onto a
 * directory) and its directory checked as plan.c checks DEST's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "copy/pack.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"
#include "base/cleanup.h"

void pack_tree_free(struct source_tree *t)
{
	source_tree_unref(t);
}

/* The name a source gets, as plan.c's source_name(): its last component
 * without trailing slashes; "." and "/" stay (their contents are named
 * without them); ".." is named after what it is. */
static int top_rel(const char *arg, char rel[PATH_MAX])
{
	char buf[PATH_MAX], real[PATH_MAX];
	size_t n;
	const char *base;

	if (strlen(arg) >= PATH_MAX)
		return -ENAMETOOLONG;
	snprintf(buf, sizeof(buf), "%s", arg);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
	if (strcmp(base, "..") == 0) {
		if (!realpath(arg, real))
			return -errno;
		base = strrchr(real, '/') + 1;
		snprintf(rel, PATH_MAX, "%s", *base ? base : "/");
		return 0;
	}
	snprintf(rel, PATH_MAX, "%s", *base ? base : "/");
	return 0;
}

const char *pack_entry_name(const struct source_tree *t, size_t idx, char buf[PATH_MAX])
{
	const char *rel = buf;

	if (source_rel(&t->entries[idx], buf, PATH_MAX) < 0)
		return NULL; /* the walk refused longer ones */

	if (strcmp(rel, ".") == 0 || strcmp(rel, "/") == 0)
		return NULL;
	if (strncmp(rel, "./", 2) == 0)
		return rel + 2;
	return rel[0] == '/' ? rel + 1 : rel;
}

static int check_clash(const struct source_tree *t, size_t top, const char *arg,
		       struct plan_problem *pr)
{
	char buf[PATH_MAX], other_buf[PATH_MAX];
	const char *name = pack_entry_name(t, top, buf);

	for (size_t i = 0; name && i < top; i = t->entries[i].end) {
		const char *other = pack_entry_name(t, i, other_buf);

		if (other && strcmp(other, name) == 0)
			return plan_refuse(pr, PLAN_DEST_CLASH, arg, name, 0);
	}
	return 0;
}

int pack_tree_build(const char *const *sources, size_t n, bool follow_symlinks,
		    struct source_tree **ret, struct plan_problem *problem)
{
	struct plan_options o = { .recursive = true, .follow_symlinks = follow_symlinks };
	struct plan_problem scratch = { .kind = PLAN_OK };
	struct plan_problem *pr = problem ? problem : &scratch;
	struct source_tree *t = source_tree_new(&o);
	int r = t ? 0 : -ENOMEM;

	*pr = (struct plan_problem){ .kind = PLAN_OK };
	for (size_t i = 0; i < n && r >= 0; i++) {
		char rel[PATH_MAX];
		struct source_found e = { 0 };
		size_t idx;

		r = source_examine(&o, sources[i], &e, pr);
		if (r >= 0 && top_rel(sources[i], rel) < 0)
			r = plan_refuse(pr, PLAN_NAME_TOO_LONG, sources[i], NULL, ENAMETOOLONG);
		e.rel = rel;
		if (r >= 0)
			r = source_tree_add(t, &e, &idx);
		free((char *)e.link_target);
		if (r >= 0)
			r = check_clash(t, idx, sources[i], pr);
		if (r >= 0 && t->entries[idx].type == PLAN_DIR)
			r = source_walk(t, idx, pr, NULL, NULL);
	}
	if (r < 0 || n == 0) {
		source_tree_unref(t);
		plan_problem_done(&scratch);
		return r < 0 ? r : -EINVAL;
	}
	source_tree_trim(t);
	*ret = t;
	return 0;
}

uint64_t pack_tree_bytes(const struct source_tree *t)
{
	uint64_t b = 0;

	for (size_t i = 0; i < t->n_entries; i++)
		if (t->entries[i].type == PLAN_FILE)
			b += (uint64_t)t->entries[i].size;
	return b;
}

uint64_t pack_tree_bound(const struct source_tree *t, enum pack_format f)
{
	uint64_t b = 0;

	for (size_t i = 0; i < t->n_entries; i++) {
		const struct source_entry *e = &t->entries[i];
		char buf[PATH_MAX];
		const char *name = pack_entry_name(t, i, buf), *link = source_link(e);

		if (e->type == PLAN_SKIP || !name)
			continue;
		b += pack_bound_entry(f, strlen(name) + (link ? strlen(link) : 0),
				      e->type == PLAN_FILE ? (uint64_t)e->size : 0);
	}
	return b + pack_bound_end(f, b);
}

/* The archive's path for this destination, and the directory it goes in. */
static int archive_path(const struct source_tree *sources, enum pack_format f, const char *dest,
			const struct plan_options *o, char path[PATH_MAX], char dir[PATH_MAX],
			struct plan_problem *pr)
{
	char top_rel[PATH_MAX], real[PATH_MAX], *slash;
	const char *rel = source_rel(&sources->entries[0], top_rel, sizeof(top_rel)) < 0 ? "root"
											  : top_rel;
	struct stat st;
	bool into = o->target_directory ||
		    (!o->no_target_directory && stat(dest, &st) == 0 && S_ISDIR(st.st_mode));
	int n;

	if (!*dest)
		return plan_refuse(pr, PLAN_DEST_MISSING, dest, dest, ENOENT);
	if (strlen(dest) >= PATH_MAX)
		return plan_refuse(pr, PLAN_NAME_TOO_LONG, dest, NULL, ENAMETOOLONG);
	/* "." and "/" have no name of their own: the directory's */
	if (strcmp(rel, ".") == 0 || strcmp(rel, "/") == 0)
		rel = realpath(source_arg(&sources->entries[0]), real) && strrchr(real, '/')[1]
			      ? strrchr(real, '/') + 1 : "root";
	if (into) {
		if (stat(dest, &st) < 0)
			return plan_refuse(pr, errno == ENOTDIR ? PLAN_DEST_NOT_DIR : PLAN_DEST_MISSING,
					   dest, dest, errno);
		if (!S_ISDIR(st.st_mode))
			return plan_refuse(pr, PLAN_DEST_NOT_DIR, dest, dest, ENOTDIR);
		snprintf(dir, PATH_MAX, "%s", dest);
		n = snprintf(path, PATH_MAX, "%s%s%s.%s", dest,
			     dest[strlen(dest) - 1] == '/' ? "" : "/", rel, pack_format_name(f));
		return n < 0 || n >= PATH_MAX
			? plan_refuse(pr, PLAN_NAME_TOO_LONG, dest, NULL, ENAMETOOLONG) : 0;
	}
	snprintf(path, PATH_MAX, "%s", dest);
	snprintf(dir, PATH_MAX, "%s", dest);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, PATH_MAX, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) < 0)
		return plan_refuse(pr, PLAN_DEST_MISSING, dest, dir, errno);
	if (!S_ISDIR(st.st_mode))
		return plan_refuse(pr, PLAN_DEST_MISSING, dest, dir, ENOTDIR);
	return 0;
}

/* The archive's one-entry tree: a regular file of the bound's size. */
static int archive_tree(const struct source_tree *sources, const char *first_source,
			enum pack_format f, const char *name, struct source_tree **ret)
{
	struct plan_options o = { 0 };
	struct source_tree *t = source_tree_new(&o);
	struct source_found e = { .type = PLAN_FILE, .src = first_source, .rel = name,
				  .parent = PLAN_TOP };
	struct timespec now;

	if (!t)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &now);
	e.st.st_mode = S_IFREG | 0644;
	e.st.st_nlink = 1;
	e.st.st_size = (off_t)pack_tree_bound(sources, f);
	e.st.st_mtim = e.st.st_atim = e.st.st_ctim = now;
	if (source_tree_add(t, &e, NULL) < 0) {
		source_tree_unref(t);
		return -ENOMEM;
	}
	*ret = t;
	return 0;
}

/* An archive that would replace one of its own sources. */
static int check_not_a_source(const struct source_tree *sources, const struct plan_entry *e,
			      const struct plan_existing *x, const char *dst,
			      struct plan_problem *pr)
{
	for (size_t i = 0; e->dst_exists && i < sources->n_entries; i++) {
		const struct source_entry *s = &sources->entries[i];
		char src[PATH_MAX];

		if (s->type == PLAN_FILE && s->dev == x->dst_dev && s->ino == x->dst_ino)
			return plan_refuse(pr, PLAN_SAME_FILE,
					   source_path(s, src, sizeof(src)) < 0 ? "?" : src, dst, 0);
	}
	return 0;
}

static int dest_dir_check(struct plan *p, const char *dir, struct plan_problem *pr)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	p->dest_dir = strdup(dir);
	p->dest_root = strdup(dir);
	if (!p->dest_dir || !p->dest_root)
		return -ENOMEM;
	r = plan_dest_dir_stat(&p->opts, dir, dir, pr, &st);
	if (r < 0)
		return r;
	p->dest_dir_dev = st.st_dev;
	p->dest_dir_ino = st.st_ino;
	p->dest_root_entry = PLAN_TOP;
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
		return plan_refuse(pr, PLAN_DEST_UNWRITABLE, NULL, dir, errno);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && stale_temps_find_at(fd, dir, PLAN_TOP, &p->stale) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

int pack_plan_build(const struct source_tree *sources, const char *first_source,
		    enum pack_format f, const char *dest, const struct plan_options *opts,
		    const struct plan *first, struct plan **ret, struct plan_problem *problem)
{
	struct plan_problem scratch = { .kind = PLAN_OK };
	struct plan_problem *pr = problem ? problem : &scratch;
	char path[PATH_MAX], dir[PATH_MAX];
	struct plan_entry d = { 0 };
	struct plan_existing x = { 0 };
	struct plan_builder b = { .opts = opts, .problem = pr };
	struct plan_src ps;
	char src[PATH_MAX];
	struct plan *p;
	int r;

	*pr = (struct plan_problem){ .kind = PLAN_OK };
	if (sources->n_entries == 0 || !dest)
		return -EINVAL;
	r = archive_path(sources, f, dest, opts, path, dir, pr);
	if (r < 0)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->opts = *opts;
	b.p = p;
	if (first) {
		p->tree = first->tree;
		p->tree->refs++;
	} else {
		r = archive_tree(sources, first_source, f, strrchr(path, '/') ? strrchr(path, '/') + 1
									      : path, &p->tree);
	}
	if (r >= 0) {
		plan_src_of(&p->tree->entries[0], &ps, src);
		r = plan_classify_dst(opts, &ps, path, &d, &x, pr);
	}
	if (r >= 0)
		r = check_not_a_source(sources, &d, &x, path, pr);
	if (r >= 0)
		r = plan_add_entry(&b, &d, &x, path, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	if (r >= 0)
		r = dest_dir_check(p, dir, pr);
	if (r < 0) {
		plan_free(p);
		plan_problem_done(&scratch);
		return r;
	}
	plan_link_sources(p);
	plan_count(p);
	*ret = p;
	return 0;
}
