/* devices.h: the block devices that can hold dirty data, and what is
 * mounted from them.
 *
 * One entry per accounting domain: a whole disk together with the bdi
 * that counts the dirty pages of the filesystems mounted from it
 * (doc/kernel.md 4.2).  Usually that is the disk's own bdi ("7:3", also for
 * every partition and for fuseblk, whose data is dirty in the bdev page
 * cache); a btrfs filesystem has its own ("btrfs-2") and gets an entry of
 * its own.  Reads /sys/block and the mount table under the sysroot. */
#ifndef SAFECP_DEVICES_H
#define SAFECP_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct target;

struct device_entry {
	char name[64];          /* whole disk: "loop3", "sdb"; the fs source
				 * for a filesystem without a block device */
	unsigned major, minor;  /* of the whole disk; 0:0 without one */
	bool has_block;
	char bdi[64];           /* debugfs bdi name; "" when unknown */
	bool removable;         /* removable flag, or a usb/mmc transport */
	uint64_t size_bytes;    /* of the whole disk */
	char **mountpoints;     /* n_mountpoints strings, mountinfo order */
	size_t n_mountpoints, cap_mountpoints;
	char *fstype;           /* "ext4"; distinct types comma-joined when
				 * partitions differ; NULL when nothing is mounted */
};

/* Every disk in /sys/block with a nonzero size, each with its mounts,
 * sorted by name.  A disk whose every mount uses another bdi (btrfs)
 * appears only under that bdi. */
int devices_list(struct device_entry **ret, size_t *ret_n);
void devices_list_free(struct device_entry *list, size_t n);

/* The entry for the filesystem a probed path is on, with that mount only
 * (for paths on filesystems without a block device: tmpfs, NFS). */
int device_entry_from_target(const struct target *t, struct device_entry *ret);
void device_entry_done(struct device_entry *e);

/* Deep copy of src into *ret. */
int device_entry_copy(const struct device_entry *src, struct device_entry *ret);

/* The entry of list that accounts t's data (same disk and bdi), or NULL. */
const struct device_entry *devices_find(const struct device_entry *list, size_t n,
					const struct target *t);

#endif
