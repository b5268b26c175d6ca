/* mount_umount.h: unmount a filesystem through libmount's context API
 * (the mount module is where <libmount.h> lives).
 *
 * libmount (not umount2() directly) so that utab, fstab "user" mounts,
 * FUSE user mounts and umount.<type> helpers behave as umount(8) does.
 * Lazy unmount (MNT_DETACH) happens only when the caller asks: on
 * removable media it returns while the superblock and its dirty data live
 * on (doc/kernel.md 7). */
#ifndef SAFECP_MOUNT_UMOUNT_H
#define SAFECP_MOUNT_UMOUNT_H

enum mount_umount_flags {
	MOUNT_UMOUNT_LAZY = 1 << 0,  /* MNT_DETACH, on explicit request only */
	/* Dry run: libmount's lookup and permission checks without the
	 * syscall, helpers or utab update (umount --fake --no-mtab -i): tells
	 * a non-root user "not permitted" before a long sync, not after. */
	MOUNT_UMOUNT_CHECK = 1 << 1,
};

/* Unmount the filesystem at mountpoint.  0 on success; -EBUSY in use;
 * -EINVAL not mounted; -EPERM not allowed; another -errno else.  On
 * failure *ret_message (when ret_message is not NULL) is libmount's own
 * text from mnt_context_get_excode() ("target is busy"), malloc'd, or
 * NULL when libmount gave none (the caller words the -errno). */
int mount_umount(const char *mountpoint, unsigned flags, char **ret_message);

#endif
