/* sysdisk.h: the disks and mounts the running system stands on.
 *
 * safeunmount must never take "/" away, nor the disk under it, whatever
 * form the target takes (a path, a device, a whole disk, LABEL=, UUID=);
 * the other system mounts (/usr, /boot, /var, /home...) and a disk with
 * active swap are refused unless the user insists.  This module states the
 * facts and classifies a mount; unmount/guard.c decides, and safeunmount
 * says it in words.
 * Everything is read through the sysroot ($sysroot/proc/self/mountinfo,
 * $sysroot/proc/swaps, $sysroot/sys), so the decisions are unit-tested on
 * captured trees. */
#ifndef SAFECP_SYSDISK_H
#define SAFECP_SYSDISK_H

#include <stdbool.h>
#include <stddef.h>

#define SYSDISK_MAX 16

struct sysdisk_devt {
	unsigned major, minor;
};

struct sysdisk_swap {
	char name[256];             /* as /proc/swaps says: "/dev/vda3" (cut at 255) */
	struct sysdisk_devt disk;   /* the whole disk it is on */
};

struct sysdisk {
	/* "/": its source and block device (0:0 when it has none: NFS,
	 * overlay, a tmpfs root) and the whole disks below that device (a
	 * partition's disk; for dm/md also the disks of its slaves). */
	char root_source[128];
	struct sysdisk_devt root_dev;
	struct sysdisk_devt root_disks[SYSDISK_MAX];
	size_t n_root_disks;
	/* active swap on block devices, and swap files' filesystems */
	struct sysdisk_swap swaps[SYSDISK_MAX];
	size_t n_swaps;
};

/* Ordered: a mount gets the most severe kind that applies. */
enum sysdisk_kind {
	SYSDISK_NONE = 0,
	SYSDISK_SWAP,      /* its disk has active swap */
	SYSDISK_ROOT_DISK, /* on the disk that holds "/" */
	SYSDISK_SYSTEM,    /* mounted on a system directory: /usr, /boot... */
	SYSDISK_ROOT,      /* "/" itself */
};

/* Read "/" from mountinfo and the active swap from /proc/swaps.  A
 * missing /proc/swaps means no swap; -errno when mountinfo cannot be
 * read. */
int sysdisk_load(struct sysdisk *ret);

/* Whether mountpoint is one of the system directories: /usr, /boot,
 * /boot/efi, /efi, /var, /home, /opt, /srv. */
bool sysdisk_is_system_dir(const char *mountpoint);

/* Whether the whole disk disk_major:disk_minor holds "/". */
bool sysdisk_holds_root(const struct sysdisk *s, unsigned disk_major, unsigned disk_minor);

/* The active swap on that whole disk, or NULL. */
const struct sysdisk_swap *sysdisk_swap_on(const struct sysdisk *s, unsigned disk_major,
					   unsigned disk_minor);

/* The active swap on any disk below the block device dev_major:minor (a
 * partition's disk, a dm device's slaves' disks), or NULL. */
const struct sysdisk_swap *sysdisk_swap_of_dev(const struct sysdisk *s, unsigned dev_major,
					       unsigned dev_minor);

/* The kind of a mount at mountpoint from block device dev_major:minor
 * (0:0 when it has none). */
enum sysdisk_kind sysdisk_classify(const struct sysdisk *s, const char *mountpoint,
				   unsigned dev_major, unsigned dev_minor);

/* The whole disks below a block device: its disk, and for a dm or md
 * device the disks of its slaves, recursively.  Returns how many were
 * found (at most max), or -errno when sysfs knows no such device. */
int sysdisk_disks_of(unsigned major, unsigned minor, struct sysdisk_devt *out, size_t max);

#endif
