/* source_tree.c: the source tree's entries and its life: an operand
 * examined as cp does, entries appended (their strings in the tree's
 * arena), their paths built back from the names, the counts, the
 * references of the plans that share it.  The walk below a directory is
 * source_walk.c's. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/source_tree.h"
#include "base/grow.h"
#include "base/cleanup.h"
#include "base/sorted.h"

struct source_tree *source_tree_new(const struct plan_options *o)
{
	struct source_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->recursive = o->recursive;
	t->follow_symlinks = o->follow_symlinks;
	t->one_file_system = o->one_file_system;
	t->follow_operands = plan_follows_operands(o);
	t->refs = 1;
	t->owners = o->keep_owners ? malloc(sizeof(*t->owners)) : NULL;
	t->cap_owners = t->owners ? 1 : 0;
	if (o->keep_owners && !t->owners) {
		free(t);
		return NULL;
	}
	return t;
}

void source_tree_unref(struct source_tree *t)
{
	if (!t || --t->refs > 0)
		return;
	arena_free(&t->names);
	free(t->links);
	free(t->entries);
	free(t->holes);
	free(t->owners);
	free(t);
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

int source_examine(const struct plan_options *o, const char *arg, struct source_found *f,
		   struct plan_problem *pr)
{
	bool follow = plan_follows_operands(o);
	int r = follow ? stat(arg, &f->st) : lstat(arg, &f->st);
	char link[PATH_MAX];
	ssize_t n;

	f->src = arg;
	f->parent = PLAN_TOP;
	if (r < 0)
		return plan_refuse(pr, errno == ENOENT || errno == ENOTDIR ?
				   PLAN_SOURCE_MISSING : PLAN_SOURCE_UNREADABLE, arg, NULL, errno);
	f->type = plan_type_of(f->st.st_mode);
	if (f->type == PLAN_DIR && !o->recursive)
		return plan_refuse(pr, PLAN_OMIT_DIRECTORY, arg, NULL, 0);
	if (f->type == PLAN_SYMLINK) {
		n = readlink(arg, link, sizeof(link) - 1);
		if (n < 0)
			return plan_refuse(pr, PLAN_SOURCE_UNREADABLE, arg, NULL, errno);
		link[n] = '\0';
		f->link_target = strdup(link);
		if (!f->link_target)
			return -ENOMEM;
	}
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool source_entry_same(const struct source_entry *a, const struct source_found *b)
{
	return a->type == b->type && a->dev == b->st.st_dev && a->ino == b->st.st_ino &&
	       a->size == (uint64_t)b->st.st_size && source_time_is(&b->st.st_mtim, a->mtime, a->mtime_ns) &&
	       source_time_is(&b->st.st_ctim, a->ctime, a->ctime_ns) && same_str(source_arg(a), b->src) &&
	       same_str(source_link(a), b->link_target);
}

/* The strings of the file comment in source_tree.h, in the arena. */
static const char *store_strings(struct source_tree *t, const struct source_found *f)
{
	const char *parts[4];
	size_t n = 0;

	if (f->parent == PLAN_TOP) {
		parts[n++] = f->src;
		parts[n++] = f->rel ? f->rel : "";
		parts[n++] = f->name ? f->name : "";
	} else
		parts[n++] = f->name;
	if (f->link_target)
		parts[n++] = f->link_target;
	return arena_strings(&t->names, parts, n);
}

static void keep_stat(struct source_entry *e, const struct stat *st)
{
	e->size = (uint64_t)st->st_size;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->atime = st->st_atim.tv_sec;
	e->atime_ns = (uint32_t)st->st_atim.tv_nsec;
	e->mtime = st->st_mtim.tv_sec;
	e->mtime_ns = (uint32_t)st->st_mtim.tv_nsec;
	e->ctime = st->st_ctim.tv_sec;
	e->ctime_ns = (uint32_t)st->st_ctim.tv_nsec;
	e->mode = (uint16_t)st->st_mode;
}

int source_tree_add(struct source_tree *t, const struct source_found *f, size_t *ret_idx)
{
	size_t idx = t->n_entries;
	struct source_entry *n;

	if (idx >= SOURCE_TREE_MAX)
		return -EOVERFLOW;
	if ((f->parent == PLAN_TOP ? !f->src : (!f->name || f->parent >= idx)))
		return -EINVAL;
	if (GROW(t->entries, t->cap, idx + 1, 1024) < 0)
		return -ENOMEM;
	if (t->owners) {
		if (GROW(t->owners, t->cap_owners, idx + 1, 1024) < 0)
			return -ENOMEM;
		t->owners[idx] = (struct source_owner){ f->st.st_uid, f->st.st_gid };
	}
	n = &t->entries[idx];
	*n = (struct source_entry){ .type = f->type, .end = (uint32_t)idx + 1 };
	keep_stat(n, &f->st);
	n->up = f->parent == PLAN_TOP ? 0 : (uint32_t)(idx - f->parent);
	n->flags = f->link_target ? SOURCE_LINK : 0;
	if (f->type == PLAN_FILE && f->st.st_nlink > 1)
		n->flags |= SOURCE_NLINK;
	n->strings = store_strings(t, f);
	if (!n->strings)
		return -ENOMEM;
	if (ret_idx)
		*ret_idx = idx;
	t->n_entries++;
	if (n->type == PLAN_DIR)
		t->n_dirs++;
	else if (n->type == PLAN_SKIP)
		t->n_skipped++;
	return 0;
}

/* Holes are only worth a look when a whole 4 KiB block is missing: a
 * small file stored inline (btrfs) has no block at all, and nothing to
 * skip. */
#define HOLES_MIN 4096u

int source_tree_mark_holes(struct source_tree *t, size_t idx, const struct stat *st)
{
	uint64_t size = (uint64_t)st->st_size, data = (uint64_t)st->st_blocks * 512;

	if (!S_ISREG(st->st_mode) || data + HOLES_MIN > size)
		return 0;
	if (GROW(t->holes, t->cap_holes, t->n_holes + 1, 16) < 0)
		return -ENOMEM;
	t->holes[t->n_holes++] = (struct source_holes){ idx, data };
	t->entries[idx].flags |= SOURCE_HOLES;
	return 0;
}

uint64_t source_data_bytes(const struct source_tree *t, size_t idx)
{
	const struct source_entry *e = &t->entries[idx];
	size_t i;

	if (!(e->flags & SOURCE_HOLES))
		return e->size;
	i = sorted_find(t->holes, t->n_holes, sizeof(*t->holes),
			offsetof(struct source_holes, idx), idx);
	return i < t->n_holes ? MIN(t->holes[i].data, e->size) : e->size;
}

void source_tree_trim(struct source_tree *t)
{
	struct source_entry *e;

	if (t->owners && t->cap_owners > t->n_entries && t->n_entries) {
		struct source_owner *o = realloc(t->owners, t->n_entries * sizeof(*o));

		if (o) {
			t->owners = o;
			t->cap_owners = t->n_entries;
		}
	}
	if (t->cap <= t->n_entries || t->n_entries == 0)
		return;
	e = realloc(t->entries, t->n_entries * sizeof(*e));
	if (e) { /* a failed shrink keeps the larger array */
		t->entries = e;
		t->cap = t->n_entries;
	}
}

/* The string after s in an entry's strings. */
static const char *next_string(const char *s)
{
	return s + strlen(s) + 1;
}

const char *source_arg(const struct source_entry *e)
{
	return e->up ? NULL : e->strings;
}

const char *source_name(const struct source_entry *e)
{
	const char *name;

	if (e->up)
		return e->strings;
	name = next_string(next_string(e->strings));
	return *name ? name : NULL;
}

const char *source_link(const struct source_entry *e)
{
	if (!(e->flags & SOURCE_LINK))
		return NULL;
	return next_string(e->up ? e->strings : next_string(next_string(e->strings)));
}

/* The top's string (src or rel) and the names below it down to e,
 * joined as plan_join() does: one '/' between, none added after a
 * trailing one.  Built from the end of buf back, then moved to its
 * start: no recursion, one pass up the tree. */
static int build_path(const struct source_entry *e, bool rel, char *buf, size_t size)
{
	size_t at = size;

	if (size == 0)
		return -ENAMETOOLONG;
	buf[--at] = '\0';
	for (; e->up; e -= e->up) {
		const struct source_entry *parent = e - e->up;
		const char *top = parent->up ? NULL : rel ? next_string(parent->strings) : parent->strings;
		size_t l = strlen(e->strings);
		bool slash = !top || !*top || top[strlen(top) - 1] != '/';

		if (l + slash > at)
			return -ENAMETOOLONG;
		at -= l;
		memcpy(buf + at, e->strings, l);
		if (slash)
			buf[--at] = '/';
	}
	{
		const char *top = rel ? next_string(e->strings) : e->strings;
		size_t l = strlen(top);

		if (l > at)
			return -ENAMETOOLONG;
		at -= l;
		memcpy(buf + at, top, l);
	}
	memmove(buf, buf + at, size - at);
	return 0;
}

int source_path(const struct source_entry *e, char *buf, size_t size)
{
	return build_path(e, false, buf, size);
}

int source_rel(const struct source_entry *e, char *buf, size_t size)
{
	return build_path(e, true, buf, size);
}

void source_entry_stat(const struct source_entry *e, struct stat *ret)
{
	*ret = (struct stat){
		.st_mode = e->mode, .st_size = (off_t)e->size, .st_dev = e->dev, .st_ino = e->ino,
		.st_nlink = 1, .st_atim = source_atim(e), .st_mtim = source_mtim(e),
		.st_ctim = { .tv_sec = e->ctime, .tv_nsec = e->ctime_ns },
	};
}
