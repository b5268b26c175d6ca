/* cachestat.c: cachestat(2) by syscall number.
 *
 * Debian 12's kernel headers predate the syscall, so the number and both
 * structures are ours; they match include/uapi/linux/mman.h and the
 * common syscall table (451 on every architecture that uses it). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dirty/cachestat.h"
#include "base/cleanup.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cachestat_range_abi {
	uint64_t off;
	uint64_t len;
};

struct cachestat_abi {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

int cachestat_fd(int fd, uint64_t off, uint64_t len, struct file_cache *ret)
{
	struct cachestat_range_abi range = { .off = off, .len = len };
	struct cachestat_abi cs = { 0 };
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = ps > 0 ? (uint64_t)ps : 4096;

	if (fd < 0)
		return -EBADF;
	if (syscall(__NR_cachestat, (unsigned)fd, &range, &cs, 0u) < 0)
		return -errno;
	*ret = (struct file_cache){
		.cached = cs.nr_cache * page,
		.dirty = cs.nr_dirty * page,
		.writeback = cs.nr_writeback * page,
		.evicted = cs.nr_evicted * page,
		.recently_evicted = cs.nr_recently_evicted * page,
	};
	return 0;
}

int cachestat_opath(int path_fd, struct file_cache *ret)
{
	_cleanup_close_ int fd = -1;
	char proc[64];

	/* cachestat(2) takes no O_PATH descriptor (fdget refuses FMODE_PATH);
	 * the magic link opens the very inode, with a fresh permission check */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path_fd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	return cachestat_fd(fd, 0, 0, ret);
}

int cachestat_path(const char *path, struct file_cache *ret)
{
	_cleanup_close_ int fd = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	return cachestat_fd(fd, 0, 0, ret);
}
