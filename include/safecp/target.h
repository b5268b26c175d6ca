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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* What the probe found, for a caller that shows it (safecp --dry-run).
 * Strings are the target's ("" or NULL as said), valid until it is freed.
 * Filled up to size bytes (pass sizeof): a later version appends fields. */
struct safecp_target_facts {
	const char *path;         /* as probed */
	const char *mountpoint;   /* NULL when unknown */
	const char *mount_type;   /* the mount's type ("ext4", "fuseblk") */
	const char *fs_name;      /* safecp_target_fs_name() */
	const char *label, *uuid; /* the volume's, NULL when unread */
	/* which names the filesystem refuses: "posix" (only '/' and NUL),
	 * "fat", "fusefat" (FAT through fusefat, which cannot create names
	 * outside ASCII), "exfat", "ntfs", "exfat-or-ntfs" (a FUSE block
	 * filesystem whose format could not be read: both rules) */
	const char *name_rules;
	bool block;               /* a block device stands behind it; below, if so */
	const char *device;       /* "/dev/sdb1" */
	unsigned dev_major, dev_minor;
	bool partition;           /* device is a partition of disk */
	const char *disk;         /* "sdb" */
	unsigned disk_major, disk_minor;
	uint64_t disk_size;
	const char *transport;    /* "usb", "mmc", "sata", "nvme", ..., "unknown" */
	const char *vendor, *model; /* as the device's firmware says, "" unknown */
	bool removable;
	bool write_cache;         /* write back: flushes reach the device */
	uint32_t max_sectors_kb, max_hw_sectors_kb, optimal_io_size, minimum_io_size;
	uint32_t nr_requests, logical_block_size, physical_block_size, dma_alignment;
	const char *bdi;          /* the bdi that counts its dirty data ("" unknown) */
};
int safecp_target_facts(const struct safecp_target *t, struct safecp_target_facts *ret,
			size_t size);

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
