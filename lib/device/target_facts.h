/* target_facts.h: what a target holds (target.h probes it, sysfs_disk.c
 * fills its block device part): struct target, its disk's facts, the
 * transport and filesystem kinds, and their names (target_facts.c).
 * Below both target and sysfs_disk, so that neither includes the other. */
#ifndef SAFECP_TARGET_FACTS_H
#define SAFECP_TARGET_FACTS_H

#include <stdbool.h>
#include <stdint.h>

enum transport {
	TRANSPORT_UNKNOWN = 0,
	TRANSPORT_USB,
	TRANSPORT_MMC,
	TRANSPORT_SATA,
	TRANSPORT_NVME,
	TRANSPORT_VIRTIO,
	TRANSPORT_SCSI,
	TRANSPORT_LOOP,
	TRANSPORT_FIREWIRE,    /* sbp2 disks below a FireWire node (fwN) */
	TRANSPORT_THUNDERBOLT, /* below a PCIe port the kernel marks removable */
};

/* "usb", "mmc", ..., "firewire", "thunderbolt", "unknown" */
const char *transport_name(enum transport t);

/* Which filesystem family decides how writes behave (doc/kernel.md 2.4). */
enum fs_kind {
	FS_OTHER = 0, /* block-backed, nothing special known */
	FS_EXT4,
	FS_XFS,
	FS_BTRFS,
	FS_VFAT,
	FS_EXFAT, /* in-kernel exfat */
	FS_F2FS,
	FS_FUSEBLK, /* FUSE on a block device: exfat-fuse, ntfs-3g */
	FS_FUSE, /* FUSE without a block device */
	FS_NOBLOCK, /* tmpfs, nfs, overlay, proc... */
};

enum fs_kind fs_kind_from_name(const char *fstype);
const char *fs_kind_name(enum fs_kind k);

/* Queue limits and identity of the whole disk. 0 / "" when unknown. */
struct disk_facts {
	uint32_t logical_block_size;
	uint32_t physical_block_size;
	uint32_t max_sectors_kb;
	uint32_t max_hw_sectors_kb;
	uint32_t optimal_io_size;
	uint32_t minimum_io_size;
	uint32_t nr_requests;
	uint32_t dma_alignment;
	bool write_cache_back; /* "write back": flushes reach the device */
	bool rotational;
	bool removable;
	enum transport transport;
	char vendor[64];
	char model[128];
	uint64_t size_bytes; /* of the whole disk */
};

struct target {
	/* the mount that holds the path (mountinfo); NULL after
	 * target_probe_blockdev(), which looks at no mount */
	char *path;           /* as given */
	char *mountpoint;
	char *fstype;         /* "ext4", "fuseblk", "fuse.sshfs" */
	char *source;         /* "/dev/loop0p1", "tmpfs" */
	char *mount_options;  /* VFS and fs options joined */
	char *fs_root;        /* mountinfo root: "/", "/@home" (btrfs subvol, bind) */
	unsigned fs_major, fs_minor; /* mountinfo MAJ:MIN (sb->s_dev) */
	enum fs_kind kind;    /* from fstype; FS_OTHER becomes FS_NOBLOCK when
			       * no block device stands behind the mount */

	/* the block device the fs is mounted from; valid if has_block */
	bool has_block;
	char devname[64];      /* kernel name: "loop0p1", "sdb1" */
	char devnode[128];     /* "/dev/loop0p1" */
	unsigned dev_major, dev_minor;
	bool is_partition;
	uint64_t dev_size_bytes; /* of the partition (or disk) */
	char diskname[64];     /* whole disk: "loop0", "sdb" */
	unsigned disk_major, disk_minor;
	char sysfs_path[512];  /* resolved /sys/devices/... of the disk */
	char usb_sysfs_path[512]; /* its usb_device ancestor (has idVendor,
				   * busnum, remove); "" when not on USB */

	/* bdi that accounts the data's dirty pages ("7:0", "btrfs-3"; for
	 * fuseblk the underlying disk "7:4") and the fs's own bdi ("7:4-fuseblk").
	 * Block fs: both the whole disk's.  Non-block fs with a registered
	 * bdi (nfs "0:53", fuse "0:48"): both that one.  "" when none. */
	char bdi[64];
	char fs_bdi[64];

	struct disk_facts disk;

	/* libblkid; NULL when it could not be probed (no permission, sysroot) */
	char *label;
	char *uuid;
	char *blkid_fstype;
};

#endif
