/* target.h: everything we know about where a path's data ends up.
 *
 * One call, target_probe(), answers for any path: its mount (libmount),
 * the block device behind it and that device's whole disk, the bdi that
 * accounts its dirty pages (doc/kernel.md 4.2), the disk's queue limits and
 * identity (sysfs, libblkid).  A path that is not on a block device
 * (tmpfs, NFS, overlay) gets the mount facts and has_block == false; that
 * is an answer, not an error.  All /proc and /sys reads honour sysroot.
 * The answer's fields and kinds are in target_facts.h. */
#ifndef SAFECP_TARGET_H
#define SAFECP_TARGET_H

#include "device/target_facts.h"

/* Probe path (need not exist if its parent does: a destination file).
 * With the real root the path is resolved with realpath(); under a sysroot
 * it must be absolute and is taken as is.  Returns 0 with *ret filled, or
 * -errno (-ENOENT: no such path, nor its parent directory). */
int target_probe(const char *path, struct target **ret);
void target_free(struct target *t);

/* The filesystem's type as lsblk and the user name it: blkid's for a
 * fuseblk mount ("exfat", "ntfs"; "fuseblk" when it could not be read),
 * the mount's otherwise.  NULL when the mount has none. */
const char *target_fs_name(const struct target *t);

/* The same for a mount already at hand (an entry of mount_list()), without
 * resolving a path: each listed mount is answered for itself, also one
 * hidden under a later mount.  t->path stays NULL. */
struct mount_entry;
int target_probe_mount(const struct mount_entry *m, struct target **ret);

/* Lower level, for safeunmount and tests: facts of a block device by
 * MAJ:MIN, without a mount (path, mountpoint, fstype, source, options,
 * fs_root stay NULL; kind comes from libblkid's fstype when known).
 * -ENOENT when sysfs knows no such device. */
int target_probe_blockdev(unsigned major, unsigned minor, struct target **ret);

/* The same by name: "sdb", "/dev/sdb1", "/dev/mapper/x" (symlinks resolved
 * when the root is real), looked up in /sys/class/block/NAME/dev. */
int target_probe_devname(const char *name, struct target **ret);

#endif
