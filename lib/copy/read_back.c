/* read_back.c: see read_back.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "copy/read_back.h"
#include "device/fs_traits.h"
#include "device/target.h"
#include "dirty/cachestat.h"
#include "util/debug.h"

#define ALIGN 4096
/* a page or two can come back while we look (a FUSE daemon reading its
 * metadata): a few tries, a moment apart, then say so */
#define DROP_TRIES 20
#define DROP_PAUSE_NS (5 * 1000 * 1000)

int read_back_init(struct read_back *rb, size_t buf_size)
{
	rb->buf_size = buf_size / ALIGN * ALIGN;
	if (rb->buf_size == 0)
		rb->buf_size = ALIGN;
	if (posix_memalign(&rb->buf, ALIGN, rb->buf_size) != 0) {
		rb->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

void read_back_done(struct read_back *rb)
{
	free(rb->buf);
	rb->buf = NULL;
}

/* A new fd on the same inode (an O_TMPFILE file has no name).  O_NOATIME:
 * reading a copy back must not give it a new access time (-a keeps the
 * source's); only the owner or root may ask it, else it is read without. */
static int reopen(int fd, int flags)
{
	char proc[48];
	int rfd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, flags | O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOATIME);
	if (rfd < 0 && errno == EPERM)
		rfd = open(proc, flags | O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return rfd;
}

/* Drop fd's pages and check that none is left; true when proved. */
static bool drop_cache(int fd)
{
	for (int i = 0; i < DROP_TRIES; i++) {
		struct file_cache fc;

		if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0 ||
		    cachestat_fd(fd, 0, 0, &fc) < 0)
			return false;
		if (fc.cached == 0)
			return true;
		nanosleep(&(struct timespec){ 0, DROP_PAUSE_NS }, NULL);
	}
	return false;
}

int read_back_device_open(const struct target *t)
{
	if (!t || !fs_traits_of(t)->device_cache || !t->has_block || !t->devnode[0])
		return -1;
	return open(t->devnode, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

static bool drop_device_cache(int bdev_fd)
{
	return bdev_fd >= 0 && fsync(bdev_fd) == 0 && drop_cache(bdev_fd);
}

static int read_all(struct read_back *rb, int fd, uint64_t from, uint64_t size,
		    const struct read_back_sink *sink, _Atomic uint64_t *verified)
{
	uint64_t off = from;
	int r = sink->begin ? sink->begin(sink->ctx) : 0;

	while (r == 0 && off < size) {
		ssize_t n;

		if (rb->cancel && atomic_load(rb->cancel)) {
			r = -ECANCELED;
			break;
		}
		n = pread(fd, rb->buf, rb->buf_size, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -ENODATA;
			break;
		}
		if ((uint64_t)n > size - off)
			n = (ssize_t)(size - off); /* grown since: compare what we wrote */
		sink->add(sink->ctx, rb->buf, (size_t)n);
		off += (uint64_t)n;
		if (verified)
			atomic_fetch_add(verified, (uint64_t)n);
	}
	return r;
}

/* Data kept in the filesystem's metadata: ext4 inline_data (in the inode
 * and its in-inode xattr), btrfs inline extents, f2fs inline data.  Their
 * O_DIRECT reads fall back to buffered ones (ext4_dio_supported(),
 * f2fs_force_buffered_io(), btrfs_direct_read()'s inline case) served from
 * the metadata's cached blocks, which dropping the file's pages does not
 * touch: no read of them can be proved to reach the device.  FIEMAP flags
 * them FIEMAP_EXTENT_DATA_INLINE (ext4_inline_data_fiemap()); where FIEMAP
 * is refused, ext4's FS_INLINE_DATA_FL says the same. */
static bool data_inline(int fd)
{
	struct {
		struct fiemap map;
		struct fiemap_extent extent[1];
	} q = { .map = { .fm_length = FIEMAP_MAX_OFFSET, .fm_extent_count = 1 } };
	int flags = 0;

	if (ioctl(fd, FS_IOC_FIEMAP, &q) == 0)
		return q.map.fm_mapped_extents > 0 &&
		       (q.map.fm_extents[0].fe_flags & FIEMAP_EXTENT_DATA_INLINE);
	return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_INLINE_DATA_FL);
}

/* Pages of fd in the page cache: -1 when cachestat cannot tell. */
static int64_t cached_now(int fd)
{
	struct file_cache fc;

	return cachestat_fd(fd, 0, 0, &fc) < 0 ? -1 : (int64_t)fc.cached;
}

/* Before an O_DIRECT read: the file's pages dropped and proved gone, so
 * that a read the filesystem serves buffered after all (ext4 with
 * data=journal or the file's journal-data flag: ext4_dio_supported();
 * btrfs for compressed extents) reads the device and leaves pages behind
 * (direct_served).  One try, no waiting: a page that stays (mapped by
 * someone) only costs the claim.  -1 when cachestat cannot tell (old
 * kernel, or not ours to write: EPERM), 0 when no page is cached, 1 when
 * some could not be dropped. */
static int direct_prepare(int rfd)
{
	int64_t n = cached_now(rfd);

	if (n <= 0)
		return n < 0 ? -1 : 0;
	if (posix_fadvise(rfd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		return 1;
	n = cached_now(rfd);
	return n < 0 ? -1 : n > 0;
}

/* After the O_DIRECT read, given direct_prepare's answer: how it was
 * really read.  Pages that came in were read buffered, from the device
 * (none were cached before); pages that could not be dropped may have
 * served it. */
static enum readback_how direct_served(int rfd, int before)
{
	int64_t after = before < 0 ? -1 : cached_now(rfd);

	if (before < 0 || after < 0)
		return READBACK_DIRECT; /* cannot tell: O_DIRECT as asked */
	if (before > 0)
		return READBACK_CACHED;
	return after > 0 ? READBACK_DROPPED : READBACK_DIRECT;
}

int read_back_each(struct read_back *rb, int fd, uint64_t from, uint64_t size, bool fuse,
		   int bdev_fd, const struct read_back_sink *sink, enum readback_how *how,
		   _Atomic uint64_t *verified)
{
	int rfd = -1, r, before = -1;

	if (fuse) {
		/* the daemon's reads come from the device's cache: empty it,
		 * and go past the FUSE page cache to the daemon */
		bool dropped = drop_device_cache(bdev_fd);

		rfd = reopen(fd, O_DIRECT);
		*how = dropped && rfd >= 0 ? READBACK_DEVICE_DROPPED : READBACK_CACHED;
	} else if (size > 0 && data_inline(fd)) {
		rfd = reopen(fd, 0);
		*how = READBACK_CACHED;
		if (rfd < 0)
			return -errno;
	} else {
		rfd = reopen(fd, O_DIRECT);
		*how = READBACK_DIRECT;
		if (rfd >= 0)
			before = direct_prepare(rfd);
	}
	if (rfd < 0) {
		rfd = reopen(fd, 0);
		if (rfd < 0)
			return -errno;
		if (!fuse)
			*how = drop_cache(rfd) ? READBACK_DROPPED : READBACK_CACHED;
		else if (!drop_cache(rfd))
			*how = READBACK_CACHED;
	}
	r = read_all(rb, rfd, from, size, sink, verified);
	if (r == 0 && *how == READBACK_DIRECT)
		*how = direct_served(rfd, before);
	/* a filesystem that takes O_DIRECT at open but not for reads */
	if (r == -EINVAL && *how != READBACK_CACHED) {
		close(rfd);
		rfd = reopen(fd, 0);
		if (rfd < 0)
			return -errno;
		*how = drop_cache(rfd) && (!fuse || drop_device_cache(bdev_fd))
			       ? (fuse ? READBACK_DEVICE_DROPPED : READBACK_DROPPED)
			       : READBACK_CACHED;
		r = read_all(rb, rfd, from, size, sink, NULL);
	}
	close(rfd);
	DEBUG(DEBUG_COPY, "read back %llu bytes: %d, how %d", (unsigned long long)size, r, (int)*how);
	return r;
}

/* read_back_file()'s sink: the checksums of algs. */
struct sums_sink {
	checksum_set algs;
	struct checksum_state *st;
};

static int sums_begin(void *ctx)
{
	struct sums_sink *k = ctx;

	checksum_free(k->st);
	k->st = checksum_new(k->algs);
	return k->st ? 0 : -ENOMEM;
}

static void sums_add(void *ctx, const void *buf, size_t n)
{
	struct sums_sink *k = ctx;

	checksum_update(k->st, buf, n);
}

int read_back_file(struct read_back *rb, int fd, uint64_t size, bool fuse, int bdev_fd,
		   checksum_set algs, struct checksum_result *ret, enum readback_how *how,
		   _Atomic uint64_t *verified)
{
	return read_back_range(rb, fd, 0, size, fuse, bdev_fd, algs, ret, how, verified);
}

int read_back_range(struct read_back *rb, int fd, uint64_t from, uint64_t size, bool fuse,
		    int bdev_fd, checksum_set algs, struct checksum_result *ret,
		    enum readback_how *how, _Atomic uint64_t *verified)
{
	struct sums_sink k = { algs, NULL };
	int r = read_back_each(rb, fd, from, size, fuse, bdev_fd,
			       &(struct read_back_sink){ &k, sums_begin, sums_add }, how, verified);

	if (r == 0)
		checksum_final(k.st, ret);
	checksum_free(k.st);
	return r;
}
