/* sysfs_disk.h: block devices as sysfs describes them; the half of the
 * target module that knows /sys/dev/block, /sys/class/block, /sys/block
 * and /sys/fs/btrfs.  Internal to lib/ (target.c and unit tests). */
#ifndef SAFECP_SYSFS_DISK_H
#define SAFECP_SYSFS_DISK_H

#include <stdbool.h>
#include <stddef.h>

#include "device/target_facts.h"

/* MAJ:MIN of a kernel block device name ("sdb1", "cciss!c0d0") from
 * /sys/class/block/NAME/dev. */
int sysfs_devt_of_name(const char *name, unsigned *ret_major, unsigned *ret_minor);

/* Kernel name of a device node or name: "/dev/loop0p1" -> "loop0p1",
 * "/dev/cciss/c0d0" -> "cciss!c0d0", "sdb" -> "sdb".  With the real root
 * the node is resolved first (/dev/mapper/x -> /dev/dm-0); a /dev/mapper
 * name that does not resolve is looked up in /sys/class/block/dm-N/dm/name. */
int sysfs_name_of_node(const char *node, char *buf, size_t size);

/* Fill the block device part of t from MAJ:MIN: device and disk names and
 * numbers, partition, sizes, sysfs paths, the disk's bdi (into both bdi
 * and fs_bdi) and disk facts.  Sets has_block. */
int sysfs_fill_device(struct target *t, unsigned major, unsigned minor);

/* The bdi of the btrfs filesystem that has devname among its devices:
 * /sys/fs/btrfs/FSID/devices/DEVNAME, then the FSID/bdi link ("btrfs-1"). */
int sysfs_btrfs_bdi(const char *devname, char *buf, size_t size);

/* Does /sys/class/bdi/NAME exist? */
bool sysfs_bdi_exists(const char *name);

/* Transport from the resolved sysfs path of a disk. */
enum transport transport_from_sysfs_path(const char *path);

#endif
