/* cachestat.h: cachestat(2) (Linux 6.5+, syscall 451, no glibc wrapper). */
#ifndef SAFECP_CACHESTAT_H
#define SAFECP_CACHESTAT_H

#include <stdint.h>

/* In bytes, not the syscall's pages. */
struct file_cache {
	uint64_t cached;
	uint64_t dirty;
	uint64_t writeback;
	uint64_t evicted;
};

/* Page-cache state of [off, off+len) of an open file (len 0: to EOF).
 * -ENOSYS on old kernels, -EPERM when the caller may not write the file
 * (mm/filemap.c can_do_cachestat). */
int cachestat_fd(int fd, uint64_t off, uint64_t len, struct file_cache *ret);

/* Same for a path, whole file. */
int cachestat_path(const char *path, struct file_cache *ret);

#endif
