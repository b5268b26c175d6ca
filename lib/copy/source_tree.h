/* source_tree.h: what a copy reads, walked once for all its destinations.
 *
 * A flat list of entries in the order they will be written: each
 * directory before its contents, siblings sorted by name (strcmp byte
 * order, so the order does not depend on locale or readdir).  Nothing
 * in it depends on a destination: where each entry goes, and what is
 * there already, is a plan's (plan.h), one plan per destination, whose
 * entry i is this tree's entry i at that destination.
 *
 * Ownership: plan_build() makes the tree; each plan built on it
 * (plan_build() and plan_build_beside()) holds a reference, and the
 * last plan_free() frees it.  Once plan_build() has returned the tree is
 * never written again, so every destination (and the reader's thread)
 * may read it at once.  The count is not atomic: plans are built and
 * freed by one thread. */
#ifndef SAFECP_SOURCE_TREE_H
#define SAFECP_SOURCE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "copy/plan_options.h"
#include "copy/plan_problem.h"

enum plan_entry_type {
	PLAN_DIR,
	PLAN_FILE,
	PLAN_SYMLINK,
	PLAN_SKIP,  /* devices, FIFOs, sockets: warned about, not copied */
};

/* parent of a top-level entry: its source is an operand, opened by path
 * as cp resolves it, and its destination is a name in plan.dest_dir. */
#define PLAN_TOP SIZE_MAX

/* A tree holds at most this many entries (indices are 32 bits). */
#define SOURCE_TREE_MAX (UINT32_MAX - 1)

/* One entry, packed: a million of them must fit an offload box's memory
 * (80 bytes each plus their names).  Only the stat fields the copy uses;
 * no paths: an entry keeps its own name (in the tree's arena) and how far
 * up its parent is, and paths are built when needed into a caller's
 * buffer (source_path(), source_rel()).  The engine opens nothing below
 * the operands by path: each entry is reached from its parent
 * directory's fd by name, without following symlinks.
 *
 * strings: a child's "name\0", a top entry's "src\0rel\0name\0" (src: the
 * operand as given; name "" when it has none), then a symlink's
 * "target\0". */
struct source_entry {
	uint64_t size;        /* st_size */
	uint64_t dev;         /* st_dev */
	uint64_t ino;         /* st_ino */
	int64_t atime, mtime, ctime; /* tv_sec of st_atim, st_mtim, st_ctim */
	const char *strings;  /* in the tree's arena (above) */
	uint32_t atime_ns, mtime_ns, ctime_ns;
	uint32_t up;          /* own index - the parent's; 0 at the top */
	uint32_t end;         /* PLAN_DIR: index past its last descendant; else own + 1 */
	uint16_t mode;        /* st_mode (type and permission bits fit 16 bits) */
	enum plan_entry_type type : 8;
	uint8_t flags;        /* SOURCE_* */
};

#define SOURCE_LINK 0x01     /* strings hold a symlink's target */
#define SOURCE_HOLES 0x02    /* a regular file with at least a block fewer
			      * allocated than its size: it may have holes, and
			      * the tree's holes list has its allocated bytes */
#define SOURCE_NLINK 0x04    /* a regular file with more than one name (st_nlink > 1) */
#define SOURCE_FOLLOWER 0x08 /* source_tree_link_groups(): another entry of the tree
			      * is the same file, earlier (tree.links says which) */
#define SOURCE_OPERAND 0x10  /* --parents: an operand below its path's directories
			      * (followed as an operand is) */
#define SOURCE_ON_PATH 0x20  /* --parents: a directory on an operand's path, made at
			      * the destination; followed, only that child walked */

/* The allocated bytes of a SOURCE_HOLES entry, kept aside: few files
 * are sparse, and an entry has no room left (80 bytes). */
struct source_holes {
	size_t idx;
	uint64_t data;  /* st_blocks * 512, at most its size */
};

/* A file the tree holds under several names: entry idx is the same file
 * (st_dev, st_ino) as the earlier entry leader, the group's first. */
struct source_link {
	uint32_t idx, leader;
};

/* What an operand's examination or a walk found, before it joins the
 * tree (source_tree_add() copies what it keeps). */
struct source_found {
	enum plan_entry_type type;
	struct stat st;           /* stat with -L or without -r (the operands), else lstat */
	size_t parent;            /* PLAN_TOP, or the entry of its directory */
	const char *src;          /* top: path for messages and to open it */
	const char *rel;          /* top: the name to show (lists' and events' names) */
	const char *name;         /* name in its parent's directory; at the top, or NULL */
	const char *link_target;  /* PLAN_SYMLINK, else NULL */
};

/* An entry's owner and group, kept beside the entries (not in them: the
 * 80 bytes of an entry are what every copy pays) only when ownership is
 * preserved. */
struct source_owner {
	uint32_t uid, gid;
};

struct source_tree {
	struct source_entry *entries;
	size_t n_entries;
	size_t n_dirs;          /* PLAN_DIR entries */
	size_t n_skipped;       /* PLAN_SKIP entries */
	bool recursive;         /* walked with -r: symlink operands are entries */
	bool follow_symlinks;   /* walked with -L: symlinks below were followed */
	bool one_file_system;   /* walked with -x: not into other filesystems */
	bool follow_operands;   /* the operands were followed (plan_follows_operands()) */
	size_t cap;             /* allocated entries (while it is built) */
	unsigned refs;          /* plans holding it (see the file comment) */
	struct arena names;     /* every entry's strings */
	struct source_holes *holes; /* SOURCE_HOLES entries, by index */
	size_t n_holes, cap_holes;
	struct source_link *links; /* SOURCE_FOLLOWER entries, by idx (link groups) */
	size_t n_links;
	struct source_owner *owners; /* walked with keep_owners: per entry; else NULL */
	size_t cap_owners;
};

/* Building a tree (plan_build(), pack_tree_build()). */
enum plan_entry_type plan_type_of(mode_t mode);

/* source_tree.c.  A new, empty tree walked with o's -r and -L, with one
 * reference; source_tree_unref() frees it with the last (NULL is fine). */
struct source_tree *source_tree_new(const struct plan_options *o);
void source_tree_unref(struct source_tree *t);

/* Operand arg as cp sees it: stat (followed with -L or without -r), a
 * directory needs -r, a symlink's target is read.  Fills f's src (arg
 * itself), parent, type, st and link_target (malloc'ed: the caller's). */
int source_examine(const struct plan_options *o, const char *arg, struct source_found *f,
		   struct plan_problem *pr);

/* The same file as it was (type, identity, size, times, path, link)? */
bool source_entry_same(const struct source_entry *a, const struct source_found *b);

/* Append f (its strings copied into the tree's arena) and count it;
 * *ret_idx is its index (may be NULL).  -ENOMEM; -EOVERFLOW past
 * SOURCE_TREE_MAX entries. */
int source_tree_add(struct source_tree *t, const struct source_found *f, size_t *ret_idx);

/* Entry idx, a regular file just added with stat st: flagged
 * SOURCE_HOLES when it has fewer blocks than its size says (cheap: no
 * look at its extents; the reader looks at them).  0 or -ENOMEM. */
int source_tree_mark_holes(struct source_tree *t, size_t idx, const struct stat *st);

/* The bytes of entry idx that hold data as the walk saw it: a
 * SOURCE_HOLES file's allocated bytes, any other's size. */
uint64_t source_data_bytes(const struct source_tree *t, size_t idx);

/* The tree is complete: its array shrinks to its entries (a doubling
 * array may hold twice what it needs).  Before anything points into it. */
void source_tree_trim(struct source_tree *t);

/* Entry idx's parent index, or PLAN_TOP. */
static inline size_t source_parent(const struct source_entry *e, size_t idx)
{
	return e->up ? idx - e->up : PLAN_TOP;
}

/* Is e opened through a symbolic link (to read it, walk it, or open its
 * children's directory)?  An operand as cp follows operands, a directory
 * on an operand's path (--parents) always, any other as -L says. */
static inline bool source_follows(const struct source_tree *t, const struct source_entry *e)
{
	if (e->flags & SOURCE_ON_PATH)
		return true;
	return !e->up || (e->flags & SOURCE_OPERAND) ? t->follow_operands : t->follow_symlinks;
}

/* Its name in its parent's directory; at the top the listed name or NULL. */
const char *source_name(const struct source_entry *e);

/* The name to open it by: relative to its parent directory's fd, or at
 * the top the operand as given (relative to the working directory). */
static inline const char *source_open_name(const struct source_entry *e)
{
	return e->strings;
}

/* Entry idx's owner and group: false when the tree keeps none. */
static inline bool source_owner_of(const struct source_tree *t, size_t idx,
				   struct source_owner *ret)
{
	if (!t->owners || idx >= t->n_entries)
		return false;
	*ret = t->owners[idx];
	return true;
}

/* Entry e's index in t. */
static inline size_t source_index(const struct source_tree *t, const struct source_entry *e)
{
	return (size_t)(e - t->entries);
}

/* A top entry's path as given (NULL below the top). */
const char *source_arg(const struct source_entry *e);

/* A symlink's target, else NULL. */
const char *source_link(const struct source_entry *e);

/* Its path (the operand's joined with the names below it) or its name
 * to show (rel: from the operand's parent), into buf of size bytes:
 * 0, or -ENAMETOOLONG when it does not fit.  From e alone: the entries
 * above it are in the same array. */
int source_path(const struct source_entry *e, char *buf, size_t size);
int source_rel(const struct source_entry *e, char *buf, size_t size);

/* Is t the time sec.ns an entry keeps (its mtime, ctime...)? */
static inline bool source_time_is(const struct timespec *t, int64_t sec, uint32_t ns)
{
	return t->tv_sec == sec && (uint64_t)t->tv_nsec == ns;
}

static inline struct timespec source_mtim(const struct source_entry *e)
{
	return (struct timespec){ .tv_sec = e->mtime, .tv_nsec = e->mtime_ns };
}

static inline struct timespec source_atim(const struct source_entry *e)
{
	return (struct timespec){ .tv_sec = e->atime, .tv_nsec = e->atime_ns };
}

/* The stat the entry keeps (the rest zero): for an archive's header. */
void source_entry_stat(const struct source_entry *e, struct stat *ret);

/* source_links.c.  Group the tree's files that are one file under several
 * names (SOURCE_NLINK entries of one st_dev and st_ino): each group's
 * first entry leads, the others become SOURCE_FOLLOWER with tree.links
 * naming their leader.  Once, when the tree is complete (before plans
 * point into it).  0 or -ENOMEM. */
int source_tree_link_groups(struct source_tree *t);

/* The leader of follower idx (source_tree_link_groups()), or PLAN_TOP
 * for an entry that is no follower. */
size_t source_leader(const struct source_tree *t, size_t idx);

/* source_walk.c.  Walk the directory entry idx of t (already added) and
 * append everything below it; added(ctx, i) (may be NULL) is called for
 * every new entry i right after it is added, and a refusal from it stops
 * the walk. */
typedef int (*source_added_fn)(void *ctx, size_t idx);
int source_walk(struct source_tree *t, size_t idx, struct plan_problem *pr,
		source_added_fn added, void *ctx);

#endif
