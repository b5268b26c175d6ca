/* plan_internal.h: what plan.c (arguments, destination) and plan_walk.c
 * (the tree walk) share while a plan is being built, and plan_check.c
 * its problem setter.  Not for cmd/. */
#ifndef SAFECP_PLAN_INTERNAL_H
#define SAFECP_PLAN_INTERNAL_H

#include <limits.h>

#include "copy/plan.h"

struct plan_builder {
	struct plan *p;
	size_t cap;                   /* allocated entries */
	const struct plan_options *opts;
	struct plan_problem *problem; /* never NULL inside the builder */
	const struct plan *tree;      /* plan_build_beside(): the source tree walked */
};

/* Replace *pr with kind and copies of the paths (either may be NULL).
 * Returns 0 or -ENOMEM. */
int plan_problem_set(struct plan_problem *pr, enum plan_problem_kind kind,
		     const char *path, const char *path2);

/* Record a refusal; returns -err, or -EINVAL when err is 0. */
int plan_refuse(struct plan_builder *b, enum plan_problem_kind kind,
		const char *path, const char *path2, int err);

/* Join dir and name into buf (PATH_MAX bytes) with one '/' between them.
 * Returns 0 or -ENAMETOOLONG. */
int plan_join(char buf[PATH_MAX], const char *dir, const char *name);

enum plan_entry_type plan_type_of(mode_t mode);

/* Append a copy of e (its strings copied into one block); *ret_idx is
 * its index (may be NULL). */
int plan_add_entry(struct plan_builder *b, const struct plan_entry *e, size_t *ret_idx);

/* Give e (an entry of a plan) the destination path dst: its string
 * block is reallocated, src_name and dst_name kept pointing into it.
 * Returns 0 or -ENOMEM (e unchanged). */
int plan_entry_set_dst(struct plan_entry *e, const char *dst);

/* lstat e->dst and fill e's dst_* fields: merge, replace, keep (-n), or
 * refuse (same file, directory onto non-directory and vice versa). */
int plan_classify_dst(struct plan_builder *b, struct plan_entry *e);

/* (Re)count p's totals (n_files, total_bytes, ...) from its entries. */
void plan_count(struct plan *p);

/* Walk the directory entry at idx (already added and classified) and
 * append everything below it. */
int plan_walk(struct plan_builder *b, size_t idx);

/* The same from b->tree, without reading the source again: the entries
 * below the tree's top-level entry of the same source, each classified
 * against this plan's destination. */
int plan_walk_tree(struct plan_builder *b, size_t idx);

#endif
