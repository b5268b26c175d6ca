/* unmount.h: every mount of a device, and the check that a device is
 * really released after its unmount (the unmount itself:
 * device/mount_umount.h). */
#ifndef SAFECP_UNMOUNT_H
#define SAFECP_UNMOUNT_H

#include <stdbool.h>
#include <stddef.h>

/* One mount of a block device in our mount namespace. */
struct unmount_mount {
	char *mountpoint;
	char *source;                /* "/dev/loop3p1" */
	char *fstype;
	int mnt_id;
	unsigned sb_major, sb_minor; /* mountinfo MAJ:MIN (btrfs: anonymous) */
	unsigned dev_major, dev_minor; /* the block device it is mounted from */
};

/* The mounts of the block device major:minor, and with partitions also of
 * every partition of it (a whole-disk target), innermost first: a mount
 * comes before any mount it sits on, and stacked mounts top first, the
 * order in which they can be unmounted.  *ret_n may be 0. */
int unmount_mounts_of_device(unsigned major, unsigned minor, bool partitions,
			     struct unmount_mount **ret, size_t *ret_n);

/* The mount at exactly mountpoint (the top one when stacked), as an
 * unmount_mount; dev_major/minor 0:0 when it has no block device.
 * -ENOENT when nothing is mounted there. */
int unmount_mount_at(const char *mountpoint, struct unmount_mount *ret);

void unmount_mount_done(struct unmount_mount *m);
void unmount_mounts_free(struct unmount_mount *list, size_t n);

/* After an unmount, whether the device is free: an O_EXCL open succeeds
 * only when no superblock (in any mount namespace) and no exclusive
 * opener holds it.  Retries up to wait_ms, since a FUSE daemon lets go
 * of its device after the unmount returns.  With do_fsync the device's
 * page cache (where a fuseblk daemon's writes sit) is written and a cache
 * flush sent, through the same descriptor (blkdev_fsync).  0 free; -EBUSY
 * still held; -EACCES when we may not open it (cannot tell); -EIO and
 * friends from fsync. */
int unmount_device_release(const char *devnode, int wait_ms, bool do_fsync);

#endif
