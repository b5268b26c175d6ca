/* fs_sync.c: see fs_sync.h. */
#include <errno.h>
#include <linux/btrfs.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "io/fs_sync.h"

static bool refused(int err)
{
	return err == ENOTTY || err == EINVAL || err == EPERM || err == EACCES ||
	       err == EOPNOTSUPP;
}

int fs_sync(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) == 0 && sf.f_type == BTRFS_SUPER_MAGIC) {
		if (ioctl(fd, BTRFS_IOC_SYNC, NULL) == 0)
			return 0;
		if (!refused(errno))
			return -errno;
	}
	return syncfs(fd) < 0 ? -errno : 0;
}

int fs_sync_device(int fd, int bdev_fd)
{
	if (bdev_fd >= 0)
		return fsync(bdev_fd) < 0 ? -errno : 0;
	return syncfs(fd) < 0 ? -errno : 0;
}
