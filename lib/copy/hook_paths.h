/* hook_paths.h: test_hook() (base/test_hook.h) with an entry's path,
 * built only in a build that has the pause points: paths are not kept
 * per entry (source_tree.h, plan.h), and building one per file for
 * nothing would cost the default build. */
#ifndef SAFECP_HOOK_PATHS_H
#define SAFECP_HOOK_PATHS_H

#include <limits.h>

#include "base/test_hook.h"
#include "copy/plan.h"
#include "copy/source_tree.h"

#ifdef SAFECP_TEST_HOOKS
static inline void test_hook_source(const char *point, const struct source_entry *e)
{
	char path[PATH_MAX];

	test_hook(point, source_path(e, path, sizeof(path)) < 0 ? "?" : path);
}

static inline void test_hook_dst(const char *point, const struct plan *p, size_t idx)
{
	char path[PATH_MAX];

	test_hook(point, plan_dst_path(p, idx, path));
}
#else
static inline void test_hook_source(const char *point, const struct source_entry *e)
{
	(void)point;
	(void)e;
}

static inline void test_hook_dst(const char *point, const struct plan *p, size_t idx)
{
	(void)point;
	(void)p;
	(void)idx;
}
#endif

#endif
