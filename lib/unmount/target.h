/* unmount/target.h: one TARGET of safeunmount, resolved: the filesystems
 * to unmount (innermost first) and the disk to power off.
 *
 * unmount_target_resolve() (resolve.c) builds it and makes every refusal
 * that can be made before anything is written; an unmount_job
 * (unmount/job.h) carries it out and fills in the outcome fields. */
#ifndef SAFECP_UNMOUNT_TARGET_H
#define SAFECP_UNMOUNT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unmount/unmount.h"

/* One filesystem of a target. */
struct unmount_fs {
	struct unmount_mount m;  /* mount point, source, ids, block device */
	char devnode[128];       /* "/dev/loop3p1"; "" without a block device */
	char bdi[64];            /* accounts its dirty pages ("7:3", "btrfs-2") */
	char disk[64];           /* whole disk in /sys/block ("loop3") */
	unsigned disk_major, disk_minor;
	unsigned st_major, st_minor; /* st_dev of the mount point */
	bool unmounted;          /* outcome: the job unmounted it */
};

struct unmount_target {
	const char *arg;         /* as given (borrowed) */
	bool device_target;      /* a device node, LABEL= or UUID= */
	bool whole_disk;         /* ... that is a whole disk */
	char devnode[128];       /* the device target's node */
	unsigned dev_major, dev_minor;
	struct unmount_fs *fs;   /* innermost first */
	size_t n_fs;
	bool have_disk;          /* the disk to power off */
	unsigned disk_major, disk_minor;
	/* outcome */
	char disk_node[128];     /* the disk powered off ("/dev/sdb") */
	uint64_t bytes_written;  /* by the sync */
};

void unmount_target_done(struct unmount_target *t);

#endif
