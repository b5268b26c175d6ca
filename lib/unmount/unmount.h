/* unmount.h: unmount a filesystem through libmount's context API, find
 * every mount of a device, and check the device is really released.
 *
 * libmount (not umount2() directly) so that utab, fstab "user" mounts,
 * FUSE user mounts and umount.<type> helpers behave as umount(8) does.
 * Lazy unmount (MNT_DETACH) happens only when the caller asks: on
 * removable media it returns while the superblock and its dirty data live
 * on (doc/kernel.md 7). */
#ifndef SAFECP_UNMOUNT_H
#define SAFECP_UNMOUNT_H

#include <stdbool.h>
#include <stddef.h>

enum unmount_flags {
	UNMOUNT_LAZY = 1 << 0,  /* MNT_DETACH, on explicit request only */
	/* Dry run: libmount's lookup and permission checks without the
	 * syscall, helpers or utab update (umount --fake --no-mtab -i): tells
	 * a non-root user "not permitted" before a long sync, not after. */
	UNMOUNT_CHECK = 1 << 1,
};

/* Unmount the filesystem at mountpoint.  0 on success; -EBUSY in use;
 * -EINVAL not mounted; -EPERM not allowed; another -errno else.  On
 * failure *ret_message (when ret_message is not NULL) is libmount's
 * explanation from mnt_context_get_excode() ("target is busy"), malloc'd;
 * NULL on success. */
int unmount_fs(const char *mountpoint, unsigned flags, char **ret_message);

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

/* The block device a mount (an entry of mount_list()) comes from; false
 * when it has none (tmpfs, NFS, overlay). */
struct mount_entry;
bool unmount_block_dev(const struct mount_entry *e, unsigned *ret_major, unsigned *ret_minor);

/* The whole disk of a block device (itself when it is one), from
 * /sys/dev/block/MAJ:MIN under the sysroot. */
int unmount_disk_of(unsigned major, unsigned minor, unsigned *ret_major, unsigned *ret_minor);

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
