/* source_walk.c: the walk that fills the source tree below a directory.
 *
 * The walk is iterative (no recursion, so depth is bounded by memory, not
 * the stack): a stack of frames, one per directory on the current path.
 * Entering a directory reads all its names at once (getdents64 into one
 * shared buffer) and sorts them (strcmp: reproducible, locale-free);
 * each name is fstatat'ed relative to the directory's fd (a window of
 * names at a time, on two cores: stat_ahead.h), and when visited a
 * subdirectory is opened with openat and pushed at once, which yields
 * pre-order: every directory before its contents.  Paths are resolved
 * once per directory, not once per file.
 *
 * File descriptors: only the WALK_FDS deepest frames keep theirs open
 * (a 2000-level tree must not hit RLIMIT_NOFILE).  When the walk returns
 * to a frame whose fd was closed, it reopens the directory by path and
 * checks it is still the same (st_dev, st_ino).
 *
 * Symlinks: without -L they are entries (fstatat AT_SYMLINK_NOFOLLOW,
 * openat O_NOFOLLOW); with -L they are followed and a dangling one is a
 * PLAN_SOURCE_MISSING.  Loops: a directory whose (st_dev, st_ino) is
 * already on the stack is refused with PLAN_LOOP, rather than skipped,
 * so a copy never silently leaves out part of a tree; this also catches
 * bind-mount loops without -L.
 *
 * With -x (tree.one_file_system) a directory on another device than the
 * operand's is an entry, but not walked: cp -x makes the mount point and
 * leaves it empty.
 *
 * Each entry is handed to the caller as soon as it is added (plan.c
 * classifies it against the first destination then), so refusals come
 * in the order cp would meet them, one file at a time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/grow.h"
#include "base/test_hook.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"
#include "copy/stat_ahead.h"

#define WALK_FDS 32
#define DENTS_SIZE (64 * 1024)
/* names stated ahead at a time: a huge directory holds no stat per name */
#define STAT_WINDOW 256

struct frame {
	int fd;             /* -1 once closed for depth */
	size_t idx;         /* tree entry of this directory */
	dev_t dev;
	ino_t ino;
	size_t src_prefix;  /* a child's path and rel are these lengths */
	size_t rel_prefix;  /*   plus its name (the '/' included) */
	char *blob;         /* the names, NUL-separated */
	char **names;       /* sorted, pointing into blob */
	struct stat *st;    /* names[win + i]'s stat, taken ahead (stat_ahead.h) */
	int *err;           /*   and its errno, or 0, for i < win_n */
	size_t win, win_n;
	size_t n, next;
};

struct walk {
	struct source_tree *t;
	dev_t root_dev;     /* -x: the operand's filesystem */
	struct plan_problem *pr;
	source_added_fn added;
	void *ctx;
	struct frame *f;
	size_t depth, cap;
	char *dents;
	struct stat_ahead *ahead; /* NULL: the stats are taken in this thread */
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int names_add(struct frame *f, size_t *len, size_t *cap, size_t **offs,
		     size_t *offs_cap, const char *name)
{
	size_t l = strlen(name) + 1;

	/* one blob of names and their offsets, not an allocation per name */
	if (grow_array(&f->blob, cap, *len + l, 1, 4096) < 0 ||
	    grow_array(offs, offs_cap, f->n + 1, sizeof(**offs), 64) < 0)
		return -ENOMEM;
	memcpy(f->blob + *len, name, l);
	(*offs)[f->n++] = *len;
	*len += l;
	return 0;
}

/* Every name in the directory but "." and "..", sorted. */
static int read_names(struct walk *w, int fd, struct frame *f)
{
	_cleanup_free_ size_t *offs = NULL;
	size_t len = 0, cap = 0, offs_cap = 0;
	ssize_t got;
	int r;

	while ((got = getdents64(fd, w->dents, DENTS_SIZE)) > 0) {
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(w->dents + off);

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			r = names_add(f, &len, &cap, &offs, &offs_cap, d->d_name);
			if (r < 0)
				return r;
		}
	}
	if (got < 0)
		return -errno;
	f->names = calloc(f->n ? f->n : 1, sizeof(*f->names));
	if (!f->names)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++)
		f->names[i] = f->blob + offs[i];
	qsort(f->names, f->n, sizeof(*f->names), cmp_names);
	return 0;
}

static void frame_done(struct frame *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->names);
	free(f->blob);
	free(f->st);
	free(f->err);
}

/* The stats of names[i] and up to STAT_WINDOW - 1 after it, before the
 * walk visits them (the names are all known).  A directory's stat may be
 * older than the walk of the siblings before it: walk_push() checks that
 * what it opened is still that directory. */
static int stat_window(struct walk *w, int fd, struct frame *f, size_t i)
{
	size_t cap = MIN(f->n, (size_t)STAT_WINDOW);

	if (!f->st) {
		f->st = malloc(cap * sizeof(*f->st));
		f->err = malloc(cap * sizeof(*f->err));
		if (!f->st || !f->err)
			return -ENOMEM;
	}
	f->win = i;
	f->win_n = MIN(f->n - i, cap);
	stat_ahead_run(w->ahead, fd, f->names + i, f->win_n,
		       w->t->follow_symlinks ? 0 : AT_SYMLINK_NOFOLLOW, f->st, f->err);
	return 0;
}

/* Entry idx's path, for a message or to reopen it, in buf (PATH_MAX). */
static const char *entry_src(struct walk *w, size_t idx, char buf[PATH_MAX])
{
	return source_path(&w->t->entries[idx], buf, PATH_MAX) < 0 ? "?" : buf;
}

/* The length of dir's path joined with a name, less the name: as
 * plan_join() joins, no '/' is added after one the path ends with. */
static size_t join_prefix(const char *dir)
{
	size_t l = strlen(dir);

	return l > 0 && dir[l - 1] == '/' ? l : l + 1;
}

/* f's prefixes (the frame comment), from its entry's paths. */
static int frame_prefixes(struct walk *w, struct frame *f)
{
	const struct source_entry *e = &w->t->entries[f->idx];
	char buf[PATH_MAX];

	if (source_path(e, buf, sizeof(buf)) < 0)
		return -ENAMETOOLONG;
	f->src_prefix = join_prefix(buf);
	if (source_rel(e, buf, sizeof(buf)) < 0)
		return -ENAMETOOLONG;
	f->rel_prefix = join_prefix(buf);
	return 0;
}

/* Push the directory open on fd (taken over) as tree entry idx. */
static int walk_push(struct walk *w, int fd, size_t idx)
{
	_cleanup_close_ int dfd = fd;
	struct frame f = { .fd = -1, .idx = idx };
	char path[PATH_MAX], other[PATH_MAX];
	struct stat st;
	int r;

	if (fstat(dfd, &st) < 0)
		return plan_refuse(w->pr, PLAN_SOURCE_UNREADABLE, entry_src(w, idx, path), NULL,
				   errno);
	/* replaced, or a filesystem mounted on it, since its stat: the entry
	 * (its type, -x's device) would not be what is walked */
	if (st.st_dev != w->t->entries[idx].dev || st.st_ino != w->t->entries[idx].ino)
		return plan_refuse(w->pr, PLAN_SOURCE_CHANGED, entry_src(w, idx, path), NULL, 0);
	for (size_t i = 0; i < w->depth; i++)
		if (w->f[i].dev == st.st_dev && w->f[i].ino == st.st_ino)
			return plan_refuse(w->pr, PLAN_LOOP, entry_src(w, idx, path),
					   entry_src(w, w->f[i].idx, other), ELOOP);
	if (frame_prefixes(w, &f) < 0) /* the walk added nothing this long */
		return plan_refuse(w->pr, PLAN_NAME_TOO_LONG, "?", NULL, ENAMETOOLONG);
	if (GROW(w->f, w->cap, w->depth + 1, 16) < 0)
		return -ENOMEM;
	f.dev = st.st_dev;
	f.ino = st.st_ino;
	r = read_names(w, dfd, &f);
	if (r < 0) {
		frame_done(&f);
		return r == -ENOMEM ? r :
		       plan_refuse(w->pr, PLAN_SOURCE_UNREADABLE, entry_src(w, idx, path), NULL,
				   -r);
	}
	f.fd = TAKE_FD(dfd);
	w->f[w->depth++] = f;
	if (w->depth > WALK_FDS) {
		struct frame *old = &w->f[w->depth - 1 - WALK_FDS];

		close(old->fd);
		old->fd = -1;
	}
	return 0;
}

/* The frame's fd, reopened by path if it was closed for depth. */
static int frame_fd(struct walk *w, struct frame *f)
{
	int nofollow = source_follows(w->t, &w->t->entries[f->idx]) ? 0 : O_NOFOLLOW;
	char path[PATH_MAX];
	struct stat st;

	if (f->fd >= 0)
		return f->fd;
	entry_src(w, f->idx, path);
	f->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | nofollow);
	if (f->fd < 0)
		return plan_refuse(w->pr, PLAN_SOURCE_UNREADABLE, path, NULL, errno);
	if (fstat(f->fd, &st) < 0 || st.st_dev != f->dev || st.st_ino != f->ino)
		return plan_refuse(w->pr, PLAN_SOURCE_UNREADABLE, path, NULL, ESTALE);
	return f->fd;
}

/* A refusal naming the child name of frame f. */
static int refuse_child(struct walk *w, struct frame *f, const char *name, enum plan_problem_kind k,
			int err)
{
	char dir[PATH_MAX], path[PATH_MAX];

	if (plan_join(path, entry_src(w, f->idx, dir), name) < 0)
		return plan_refuse(w->pr, k, dir, NULL, err);
	return plan_refuse(w->pr, k, path, NULL, err);
}

/* A child that failed a call by name: missing if it is gone (since its
 * stat, too), else unreadable. */
static int refuse_gone(struct walk *w, struct frame *f, const char *name, int err)
{
	return refuse_child(w, f, name, err == ENOENT ? PLAN_SOURCE_MISSING :
			    PLAN_SOURCE_UNREADABLE, err);
}

static int stat_child(struct walk *w, struct frame *f, int fd, size_t i,
		      struct source_found *e, char link[PATH_MAX])
{
	ssize_t n;
	int r;

	if (!f->st || i < f->win || i - f->win >= f->win_n) {
		r = stat_window(w, fd, f, i);
		if (r < 0)
			return r;
	}
	if (f->err[i - f->win])
		return refuse_gone(w, f, e->name, f->err[i - f->win]);
	e->st = f->st[i - f->win];
	e->type = plan_type_of(e->st.st_mode);
	if (e->type != PLAN_SYMLINK)
		return 0;
	n = readlinkat(fd, e->name, link, PATH_MAX - 1);
	if (n < 0)
		return refuse_gone(w, f, e->name, errno);
	link[n] = '\0';
	e->link_target = link;
	return 0;
}

/* Add name (a child of frame f) to the tree; a directory is pushed.  Its
 * path and rel (built when needed) must fit PATH_MAX, as plan_join()'s. */
static int walk_visit(struct walk *w, struct frame *f, int fd, size_t i)
{
	const char *name = f->names[i];
	struct source_found e = { .name = name, .parent = f->idx };
	size_t l = strlen(name), idx;
	char link[PATH_MAX], dir[PATH_MAX];
	int r, cfd, nofollow = w->t->follow_symlinks ? 0 : O_NOFOLLOW;

	if (f->src_prefix + l >= PATH_MAX || f->rel_prefix + l >= PATH_MAX)
		return plan_refuse(w->pr, PLAN_NAME_TOO_LONG, entry_src(w, f->idx, dir), NULL,
				   ENAMETOOLONG);
	r = stat_child(w, f, fd, i, &e, link);
	if (r >= 0)
		r = source_tree_add(w->t, &e, &idx);
	if (r >= 0)
		r = source_tree_mark_holes(w->t, idx, &e.st);
	if (r >= 0 && w->added)
		r = w->added(w->ctx, idx);
	if (r < 0 || e.type != PLAN_DIR)
		return r;
	if (w->t->one_file_system && e.st.st_dev != w->root_dev)
		return 0; /* -x: the mount point is copied, empty, as cp -x does */
#ifdef SAFECP_TEST_HOOKS
	test_hook("walk-enter", entry_src(w, idx, dir));
#endif
	cfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | nofollow);
	if (cfd < 0)
		return refuse_gone(w, f, name, errno);
	return walk_push(w, cfd, idx);
}

int source_walk(struct source_tree *t, size_t idx, struct plan_problem *pr,
		source_added_fn added, void *ctx)
{
	struct walk w = { .t = t, .pr = pr, .added = added, .ctx = ctx,
			  .root_dev = t->entries[idx].dev };
	char path[PATH_MAX];
	int fd, r;

	w.dents = malloc(DENTS_SIZE);
	if (!w.dents)
		return -ENOMEM;
	/* an operand below its path (--parents) is not a top */
	if (source_path(&t->entries[idx], path, sizeof(path)) < 0) {
		free(w.dents);
		return plan_refuse(pr, PLAN_NAME_TOO_LONG, source_name(&t->entries[idx]), NULL,
				   ENAMETOOLONG);
	}
	if (stat_ahead_new(&w.ahead) < 0)
		w.ahead = NULL; /* no thread: the walk stats alone */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = fd < 0 ? plan_refuse(pr, PLAN_SOURCE_UNREADABLE, path, NULL, errno) :
		     walk_push(&w, fd, idx);
	while (r >= 0 && w.depth > 0) {
		struct frame *f = &w.f[w.depth - 1];

		if (f->next == f->n) {
			t->entries[f->idx].end = (uint32_t)t->n_entries;
			frame_done(f);
			w.depth--;
			continue;
		}
		r = frame_fd(&w, f);
		if (r >= 0)
			r = walk_visit(&w, f, r, f->next++);
	}
	while (w.depth > 0)
		frame_done(&w.f[--w.depth]);
	free(w.f);
	free(w.dents);
	stat_ahead_free(w.ahead);
	return r < 0 ? r : 0;
}
