/* pack.h: the sources written as one archive file (--pack).
 *
 * Three pieces, each before the next:
 * 1. pack_tree_build(): the sources' tree, walked as a recursive copy
 *    walks it (source_walk.c: sorted, loops refused, symlinks as links
 *    but with -L); each entry is named in the archive as a recursive
 *    copy into a directory names the copy (pack_entry_name()).
 * 2. pack_plan_build(), once per destination: a plan (plan.h) with one
 *    entry, the archive file, whose size is the bound the archive cannot
 *    exceed (pack_tree_bound()), so plan_check()'s space and FAT checks
 *    and plan_names_check() work on it as on any file, and the engine
 *    writes it as any file: a temporary, durable, then named.
 * 3. pack_feed_new(): the stream feed (source_feed.h) that makes the
 *    archive's bytes for the reader as it asks for them (pack_feed.c).
 * The engine sees only the archive; the sources are the feed's. */
#ifndef SAFECP_PACK_H
#define SAFECP_PACK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "archive/pack_writer.h"
#include "copy/plan.h"
#include "copy/source_feed.h"

/* Walk the sources into *ret (one reference: source_tree_unref() in
 * pack_tree_free()).  Refusals as plan_build()'s: PLAN_SOURCE_MISSING,
 * PLAN_SOURCE_UNREADABLE, PLAN_LOOP, PLAN_NAME_TOO_LONG, and
 * PLAN_DEST_CLASH when two sources would have one name in the archive
 * (path: the later source, path2: that name).  0 or -errno. */
int pack_tree_build(const char *const *sources, size_t n, bool follow_symlinks,
		    struct source_tree **ret, struct plan_problem *problem);
void pack_tree_free(struct source_tree *t);

/* Entry idx's name in the archive ("src/a.jpg"), or NULL for one that
 * has none ("." and "/" as sources: their contents are named without
 * them, as cp -r . DIR copies the contents). */
const char *pack_entry_name(const struct source_tree *t, size_t idx, char buf[PATH_MAX]);

/* The most bytes the archive of t can take in format f (pack_writer.h's
 * bounds), and the regular-file bytes it packs. */
uint64_t pack_tree_bound(const struct source_tree *t, enum pack_format f);
uint64_t pack_tree_bytes(const struct source_tree *t);

/* The plan of one destination: with opts->target_directory, or a DEST
 * that is a directory (not with no_target_directory), the archive is
 * DEST/<first source's name>.<format>; otherwise DEST is its name.
 * first: NULL, or the first destination's pack plan (its one-entry tree
 * is shared: one reader serves every destination).  Refusals as
 * plan_build()'s (PLAN_DEST_MISSING, PLAN_DEST_NOT_DIR,
 * PLAN_NONDIR_ONTO_DIR, PLAN_DEST_UNWRITABLE, PLAN_NAME_TOO_LONG), and
 * PLAN_SAME_FILE (path: the source, path2: the archive) when an existing
 * archive of that name is one of the sources.  0 or -errno. */
int pack_plan_build(const struct source_tree *sources, const char *first_source,
		    enum pack_format f, const char *dest, const struct plan_options *opts,
		    const struct plan *first, struct plan **ret, struct plan_problem *problem);

/* The feed: the archive of sources in format f, for the reader.  A
 * source that cannot be read, or changes while it is packed (GNU tar's
 * "file changed as we read it"), fails the whole archive (an archive
 * without a member, or with a torn one, is not what was asked for): the
 * archive's entry then ends with that error or flagged changed, no
 * destination publishes it, and pack_feed_problem() names the source. */
struct pack_feed;
int pack_feed_new(const struct source_tree *sources, enum pack_format f,
		  struct pack_feed **ret);
const struct source_feed *pack_feed_source(struct pack_feed *f);

/* Source bytes packed so far (any thread), of pack_tree_bytes(). */
uint64_t pack_feed_packed(const struct pack_feed *f);

/* Why the archive failed: true with the source entry, and its error
 * (-errno) or 0 when it changed. */
bool pack_feed_problem(const struct pack_feed *f, size_t *entry, int *err);

void pack_feed_free(struct pack_feed *f);

#endif
