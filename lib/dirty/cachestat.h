/* cachestat.h: page-cache state of a file through cachestat(2) (Linux
 * 6.5+, syscall 451, no glibc wrapper; doc/kernel.md 3).
 *
 * Figures are a racy snapshot in bytes (the syscall counts pages).  A
 * page redirtied during writeback counts as dirty and as writeback.  On a
 * block device node the figures are the bdev page cache: filesystem
 * metadata and FUSE daemons' data, not the files' pages. */
#ifndef SAFECP_CACHESTAT_H
#define SAFECP_CACHESTAT_H

#include <stdint.h>

/* In bytes, not the syscall's pages. */
struct file_cache {
	uint64_t cached;            /* nr_cache: present in the page cache */
	uint64_t dirty;             /* nr_dirty: PAGECACHE_TAG_DIRTY */
	uint64_t writeback;         /* nr_writeback: PAGECACHE_TAG_WRITEBACK */
	uint64_t evicted;           /* nr_evicted: shadow entries */
	uint64_t recently_evicted;  /* nr_recently_evicted */
};

/* Page-cache state of [off, off+len) of an open file (len 0: to EOF).
 * -ENOSYS on old kernels, -EPERM when the caller may not write the file
 * and did not open it for writing (mm/filemap.c can_do_cachestat),
 * -EOPNOTSUPP on hugetlbfs. */
int cachestat_fd(int fd, uint64_t off, uint64_t len, struct file_cache *ret);

/* Same for a path, whole file.  The path is opened O_RDONLY (O_NONBLOCK,
 * so a FIFO does not hang us), never for writing: -EPERM is reported and
 * the caller chooses its fallback. */
int cachestat_path(const char *path, struct file_cache *ret);

/* Same for a file held by an O_PATH descriptor (a regular file or a block
 * device the caller checked): reopened O_RDONLY through /proc/self/fd, so
 * it is the inode that was checked, not whatever the path names now. */
int cachestat_opath(int path_fd, struct file_cache *ret);

#endif
