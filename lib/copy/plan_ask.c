/* plan_ask.c: cp's -i, asked during the plan: every question comes before
 * the first byte is written, and a file the answer keeps is left alone as
 * -n leaves it (its space is not counted as freed). */
#include <limits.h>

#include "copy/plan.h"
#include "copy/plan_internal.h"

/* Would e's copy replace what is at its destination? */
static bool replaces(const struct plan_entry *e)
{
	return e->dst_exists && !e->skip_existing && e->source->type != PLAN_DIR &&
	       e->source->type != PLAN_SKIP;
}

int plan_ask_replace(struct plan *p, plan_ask_fn ask, void *data)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < p->n_entries; i++) {
		struct plan_entry *e = &p->entries[i];
		char src[PATH_MAX], dst[PATH_MAX];

		if (!replaces(e))
			continue;
		r = ask(data, source_path(e->source, src, sizeof(src)) < 0 ? "?" : src,
			plan_dst_path(p, i, dst));
		if (r == 0) {
			e->skip_existing = true;
			p->existing[e->existing].dst_freed = 0;
		}
	}
	plan_count(p);
	return r < 0 ? r : 0;
}
