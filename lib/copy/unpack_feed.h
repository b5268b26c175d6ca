/* unpack_feed.h: --unpack's sources.  The archives' accepted entries
 * (unpack_list.h, in unpack_tree.h's order) become the plan's source
 * entries (plan_given.h), with the stat a copy needs synthesised from
 * their headers, and their bytes a source feed (source_feed.h): the
 * archives read again in plan order (unpack_data.h), entries that come
 * out of that order waiting in a spool directory off the destination. */
#ifndef SAFECP_UNPACK_FEED_H
#define SAFECP_UNPACK_FEED_H

#include <stddef.h>

#include "archive/unpack_data.h"
#include "archive/unpack_list.h"
#include "copy/source_feed.h"
#include "copy/source_tree.h"

struct unpack_feed;

/* From a checked list (it must outlive the feed); the spool in
 * spool_dir.  0, or -ENOMEM. */
int unpack_feed_new(const struct unpack_list *l, const char *spool_dir, struct unpack_feed **ret);
/* The entries for plan_build_given(), n of them. */
const struct source_found *unpack_feed_entries(const struct unpack_feed *f, size_t *n);
/* The bytes of plan entry i (= entry i), for the copy job. */
const struct source_feed *unpack_feed_source(const struct unpack_feed *f);
/* The reader of the archives: its spool's needs (unpack_data.h). */
struct unpack_data *unpack_feed_data(const struct unpack_feed *f);
void unpack_feed_free(struct unpack_feed *f);

#endif
