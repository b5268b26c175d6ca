/* unmount.c: the mounts of a device, and the O_EXCL release check
 * (unmounting itself is device/mount_umount.c, through libmount).
 *
 * Release: kill_block_super() drops the superblock's exclusive claim on
 * the device, so once the last superblock is gone an O_EXCL open succeeds
 * (blkdev_get_by_dev -> bd_prepare_to_claim).  A copy of the mount in
 * another namespace keeps the superblock alive and the open fails with
 * EBUSY although umount returned 0 (doc/kernel.md 7, measured).  A partition
 * claim also marks its whole disk claimed, so O_EXCL on the disk is the
 * check for "no partition in use". */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "device/blockdev.h"
#include "base/clock.h"
#include "base/cleanup.h"
#include "util/debug.h"
#include "device/mount.h"
#include "util/sysroot.h"
#include "unmount/unmount.h"

void unmount_mount_done(struct unmount_mount *m)
{
	if (!m)
		return;
	free(m->mountpoint);
	free(m->source);
	free(m->fstype);
	memset(m, 0, sizeof(*m));
}

void unmount_mounts_free(struct unmount_mount *list, size_t n)
{
	if (!list)
		return;
	for (size_t i = 0; i < n; i++)
		unmount_mount_done(&list[i]);
	free(list);
}

static int mount_copy(const struct mount_entry *e, unsigned maj, unsigned min,
		      struct unmount_mount *m)
{
	m->mountpoint = strdup(e->target);
	m->source = strdup(e->source);
	m->fstype = strdup(e->fstype);
	if (!m->mountpoint || !m->source || !m->fstype) {
		unmount_mount_done(m);
		return -ENOMEM;
	}
	m->mnt_id = e->id;
	m->sb_major = e->major;
	m->sb_minor = e->minor;
	m->dev_major = maj;
	m->dev_minor = min;
	return 0;
}

static size_t path_depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

/* Deeper mount points first; ties keep their (reversed mountinfo) order,
 * so of two mounts stacked on one directory the upper one goes first. */
static void sort_innermost_first(struct unmount_mount *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct unmount_mount cur = v[i];
		size_t j = i, d = path_depth(cur.mountpoint);

		while (j > 0 && path_depth(v[j - 1].mountpoint) < d) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = cur;
	}
}

static bool on_device(const struct mount_entry *e, unsigned major, unsigned minor,
		      bool partitions, unsigned *ret_maj, unsigned *ret_min)
{
	unsigned maj, min, dmaj, dmin;

	if (!blockdev_of_mount(e, &maj, &min))
		return false;
	*ret_maj = maj;
	*ret_min = min;
	if (maj == major && min == minor)
		return true;
	return partitions && blockdev_disk_of(maj, min, &dmaj, &dmin) == 0 &&
	       dmaj == major && dmin == minor;
}

int unmount_mounts_of_device(unsigned major, unsigned minor, bool partitions,
			     struct unmount_mount **ret, size_t *ret_n)
{
	struct mount_entry *list = NULL;
	struct unmount_mount *out = NULL;
	size_t n = 0, k = 0;
	int r;

	r = mount_list(&list, &n);
	if (r < 0)
		return r;
	out = calloc(n ? n : 1, sizeof(*out));
	if (!out) {
		mount_list_free(list, n);
		return -ENOMEM;
	}
	for (size_t i = n; i-- > 0 && r >= 0;) {
		unsigned maj, min;

		if (on_device(&list[i], major, minor, partitions, &maj, &min))
			r = mount_copy(&list[i], maj, min, &out[k++]);
	}
	mount_list_free(list, n);
	if (r < 0) {
		unmount_mounts_free(out, k);
		return r;
	}
	sort_innermost_first(out, k);
	*ret = out;
	*ret_n = k;
	return 0;
}

int unmount_mount_at(const char *mountpoint, struct unmount_mount *ret)
{
	struct mount_entry *list = NULL;
	size_t n = 0;
	int r;

	r = mount_list(&list, &n);
	if (r < 0)
		return r;
	r = -ENOENT;
	for (size_t i = n; i-- > 0;) {
		unsigned maj = 0, min = 0;

		if (strcmp(list[i].target, mountpoint) != 0)
			continue;
		if (!blockdev_of_mount(&list[i], &maj, &min))
			maj = min = 0;
		r = mount_copy(&list[i], maj, min, ret);
		break;
	}
	mount_list_free(list, n);
	return r;
}

int unmount_device_release(const char *devnode, int wait_ms, bool do_fsync)
{
	_cleanup_close_ int fd = -1;
	int waited = 0;

	for (;;) {
		fd = open(devnode, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno != EBUSY || waited >= wait_ms) {
			int r = -errno;

			DEBUG(DEBUG_UNMOUNT, "O_EXCL %s: %s after %d ms", devnode, strerror(-r), waited);
			return r;
		}
		clock_sleep_ms(50);
		waited += 50;
	}
	DEBUG(DEBUG_UNMOUNT, "O_EXCL %s: free after %d ms", devnode, waited);
	if (do_fsync && fsync(fd) < 0)
		return -errno;
	return 0;
}
