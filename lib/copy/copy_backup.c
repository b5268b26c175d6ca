/* copy_backup.c: cp's --backup in the engine.  The file a copy replaces
 * gets its backup name (backup_name.h) before the new file takes the
 * name, and durably so: on a journaled filesystem the journal commits the
 * two renames in their order; elsewhere a batch's backups are synced
 * before any of its files is named (batch_backups).  A crash in between
 * leaves the old file under its backup name and the new one under its
 * temporary: nothing is lost. */
#include <errno.h>
#include <stdio.h>

#include "copy/backup_name.h"
#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "base/cleanup.h"
#include "util/debug.h"

bool item_needs_backup(const struct engine *g, const struct batch_item *it)
{
	return g->plan->opts.backup != BACKUP_NONE && !it->backed_up &&
	       g->plan->entries[it->entry].dst_exists;
}

int item_backup(struct engine *g, struct batch_item *it)
{
	const struct plan_options *o = &g->plan->opts;
	char name[NAME_MAX + 1];
	bool named;
	int r;

	it->backed_up = true;
	r = backup_name(it->file.dirfd, it->file.name, o->backup, o->backup_suffix, name);
	named = r == 0; /* else name holds nothing to report */
	if (r == 0 && renameat(it->file.dirfd, it->file.name, it->file.dirfd, name) < 0)
		r = errno == ENOENT ? 0 : -errno; /* gone since the plan: nothing to keep */
	DEBUG(DEBUG_COPY, "backup of '%s': %d", it->file.name, r);
	if (r < 0 && !copy_fatal_error(r)) {
		_cleanup_free_ char *path = named ? dst_sibling_path(g->plan, it->entry, name)
						  : NULL;

		it->settled = true;
		item_drop(g, it, COPY_STEP_BACKUP, r, path);
	}
	return r;
}

int batch_backups(struct engine *g, bool *made)
{
	struct batch *b = &g->batch;

	*made = false;
	for (size_t i = 0; i < b->n; i++) {
		struct batch_item *it = &b->items[i];
		int r;

		if (it->rejected || it->settled || !item_needs_backup(g, it))
			continue;
		r = item_backup(g, it);
		if (copy_fatal_error(r))
			return item_fatal(g, it, COPY_STEP_BACKUP, r);
		*made = *made || r == 0;
	}
	return 0;
}
