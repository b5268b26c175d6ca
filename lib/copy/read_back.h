/* read_back.h: a written file read back from the device, not from the
 * page cache: the reading half of --verify (verify.h compares), also
 * what --check and --skip-identical read a copy with.
 *
 * The file is durable when this is called.  Where the filesystem reads
 * O_DIRECT (ext4, xfs, btrfs, vfat: a direct read takes the blocks from
 * the device even when clean pages of the file are cached), that is the
 * read.  Elsewhere the file's pages are dropped (POSIX_FADV_DONTNEED)
 * and cachestat(2) must show none left before a buffered read.  On FUSE
 * the daemon reads the block device through that device's own page
 * cache: with the device node open (root), it is flushed, dropped and
 * proved empty by cachestat, and the file read O_DIRECT (past the FUSE
 * page cache, to the daemon).  What cannot be bypassed is said
 * (READBACK_CACHED), never claimed.  The device's own RAM cache is out
 * of reach of all of these: a stick that answers from it is not caught.
 *
 * A successful O_DIRECT open proves nothing by itself: filesystems serve
 * some files' direct reads buffered.  Data kept in the metadata (ext4
 * inline_data, btrfs inline extents, f2fs inline data; FIEMAP's
 * FIEMAP_EXTENT_DATA_INLINE) is read through the metadata's cache, out of
 * our reach: READBACK_CACHED.  Other fallbacks (ext4 data=journal, btrfs
 * compressed extents) read the file's pages: the cached ones are dropped
 * first, and pages found after the read say it went buffered, from the
 * device (READBACK_DROPPED).  Without cachestat (before Linux 6.5, or
 * EPERM: a file the caller may not write) the second check is left out. */
#ifndef SAFECP_READ_BACK_H
#define SAFECP_READ_BACK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/checksum.h"

struct target;

enum readback_how {
	READBACK_DIRECT,         /* O_DIRECT reads of the file */
	READBACK_DROPPED,        /* its pages dropped, proved gone, then read */
	READBACK_DEVICE_DROPPED, /* FUSE: the device's cache dropped and proved */
	READBACK_CACHED,         /* the cache could not be bypassed */
};

struct read_back {
	void *buf;       /* aligned to 4096 */
	size_t buf_size; /* a multiple of 4096 */
	/* NULL, or set after init: a read stops between blocks with
	 * -ECANCELED once it is true (a large file on a slow stick) */
	const _Atomic bool *cancel;
};

int read_back_init(struct read_back *rb, size_t buf_size);
void read_back_done(struct read_back *rb);

/* Read the durable file fd (size bytes) back as above; bdev_fd: on FUSE,
 * the block device node, or -1.  0 with the digests of the algorithms in
 * algs (not empty) in *ret and the way it was read in *how, or -errno (the
 * read failed: -EIO, or the file is shorter than size: -ENODATA; -ENOMEM,
 * -ECANCELED).  Adds each block read to *verified (NULL: not counted). */
int read_back_file(struct read_back *rb, int fd, uint64_t size, bool fuse, int bdev_fd,
		   checksum_set algs, struct checksum_result *ret, enum readback_how *how,
		   _Atomic uint64_t *verified);

/* The same for the file's bytes [from, size) only (from a multiple of
 * 4096: a direct read's alignment). */
int read_back_range(struct read_back *rb, int fd, uint64_t from, uint64_t size, bool fuse,
		    int bdev_fd, checksum_set algs, struct checksum_result *ret,
		    enum readback_how *how, _Atomic uint64_t *verified);

/* The same, each block read handed to a sink instead of digested:
 * begin() (NULL: nothing) before the first, and again when the read
 * starts over (a filesystem that took O_DIRECT at open but not for
 * reads), then add() with the bytes in order. */
struct read_back_sink {
	void *ctx;
	int (*begin)(void *ctx);
	void (*add)(void *ctx, const void *buf, size_t n);
};
int read_back_each(struct read_back *rb, int fd, uint64_t from, uint64_t size, bool fuse,
		   int bdev_fd, const struct read_back_sink *sink, enum readback_how *how,
		   _Atomic uint64_t *verified);

/* t's block device node, when t is a FUSE daemon's filesystem whose data
 * passes through that device's page cache (fs_traits' device_cache):
 * opened to watch it or to read back past it; -1 otherwise, or when it
 * cannot be opened (root only). */
int read_back_device_open(const struct target *t);

#endif
