/* read_back.c: see read_back.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "copy/read_back.h"
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

/* A new fd on the same inode (an O_TMPFILE file has no name). */
static int reopen(int fd, int flags)
{
	char proc[48];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return open(proc, flags | O_RDONLY | O_CLOEXEC | O_NOCTTY);
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

static bool drop_device_cache(int bdev_fd)
{
	return bdev_fd >= 0 && fsync(bdev_fd) == 0 && drop_cache(bdev_fd);
}

static int hash_all(struct read_back *rb, int fd, uint64_t size, checksum_set algs,
		    struct checksum_result *ret, _Atomic uint64_t *verified)
{
	struct checksum_state *st = checksum_new(algs);
	uint64_t off = 0;
	int r = 0;

	if (!st)
		return -ENOMEM;
	while (off < size) {
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
		checksum_update(st, rb->buf, (size_t)n);
		off += (uint64_t)n;
		if (verified)
			atomic_fetch_add(verified, (uint64_t)n);
	}
	if (r == 0)
		checksum_final(st, ret);
	checksum_free(st);
	return r;
}

int read_back_file(struct read_back *rb, int fd, uint64_t size, bool fuse, int bdev_fd,
		   checksum_set algs, struct checksum_result *ret, enum readback_how *how,
		   _Atomic uint64_t *verified)
{
	int rfd = -1, r;

	if (fuse) {
		/* the daemon's reads come from the device's cache: empty it,
		 * and go past the FUSE page cache to the daemon */
		bool dropped = drop_device_cache(bdev_fd);

		rfd = reopen(fd, O_DIRECT);
		*how = dropped && rfd >= 0 ? READBACK_DEVICE_DROPPED : READBACK_CACHED;
	} else {
		rfd = reopen(fd, O_DIRECT);
		*how = READBACK_DIRECT;
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
	r = hash_all(rb, rfd, size, algs, ret, verified);
	/* a filesystem that takes O_DIRECT at open but not for reads */
	if (r == -EINVAL && *how != READBACK_CACHED) {
		close(rfd);
		rfd = reopen(fd, 0);
		if (rfd < 0)
			return -errno;
		*how = drop_cache(rfd) && (!fuse || drop_device_cache(bdev_fd))
			       ? (fuse ? READBACK_DEVICE_DROPPED : READBACK_DROPPED)
			       : READBACK_CACHED;
		r = hash_all(rb, rfd, size, algs, ret, NULL);
	}
	close(rfd);
	DEBUG(DEBUG_COPY, "read back %llu bytes: %d, how %d", (unsigned long long)size, r, (int)*how);
	return r;
}
