/* blockdev.h: which block device a mount comes from, and the whole disk
 * of a block device.  Device facts, read through the sysroot; the
 * unmount part and the system-disk guards both ask them. */
#ifndef SAFECP_BLOCKDEV_H
#define SAFECP_BLOCKDEV_H

#include <stdbool.h>

struct mount_entry;

/* The block device a mount (an entry of mount_list()) comes from; false
 * when it has none (tmpfs, NFS, overlay). */
bool blockdev_of_mount(const struct mount_entry *e, unsigned *ret_major, unsigned *ret_minor);

/* The whole disk of a block device (itself when it is one), from
 * /sys/dev/block/MAJ:MIN under the sysroot. */
int blockdev_disk_of(unsigned major, unsigned minor, unsigned *ret_major, unsigned *ret_minor);

#endif
