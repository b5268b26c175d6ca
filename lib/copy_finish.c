/* copy_finish.c: the end of a copy, when "done" must mean the stick's
 * light would stop.
 *
 * Directories this copy created get their modes and times last and
 * bottom-up, since writing into a directory changes its mtime.  Then
 * syncfs on the destination filesystem and fsync of the destination
 * root: on vfat, syncfs writes everything but sends no cache flush (FAT
 * has no ->sync_fs), and a directory fsync is what makes it flush
 * (fat_file_fsync -> blkdev_issue_flush).  Last, the device itself: we
 * wait until its bdi shows nothing dirty or under writeback (within the
 * percpu counters' error) and no write in flight.  Without debugfs
 * (not root) syncfs and fsync returning is the best evidence there is. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "copy_internal.h"
#include "debug.h"
#include "dirty.h"

#define IDLE_POLL_NS 50000000L
/* Someone else may keep the device busy: stop waiting once its pending
 * data has not shrunk for this long. */
#define IDLE_STALL_SECONDS 5.0

int finish_dirs(struct engine *g)
{
	for (size_t k = g->n_made_dirs; k-- > 0;) {
		const struct plan_entry *e = &g->plan->entries[g->made_dirs[k]];
		const struct timespec times[2] = { e->st.st_atim, e->st.st_mtim };

		if (g->o->keep_mode && g->fs_has_modes && chmod(e->dst, e->st.st_mode & 07777) < 0)
			copy_report(g, g->made_dirs[k], COPY_STEP_ATTRS, -errno, e->dst);
		if (!g->o->keep_mode && chmod(e->dst, 0777 & ~g->umask) < 0)
			copy_report(g, g->made_dirs[k], COPY_STEP_ATTRS, -errno, e->dst);
		if (g->o->keep_times && utimensat(AT_FDCWD, e->dst, times, 0) < 0)
			copy_report(g, g->made_dirs[k], COPY_STEP_ATTRS, -errno, e->dst);
	}
	return 0;
}

static bool device_idle(const struct dirty_device *d)
{
	return dirty_device_pending(d) <= dirty_percpu_error() && d->inflight_writes == 0;
}

static void wait_idle(struct engine *g)
{
	const struct target *t = g->o->target;
	struct dirty_device d;
	uint64_t best = UINT64_MAX;
	double since = copy_now();

	if (!t || !t->has_block)
		return;
	for (;;) {
		if (dirty_device_read(t->bdi, t->diskname, &d) < 0 ||
		    d.source != DIRTY_SOURCE_DEBUGFS)
			return;
		atomic_store(&g->stats->device_pending, dirty_device_pending(&d));
		if (device_idle(&d))
			return;
		if (dirty_device_pending(&d) < best) {
			best = dirty_device_pending(&d);
			since = copy_now();
		} else if (copy_now() - since > IDLE_STALL_SECONDS) {
			DEBUG(DEBUG_COPY, "device still busy with data not ours; not waiting");
			return;
		}
		nanosleep(&(struct timespec){ 0, IDLE_POLL_NS }, NULL);
	}
}

int finish_device(struct engine *g)
{
	_cleanup_close_ int root = open(g->plan->dest_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = root < 0 ? -errno : 0;

	atomic_store(&g->stats->phase, COPY_PHASE_FINAL_SYNC);
	if (r == 0 && syncfs(g->dest_fd) < 0)
		r = -errno;
	if (r == 0 && fsync(root) < 0)
		r = -errno;
	if (r < 0) {
		if (g->cb && g->cb->error && g->plan->n_entries)
			copy_report(g, 0, COPY_STEP_FINAL_SYNC, r, g->plan->dest_root);
		return r;
	}
	atomic_store(&g->stats->phase, COPY_PHASE_WAIT_IDLE);
	wait_idle(g);
	return 0;
}
