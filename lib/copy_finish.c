/* copy_finish.c: the end of a copy, when "done" must mean the stick's
 * light would stop.
 *
 * Directories this copy created get their modes and times bottom-up once
 * nothing more is written into them, since that changes their mtime.  Then
 * syncfs on the destination filesystem and fsync of the destination
 * root: on vfat, syncfs writes everything but sends no cache flush (FAT
 * has no ->sync_fs), and a directory fsync is what makes it flush
 * (fat_file_fsync -> blkdev_issue_flush).  Last, the device itself: we
 * wait until its bdi shows nothing dirty or under writeback (within the
 * percpu counters' error) and no write in flight.  Without debugfs
 * (not root) syncfs and fsync returning is the best evidence there is. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "copy_internal.h"
#include "debug.h"
#include "dirty.h"
#include "fs_sync.h"

#define IDLE_POLL_NS 50000000L
/* Someone else may keep the device busy: stop waiting once its pending
 * data has not shrunk for this long. */
#define IDLE_STALL_SECONDS 5.0

static bool is_inside(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	return strncmp(path, dir, len) == 0 && path[len] == '/';
}

static void dir_attrs(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	const struct timespec times[2] = { e->st.st_atim, e->st.st_mtim };
	mode_t mode = g->o->keep_mode ? e->st.st_mode & 07777 : 0777 & ~g->umask;

	if (g->fs_has_modes && chmod(e->dst, mode) < 0)
		copy_report(g, idx, COPY_STEP_ATTRS, -errno, e->dst);
	if (g->o->keep_times && utimensat(AT_FDCWD, e->dst, times, 0) < 0)
		copy_report(g, idx, COPY_STEP_ATTRS, -errno, e->dst);
}

/* Plan order is depth first, so a created directory is complete once the
 * next entry to copy is not inside it; complete ones get their attributes
 * in the commit that renamed their last entries, whose syncfs then covers
 * them: done at the very end, the inode updates of hundreds of
 * directories cost a journal commit of their own. */
void finish_dirs(struct engine *g, bool all)
{
	const char *next = !all && g->next < g->plan->n_entries
				   ? g->plan->entries[g->next].dst : NULL;
	size_t kept = 0;

	for (size_t k = g->n_made_dirs; k-- > 0;) {
		size_t idx = g->made_dirs[k];

		if (next && is_inside(g->plan->entries[idx].dst, next))
			continue;
		dir_attrs(g, idx);
		g->made_dirs[k] = SIZE_MAX;
	}
	for (size_t k = 0; k < g->n_made_dirs; k++)
		if (g->made_dirs[k] != SIZE_MAX)
			g->made_dirs[kept++] = g->made_dirs[k];
	g->n_made_dirs = kept;
}

/* Dirty and writeback are two percpu counters, each off by up to
 * dirty_percpu_error() when read (KERNEL.md 4.1). */
static bool device_idle(const struct dirty_device *d)
{
	return dirty_device_pending(d) <= 2 * dirty_percpu_error() && d->inflight_writes == 0;
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
			DEBUG(DEBUG_COPY, "bdi %s: %llu bytes pending not shrinking; not ours", t->bdi,
			      (unsigned long long)dirty_device_pending(&d));
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
	if (r == 0)
		r = fs_sync(g->dest_fd);
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
