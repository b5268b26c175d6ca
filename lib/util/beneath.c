/* beneath.c: paths resolved under a directory without leaving it
 * (beneath.h).  The kernel does the walk (openat2, Linux 5.6): checking
 * each component here would race with whoever renames them. */
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

static size_t without_trailing_slashes(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

const char *beneath_rel(const char *root, const char *path)
{
	size_t n = without_trailing_slashes(root);

	if (n == 1 && root[0] == '/')
		n = 0; /* "/": every absolute path is under it */
	if (strncmp(path, root, n) != 0)
		return NULL;
	path += n;
	if (*path != '/' && !(*path == '\0' && n > 0))
		return NULL;
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

int beneath_open_path(const char *root, const char *path, uint64_t flags)
{
	const char *rel = beneath_rel(root, path);
	_cleanup_close_ int root_fd = -1;

	if (!rel)
		return -EXDEV;
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	return beneath_openat(root_fd, rel, flags, RESOLVE_NO_XDEV);
}
