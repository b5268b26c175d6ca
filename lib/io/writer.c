/* writer.c: one destination file, written with bounded dirty data.
 *
 * window (doc/kernel.md 1.1, Linus' recipe): buffered writes; when a window
 * is full, SYNC_FILE_RANGE_WRITE starts its writeback without waiting,
 * then WAIT_BEFORE|WRITE|WAIT_AFTER waits for the previous window, whose
 * pages are then dropped with POSIX_FADV_DONTNEED.  At most two windows
 * are dirty or under writeback, and the device always has the next one
 * queued while we wait.  A window whose wait returned is confirmed.
 *
 * direct: O_DIRECT writes of whole aligned chunks; a completed write is
 * on the device.  The unaligned tail is written after clearing O_DIRECT
 * and handled like a window.  Some filesystems accept O_DIRECT and still
 * go through the page cache (ext4 data=journal leaves dirty pages; xfs
 * CoW): cachestat after the first chunks catches it and the file
 * switches to windows, which then also write out what the fallback left.
 *
 * sync-window (FUSE): fdatasync after each window, the only call that
 * reaches a FUSE daemon and makes it write the device (FUSE_FSYNC).
 * Where the daemon's fsync is a no-op (fusefat) the window is on the
 * device only once the block device under it is synced too.  On a
 * daemon over a disk (fuseblk) the file is O_DIRECT, where the kernel
 * lets it be (any length and offset on FUSE): a buffered FUSE write
 * copies every byte into the file's page cache before the daemon copies
 * it again, a direct one hands the daemon our pages, and it still
 * answers each write only once it has the bytes.  A file that switches
 * to sync-window at run time (--strategy=window on FUSE) stays buffered.
 *
 * sync_file_range wait errors are consumed by the kernel (errseq, see
 * file_check_and_advance_wb_err): a later fsync would not report them,
 * so every error here is final for the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dirty/cachestat.h"
#include "base/cleanup.h"
#include "base/clock.h"
#include "util/debug.h"
#include "base/size.h"
#include "io/file_move.h"
#include "io/fs_sync.h"
#include "io/writer.h"

/* A file this large goes direct even when it is less than a chunk: its
 * page-cache copy costs more CPU than its one synchronous write saves. */
#define DIRECT_MIN (1ULL << 20)

struct writer {
	int fd;
	int bdev_fd;
	struct write_plan plan;
	struct writer_hooks hooks;
	enum write_strategy strategy;
	bool direct_on;        /* O_DIRECT currently set on fd */

	uint64_t written;      /* bytes appended: the file's length, holes included */
	uint64_t confirmed;    /* below it the device has every byte */
	uint64_t data;         /* of written, bytes written (not skipped: holes) */
	uint64_t confirmed_data; /* of confirmed, the same */
	bool size_short;       /* the file ends in a hole its size does not cover yet */
	uint64_t window;       /* current window size, in data bytes */
	uint64_t win_start;    /* first byte not yet handed to writeback */
	uint64_t win_data;     /* data at win_start */
	bool have_prev;        /* a window started but not waited for */
	uint64_t prev_start, prev_end;
	uint64_t prev_data, prev_data_end; /* its data bytes, data at its end */
	double prev_started;   /* monotonic time of its SYNC_FILE_RANGE_WRITE */

	uint64_t checked_to;   /* direct: range already checked for fallback */
};

/* Everything below offset, data bytes of it, is on the device; the hook
 * hears of data only (a hole is nothing to write). */
static void confirm_to(struct writer *w, uint64_t offset, uint64_t data)
{
	if (offset > w->confirmed)
		w->confirmed = offset;
	if (data <= w->confirmed_data)
		return;
	if (w->hooks.confirmed)
		w->hooks.confirmed(w->hooks.ctx, data - w->confirmed_data);
	w->confirmed_data = data;
}

static void switch_strategy(struct writer *w, enum write_strategy to,
			    enum writer_switch_reason why)
{
	DEBUG(DEBUG_WRITER, "fd %d: %s -> %s: reason %d", w->fd, strategy_name(w->strategy),
	      strategy_name(to), (int)why);
	w->strategy = to;
	if (w->hooks.switched)
		w->hooks.switched(w->hooks.ctx, to, why);
}

static int set_direct(struct writer *w, bool on)
{
	int fl = fcntl(w->fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? (fl | O_DIRECT) : (fl & ~O_DIRECT);
	if (fcntl(w->fd, F_SETFL, fl) < 0)
		return -errno;
	w->direct_on = on;
	return 0;
}

/* A writer on fd (ours from here on), appending from byte from. */
static int writer_new(int fd, uint64_t from, const struct write_plan *plan, uint64_t size_hint,
		      int bdev_fd, const struct writer_hooks *hooks, struct writer **ret)
{
	struct writer *w = calloc(1, sizeof(*w));
	int r;

	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->plan = *plan;
	w->strategy = plan->strategy;
	w->window = plan->window;
	w->bdev_fd = bdev_fd;
	w->written = w->confirmed = w->win_start = w->checked_to = from;
	w->data = w->confirmed_data = w->win_data = from;
	if (hooks)
		w->hooks = *hooks;
	if (w->strategy == STRATEGY_DIRECT && size_hint >= MIN(plan->chunk, DIRECT_MIN)) {
		r = set_direct(w, true);
		if (r < 0) {
			/* EINVAL: no ->direct_IO; windows are the next best */
			switch_strategy(w, STRATEGY_WINDOW, WRITER_SWITCH_DIO_REFUSED);
		}
	}
	/* refused: buffered FUSE writes, as correct, only dearer */
	if (w->strategy == STRATEGY_SYNC_WINDOW && plan->fuse_direct)
		(void)set_direct(w, true);
	*ret = w;
	return 0;
}

int writer_open(int dirfd, const char *name, const struct write_plan *plan,
		uint64_t size_hint, int bdev_fd, const struct writer_hooks *hooks,
		struct writer **ret)
{
	/* unnamed (O_TMPFILE): it has no name until linked, and a crash or a
	 * kill -9 frees it instead of leaving a temporary behind */
	int fd = name ? openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)
		      : openat(dirfd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	return writer_new(fd, 0, plan, size_hint, bdev_fd, hooks, ret);
}

int writer_resume(int fd, uint64_t from, const struct write_plan *plan, uint64_t size_hint,
		  int bdev_fd, const struct writer_hooks *hooks, struct writer **ret)
{
	if (ftruncate(fd, (off_t)from) < 0 || lseek(fd, (off_t)from, SEEK_SET) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return writer_new(fd, from, plan, size_hint, bdev_fd, hooks, ret);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int sfr(int fd, uint64_t off, uint64_t len, unsigned flags)
{
	if (len == 0)
		return 0;
	if (sync_file_range(fd, (off64_t)off, (off64_t)len, flags) < 0)
		return -errno;
	return 0;
}

static uint64_t cache_pending(int fd, uint64_t off, uint64_t len)
{
	struct file_cache fc;

	if (fd < 0 || cachestat_fd(fd, off, len, &fc) < 0)
		return 0;
	return fc.dirty + fc.writeback;
}

/* Wait for the window started last time; it is then on the device. */
static int wait_prev(struct writer *w)
{
	double before = clock_monotonic(), took;
	int r;

	if (!w->have_prev)
		return 0;
	r = sfr(w->fd, w->prev_start, w->prev_end - w->prev_start,
		SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
			SYNC_FILE_RANGE_WAIT_AFTER);
	if (r < 0)
		return r;
	/* Only a wait that blocked measured the device: one that returned
	 * at once means the device kept up with us (a larger window gains
	 * nothing) or that no device was involved (FUSE). */
	took = clock_monotonic() - before < 0.002 ? 0 : clock_monotonic() - w->prev_started;
	w->have_prev = false;
	confirm_to(w, w->prev_end, w->prev_data_end);
	/* only waited-for pages may be dropped: they are clean now */
	posix_fadvise(w->fd, (off_t)w->prev_start, (off_t)(w->prev_end - w->prev_start),
		      POSIX_FADV_DONTNEED);
	w->window = sizing_adapt_window(&w->plan, w->window, w->prev_data, took);
	return 0;
}

/* The kernel must keep at most about two windows pending for this file;
 * on FUSE the pending data sits in the block device's cache instead. */
static void check_window_bound(struct writer *w)
{
	uint64_t dev = cache_pending(w->bdev_fd, 0, 0);
	/* the window just started, the one before (being waited for) and
	 * slack for the filesystem's own metadata */
	uint64_t limit = 2 * w->window + (2ULL << 20);

	if (w->strategy == STRATEGY_WINDOW && dev > limit)
		switch_strategy(w, STRATEGY_SYNC_WINDOW, WRITER_SWITCH_DEVICE_DIRTY);
}

static int end_sync_window(struct writer *w)
{
	int r;

	if (fdatasync(w->fd) < 0)
		return -errno;
	/* the daemon's fsync wrote nothing: the window is dirty in the
	 * device's cache until the device itself is synced */
	if (w->plan.sync_device && (r = fs_sync_device(w->fd, w->bdev_fd)) < 0)
		return r;
	w->win_start = w->written;
	w->win_data = w->data;
	confirm_to(w, w->written, w->data);
	return 0;
}

/* Hand [win_start, written) to writeback, then wait for the one before.
 * A full window is checked against the bound; the partial last one of a
 * small file is not worth the cachestat calls. */
static int end_window(struct writer *w, bool full)
{
	uint64_t start = w->win_start, end = w->written;
	int r;

	if (end == start)
		return wait_prev(w);
	r = sfr(w->fd, start, end - start, SYNC_FILE_RANGE_WRITE);
	if (r < 0)
		return r;
	/* checked before the wait can adapt the window to what it saw; after
	 * a switch, drain at once rather than a window later */
	if (full)
		check_window_bound(w);
	if (w->strategy == STRATEGY_SYNC_WINDOW) {
		w->have_prev = false;
		return end_sync_window(w);
	}
	r = wait_prev(w);
	if (r < 0)
		return r;
	w->have_prev = true;
	w->prev_start = start;
	w->prev_end = end;
	w->prev_data = w->data - w->win_data;
	w->prev_data_end = w->data;
	w->prev_started = clock_monotonic();
	w->win_start = end;
	w->win_data = w->data;
	return 0;
}


/* After O_DIRECT writes: dirty pages in the range mean the kernel fell
 * back to buffered writes without waiting; windows take over from the
 * first unconfirmed byte. */
static int check_direct(struct writer *w)
{
	uint64_t pending = cache_pending(w->fd, w->checked_to, w->written - w->checked_to);

	if (pending == 0) {
		confirm_to(w, w->written, w->data);
		w->checked_to = w->written;
		w->win_start = w->written;
		w->win_data = w->data;
		return 0;
	}
	switch_strategy(w, STRATEGY_WINDOW, WRITER_SWITCH_FELL_BACK);
	return set_direct(w, false);
}

/* What an append takes its bytes from: a buffer, or a file (file_move.h). */
struct input {
	const char *buf;
	struct file_mover *mover;
	int fd;
	uint64_t off;
};

/* Append len bytes of in, from its byte at. */
static int put(struct writer *w, const struct input *in, size_t at, size_t len)
{
	size_t moved;

	if (in->buf)
		return write_all(w->fd, in->buf + at, len);
	return file_move(in->mover, in->fd, in->off + at, w->fd, len, &moved);
}

static int write_buffered_tail(struct writer *w, const struct input *in, size_t at, size_t len)
{
	int r;

	/* the tail: buffered, confirmed by the final window wait */
	if (w->direct_on && (r = set_direct(w, false)) < 0)
		return r;
	r = put(w, in, at, len);
	if (r == 0) {
		w->written += len;
		w->data += len;
		w->size_short = false;
	}
	return r;
}

/* The aligned head of a chunk goes direct, whatever is left is the tail. */
static int write_direct(struct writer *w, const struct input *in, size_t len)
{
	size_t head = w->plan.offset_align ? round_down_u64(len, w->plan.offset_align) : 0;
	int r;

	if (!w->direct_on || head == 0 || w->written % w->plan.offset_align)
		return write_buffered_tail(w, in, 0, len);
	r = put(w, in, 0, head);
	if (r < 0)
		return r;
	w->written += head;
	w->data += head;
	w->size_short = false;
	/* cachestat of the range just written costs microseconds: check
	 * every chunk, so nothing is confirmed that sits in the cache */
	r = check_direct(w);
	if (r < 0 || head == len)
		return r;
	return write_buffered_tail(w, in, head, len - head);
}

static int append(struct writer *w, const struct input *in, size_t len)
{
	int r;

	if (len == 0)
		return 0;
	if (w->strategy == STRATEGY_DIRECT)
		return write_direct(w, in, len);
	r = put(w, in, 0, len);
	if (r < 0)
		return r;
	w->written += len;
	w->data += len;
	w->size_short = false;
	if (w->data - w->win_data < w->window)
		return 0;
	return w->strategy == STRATEGY_SYNC_WINDOW ? end_sync_window(w) : end_window(w, true);
}

int writer_write(struct writer *w, const void *buf, size_t len)
{
	return append(w, &(struct input){ .buf = buf }, len);
}

int writer_splice(struct writer *w, struct file_mover *mover, int fd, uint64_t off, size_t len)
{
	return append(w, &(struct input){ .mover = mover, .fd = fd, .off = off }, len);
}

int writer_skip(struct writer *w, uint64_t len)
{
	bool all_confirmed = w->confirmed == w->written;

	if (len == 0)
		return 0;
	if (lseek(w->fd, (off_t)len, SEEK_CUR) < 0)
		return -errno;
	w->written += len;
	w->size_short = true;
	/* nothing to wait for in a hole: past it once all before it is */
	if (all_confirmed)
		w->confirmed = w->written;
	return 0;
}

int writer_settle_size(struct writer *w)
{
	if (!w->size_short)
		return 0;
	if (ftruncate(w->fd, (off_t)w->written) < 0)
		return -errno;
	w->size_short = false;
	return 1;
}

int writer_start_data(struct writer *w)
{
	int r = writer_settle_size(w);

	if (r < 0)
		return r;
	if (w->strategy == STRATEGY_SYNC_WINDOW)
		return 0; /* nothing async exists for FUSE */
	if (w->written == w->win_start)
		return 0;
	return end_window(w, false);
}

int writer_finish_data(struct writer *w)
{
	int r;

	if (w->strategy == STRATEGY_SYNC_WINDOW)
		return w->written > w->confirmed ? end_sync_window(w) : 0;
	r = writer_start_data(w);
	if (r < 0)
		return r;
	r = wait_prev(w);
	if (r < 0)
		return r;
	confirm_to(w, w->written, w->data);
	return 0;
}

void writer_confirm_flushed(struct writer *w)
{
	if (w->strategy != STRATEGY_SYNC_WINDOW)
		return;
	w->win_start = w->written;
	w->win_data = w->data;
	confirm_to(w, w->written, w->data);
}

uint64_t writer_written(const struct writer *w)
{
	return w->written;
}

enum write_strategy writer_strategy(const struct writer *w)
{
	return w->strategy;
}

uint64_t writer_confirmed(const struct writer *w)
{
	return w->confirmed;
}

uint64_t writer_data(const struct writer *w)
{
	return w->data;
}

uint64_t writer_confirmed_data(const struct writer *w)
{
	return w->confirmed_data;
}

int writer_fd(const struct writer *w)
{
	return w->fd;
}

int writer_close(struct writer *w)
{
	int fd;

	if (!w || w->fd < 0)
		return 0;
	fd = TAKE_FD(w->fd);
	if (close(fd) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

void writer_free(struct writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}
