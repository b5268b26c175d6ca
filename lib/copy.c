/* copy.c: runs a checked plan, entry by entry, in plan order.
 *
 * Directories are created as they come (owner-writable until the end,
 * when copy_finish.c gives them their modes and times bottom-up).  Each
 * file streams from the reader into a writer on an unnamed file (or, where
 * the filesystem has none, a hidden temporary name), then joins the batch
 * (copy_batch.c) that waits for its data, makes it durable and puts it
 * under its name.  The batch keeps the bytes not yet confirmed
 * by the device under one window, so a stream of small files is bounded
 * like one large file; a file larger than a window commits the batch
 * first and then bounds itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "copy_internal.h"
#include "debug.h"
#include "size.h"

double copy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void copy_report(struct engine *g, size_t entry, enum copy_step step, int err,
		 const char *path)
{
	if (g->cb && g->cb->error)
		g->cb->error(g->cb->ctx, &g->plan->entries[entry], step, err, path);
}

static bool cancelled(const struct engine *g)
{
	return g->cancel && atomic_load(g->cancel);
}

/* Errors that say the destination itself is unusable: stop everything. */
static bool fatal_dest_error(int err)
{
	return err == -ENOSPC || err == -EIO || err == -EROFS || err == -EDQUOT ||
	       err == -ENODEV || err == -ENXIO || err == -ENOTCONN;
}

static void on_confirmed(void *ctx, uint64_t delta)
{
	struct engine *g = ctx;

	atomic_fetch_add(&g->stats->bytes_confirmed, delta);
}

static int start_item(struct engine *g, size_t idx, struct batch_item *it)
{
	const char *base;
	int fd;

	memset(it, 0, sizeof(*it));
	it->entry = idx;
	it->dirfd = -1;
	fd = batch_parent_fd(g, g->plan->entries[idx].dst, &base);
	if (fd < 0)
		return fd;
	it->dirfd = fd;
	it->name = strdup(base);
	if (!it->name)
		return -ENOMEM;
	copy_temp_name(g, it);
	return 0;
}

void copy_temp_name(struct engine *g, struct batch_item *it)
{
	stale_temp_name(it->tmp, getpid(), ++g->seq);
}

void copy_remove_temp(struct batch_item *it)
{
	if (it->dirfd >= 0 && it->tmp[0])
		unlinkat(it->dirfd, it->tmp, 0);
	it->tmp[0] = '\0';
}

/* Unnamed where the filesystem allows it, else under the temporary name. */
static int open_writer(struct engine *g, struct batch_item *it, const struct writer_hooks *hooks)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	int r;

	if (g->tmpfile) {
		r = writer_open(it->dirfd, NULL, g->o->wplan, (uint64_t)e->st.st_size,
				g->bdev_fd, hooks, &it->w);
		if (r == 0) {
			it->unnamed = true;
			it->tmp[0] = '\0';
			return 0;
		}
		if (r != -EOPNOTSUPP && r != -EISDIR && r != -EINVAL)
			return r;
		g->tmpfile = false;
	}
	return writer_open(it->dirfd, it->tmp, g->o->wplan, (uint64_t)e->st.st_size,
			   g->bdev_fd, hooks, &it->w);
}

/* A failed file's bytes leave the totals: its temporary is gone, and
 * the bar must not count what no longer exists on the device. */
void copy_forget_bytes(struct engine *g, const struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];

	atomic_fetch_sub(&g->stats->bytes_total, (uint64_t)e->st.st_size);
	if (it->w) {
		atomic_fetch_sub(&g->stats->bytes_confirmed, writer_confirmed(it->w));
		atomic_fetch_sub(&g->stats->bytes_written, writer_written(it->w));
	}
}

/* 0 when the whole file is written, 1 with *src_err when reading the
 * source failed, -errno when the destination did. */
static int stream_file(struct engine *g, struct batch_item *it, int *src_err)
{
	struct reader_chunk c;
	int r;

	for (;;) {
		if (cancelled(g))
			return -ECANCELED;
		r = reader_next(g->reader, &c);
		if (r != 0)
			return r < 0 ? r : -EIO; /* the reader ended early: a bug */
		if (c.entry != it->entry) {
			reader_release(g->reader, &c);
			return -EIO;
		}
		r = c.err ? c.err : writer_write(it->w, c.buf, c.len);
		reader_release(g->reader, &c);
		if (c.err) {
			*src_err = c.err;
			return 1;
		}
		if (r < 0)
			return r;
		atomic_fetch_add(&g->stats->bytes_written, (uint64_t)c.len);
		if (c.last)
			return 0;
	}
}

static void on_switch(void *ctx, enum write_strategy to, const char *why)
{
	struct engine *g = ctx;
	size_t idx = atomic_load(&g->stats->current);

	if (g->cb && g->cb->strategy)
		g->cb->strategy(g->cb->ctx, &g->plan->entries[idx], to, why);
}

/* Drop a file that could not be copied; the copy goes on. */
static void fail_item(struct engine *g, struct batch_item *it, enum copy_step step,
		      int err, const char *path)
{
	copy_forget_bytes(g, it);
	copy_report(g, it->entry, step, err, path);
	copy_remove_temp(it);
	batch_item_done(it);
	g->failed++;
	atomic_fetch_add(&g->stats->files_failed, 1);
}

static int copy_file(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	struct writer_hooks hooks = { g, on_confirmed, on_switch };
	struct batch_item it;
	int r, src_err = 0;

	/* a file larger than a window bounds itself: commit the batch first */
	if ((uint64_t)e->st.st_size > g->o->wplan->window && (r = batch_commit(g)) < 0)
		return r;
	r = start_item(g, idx, &it);
	if (r == 0)
		r = open_writer(g, &it, &hooks);
	if (r < 0) {
		if (fatal_dest_error(r)) {
			copy_report(g, idx, COPY_STEP_CREATE, r, e->dst);
			batch_item_done(&it);
			return r;
		}
		fail_item(g, &it, COPY_STEP_CREATE, r, e->dst);
		return 0;
	}
	r = stream_file(g, &it, &src_err);
	if (r == 1) {
		fail_item(g, &it, COPY_STEP_READ, src_err, e->src);
		return 0;
	}
	if (r == 0)
		r = writer_start_data(it.w);
	if (r < 0) {
		if (r != -ECANCELED)
			copy_report(g, idx, COPY_STEP_WRITE, r, e->dst);
		copy_remove_temp(&it);
		copy_forget_bytes(g, &it);
		batch_item_done(&it);
		return r;
	}
	return batch_add(g, &it);
}

static int copy_symlink(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	struct batch_item it;
	int r = start_item(g, idx, &it);

	if (r == 0 && symlinkat(e->link_target, it.dirfd, it.tmp) < 0)
		r = -errno;
	if (r < 0) {
		fail_item(g, &it, COPY_STEP_CREATE, r, e->dst);
		return fatal_dest_error(r) ? r : 0;
	}
	return batch_add(g, &it);
}

static int copy_dir(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	struct stat st;

	/* owner rwx while we fill it; the real mode comes at the end */
	if (mkdir(e->dst, 0700) == 0) {
		size_t *grown = realloc(g->made_dirs, (g->n_made_dirs + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		g->made_dirs = grown;
		g->made_dirs[g->n_made_dirs++] = idx;
		return 0;
	}
	if (errno == EEXIST && stat(e->dst, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	copy_report(g, idx, COPY_STEP_CREATE, -errno, e->dst);
	return -errno;
}

static const char *skip_reason(const struct plan_entry *e)
{
	if (e->skip_existing)
		return "exists, not replaced (--no-clobber)";
	if (S_ISFIFO(e->st.st_mode))
		return "a FIFO is not copied";
	if (S_ISSOCK(e->st.st_mode))
		return "a socket is not copied";
	if (S_ISCHR(e->st.st_mode) || S_ISBLK(e->st.st_mode))
		return "a device node is not copied";
	return "not a regular file, directory or symbolic link";
}

static int copy_entry(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];

	atomic_store(&g->stats->current, idx);
	if (e->type == PLAN_SKIP || e->skip_existing) {
		if (g->cb && g->cb->skipped)
			g->cb->skipped(g->cb->ctx, e, skip_reason(e));
		return 0;
	}
	if (g->cb && g->cb->file_start)
		g->cb->file_start(g->cb->ctx, e);
	switch (e->type) {
	case PLAN_DIR:
		return copy_dir(g, idx);
	case PLAN_SYMLINK:
		return copy_symlink(g, idx);
	case PLAN_FILE:
		return copy_file(g, idx);
	default:
		return 0;
	}
}

static uint64_t bytes_to_copy(const struct plan *p)
{
	uint64_t total = 0;

	for (size_t i = 0; i < p->n_entries; i++)
		if (p->entries[i].type == PLAN_FILE && !p->entries[i].skip_existing)
			total += (uint64_t)p->entries[i].st.st_size;
	return total;
}

static void engine_init(struct engine *g, const struct plan *p, const struct copy_options *o,
			const struct copy_callbacks *cb, struct copy_stats *stats,
			atomic_bool *cancel)
{
	const struct target *t = o->target;

	memset(g, 0, sizeof(*g));
	g->plan = p;
	g->o = o;
	g->cb = cb;
	g->stats = stats;
	g->cancel = cancel;
	g->dest_fd = -1;
	g->bdev_fd = -1;
	g->umask = umask(0);
	umask(g->umask);
	g->fuse = t && (t->kind == FS_FUSE || t->kind == FS_FUSEBLK);
	g->tmpfile = !g->fuse;
	g->journaled = t && (t->kind == FS_EXT4 || t->kind == FS_XFS || t->kind == FS_BTRFS);
	/* blkid needs root to name it; unknown FUSE filesystems get fsync per file */
	g->volume_fsync = t && t->kind == FS_FUSEBLK && t->blkid_fstype &&
			  strcmp(t->blkid_fstype, "exfat") == 0 &&
			  o->wplan->strategy == STRATEGY_SYNC_WINDOW;
	g->fs_has_modes = !t || !(t->kind == FS_VFAT || t->kind == FS_EXFAT ||
				  t->kind == FS_FUSEBLK);
	/* the daemon's data is in the device's cache: watch it (root only) */
	if (t && t->kind == FS_FUSEBLK && t->has_block && t->devnode[0])
		g->bdev_fd = open(t->devnode, O_RDONLY | O_CLOEXEC);
	atomic_store(&stats->bytes_total, bytes_to_copy(p));
	atomic_store(&stats->phase, COPY_PHASE_COPYING);
}

/* Before anything is written: the plan's space check counted these files
 * as free.  One that is already gone was removed by someone else. */
static void remove_stale(struct engine *g)
{
	const struct stale_temps *st = &g->plan->stale;
	char what[256], size[SIZE_FORMAT_MAX];

	for (size_t i = 0; i < st->n; i++) {
		size_format(size, sizeof(size), st->v[i].bytes);
		if (unlink(st->v[i].path) == 0)
			snprintf(what, sizeof(what),
				 "removed a temporary file left by an interrupted copy (%s)", size);
		else if (errno != ENOENT)
			snprintf(what, sizeof(what),
				 "cannot remove this temporary file of an interrupted copy: %s; "
				 "remove it by hand to free its %s", strerror(errno), size);
		else
			continue;
		if (g->cb && g->cb->note)
			g->cb->note(g->cb->ctx, what, st->v[i].path);
	}
}

/* Any directory of the destination filesystem serves syncfs; the root
 * may be created by the copy itself, so fall back to its parent. */
static int open_dest(struct engine *g)
{
	const char *base;
	int fd;

	g->dest_fd = open(g->plan->dest_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dest_fd >= 0)
		return 0;
	if (errno != ENOENT)
		return -errno;
	fd = batch_parent_fd(g, g->plan->dest_root, &base);
	g->dest_fd = fd < 0 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return g->dest_fd < 0 ? -errno : 0;
}

static int run_entries(struct engine *g)
{
	int r = 0;

	for (size_t i = 0; i < g->plan->n_entries && r >= 0; i++) {
		if (cancelled(g))
			return -ECANCELED;
		g->next = i;
		r = copy_entry(g, i);
		g->next = i + 1;
		if (r >= 0 && batch_due(g))
			r = batch_commit(g);
	}
	if (r >= 0)
		r = batch_commit(g);
	return r;
}

int copy_run(const struct plan *p, const struct copy_options *o,
	     const struct copy_callbacks *cb, struct copy_stats *stats,
	     atomic_bool *cancel)
{
	struct engine g;
	int r;

	engine_init(&g, p, o, cb, stats, cancel);
	remove_stale(&g);
	r = open_dest(&g);
	if (r == 0)
		r = reader_start(p, o->wplan, cancel, &g.reader);
	if (r == 0)
		r = run_entries(&g);
	if (r < 0)
		batch_abort(&g);
	reader_free(g.reader);
	if (r == 0)
		finish_dirs(&g, true);
	if (r == 0)
		r = finish_device(&g);
	if (r == 0 && cancelled(&g))
		r = -ECANCELED;
	if (g.dest_fd >= 0)
		close(g.dest_fd);
	if (g.bdev_fd >= 0)
		close(g.bdev_fd);
	batch_close_dirs(&g.batch);
	free(g.batch.items);
	free(g.made_dirs);
	if (r < 0)
		return r;
	atomic_store(&stats->phase, COPY_PHASE_DONE);
	return (int)MIN(g.failed, (size_t)INT32_MAX);
}
