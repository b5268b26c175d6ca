/* copy.c: runs a checked plan, entry by entry, in plan order.
 *
 * Directories are created as they come, with mkdirat and an O_NOFOLLOW
 * open relative to their parent's fd (owner-writable until they are
 * complete, when copy_finish.c gives them their modes and times through
 * the same fd).  A directory that cannot be made is reported and its
 * subtree left out; the rest goes on.  Each
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

#include <sys/random.h>
#include <sys/resource.h>

#include "util/beneath.h"
#include "util/cleanup.h"
#include "util/process_umask.h"
#include "copy/copy_internal.h"
#include "device/fs_traits.h"
#include "util/debug.h"
#include "util/size.h"
#include "util/clock.h"
#include "util/test_hook.h"

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

void copy_count_failed(struct engine *g)
{
	g->failed++;
	atomic_fetch_add(&g->stats->files_failed, 1);
}

static bool cancelled(const struct engine *g)
{
	return g->cancel && atomic_load(g->cancel);
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

static void on_confirmed(void *ctx, uint64_t delta)
{
	struct engine *g = ctx;

	atomic_fetch_add(&g->stats->bytes_confirmed, delta);
}

static int start_item(struct engine *g, size_t idx, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	int fd;

	memset(it, 0, sizeof(*it));
	it->entry = idx;
	it->dirfd = -1;
	it->size = (uint64_t)e->source->st.st_size;
	fd = batch_parent_fd(g, e->source->parent);
	if (fd < 0)
		return fd;
	it->dirfd = fd;
	it->name = strdup(e->dst_name);
	if (!it->name)
		return -ENOMEM;
	copy_temp_name(g, it);
	return 0;
}

/* The sequence number starts at random and jumps on EEXIST: names a
 * local user creates in advance in a shared directory cannot stop us. */
void copy_temp_name(struct engine *g, struct batch_item *it)
{
	unsigned int jump = 1;

	/* without entropy yet, a jump of 1 still moves on */
	if ((g->seq == 0 || it->tmp[0]) && getrandom(&jump, sizeof(jump), GRND_NONBLOCK) < 0)
		jump = 1;
	g->seq += 1 + (jump & 0xffffff);
	stale_temp_name(it->tmp, g->pid, g->seq);
}

/* Closed before the unlink: a FUSE filesystem (libfuse without
 * hard_remove) renames a file still open to .fuse_hidden*, and a device
 * that is gone by the release keeps it under that name, which no later
 * copy knows as ours. */
void copy_remove_temp(struct batch_item *it)
{
	if (it->dirfd >= 0 && it->tmp[0]) {
		writer_close(it->w);
		(void)unlinkat(it->dirfd, it->tmp, 0); /* gone already is as good */
	}
	it->tmp[0] = '\0';
}

/* Unnamed where the filesystem allows it, else under the temporary name. */
static int open_writer(struct engine *g, struct batch_item *it, const struct writer_hooks *hooks)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	int r;

	if (g->tmpfile) {
		r = writer_open(it->dirfd, NULL, g->o->wplan, (uint64_t)e->source->st.st_size,
				g->bdev_fd, hooks, &it->w);
		if (r == 0) {
			it->unnamed = true;
			it->tmp[0] = '\0';
			return 0;
		}
		if (r != -EOPNOTSUPP && r != -EISDIR && r != -EINVAL) {
			it->tmp[0] = '\0'; /* never created: not ours to remove */
			return r;
		}
		g->tmpfile = false;
	}
	for (int tries = 0;; tries++) {
		r = writer_open(it->dirfd, it->tmp, g->o->wplan, (uint64_t)e->source->st.st_size,
				g->bdev_fd, hooks, &it->w);
		if (r != -EEXIST || tries == 16)
			break;
		copy_temp_name(g, it); /* someone else's file: never ours to remove */
	}
	if (r < 0)
		it->tmp[0] = '\0';
	return r;
}

/* A failed file's bytes leave the totals: its temporary is gone, and
 * the bar must not count what no longer exists on the device. */
void copy_forget_bytes(struct engine *g, const struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];

	/* only regular files are in bytes_total (a symlink's st_size is
	 * its target's length) */
	if (e->source->type == PLAN_FILE)
		atomic_fetch_sub(&g->stats->bytes_total, it->size);
	if (it->w) {
		atomic_fetch_sub(&g->stats->bytes_confirmed, writer_confirmed(it->w));
		atomic_fetch_sub(&g->stats->bytes_written, writer_written(it->w));
	}
}

/* Take what the reader has of entry idx and will not be written; 0 or
 * -ECANCELED. */
static int drain_file(struct engine *g, size_t idx)
{
	struct reader_chunk c;
	int r;

	do {
		r = reader_next(g->cursor, &c);
		if (r != 0)
			return cancelled(g) ? -ECANCELED : r < 0 ? r : -EIO;
		reader_release(g->cursor, &c);
		if (c.entry != idx)
			return -EIO; /* out of step with the reader: a bug */
	} while (!c.last);
	return 0;
}

/* A chunk the source lent and no tap mapped is spliced from the source;
 * any other is written from its buffer. */
static int write_chunk(struct engine *g, struct batch_item *it, const struct reader_chunk *c)
{
	if (c->lent && !c->mapped)
		return writer_splice(it->w, &g->mover, c->src_fd, c->offset, c->len);
	return writer_write(it->w, c->buf, c->len);
}

/* 0 when the whole file is written, 1 with *src_err when reading the
 * source failed, 2 when it changed, 3 when a second read of it gave other
 * bytes (verify_source), -errno when the destination failed. */
static int stream_file(struct engine *g, struct batch_item *it, int *src_err)
{
	struct reader_chunk c;
	int r;

	for (;;) {
		if (cancelled(g))
			return -ECANCELED;
		r = reader_next(g->cursor, &c);
		/* a reader told to stop ends its ring early: not a bug then */
		if (r != 0)
			return cancelled(g) ? -ECANCELED : r < 0 ? r : -EIO;
		if (c.entry != it->entry) {
			reader_release(g->cursor, &c);
			return -EIO;
		}
		test_hook("chunk-write", g->plan->entries[it->entry].source->src);
		r = c.err || c.changed ? 0 : write_chunk(g, it, &c);
		/* the bytes we wrote, while the slot is still ours: once released
		 * the reader fills it again (never mapped: --verify reads) */
		if (r >= 0 && !c.err && !c.changed && it->hash)
			checksum_update(it->hash, c.buf, c.len);
		reader_chunk_written(&c, r);
		reader_release(g->cursor, &c);
		/* found by the write (a lent chunk): the rest must not reach
		 * the next file */
		if ((c.err || c.changed) && !c.last) {
			reader_skip(g->cursor, it->entry, it->entry + 1);
			if (drain_file(g, it->entry) == -ECANCELED)
				return -ECANCELED;
		}
		if (c.err) {
			*src_err = c.err;
			return 1;
		}
		if (c.changed)
			return 2;
		if (c.reread_differs)
			return 3;
		if (r < 0)
			return r;
		atomic_fetch_add(&g->stats->bytes_written, (uint64_t)c.len);
		if (c.last) {
			/* a stream feed's entry ends where the feed ends it (a
			 * file's ends at its size, or it changed) */
			uint64_t n = writer_written(it->w);

			atomic_fetch_add(&g->stats->bytes_total, n - it->size);
			it->size = n;
			return 0;
		}
	}
}

static void on_switch(void *ctx, enum write_strategy to, enum writer_switch_reason why)
{
	struct engine *g = ctx;
	size_t idx = atomic_load(&g->stats->current);

	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_STRATEGY, .entry = idx,
					   .strategy = to, .why = why });
}

/* Drop a file that could not be copied; the copy goes on. */
static void fail_item(struct engine *g, struct batch_item *it, enum copy_step step,
		      int err, const char *path)
{
	copy_forget_bytes(g, it);
	copy_report(g, it->entry, step, err, path, false);
	copy_remove_temp(it);
	batch_item_done(it);
	copy_count_failed(g);
}

static int copy_file(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	struct writer_hooks hooks = { g, on_confirmed, on_switch };
	struct batch_item it;
	int r, src_err = 0;

	/* a file larger than a window bounds itself: commit the batch first */
	if ((uint64_t)e->source->st.st_size > g->o->wplan->window && (r = batch_commit(g)) < 0)
		return r;
	r = start_item(g, idx, &it);
	if (r == 0 && g->o->verify && !(it.hash = checksum_new(CHECKSUM_BIT(CHECKSUM_XXH128))))
		r = -ENOMEM;
	if (r == 0)
		r = open_writer(g, &it, &hooks);
	if (r < 0) {
		if (copy_fatal_error(r)) {
			copy_report(g, idx, COPY_STEP_CREATE, r, e->dst, true);
			batch_item_done(&it);
			return r;
		}
		/* its chunks must not reach the next file */
		reader_skip(g->cursor, idx, idx + 1);
		fail_item(g, &it, COPY_STEP_CREATE, r, e->dst);
		return drain_file(g, idx);
	}
	r = stream_file(g, &it, &src_err);
	if (r == 1 || r == 2) {
		fail_item(g, &it, r == 1 ? COPY_STEP_READ : COPY_STEP_CHANGED,
			  r == 1 ? src_err : 0, e->source->src);
		return 0;
	}
	if (r == 3) {
		atomic_fetch_add(&g->stats->files_mismatched, 1);
		fail_item(g, &it, COPY_STEP_SOURCE_VERIFY, -EBADMSG, e->source->src);
		return 0;
	}
	if (r == 0)
		r = writer_start_data(it.w);
	if (r < 0) {
		if (r != -ECANCELED)
			copy_report(g, idx, COPY_STEP_WRITE, r, e->dst, true);
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

	for (int tries = 0; r == 0 && symlinkat(e->source->link_target, it.dirfd, it.tmp) < 0;
	     tries++) {
		r = -errno;
		if (r == -EEXIST && tries < 16) {
			copy_temp_name(g, &it);
			r = 0;
		}
	}
	if (r < 0) {
		it.tmp[0] = '\0';
		if (copy_fatal_error(r)) {
			copy_report(g, idx, COPY_STEP_CREATE, r, e->dst, true);
			batch_item_done(&it);
			return r;
		}
		fail_item(g, &it, COPY_STEP_CREATE, r, e->dst);
		return 0;
	}
	return batch_add(g, &it);
}

int copy_dir_fd(struct engine *g, size_t idx)
{
	return idx == PLAN_TOP ? g->dest_dir_fd : dirstack_fd(&g->dirs, idx);
}

/* Is st the directory mkdirat just made, and not one a local user put
 * at its name since?  Only we can own it, where the filesystem has
 * owners. */
static bool ours(const struct engine *g, const struct stat *st)
{
	return !g->fs_has_modes || st->st_uid == geteuid();
}

/* Make (or, merging, open) directory idx in its parent, by name: a
 * symlink found there is refused, not followed; a directory that existed
 * must be the one the plan saw, and one that appeared since the plan, or
 * replaced the one we made, is refused too (a user who can write in DEST
 * would otherwise have the copy written into a directory of theirs).
 * -errno on failure. */
static int enter_dir(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	int pfd = copy_dir_fd(g, e->source->parent), fd;
	bool made;
	struct stat st;

	if (pfd < 0)
		return pfd;
	test_hook("dir-create", e->dst);
	/* owner rwx while we fill it; the real mode comes when it is complete */
	made = mkdirat(pfd, e->dst_name, 0700) == 0;
	if (!made && errno != EEXIST)
		return -errno;
	fd = openat(pfd, e->dst_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &st) < 0 || (made && !ours(g, &st)) ||
	    (!made && (!e->dst_exists || st.st_dev != e->dst_dev || st.st_ino != e->dst_ino))) {
		close(fd);
		return -ESTALE;
	}
	/* the umask may have taken our own rwx away (umask 0277) */
	if (made && g->fs_has_modes && (st.st_mode & 0700) != 0700 && fchmod(fd, 0700) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	g->made[idx] = made;
	return dirstack_push(&g->dirs, idx, e->dst_name, fd);
}

/* A directory that could not be made: report it once, count what it
 * would have held as failed, and take its files from the reader. */
static int skip_subtree(struct engine *g, size_t idx, int err)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	int r = 0;

	copy_report(g, idx, COPY_STEP_CREATE, err, e->dst, false);
	reader_skip(g->cursor, idx + 1, e->source->end);
	for (size_t i = idx + 1; i < e->source->end && r == 0; i++) {
		const struct plan_entry *c = &g->plan->entries[i];

		if (c->source->type == PLAN_SKIP || c->source->type == PLAN_DIR || c->skip_existing)
			continue;
		copy_count_failed(g);
		if (c->source->type != PLAN_FILE)
			continue;
		atomic_fetch_sub(&g->stats->bytes_total, (uint64_t)c->source->st.st_size);
		r = drain_file(g, i);
	}
	g->next = e->source->end;
	return r;
}

static int copy_dir(struct engine *g, size_t idx)
{
	int r = enter_dir(g, idx);

	if (r == 0)
		return 0;
	if (copy_fatal_error(r)) {
		copy_report(g, idx, COPY_STEP_CREATE, r, g->plan->entries[idx].dst, true);
		return r;
	}
	return skip_subtree(g, idx, r);
}

static enum copy_skip_reason skip_reason(const struct plan_entry *e)
{
	if (e->identical)
		return COPY_SKIP_IDENTICAL;
	if (e->skip_existing)
		return COPY_SKIP_KEPT;
	if (S_ISFIFO(e->source->st.st_mode))
		return COPY_SKIP_FIFO;
	if (S_ISSOCK(e->source->st.st_mode))
		return COPY_SKIP_SOCKET;
	if (S_ISCHR(e->source->st.st_mode) || S_ISBLK(e->source->st.st_mode))
		return COPY_SKIP_DEVICE;
	return COPY_SKIP_OTHER;
}

/* Leave the destination directories that do not hold entry idx; the
 * made ones wait for their attributes, a bounded number at a time. */
static int leave_dirs(struct engine *g, const struct plan_entry *e)
{
	while (dirstack_top(&g->dirs) != e->source->parent && dirstack_top(&g->dirs) != PLAN_TOP) {
		dirstack_pop(&g->dirs, finish_dir_popped, g);
		if (g->n_done_dirs >= g->batch_done_dirs) {
			int r = batch_commit(g);

			if (r < 0)
				return r;
			finish_dirs(g, false);
		}
	}
	return 0;
}

static int copy_entry(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	int r;

	atomic_store(&g->stats->current, idx);
	r = leave_dirs(g, e);
	if (r < 0)
		return r;
	if (e->source->type == PLAN_SKIP || e->skip_existing) {
		copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_SKIPPED, .entry = idx,
						   .skip = skip_reason(e) });
		return 0;
	}
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_FILE_START, .entry = idx });
	switch (e->source->type) {
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
		if (p->entries[i].source->type == PLAN_FILE && !p->entries[i].skip_existing)
			total += (uint64_t)p->entries[i].source->st.st_size;
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
	g->dest_dir_fd = -1;
	g->dest_fd = -1;
	g->bdev_fd = -1;
	file_mover_init(&g->mover, o->wplan->chunk);
	dirstack_init(&g->dirs, false);
	g->umask = process_umask(); /* read, not set: other threads create files */
	g->pid = getpid();
	g->fuse = fs->fuse;
	g->tmpfile = fs->tmpfile;
	g->journaled = fs->journaled;
	/* blkid needs root to name it; unknown FUSE filesystems get fsync per file */
	g->volume_fsync = fs->volume_fsync && o->wplan->strategy == STRATEGY_SYNC_WINDOW;
	/* a device sync covers every file at once, like a volume fsync */
	g->device_sync = fs->fsync_noop;
	if (g->device_sync && o->wplan->strategy == STRATEGY_SYNC_WINDOW)
		g->volume_fsync = true;
	g->fs_has_modes = fs->stores_modes;
	g->times_after_rename = fs->rename_sets_mtime;
	/* the daemon's data is in the device's cache: watch it (root only) */
	if (t && fs->device_cache && t->has_block && t->devnode[0])
		g->bdev_fd = open(t->devnode, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	atomic_store(&g->stats->bytes_total, bytes_to_copy(p));
	atomic_store(&g->stats->phase, COPY_PHASE_COPYING);
	fd_budget(g);
	g->made = calloc(p->n_entries ? p->n_entries : 1, sizeof(*g->made));
	if (!g->made)
		return -ENOMEM;
	return o->verify ? read_back_init(&g->rb, MAX(o->wplan->chunk, (uint64_t)(1 << 20))) : 0;
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
	_cleanup_close_ int pfd = e->source->parent == PLAN_TOP ? dup_dest_dir(g)
							: open_existing(g, e->source->parent);

	return pfd < 0 ? pfd : dirstack_open_checked(pfd, e->dst_name, false, e->dst_dev, e->dst_ino);
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
		_cleanup_close_ int fd = t->dir == PLAN_TOP ? dup_dest_dir(g) : open_existing(g, t->dir);
		int r = fd < 0 ? fd : stale_temp_remove(fd, t);

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
		if (cancelled(g))
			return -ECANCELED;
		g->next = i + 1;
		r = copy_entry(g, i);
		if (r >= 0 && batch_due(g))
			r = batch_commit(g);
	}
	if (r >= 0)
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
	free(g->named);
	read_back_done(&g->rb);
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
		r = recheck_named(&g);
	/* before the directories get their times (a list may go into one)
	 * and before the final sync, which then covers them */
	if (r == 0 && job->lists && !cancelled(&g))
		g.failed += copy_lists_write(job->lists, job->lists_dests, (int)g.dest,
					     g.dest_dir_fd, g.events);
	/* also when stopped: what was made keeps its modes and times, not 0700 */
	finish_dirs(&g, true);
	if (r == 0)
		r = finish_device(&g);
	if (r == 0 && cancelled(&g))
		r = -ECANCELED;
	engine_done(&g);
	if (r < 0)
		return r;
	atomic_store(&g.stats->phase, COPY_PHASE_DONE);
	return (int)MIN(g.failed, (size_t)INT32_MAX);
}
