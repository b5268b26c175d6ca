/* safecp/target.h: where a path's data ends up, and the root below which
 * the library reads /proc and /sys.
 *
 *	struct safecp_target *t;
 *	if (safecp_target_probe("/media/usb/DCIM", &t) == 0) {
 *		safecp_target_mountpoint(t) ... safecp_target_fs_name(t);
 *		safecp_target_free(t);
 *	}
 *
 * A probe answers for any path: its mount, the block device and whole disk
 * behind it, the bdi that counts its dirty pages.  A path on no block
 * device (tmpfs, NFS) is an answer too, not an error.  The figures of
 * that device are <safecp/dirty.h>'s.  doc/api.md holds the contract. */
#ifndef SAFECP_TARGET_API_H
#define SAFECP_TARGET_API_H

#include <safecp/safecp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct safecp_target;

/* Probe path (it need not exist if its parent does).  With the real root
 * the path is resolved (symbolic links, ".."); below a sysroot it must be
 * absolute and is taken as is.  0, or -errno (-ENOENT: no such path, nor
 * its parent directory). */
int safecp_target_probe(const char *path, struct safecp_target **ret);
void safecp_target_free(struct safecp_target *t);

/* The mount point of the filesystem the path is on; NULL when unknown.
 * Strings are the target's, valid until safecp_target_free(). */
const char *safecp_target_mountpoint(const struct safecp_target *t);

/* The filesystem's type as lsblk names it: the format of a FUSE block
 * filesystem ("exfat", "ntfs"; "fuseblk" when it could not be read), the
 * mount's type otherwise ("ext4", "vfat", "tmpfs"); NULL when none. */
const char *safecp_target_fs_name(const struct safecp_target *t);

/* The block device node ("/dev/sdb1") whose page cache holds the files'
 * dirty data, for a filesystem whose daemon writes through it (fuseblk:
 * exFAT and NTFS through FUSE), where the files' own page cache is clean;
 * NULL for every other filesystem. */
const char *safecp_target_cache_device(const struct safecp_target *t);

/* A test seam, as lsblk --sysroot: read /proc and /sys below dir, a
 * captured tree, instead of the machine's.  NULL or "" is the real root.
 * Process-wide: call it before any other call of the library, from one
 * thread.  Without it, $SAFECP_SYSROOT is used (ignored in a setuid,
 * setgid or file-capability process).  0, or -ENOMEM.  Below a sysroot
 * the library changes nothing on the machine (it mounts no debugfs). */
int safecp_sysroot_set(const char *dir);
/* The root in use: "" for the machine's own, never NULL. */
const char *safecp_sysroot(void);

#ifdef __cplusplus
}
#endif

#endif
