/* copy_batch.c: files written but not yet under their names, committed
 * together.
 *
 * Small files must not pay a device flush each, so finished files gather
 * in a batch.  Their writeback is started as each one ends; the oldest
 * are waited for whenever more than a window is unconfirmed, which keeps
 * the device busy and the dirty data bounded.  A commit then:
 *   1. waits for the data of every item still in flight;
 *   2. sets timestamps and mode on the open files (FUSE: fsync each, the
 *      only call its daemon acts on; once on exfat-fuse, whose fsync
 *      flushes the whole volume);
 *   3. without a journal (vfat, exfat, ...): syncfs, so every temporary
 *      file is durable, data and metadata, before any rename;
 *   4. (--backup) gives each file it replaces its backup name, synced
 *      where no journal orders the renames (copy_backup.c), then
 *      puts each under its final name (copy_publish.c, dest_file.c): an
 *      unnamed (O_TMPFILE) file is linked there (onto an existing file:
 *      linked under a temporary name and renamed over it), a named
 *      temporary is renamed;
 *   5. syncfs so the new names are durable (FUSE: fsync each distinct
 *      directory, which reaches the daemon as FSYNCDIR).
 * fusefat's fsync is a no-op and it has no fsyncdir (doc/kernel.md 1.5):
 * what it wrote waits in the block device's cache, so steps 2 and 5 end
 * with a sync of that device (fs_sync_device), which covers the whole
 * volume as exfat-fuse's fsync does: step 1 leaves it to step 2.
 * On ext4, xfs and btrfs step 3 is left out: their journal (btrfs: its
 * transaction) puts each rename in the same or a later commit than the
 * new inode's size and blocks, and the data was on the device before the
 * rename, so the one syncfs of step 5 makes the batch durable in the
 * right order; the extra commit cost every batch a drained queue.
 * There, without --verify, steps 2 and 4 come early too, for each file
 * the moment its data is waited for (names_early): the commit is left
 * with the last window's files and the syncfs, and the device is not
 * idle while a thousand files are named at its end.  Such a file is
 * counted as copied only at the commit, as the others are.
 * A commit happens when the batch holds four windows of data, 1000
 * files, or has been open two seconds, and before any file larger than a
 * window. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "io/fs_sync.h"
#include "io/writer.h"
#include "base/cleanup.h"
#include "base/clock.h"
#include "base/grow.h"
#include "util/debug.h"
#include "base/test_hook.h"

/* plan_check() counts replaced files that coexist with their new copies
 * by these limits (plan.h PLAN_BATCH_*): 4 windows of at most 64 MiB
 * each, PLAN_BATCH_FILES files. */
#define BATCH_WINDOWS (PLAN_BATCH_BYTES / PLAN_BATCH_BIG)
#define BATCH_SECONDS 2.0

static bool names_early(const struct engine *g);
static int publish_early(struct engine *g, struct batch_item *it);

void batch_close_dirs(struct batch *b)
{
	for (size_t i = 0; i < b->n_dirs; i++)
		close(b->dirs[i].fd);
	free(b->dirs);
	b->dirs = NULL;
	b->n_dirs = b->cap_dirs = 0;
}

int batch_parent_fd(struct engine *g, size_t idx)
{
	struct batch *b = &g->batch;
	int fd;

	for (size_t i = b->n_dirs; i-- > 0;)
		if (b->dirs[i].idx == idx)
			return b->dirs[i].fd;
	fd = copy_dir_fd(g, idx);
	if (fd < 0)
		return fd;
	if (GROW(b->dirs, b->cap_dirs, b->n_dirs + 1, 16) < 0)
		return -ENOMEM;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	b->dirs[b->n_dirs++] = (struct batch_dir){ idx, fd };
	return fd;
}

static uint64_t unconfirmed(const struct batch_item *it)
{
	return it->file.w ? writer_data(it->file.w) - writer_confirmed_data(it->file.w) : 0;
}

/* exfat-fuse flushes the whole volume on any fsync (its fsync and
 * fsyncdir handlers call exfat_flush_nodes, exfat_flush and fsync of the
 * device), so one fdatasync of the newest file puts every earlier file's
 * data on the device too; per file it rewrote the cluster bitmap and the
 * directory each time (98 MiB written for 63 MiB of small files). */
/* The newest file with a writer at or after item from. */
static struct batch_item *newest_file_from(struct batch *b, size_t from)
{
	for (size_t i = b->n; i-- > from;)
		if (b->items[i].file.w)
			return &b->items[i];
	return NULL;
}

static struct batch_item *newest_file(struct batch *b)
{
	return newest_file_from(b, b->unwaited);
}

/* A sync that covers the whole volume returned: every item is on the device. */
static void confirm_all(struct batch *b)
{
	for (size_t i = b->unwaited; i < b->n; i++)
		if (b->items[i].file.w)
			writer_confirm_flushed(b->items[i].file.w);
	b->unwaited = b->n;
	b->pending = 0;
}

static int wait_volume(struct engine *g, uint64_t keep)
{
	struct batch *b = &g->batch;
	struct batch_item *last = newest_file(b);
	int r;

	if (!last || b->pending <= keep)
		return 0;
	r = fdatasync(writer_fd(last->file.w)) < 0 ? -errno : 0;
	if (r == 0 && g->device_sync)
		r = fs_sync_device(writer_fd(last->file.w), g->bdev_fd);
	if (r < 0)
		return item_fatal(g, last, COPY_STEP_WRITE, r);
	confirm_all(b);
	return 0;
}

/* Wait for the data of the oldest items until at most `keep` bytes are
 * still unconfirmed. */
static int batch_wait_data(struct engine *g, uint64_t keep)
{
	struct batch *b = &g->batch;

	if (g->volume_fsync)
		return wait_volume(g, keep);

	while (b->unwaited < b->n && b->pending > keep) {
		struct batch_item *it = &b->items[b->unwaited];
		uint64_t was = unconfirmed(it);
		int r = it->file.w ? writer_finish_data(it->file.w) : 0;

		if (r < 0)
			return item_fatal(g, it, COPY_STEP_WRITE, r);
		b->pending -= was;
		b->unwaited++;
		if (it->file.w && names_early(g) && (r = publish_early(g, it)) < 0)
			return r;
	}
	return 0;
}

int batch_add(struct engine *g, struct batch_item *item)
{
	struct batch *b = &g->batch;

	if (GROW(b->items, b->cap, b->n + 1, 64) < 0) {
		dest_file_remove(&item->file);
		item_done(item);
		return -ENOMEM;
	}
	if (b->n == 0)
		b->opened = clock_monotonic();
	b->items[b->n++] = *item;
	b->pending += unconfirmed(item);
	if (item->file.w)
		b->bytes += writer_data(item->file.w);
	return batch_wait_data(g, g->o->wplan->window);
}

bool batch_due(const struct engine *g)
{
	const struct batch *b = &g->batch;

	return b->n > 0 && (b->bytes >= BATCH_WINDOWS * g->o->wplan->window ||
			    b->n >= g->batch_files || b->n_dirs >= g->batch_dirs ||
			    clock_monotonic() - b->opened >= BATCH_SECONDS);
}

/* --verify: the durable file read back from the device must be what
 * was written, or it is not named (verify.h). */
static void verify_item(struct engine *g, struct batch_item *it)
{
	bool note_cached;
	int r = verify_written(g->verify, &it->vf, it->entry, writer_fd(it->file.w),
			       writer_written(it->file.w), &note_cached);

	if (note_cached)
		copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_NOTE,
						   .note = COPY_NOTE_VERIFY_CACHED,
						   .path = (char *)g->plan->dest_root });
	if (r == 0)
		return;
	item_drop_dst(g, it, COPY_STEP_VERIFY, r);
	it->rejected = it->settled = true;
}

static int durable_files(struct engine *g)
{
	struct batch *b = &g->batch;
	/* of every item: the data wait (wait_volume) has marked them all waited */
	struct batch_item *last = g->volume_fsync ? newest_file_from(b, 0) : NULL;

	/* attributes first: on a volume-wide fsync they ride on the last one */
	for (size_t i = 0; last && i < b->n; i++)
		publish_attrs(g, &b->items[i]);
	for (size_t i = 0; i < b->n; i++) {
		struct batch_item *it = &b->items[i];
		bool sync = g->fuse && it->file.w && (!last || it == last);

		if (it->settled)
			continue; /* named early, attributes set */
		if (!last)
			publish_attrs(g, it);
		if (sync && fsync(writer_fd(it->file.w)) < 0)
			return item_fatal(g, it, COPY_STEP_SYNC, -errno);
	}
	/* the data, times and sizes the daemon wrote are in the device's cache:
	 * one sync of it, which the commit did not do before (batch_commit) */
	if (g->device_sync && b->n) {
		int r = fs_sync_device(g->dest_fd, g->bdev_fd);

		if (r < 0)
			return copy_dest_failed(g, b->items[0].entry, COPY_STEP_SYNC, r);
		if (g->volume_fsync)
			confirm_all(b);
	}
	if (!g->fuse && !g->journaled && syncfs(g->dest_fd) < 0)
		return copy_dest_failed(g, b->items[0].entry, COPY_STEP_SYNC, -errno);
	/* durable now; read back before any of them is named */
	for (size_t i = 0; g->verify && i < b->n; i++) {
		/* stopped: what is not verified must not be named */
		if (g->cancel && atomic_load(g->cancel))
			return -ECANCELED;
		if (b->items[i].file.w)
			verify_item(g, &b->items[i]);
	}
	for (size_t i = 0; i < b->n; i++) {
		struct batch_item *it = &b->items[i];
		int r = 0;

		/* an unnamed file needs its fd until it is linked */
		if (it->file.w && !it->file.unnamed && !it->rejected && !it->settled)
			r = writer_close(it->file.w);
		if (r < 0)
			return item_fatal(g, it, COPY_STEP_SYNC, r);
	}
	return 0;
}

static int sync_dirs(struct engine *g)
{
	struct batch *b = &g->batch;

	if (!g->fuse)
		return fs_sync(g->dest_fd);
	/* FUSE: FSYNCDIR per directory; exfat-fuse's covers the volume */
	for (size_t i = 0; i < (g->volume_fsync ? MIN(b->n_dirs, 1) : b->n_dirs); i++)
		if (fsync(b->dirs[i].fd) < 0)
			return -errno;
	/* fusefat: the new entries are in the device's cache */
	return g->device_sync ? fs_sync_device(g->dest_fd, g->bdev_fd) : 0;
}

static void reset(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		item_done(&b->items[i]);
	b->n = b->unwaited = 0;
	b->bytes = b->pending = 0;
	batch_close_dirs(b);
}

/* With a journal and nothing to read back, a file whose data is on the
 * device is named at once, not at the commit: the journal puts the name
 * in the same or a later commit than the file's size and blocks (as at
 * the commit, step 3's comment), so the batch's one syncfs still makes
 * it durable in the right order, and the commit has little left to do
 * while the device waits: naming a thousand files at its end drained
 * the device's queue for as long. */
static bool names_early(const struct engine *g)
{
	return g->journaled && !g->fuse && !g->volume_fsync && !g->device_sync && !g->verify;
}

static int publish_early(struct engine *g, struct batch_item *it)
{
	int r = 0;

	publish_attrs(g, it);
	if (!it->file.unnamed)
		r = writer_close(it->file.w);
	if (r < 0)
		return item_fatal(g, it, COPY_STEP_SYNC, r);
	return publish_item(g, it);
}

/* --backup: the old files under their backup names, durable before the
 * new ones take their names (copy_backup.c). */
static int backups_first(struct engine *g)
{
	bool made;
	int r = batch_backups(g, &made);

	if (r == 0 && made && !g->journaled && (r = sync_dirs(g)) < 0)
		copy_dest_failed(g, g->batch.items[0].entry, COPY_STEP_SYNC, r);
	return r;
}

int batch_commit(struct engine *g)
{
	struct batch *b = &g->batch;
	int r;

	if (b->n == 0)
		return 0;
	DEBUG(DEBUG_COPY, "commit: %zu items, %llu bytes", b->n, (unsigned long long)b->bytes);
	/* fusefat: durable_files' device sync covers the data too */
	r = g->device_sync && g->volume_fsync ? 0 : batch_wait_data(g, 0);
	if (r == 0)
		r = durable_files(g);
	if (r == 0 && g->plan->opts.backup != BACKUP_NONE)
		r = backups_first(g);
	for (size_t i = 0; r == 0 && i < b->n; i++)
		if (!b->items[i].rejected && !b->items[i].settled)
			r = publish_item(g, &b->items[i]);
	/* under its final name is copied, whatever comes after */
	for (size_t i = 0; i < b->n; i++)
		if (b->items[i].renamed)
			publish_done(g, &b->items[i]);
	verify_committed(g->verify);
	if (r == 0) {
		finish_dirs(g, false);
		r = sync_dirs(g);
		if (r < 0)
			copy_dest_failed(g, b->items[0].entry, COPY_STEP_SYNC, r);
	}
	if (r < 0)
		return r; /* batch_abort removes what was not renamed */
	reset(b);
	return g->n_deferred ? copy_links_deferred(g) : 0;
}

void batch_abort(struct engine *g, int why)
{
	struct batch *b = &g->batch;
	bool named = false;

	/* unnamed files vanish when their fds close in reset() */
	for (size_t i = 0; i < b->n; i++) {
		named = named || b->items[i].renamed;
		if (!b->items[i].settled) {
			item_stop(g, &b->items[i]); /* a partial is kept */
			item_forget_bytes(g, &b->items[i]);
		}
	}
	/* named early, whole: stopped by the user, they are copied once
	 * durable, as their commit would have made them.  After an error
	 * they stay uncounted: a syncfs on a failed device may still
	 * return 0 (xfs, shut down, has nothing left to write). */
	if (named && why == -ECANCELED && sync_dirs(g) == 0) {
		for (size_t i = 0; i < b->n; i++)
			if (b->items[i].renamed)
				publish_done(g, &b->items[i]);
		verify_committed(g->verify);
	}
	reset(b);
}
