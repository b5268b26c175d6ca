/* copy_finish.c: the end of a copy, when "done" must mean the stick's
 * light would stop.
 *
 * With --verify, once everything is named, the files named earlier are
 * read back again (verify.c says why); one that differs now is no longer
 * copied: reported, out of the counts and withdrawn from the caller.
 * Directories this copy created get their modes and times through their
 * fds once nothing more is written into them, since that changes their
 * mtime.  Then
 * syncfs on the destination filesystem and fsync of the destination
 * root: on vfat, syncfs writes everything but sends no cache flush (FAT
 * has no ->sync_fs), and a directory fsync is what makes it flush
 * (fat_file_fsync -> blkdev_issue_flush).  Last, the device itself: we
 * wait until it is seen idle (dirty/dirty_idle.h, doc/kernel.md 4.6): as
 * root its bdi shows nothing dirty or under writeback (within the percpu
 * counters' error) and no write in flight; as any user, for 0.3 s nothing
 * is under writeback on the system, nothing in flight and its sector
 * counter stands still. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "base/clock.h"
#include "base/grow.h"
#include "util/debug.h"
#include "dirty/dirty.h"
#include "dirty/dirty_idle.h"
#include "io/fs_sync.h"
#include "copy/hook_paths.h"

#define IDLE_POLL_NS 50000000L
/* Someone else may keep the device busy: stop waiting once its pending
 * data has not shrunk for this long (without debugfs: after this long). */
#define IDLE_STALL_SECONDS 5.0

void finish_dir_popped(void *ctx, size_t idx, int fd)
{
	struct engine *g = ctx;

	/* one merged into gets the source's metadata too when more than the
	 * times is asked (-p: cp sets it on an existing directory) */
	if (!(g->made[idx] || g->meta_merged) || fd < 0) {
		if (fd >= 0)
			close(fd);
		else if (g->made[idx]) /* swapped while its fd was closed for depth */
			copy_report_dst(g, idx, COPY_STEP_ATTRS, -ESTALE, false);
		return;
	}
	if (GROW(g->done_dirs, g->cap_done_dirs, g->n_done_dirs + 1, 16) < 0) {
		close(fd); /* it keeps 0700: safe, if not what was asked */
		return;
	}
	g->done_dirs[g->n_done_dirs++] = (struct done_dir){ idx, fd };
}

/* Through the fd the directory was made with: whatever a user renames
 * or plants at its name since, its metadata goes to our directory
 * (copy_meta.c). */
static void dir_attrs(struct engine *g, size_t idx, int fd)
{
	test_hook_dst("dir-attrs", g->plan, idx);
	meta_dir(g, idx, fd);
}

/* A made directory is complete once the walk has left it (popped from
 * the dirstack); it gets its attributes in the commit that renamed its
 * last entries, whose syncfs then covers them: done at the very end, the
 * inode updates of hundreds of directories cost a journal commit of
 * their own.  Deepest first, so a parent's mtime is set after its
 * children's.  all: the copy ends (or stops): every directory still on
 * the stack too. */
/* A name still to be made in dir: a hard link deferred to the next batch
 * (copy_link.c: its leader was in the batch just committed), or an item
 * of the open batch (such links join it; the fd budget can finish
 * directories before its commit).  dir's times must wait for them, or the
 * name would leave it with the time of the copy. */
static bool awaits_names(const struct engine *g, size_t dir)
{
	for (size_t k = 0; k < g->n_deferred; k++) {
		size_t idx = g->deferred[k].idx;

		if (source_parent(g->plan->entries[idx].source, idx) == dir)
			return true;
	}
	for (size_t k = 0; k < g->batch.n; k++) {
		const struct batch_item *it = &g->batch.items[k];

		if (!it->renamed && !it->settled &&
		    source_parent(g->plan->entries[it->entry].source, it->entry) == dir)
			return true;
	}
	return false;
}

/* The done directories' attributes; all: none waits (the copy ends). */
static void finish_done(struct engine *g, bool all)
{
	size_t kept = 0;

	for (size_t k = 0; k < g->n_done_dirs; k++) {
		if (!all && awaits_names(g, g->done_dirs[k].idx)) {
			g->done_dirs[kept++] = g->done_dirs[k]; /* the next commit's */
			continue;
		}
		dir_attrs(g, g->done_dirs[k].idx, g->done_dirs[k].fd);
		close(g->done_dirs[k].fd);
	}
	g->n_done_dirs = kept;
}

void finish_dirs(struct engine *g, bool all)
{
	finish_done(g, all);
	/* one frame at a time: a 2000-level tree must not hold 2000 fds */
	while (all && dirstack_top(&g->dirs) != PLAN_TOP) {
		dirstack_pop(&g->dirs, finish_dir_popped, g);
		finish_done(g, true);
	}
}

int finish_recheck(struct engine *g)
{
	struct verify_bad bad;
	int r;

	if (!verify_recheck_due(g->verify))
		return 0;
	atomic_store(&g->stats->phase, COPY_PHASE_RECHECK);
	while ((r = verify_recheck_next(g->verify, g->dest_dir_fd, g->dest_fd, &bad)) > 0) {
		copy_report_dst(g, bad.entry, COPY_STEP_VERIFY, bad.err, false);
		if (!bad.withdrawn)
			continue;
		atomic_fetch_sub(&g->stats->files_done, 1);
		copy_count_failed(g);
		g->published[bad.entry] = false;
		copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_FILE_WITHDRAWN,
						   .entry = bad.entry });
	}
	return r;
}

/* After our sync, whether the device stops (dirty/dirty_idle.h: the
 * root rule and the any-user rule).  With debugfs we wait as long as the
 * device's pending data shrinks; without it the figure is the system's,
 * whose shrinking says nothing of this device, so the wait is bounded.
 * Not idle: what the device was busy with meanwhile, for the last line. */
static bool idle_gave_up(const struct idle_reading *r, double start, uint64_t *best,
			 double *since)
{
	double now = clock_monotonic();

	if (!r->exact)
		return now - start > IDLE_STALL_SECONDS;
	if (r->pending < *best) {
		*best = r->pending;
		*since = now;
	}
	return now - *since > IDLE_STALL_SECONDS;
}

/* Bytes the device wrote since first, plus what it still has to write
 * when that is its own figure. */
static uint64_t busy_bytes(const struct idle_reading *first, const struct idle_reading *r)
{
	uint64_t written = 0;

	if (first->has_block_stat && r->has_block_stat &&
	    r->sectors_written > first->sectors_written)
		written = (r->sectors_written - first->sectors_written) * 512;
	return written + (r->exact ? r->pending : 0);
}

/* True when the device was seen idle; false when there is nothing to
 * look at or the wait gave up. */
static bool wait_idle(struct engine *g)
{
	const struct target *t = g->o->target;
	struct dirty_device d;
	struct idle_reading first = { 0 }, r;
	struct idle_watch w;
	uint64_t best = UINT64_MAX;
	double start = clock_monotonic(), since = start;

	if (!t || !t->has_block)
		return false;
	/* two counters (dirty, writeback), each off by up to the percpu error */
	idle_watch_init(&w, 2 * dirty_percpu_error());
	for (unsigned n = 0;; n++) {
		if (dirty_device_read(t->bdi, t->diskname, &d) < 0)
			return false;
		idle_reading_from(&d, clock_monotonic(), &r);
		if (n == 0)
			first = r;
		atomic_store(&g->stats->device_pending, r.pending);
		if (idle_watch_add(&w, &r))
			return true;
		if (idle_gave_up(&r, start, &best, &since)) {
			atomic_store(&g->stats->device_busy_bytes, busy_bytes(&first, &r));
			DEBUG(DEBUG_COPY, "disk %s: not seen idle (%llu bytes pending, %s)",
			      t->diskname, (unsigned long long)r.pending,
			      r.exact ? "debugfs" : "system writeback");
			return false;
		}
		nanosleep(&(struct timespec){ 0, IDLE_POLL_NS }, NULL);
	}
}

int finish_device(struct engine *g)
{
	int r;

	atomic_store(&g->stats->phase, COPY_PHASE_FINAL_SYNC);
	r = fs_sync(g->dest_fd);
	if (r == 0 && fsync(g->dest_fd) < 0)
		r = -errno;
	if (r < 0) {
		if (g->plan->n_entries)
			copy_report(g, 0, COPY_STEP_FINAL_SYNC, r, g->plan->dest_root, true);
		return r;
	}
	atomic_store(&g->stats->phase, COPY_PHASE_WAIT_IDLE);
	atomic_store(&g->stats->device_idle, wait_idle(g));
	return 0;
}
