/* plan_internal.h: what the plan's files share while a source tree and
 * its plans are built: plan.c (arguments, destination), source_tree.c and
 * source_walk.c (the tree), plan_view.c (a destination's entries),
 * plan_check.c and plan_names.c.  Not for cmd/. */
#ifndef SAFECP_PLAN_INTERNAL_H
#define SAFECP_PLAN_INTERNAL_H

#include <limits.h>
#include <stdbool.h>

#include <sys/stat.h>

#include "copy/plan_options.h"
#include "copy/plan_problem.h"
#include "copy/source_tree.h"

struct plan;
struct plan_entry;

struct plan_builder {
	struct plan *p;
	size_t cap;                   /* allocated entries of p */
	const struct plan_options *opts;
	struct plan_problem *problem; /* never NULL inside the builder */
	const struct plan *first;     /* plan_build_beside(): whose tree p shares */
	/* plan_dst_cached(): the last parent's destination path */
	bool parent_valid;
	size_t parent_idx, parent_len;
	char parent_dst[PATH_MAX];
};

/* A source as the destination's classification needs it. */
struct plan_src {
	enum plan_entry_type type;
	dev_t dev;
	ino_t ino;
	const char *path;   /* for messages, and to follow a symlink source */
};

/* An operand as this destination sees it, before it joins the tree.
 * Its strings are small heap ones: `safecp *.JPG /media/usb` may pass
 * tens of thousands. */
struct source {
	const char *arg;
	struct source_found e;  /* src is arg; rel, link_target owned */
	struct plan_entry d;
	struct plan_existing x; /* d.dst_exists: what is there */
	char *dst;              /* its destination path */
	const char *dst_name;   /* in dst, or "." */
	char *path;             /* --parents: arg's directories and name, without
				 * "." or empty components (owned) */
};

/* Join dir and name into buf (PATH_MAX bytes) with one '/' between them.
 * Returns 0 or -ENAMETOOLONG. */
int plan_join(char buf[PATH_MAX], const char *dir, const char *name);

/* "a/b//" -> "a/b"; "/" and "//" stay "/". */
void plan_strip_slashes(char *s);

/* plan_view.c.  Append e as the entry of the next tree index, with x
 * (when e->dst_exists) and, for a top entry, its destination path and
 * name (top_dst NULL below the top).  0 or -ENOMEM. */
int plan_add_entry(struct plan_builder *b, const struct plan_entry *e,
		   const struct plan_existing *x, const char *top_dst, const char *top_name);

/* Append the entry of tree entry idx, a child: its destination is its
 * name (as walked) in its parent's, classified where the parent exists.
 * A source_added_fn for a struct plan_builder. */
int plan_add_child(void *builder, size_t idx);

/* b->parent_dst holds entry parent's destination path (without a
 * trailing '/'), b->parent_len its length: 0 or -ENAMETOOLONG. */
int plan_dst_cached(struct plan_builder *b, size_t parent);

/* dest must be an existing directory, else the problem (MISSING, NOT_DIR)
 * is refused; its stat into *ret (may be NULL). */
int plan_dest_need_dir(struct plan_builder *b, const char *dest, struct stat *ret);

/* The directory a plan writes into (DEST or its parent): stat'ed by
 * path, as cp resolves it, or with o->beneath reached from that root
 * (PLAN_DEST_NOT_BENEATH when a link, ".." or mount is on the way);
 * PLAN_DEST_MISSING names dest (as given) and dir. */
int plan_dest_dir_stat(const struct plan_options *o, const char *dest, const char *dir,
		       struct plan_problem *pr, struct stat *ret);

/* s's path (built into buf) and identity, as *ret; returns the path. */
const char *plan_src_of(const struct source_entry *e, struct plan_src *ret, char buf[PATH_MAX]);

/* lstat dst and fill e's dst_* flags and *x (zeroed first) for source
 * s: merge, replace, keep (-n), or refuse (same file, directory onto
 * non-directory and vice versa). */
int plan_classify_dst(const struct plan_options *o, const struct plan_src *s, const char *dst,
		      struct plan_entry *e, struct plan_existing *x, struct plan_problem *pr);

/* The tree is complete: both arrays shrink to fit (source_tree_trim()),
 * then each entry points at its source entry. */
void plan_link_sources(struct plan *p);

/* plan_dst.c.  e (an entry of p, or the one being appended) gets x as
 * its record: with reuse its own (e->existing) is overwritten, else a
 * new one is added.  0 or -ENOMEM. */
int plan_set_existing(struct plan *p, struct plan_entry *e, const struct plan_existing *x,
		      bool reuse);

/* Top entry idx (appended last) goes to dst, named name ("." or dst's
 * last component).  0 or -ENOMEM. */
int plan_name_top(struct plan *p, size_t idx, const char *dst, const char *name);

/* Free what plan_dst.c keeps in p (names, existing records). */
void plan_dst_free(struct plan *p);

/* plan_parents.c: --parents.  s's path below DEST (s->path) and its
 * destination in dir (DEST as given, copied into; NULL: it is no
 * directory, refused); 1 when the path is empty ("." or "/": copied as
 * without --parents); a refusal for a '..' on it. */
int parents_prepare(struct plan_builder *b, const char *given, const char *dir, struct source *s);
/* The operands in an order that puts those sharing directories together. */
void parents_sort(struct source *s, size_t n);
/* The tree of the sorted operands: each one below the directories of its
 * path, which are entries of their own (SOURCE_ON_PATH: made at the
 * destination, only that child walked), shared by the operands that
 * share them.  With b->first, its tree is taken instead, entry by entry
 * as it was built.  0, a refusal, or -errno. */
int parents_tree(struct plan_builder *b, const struct source *s, size_t n);

/* plan.c.  The dead copies' temporaries in the directories p writes
 * into (p->stale).  0 or -ENOMEM (an unreadable directory goes unswept). */
int plan_find_stale(struct plan *p);

/* (Re)count p's totals (n_files, total_bytes, ...) from its entries. */
void plan_count(struct plan *p);

#endif
