/* copy.c: one destination's copy: runs a checked plan, entry by entry,
 * in plan order.
 *
 * It opens the destination directory (the one the plan saw), removes the
 * temporaries dead copies left there (the plan counted their space as
 * free), then hands each entry to its part: a directory to copy_dir.c, a
 * file or symlink to copy_file.c, whose batch (copy_batch.c) waits for the
 * data, makes it durable and puts it under its name.  The batch keeps the
 * bytes not yet confirmed by the device under one window, so a stream of
 * small files is bounded like one large file; a file larger than a window
 * commits the batch first and then bounds itself.  At the end: --verify's
 * recheck, the lists, the directories' attributes, the final sync and the
 * wait for the device (copy_finish.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "copy/resume.h"
#include "copy/meta_attrs.h"
#include "device/fs_traits.h"
#include "util/beneath.h"
#include "base/cleanup.h"
#include "util/process_umask.h"
#include "base/size.h"

static enum copy_skip_reason skip_reason(const struct plan_entry *e)
{
	if (e->identical)
		return COPY_SKIP_IDENTICAL;
	if (e->skip_existing)
		return COPY_SKIP_KEPT;
	if (S_ISFIFO(e->source->mode))
		return COPY_SKIP_FIFO;
	if (S_ISSOCK(e->source->mode))
		return COPY_SKIP_SOCKET;
	if (S_ISCHR(e->source->mode) || S_ISBLK(e->source->mode))
		return COPY_SKIP_DEVICE;
	return COPY_SKIP_OTHER;
}

static int copy_entry(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	const struct resume_file *rf;
	int r;

	atomic_store(&g->stats->current, idx);
	r = copy_leave_dirs(g, idx);
	if (r < 0)
		return r;
	if (e->source->type == PLAN_SKIP || e->skip_existing) {
		copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_SKIPPED, .entry = idx,
						   .skip = skip_reason(e) });
		return 0;
	}
	rf = resume_plan_find(g->o->resume, idx);
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_FILE_START, .entry = idx,
					   .bytes = rf ? rf->from : 0 });
	switch (e->source->type) {
	case PLAN_DIR:
		return copy_dir(g, idx);
	case PLAN_SYMLINK:
		return copy_symlink(g, idx);
	case PLAN_FILE:
		return e->linked ? copy_link(g, idx) : copy_file(g, idx);
	default:
		return 0;
	}
}

static uint64_t bytes_to_copy(const struct plan *p)
{
	uint64_t total = 0;

	for (size_t i = 0; i < p->n_entries; i++)
		if (p->entries[i].source->type == PLAN_FILE && !p->entries[i].skip_existing)
			total += plan_file_bytes(p, i);
	return total;
}

/* The batch limits within RLIMIT_NOFILE: two dirstacks and a margin for
 * everything else (stdio, the destination fds, the block device, libc),
 * then half for files and a quarter each for directory fds. */
static void fd_budget(struct engine *g)
{
	struct rlimit rl = { 1024, 1024 };
	uint64_t have, budget;

	getrlimit(RLIMIT_NOFILE, &rl);
	have = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
	budget = have > 2 * (DIRSTACK_OPEN + 1) + 64 + 16 ? have - 2 * (DIRSTACK_OPEN + 1) - 64 : 16;
	g->batch_files = (size_t)MIN((uint64_t)PLAN_BATCH_FILES, budget / 2);
	g->batch_dirs = (size_t)MIN((uint64_t)BATCH_DIRS, MAX(budget / 4, 1));
	g->batch_done_dirs = (size_t)MIN((uint64_t)BATCH_DONE_DIRS, MAX(budget / 4, 1));
}

/* --verify's reads past the page cache, and its counters in the job's stats. */
static int start_verify(struct engine *g)
{
	struct copy_stats *st = g->stats;
	const struct verify_setup s = {
		.plan = g->plan, .fuse = g->fuse, .bdev_fd = g->bdev_fd, .cancel = g->cancel,
		.buf_size = (size_t)MAX(g->o->wplan->chunk, (uint64_t)(1 << 20)),
		.counts = { &st->bytes_verified, &st->files_verified, &st->files_mismatched,
			    &st->verify_cached },
	};

	return verify_new(&s, &g->verify);
}

static int engine_init(struct engine *g, const struct plan *p, const struct copy_options *o,
		       const struct engine_job *job)
{
	const struct target *t = o->target;
	const struct fs_traits *fs = fs_traits_of(t);

	memset(g, 0, sizeof(*g));
	g->plan = p;
	g->o = o;
	g->events = job->events;
	g->dest = job->dest;
	g->published = job->published;
	g->stats = job->stats;
	g->cancel = job->cancel;
	g->cursor = job->cursor;
	g->digests = job->digests;
	g->dest_dir_fd = -1;
	g->dest_fd = -1;
	g->bdev_fd = -1;
	file_mover_init(&g->mover, o->wplan->chunk);
	dirstack_init(&g->dirs, false);
	g->umask = process_umask(); /* read, not set: other threads create files */
	dest_files_init(&g->files, fs->tmpfile);
	g->fuse = fs->fuse;
	g->journaled = fs->journaled;
	/* blkid needs root to name it; unknown FUSE filesystems get fsync per file */
	g->volume_fsync = fs->volume_fsync && o->wplan->strategy == STRATEGY_SYNC_WINDOW;
	/* a device sync covers every file at once, like a volume fsync */
	g->device_sync = fs->fsync_noop;
	if (g->device_sync && o->wplan->strategy == STRATEGY_SYNC_WINDOW)
		g->volume_fsync = true;
	g->fs_has_modes = fs->stores_modes;
	g->meta_lost = o->meta_noted;
	g->mode_noted = o->meta_noted & META_MODE;
	g->meta_merged = o->keep_mode || o->keep_owners || o->keep_xattrs;
	g->times_after_rename = fs->rename_sets_mtime;
	/* the daemon's data is in the device's cache: watch it (root only) */
	g->bdev_fd = read_back_device_open(t);
	atomic_store(&g->stats->bytes_total, bytes_to_copy(p));
	/* the partials kept are on the device from the start */
	if (o->resume) {
		atomic_store(&g->stats->bytes_resumed, o->resume->bytes_resumed);
		atomic_store(&g->stats->bytes_written, o->resume->bytes_resumed);
		atomic_store(&g->stats->bytes_confirmed, o->resume->bytes_resumed);
	}
	atomic_store(&g->stats->phase, COPY_PHASE_COPYING);
	fd_budget(g);
	g->made = calloc(p->n_entries ? p->n_entries : 1, sizeof(*g->made));
	if (!g->made)
		return -ENOMEM;
	return o->verify ? start_verify(g) : 0;
}

/* A new fd of dest_dir, or -errno. */
static int dup_dest_dir(const struct engine *g)
{
	int fd = fcntl(g->dest_dir_fd, F_DUPFD_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

/* An existing destination directory, reached from dest_dir name by name
 * without following symlinks, and the one the plan saw; -errno. */
static int open_existing(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	const struct plan_existing *x = plan_existing_of(g->plan, e);
	size_t parent = source_parent(e->source, idx);
	_cleanup_close_ int pfd = parent == PLAN_TOP ? dup_dest_dir(g) : open_existing(g, parent);

	return pfd < 0 ? pfd : dirstack_open_checked(pfd, plan_dst_name(g->plan, idx), false,
						     x->dst_dev, x->dst_ino);
}

static void note(struct engine *g, enum copy_note_kind kind, const char *path, int err,
		 uint64_t bytes)
{
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_NOTE, .note = kind, .path = (char *)path,
					   .err = err < 0 ? -err : err, .bytes = bytes });
}

/* Before anything is written: the plan's space check counted these files
 * as free.  One that is already gone was removed by someone else. */
static void remove_stale(struct engine *g)
{
	const struct stale_temps *st = &g->plan->stale;

	for (size_t i = 0; i < st->n; i++) {
		const struct stale_temp *t = &st->v[i];
		_cleanup_close_ int fd = -1;
		int r;

		fd = t->dir == PLAN_TOP ? dup_dest_dir(g) : open_existing(g, t->dir);
		r = fd < 0 ? fd : stale_temp_remove(fd, t);

		if (r == 0)
			note(g, COPY_NOTE_STALE_REMOVED, t->path, 0, t->bytes);
		else if (r != -ENOENT)
			note(g, COPY_NOTE_STALE_KEPT, t->path, -r, t->bytes);
	}
}

/* fd or -errno.  Under the plan's beneath root the walk from it meets no
 * link, ".." or mount: one put there since the plan gives -ELOOP or
 * -EXDEV. */
static int open_dest_dir(const struct plan *p, int flags)
{
	int fd;

	if (p->opts.beneath)
		return beneath_open_path(p->opts.beneath, p->dest_dir, (uint64_t)flags);
	fd = open(p->dest_dir, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* dest_dir is an operand: opened by path, as cp resolves it (a /media
 * link is followed) unless the plan has a beneath root, and it must be
 * the directory the plan saw.  The destination root, whose filesystem is
 * synced, is dest_dir or the directory merged into (-rT). */
static int open_dest(struct engine *g)
{
	const struct plan *p = g->plan;
	struct stat st;

	g->dest_dir_fd = open_dest_dir(p, O_RDONLY | O_DIRECTORY);
	if (g->dest_dir_fd == -EACCES)
		g->dest_dir_fd = open_dest_dir(p, O_PATH | O_DIRECTORY);
	if (g->dest_dir_fd < 0)
		return g->dest_dir_fd;
	if (fstat(g->dest_dir_fd, &st) < 0)
		return -errno;
	if (st.st_dev != p->dest_dir_dev || st.st_ino != p->dest_dir_ino)
		return -ESTALE;
	/* the root must be readable: syncfs and fsync refuse an O_PATH fd */
	if (p->dest_root_entry == PLAN_TOP && (fcntl(g->dest_dir_fd, F_GETFL) & O_PATH))
		return -EACCES;
	g->dest_fd = p->dest_root_entry == PLAN_TOP ? dup_dest_dir(g)
						    : open_existing(g, p->dest_root_entry);
	return g->dest_fd < 0 ? g->dest_fd : 0;
}

static int run_entries(struct engine *g)
{
	int r = 0;

	for (size_t i = 0; i < g->plan->n_entries && r >= 0; i = g->next) {
		if (copy_cancelled(g))
			return -ECANCELED;
		g->next = i + 1;
		r = copy_entry(g, i);
		if (r >= 0 && batch_due(g))
			r = batch_commit(g);
	}
	/* a commit may leave hard links it made linkable in a new batch */
	while (r >= 0 && g->batch.n > 0)
		r = batch_commit(g);
	return r;
}

static void engine_done(struct engine *g)
{
	if (g->dest_dir_fd >= 0)
		close(g->dest_dir_fd);
	if (g->dest_fd >= 0)
		close(g->dest_fd);
	if (g->bdev_fd >= 0)
		close(g->bdev_fd);
	dirstack_free(&g->dirs);
	batch_close_dirs(&g->batch);
	free(g->batch.items);
	free(g->done_dirs);
	free(g->made);
	free(g->leaders);
	copy_links_drop(g);
	verify_free(g->verify);
	file_mover_done(&g->mover);
}

int copy_engine_run(const struct plan *p, const struct copy_options *o,
		    const struct engine_job *job)
{
	struct engine g;
	int r;

	r = engine_init(&g, p, o, job);
	if (r == 0)
		r = open_dest(&g);
	if (r < 0 && p->n_entries)
		copy_report(&g, 0, COPY_STEP_CREATE, r, p->dest_dir, true);
	if (r == 0) {
		remove_stale(&g);
		r = run_entries(&g);
	}
	if (r < 0)
		batch_abort(&g, r);
	/* the other destinations need not wait for this one any more */
	reader_leave(g.cursor);
	/* after every data write, before the lists and manifests name them */
	if (r == 0)
		r = finish_recheck(&g);
	/* before the directories get their times (a list may go into one)
	 * and before the final sync, which then covers them */
	if (r == 0 && job->lists && !copy_cancelled(&g))
		g.failed += copy_lists_write(job->lists, job->lists_dests, (int)g.dest,
					     g.dest_dir_fd, g.events);
	/* also when stopped: what was made keeps its modes and times, not 0700 */
	finish_dirs(&g, true);
	if (r == 0)
		r = finish_device(&g);
	if (r == 0 && copy_cancelled(&g))
		r = -ECANCELED;
	engine_done(&g);
	if (r < 0)
		return r;
	atomic_store(&g.stats->phase, COPY_PHASE_DONE);
	return (int)MIN(g.failed, (size_t)INT32_MAX);
}
