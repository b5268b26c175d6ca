/* plan_given.h: a plan over a source tree that was not walked: entries
 * a caller lists (safecp --unpack: an archive's checked entries), each
 * with the type, mode, size and times a walk would have found, going
 * into one existing directory as `cp -r -t DIR` would put them.
 *
 * From there on it is a plan like any other: each entry is classified
 * against the destination (an existing symlink where a directory goes
 * is PLAN_DIR_ONTO_NONDIR, never followed; a file replaces by rename),
 * and plan_check(), plan_names_check() and the engine take it unchanged.
 * The entries' bytes cannot come from the tree's files (there are none):
 * the job gives a feed (source_feed.h). */
#ifndef SAFECP_PLAN_GIVEN_H
#define SAFECP_PLAN_GIVEN_H

#include <stddef.h>

#include "copy/plan.h"

/* entries[0..n) in write order: each directory before its contents, a
 * parent index smaller than its child's (PLAN_TOP at the top); end is
 * computed here.  Of each entry: type (PLAN_DIR, PLAN_FILE or
 * PLAN_SYMLINK), name (one component), at the top src (for messages)
 * and rel (below, both are the parent's joined with the name), st
 * (st_mode, st_size, st_atim, st_mtim; st_dev and st_ino 0),
 * link_target; all copied.  dest is the directory the
 * top entries go into (it must exist: PLAN_DEST_MISSING,
 * PLAN_DEST_NOT_DIR).  Returns as plan_build(); -EINVAL for entries
 * out of order. */
int plan_build_given(const struct source_found *entries, size_t n, const char *dest,
		     const struct plan_options *opts, struct plan **ret,
		     struct plan_problem *problem);

/* Another destination of the same entries: first's tree, shared. */
int plan_build_given_beside(const struct plan *first, const char *dest,
			    const struct plan_options *opts, struct plan **ret,
			    struct plan_problem *problem);

#endif
