/* blockdev.c: the block device of a mount and the disk of a block device.
 *
 * The disk: /sys/dev/block/MAJ:MIN links to the device's directory; a
 * partition has a "partition" file there and its disk is the parent
 * directory (block/genhd.c, partitions/core.c add_partition). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/blockdev.h"
#include "device/mount.h"
#include "util/parse.h"
#include "util/sysroot.h"

int blockdev_disk_of(unsigned major, unsigned minor, unsigned *ret_major, unsigned *ret_minor)
{
	char link[PATH_MAX], dir[PATH_MAX], rel[PATH_MAX + 16], line[32];
	const char *root = sysroot_get();
	size_t rlen = strlen(root);
	unsigned maj, min;
	int r;

	r = sysroot_path(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
	if (r < 0)
		return r;
	if (!realpath(link, dir))
		return -errno;
	if (strncmp(dir, root, rlen) != 0)
		return -EINVAL; /* a fixture link that escapes the sysroot */
	snprintf(rel, sizeof(rel), "%s/partition", dir + rlen);
	if (sysroot_read_line(rel, line, sizeof(line)) < 0) {
		*ret_major = major;
		*ret_minor = minor;
		return 0;
	}
	snprintf(rel, sizeof(rel), "%s/../dev", dir + rlen);
	r = sysroot_read_line(rel, line, sizeof(line));
	if (r < 0)
		return r;
	if (parse_devnum(line, &maj, &min, NULL) < 0)
		return -EINVAL;
	*ret_major = maj;
	*ret_minor = min;
	return 0;
}

/* On the real root: stat() of the source, which is right for btrfs
 * (anonymous MAJ:MIN in mountinfo) and fuseblk alike.  Under a sysroot
 * nothing can be stat()ed, and a root the kernel mounted itself says
 * "/dev/root", a node that does not exist: then mountinfo's MAJ:MIN, when
 * sysfs knows it as a block device. */
bool blockdev_of_mount(const struct mount_entry *e, unsigned *maj, unsigned *min)
{
	char link[PATH_MAX];
	struct stat st;

	if (e->source[0] != '/')
		return false;
	if (sysroot_is_real() && stat(e->source, &st) == 0) {
		if (!S_ISBLK(st.st_mode))
			return false;
		*maj = major(st.st_rdev);
		*min = minor(st.st_rdev);
		return true;
	}
	if (strncmp(e->source, "/dev/", 5) != 0 || e->major == 0 ||
	    sysroot_path(link, sizeof(link), "/sys/dev/block/%u:%u", e->major, e->minor) < 0 ||
	    access(link, F_OK) < 0)
		return false;
	*maj = e->major;
	*min = e->minor;
	return true;
}
