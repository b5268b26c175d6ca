/* poweroff.h: make a disk safe to pull and detach it, as udisks' "Power
 * Off" does (doc/kernel.md 7).
 *
 *	poweroff_plan_make(major, minor, 0, &plan);   what, how, and why not
 *	if (plan.refusal == POWEROFF_OK)
 *		poweroff_run(&plan, &result);
 *	poweroff_plan_done(&plan);
 *
 * The plan covers the disk, its partitions and, on USB, every other disk
 * of the same USB device (a card reader's other slots go away with it).
 * The run: O_EXCL open and fsync of every one of those block devices
 * (which also proves none is mounted or held, race-free), SYNCHRONIZE
 * CACHE(10) and START STOP UNIT through SG_IO with failures ignored (USB
 * disks that reject them are common), a wait for the disk's inflight
 * counters to read 0 0, then the detach. */
#ifndef SAFECP_POWEROFF_H
#define SAFECP_POWEROFF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "device/target.h"

enum poweroff_method {
	POWEROFF_NONE = 0, /* no way to detach this kind of disk (nvme, virtio) */
	POWEROFF_LOOP,     /* LOOP_CLR_FD: the simulated stick */
	POWEROFF_USB,      /* "1" to the usb_device's remove: the port goes off */
	POWEROFF_SCSI,     /* "1" to device/delete: sd_remove */
	POWEROFF_MMC,      /* unbind the card from mmcblk: an internal reader */
	/* by udisks (backend_udisks.c): */
	POWEROFF_UDISKS_LOOP,  /* Loop.Delete */
	POWEROFF_UDISKS_DRIVE, /* Drive.PowerOff */
};

/* "none", "loop", "usb", "scsi", "mmc", "udisks-loop", "udisks-drive" */
const char *poweroff_method_name(enum poweroff_method m);

enum poweroff_refusal {
	POWEROFF_OK = 0,
	POWEROFF_MOUNTED,         /* blocker is mounted on blocker_where */
	POWEROFF_HELD,            /* blocker is held by blocker_where (dm-0) */
	POWEROFF_INTERNAL_READER, /* an SD card in a built-in reader: it may not
				   * come back until reboot; POWEROFF_FORCE */
	POWEROFF_NO_METHOD,       /* method is POWEROFF_NONE (nvme, virtio) */
	POWEROFF_FIXED_DISK,      /* SCSI, SATA, FireWire or Thunderbolt:
				   * could be deleted (method SCSI), but it is
				   * not a drive one unplugs by hand; never */
	POWEROFF_NO_DRIVE,        /* udisks: neither a loop device nor a drive
				   * it can power off (CanPowerOff false) */
};

enum poweroff_flags {
	POWEROFF_FORCE = 1 << 0,         /* allow POWEROFF_INTERNAL_READER */
	POWEROFF_IGNORE_MOUNTS = 1 << 1, /* plan ahead of the caller's unmounts */
};

struct poweroff_dev {
	char name[64];     /* "loop3p1" */
	char devnode[80];  /* "/dev/loop3p1" */
	unsigned major, minor;
	bool is_disk;
};

struct poweroff_plan {
	char disk[64];              /* kernel name of the disk: "sdb", "loop3" */
	char devnode[80];
	unsigned major, minor;
	/* every block device that goes away: the disk first, then its
	 * partitions, then sibling disks on the same USB device and theirs */
	struct poweroff_dev *devs;
	size_t n_devs, cap_devs;
	enum poweroff_method method;
	/* sysfs attribute (below the sysroot) and what is written to it:
	 * "1" for remove/delete, the card's name for mmc unbind; "" for loop */
	char detach_path[PATH_MAX];
	char detach_value[64];
	enum transport transport;         /* the bus, for the refusal's words */
	enum poweroff_refusal refusal;
	char blocker[80];                 /* the device node in the way */
	char blocker_where[PATH_MAX];     /* its mount point, or its holder */
	/* udisks' objects of the plan (backend_udisks.c), checked again by
	 * the run: the block device of the disk, its drive ("" for a loop) */
	char service_block[256];
	char service_drive[256];
};

/* Plan for the disk of the block device major:minor (a partition stands
 * for its disk).  Only USB and loop devices are powered off, and an SD card
 * in a built-in reader with POWEROFF_FORCE (as udisks: it powers off USB
 * drives only); any other disk is refused (FIXED_DISK, NO_METHOD) before
 * mounts and holders are looked at, so that freeing it is never advised.  0 with the plan filled, refusal included; -ENOENT when
 * sysfs knows no such device. */
int poweroff_plan_make(unsigned major, unsigned minor, unsigned flags,
		       struct poweroff_plan *ret);
void poweroff_plan_done(struct poweroff_plan *p);

enum poweroff_step {
	POWEROFF_STEP_FLUSH,    /* O_EXCL open and fsync */
	POWEROFF_STEP_INFLIGHT, /* waiting for inflight 0 0 */
	POWEROFF_STEP_DETACH,
	POWEROFF_STEP_GONE,     /* waiting for the device to disappear */
};

struct poweroff_result {
	int sync_cache;          /* SYNCHRONIZE CACHE: 0 GOOD, else -errno (ignored) */
	int stop_unit;           /* START STOP UNIT, likewise */
	bool inflight_drained;   /* inflight read 0 0 before the detach */
	enum poweroff_step failed_step; /* when poweroff_run failed */
	char failed_dev[80];     /* the device node of a failed step */
};

/* Carry out a plan with refusal POWEROFF_OK.  The real root only
 * (device nodes are opened).  0 when the disk is gone; -EBUSY when a
 * device could not be opened exclusively after all (failed_dev); other
 * -errno with failed_step. */
int poweroff_run(const struct poweroff_plan *p, struct poweroff_result *ret);

/* The detach write alone, for tests on a copied sysroot: writes
 * p->detach_value to p->detach_path below the sysroot. */
int poweroff_detach_sysfs(const struct poweroff_plan *p);

#endif
