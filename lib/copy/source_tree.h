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

/* src, rel and link_target share one allocation owned by the tree;
 * src_name points into it.  The engine opens nothing below the operands
 * by path: each entry is reached from its parent directory's fd by name,
 * without following symlinks. */
struct source_entry {
	enum plan_entry_type type;
	char *src;          /* path, for messages (and to open an operand) */
	char *rel;          /* name to show: relative to the source argument's parent */
	size_t parent;      /* the PLAN_DIR entry holding it, or PLAN_TOP */
	size_t end;         /* PLAN_DIR: index past its last descendant; else own + 1 */
	const char *src_name; /* name in the parent's source directory; NULL at the top */
	struct stat st;     /* stat with -L or without -r (the operands), else lstat */
	char *link_target;  /* PLAN_SYMLINK, else NULL */
};

struct source_tree {
	struct source_entry *entries;
	size_t n_entries;
	size_t n_dirs;          /* PLAN_DIR entries */
	size_t n_skipped;       /* PLAN_SKIP entries */
	bool recursive;         /* walked with -r: symlink operands are entries */
	bool follow_symlinks;   /* walked with -L: symlinks below were followed */
	size_t cap;             /* allocated entries (while it is built) */
	unsigned refs;          /* plans holding it (see the file comment) */
};

/* Building a tree (plan_build(), pack_tree_build()). */
enum plan_entry_type plan_type_of(mode_t mode);

/* source_tree.c.  A new, empty tree walked with o's -r and -L, with one
 * reference; source_tree_unref() frees it with the last (NULL is fine). */
struct source_tree *source_tree_new(const struct plan_options *o);
void source_tree_unref(struct source_tree *t);

/* Operand arg as cp sees it: stat (followed with -L or without -r), a
 * directory needs -r, a symlink's target is read.  Fills e's src (arg
 * itself), parent, type, st and link_target (malloc'ed: the caller's). */
int source_examine(const struct plan_options *o, const char *arg, struct source_entry *e,
		   struct plan_problem *pr);

/* The same file as it was (type, identity, size, times, path, link)? */
bool source_entry_same(const struct source_entry *a, const struct source_entry *b);

/* Append a copy of e (its strings copied into one block) and count it;
 * *ret_idx is its index (may be NULL). */
int source_tree_add(struct source_tree *t, const struct source_entry *e, size_t *ret_idx);

/* source_walk.c.  Walk the directory entry idx of t (already added) and
 * append everything below it; added(ctx, i) (may be NULL) is called for
 * every new entry i right after it is added, and a refusal from it stops
 * the walk. */
typedef int (*source_added_fn)(void *ctx, size_t idx);
int source_walk(struct source_tree *t, size_t idx, struct plan_problem *pr,
		source_added_fn added, void *ctx);

#endif
