/* plan_paths.h: the paths of tree and plan entries as strings a check can
 * compare (entries keep names, not paths: source_tree.h, plan.h).  Each
 * call returns one of 16 static buffers in turn, so a check may hold a
 * few at once. */
#ifndef SAFECP_TEST_PLAN_PATHS_H
#define SAFECP_TEST_PLAN_PATHS_H

#include <limits.h>

#include "copy/plan.h"

static inline char *t_buf(void)
{
	static char bufs[16][PATH_MAX];
	static unsigned next;

	return bufs[next++ % 16];
}

static inline const char *t_src(const struct source_entry *e)
{
	char *b = t_buf();

	return source_path(e, b, PATH_MAX) < 0 ? "(too long)" : b;
}

static inline const char *t_rel(const struct source_entry *e)
{
	char *b = t_buf();

	return source_rel(e, b, PATH_MAX) < 0 ? "(too long)" : b;
}

static inline const char *t_dst(const struct plan *p, size_t i)
{
	char *b = t_buf();

	return plan_dst(p, i, b, PATH_MAX) < 0 ? "(too long)" : b;
}

static inline size_t t_idx(const struct plan *p, const struct plan_entry *e)
{
	return (size_t)(e - p->entries);
}

static inline const char *t_dst_name(const struct plan *p, const struct plan_entry *e)
{
	return plan_dst_name(p, t_idx(p, e));
}

static inline const struct plan_existing *t_x(const struct plan *p, const struct plan_entry *e)
{
	return plan_existing_of(p, e);
}

static inline size_t t_parent(const struct plan *p, const struct plan_entry *e)
{
	return source_parent(e->source, t_idx(p, e));
}

#endif
