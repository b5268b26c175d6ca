/* beneath.c: paths resolved under a directory without leaving it
 * (beneath.h).  The kernel does the walk (openat2, Linux 5.6): checking
 * each component here would race with whoever renames them. */
#include "base/path_below.h"
#include "util/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"

#define OPEN_TRIES 8

int beneath_openat(int dirfd, const char *rel, uint64_t flags, uint64_t also_resolve)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   also_resolve,
	};

	for (int i = 0; i < OPEN_TRIES; i++) {
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN && errno != EINTR)
			break;
	}
	return -errno;
}

int beneath_open_path(const char *root, const char *path, uint64_t flags)
{
	const char *rel = path_below(root, path);
	_cleanup_close_ int root_fd = -1;

	if (!rel)
		return -EXDEV;
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	return beneath_openat(root_fd, rel, flags, RESOLVE_NO_XDEV);
}
