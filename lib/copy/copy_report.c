/* copy_report.c: what a destination's engine tells its caller and counts:
 * the events (copy_events.h), the errors, the files that failed and the
 * bytes they no longer hold.  Below every other file of the engine, which
 * all report through it. */
#include <errno.h>
#include <limits.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "io/writer.h"

void copy_emit(struct engine *g, struct copy_event *ev)
{
	ev->dest = g->dest;
	copy_events_emit(g->events, ev);
}

void copy_report(struct engine *g, size_t entry, enum copy_step step, int err,
		 const char *path, bool fatal)
{
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_ERROR, .entry = entry, .step = step,
					   .err = err < 0 ? -err : err, .path = (char *)path,
					   .fatal = fatal });
}

void copy_report_dst(struct engine *g, size_t entry, enum copy_step step, int err, bool fatal)
{
	char dst[PATH_MAX];

	copy_report(g, entry, step, err, plan_dst_path(g->plan, entry, dst), fatal);
}

int copy_dest_failed(struct engine *g, size_t entry, enum copy_step step, int err)
{
	copy_report(g, entry, step, err, g->plan->dest_root, true);
	return err;
}

/* Errors that say the destination (or this process) cannot go on: stop
 * everything rather than report every later file.  EMFILE too: the batch
 * bounds keep the fds under RLIMIT_NOFILE, so hitting it is no one
 * file's fault. */
bool copy_fatal_error(int err)
{
	return err == -ENOSPC || err == -EIO || err == -EROFS || err == -EDQUOT ||
	       err == -ENODEV || err == -ENXIO || err == -ENOTCONN || err == -ENOMEM ||
	       err == -EMFILE || err == -ENFILE;
}

void copy_count_failed(struct engine *g)
{
	g->failed++;
	atomic_fetch_add(&g->stats->files_failed, 1);
}

int item_fatal(struct engine *g, const struct batch_item *it, enum copy_step step, int err)
{
	copy_report_dst(g, it->entry, step, err, true);
	return err;
}

void item_drop(struct engine *g, struct batch_item *it, enum copy_step step, int err,
	       const char *path)
{
	copy_report(g, it->entry, step, err, path, false);
	dest_file_remove(&it->file);
	item_forget_bytes(g, it);
	copy_count_failed(g);
}

void item_drop_dst(struct engine *g, struct batch_item *it, enum copy_step step, int err)
{
	char dst[PATH_MAX];

	item_drop(g, it, step, err, plan_dst_path(g->plan, it->entry, dst));
}

void item_forget_bytes(struct engine *g, const struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];

	/* only regular files are in bytes_total (a symlink's st_size is
	 * its target's length) */
	if (e->source->type == PLAN_FILE)
		atomic_fetch_sub(&g->stats->bytes_total, it->size);
	if (it->file.w) {
		atomic_fetch_sub(&g->stats->bytes_confirmed, writer_confirmed_data(it->file.w));
		atomic_fetch_sub(&g->stats->bytes_written, writer_data(it->file.w));
	}
}

void item_stop(struct engine *g, struct batch_item *it)
{
	uint64_t kept = dest_file_stop(&it->file);
	char dst[PATH_MAX];

	if (kept)
		copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_NOTE,
						   .note = COPY_NOTE_PARTIAL_KEPT, .entry = it->entry,
						   .path = (char *)plan_dst_path(g->plan, it->entry, dst),
						   .bytes = kept });
}

void item_done(struct batch_item *it)
{
	dest_file_free(&it->file);
	verify_file_free(&it->vf);
}
