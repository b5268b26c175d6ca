/* writer.h: writes one destination file with a bound on its dirty data,
 * and counts the bytes the device has confirmed.
 *
 * The caller appends buffers aligned to plan->mem_align whose lengths are
 * multiples of plan->chunk but for the last; the writer applies the plan's
 * strategy (window, direct or sync-window), checks itself at run time
 * (cachestat after the first chunks; a silent O_DIRECT fallback that left
 * dirty pages switches the file to windows) and reports confirmed bytes
 * through a callback.  It never prints. */
#ifndef SAFECP_WRITER_H
#define SAFECP_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/sizing.h"

struct writer;

struct writer_hooks {
	void *ctx;
	/* delta bytes newly confirmed by the device (called from the
	 * writing thread) */
	void (*confirmed)(void *ctx, uint64_t delta);
	/* the strategy changed at run time, with the reason */
	void (*switched)(void *ctx, enum write_strategy to, enum writer_switch_reason why);
};

/* Create dirfd/name (O_CREAT|O_EXCL, mode 0600 until finished); with
 * name NULL an unnamed file in dirfd (O_TMPFILE), which the caller links
 * into place.  -EOPNOTSUPP (or -EISDIR, -EINVAL on older kernels) where
 * the filesystem cannot create unnamed files: FAT, exfat, FUSE.
 * size_hint is the expected length: a file smaller than one chunk and
 * than 1 MiB is all tail, so it is written buffered from the start even
 * under the direct strategy (its batch waits for it with the others).  bdev_fd, if >= 0, is the block device under a
 * fuseblk filesystem whose page cache holds the daemon's dirty data
 * (checked, not written). */
int writer_open(int dirfd, const char *name, const struct write_plan *plan,
		uint64_t size_hint, int bdev_fd, const struct writer_hooks *hooks,
		struct writer **ret);

/* A writer on the open file fd (a partial a stopped copy kept, opened
 * for writing by the caller), cut to from bytes and appending from
 * there: what it holds up to from counts as written and confirmed, but
 * not to the hooks.  The writer owns fd from here, also on failure.
 * from must be a multiple of the plan's offset alignment.  0 or -errno. */
int writer_resume(int fd, uint64_t from, const struct write_plan *plan, uint64_t size_hint,
		  int bdev_fd, const struct writer_hooks *hooks, struct writer **ret);

/* Append len bytes. -errno on a write error (the file is then useless). */
int writer_write(struct writer *w, const void *buf, size_t len);

/* Append len bytes of the file fd from off, moved by mover (file_move.h)
 * without a copy in user space where both sides can splice.  As
 * writer_write(), and -EFAULT when fd could not give the bytes. */
struct file_mover;
int writer_splice(struct writer *w, struct file_mover *mover, int fd, uint64_t off, size_t len);

/* Leave a hole of len bytes: the next byte goes len bytes further, and
 * none is written in between.  Only where the filesystem keeps holes
 * (elsewhere the caller writes zeros); len a multiple of the plan's
 * offset alignment but at the file's end.  Holes count as written (the
 * file's length) and as confirmed once all before them is, but not as
 * data (writer_data(), the confirmed hook).  0 or -errno. */
int writer_skip(struct writer *w, uint64_t len);

/* A file that ends in a hole gets its length (ftruncate): before any
 * sync meant to make its length durable.  writer_start_data() does it.
 * 1 when it set the length, 0 when there was nothing to do, or -errno. */
int writer_settle_size(struct writer *w);

/* Start writeback of what is buffered without waiting for it, so a batch
 * of small files can be waited for together. */
int writer_start_data(struct writer *w);

/* Wait until every byte written is on the device (data only: metadata
 * is the caller's commit).  After this, confirmed == written. */
int writer_finish_data(struct writer *w);

/* An fsync that covers this file's data returned elsewhere (a FUSE
 * server that flushes its whole volume): count it all as confirmed.
 * Only for the sync-window strategy, which keeps no writeback state. */
void writer_confirm_flushed(struct writer *w);

/* The file's length so far, holes included, and of it what was written
 * (holes excluded), all of it and what the device confirmed. */
uint64_t writer_written(const struct writer *w);
uint64_t writer_data(const struct writer *w);
uint64_t writer_confirmed_data(const struct writer *w);
/* The strategy the file is written with now (it may have switched). */
enum write_strategy writer_strategy(const struct writer *w);
uint64_t writer_confirmed(const struct writer *w);
int writer_fd(const struct writer *w);

/* Close (checking close()); does not unlink: the caller owns the name. */
int writer_close(struct writer *w);
void writer_free(struct writer *w);

#endif
