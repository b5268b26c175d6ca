/* target_place.h: what kind of place a destination is.
 *
 * A copy meant for a stick that lands on the system disk (a /media/usb
 * that is not mounted, a typo) succeeds and looks like any other; the
 * card is then erased.  This module says where a target is, from its
 * block device and the disks the system stands on (sysdisk.h); the
 * command decides what to refuse. */
#ifndef SAFECP_TARGET_PLACE_H
#define SAFECP_TARGET_PLACE_H

#include <stdbool.h>

#include "device/sysdisk.h"
#include "device/target.h"

enum target_place {
	TARGET_REMOVABLE, /* the kernel's removable flag, or on USB, MMC,
			   * FireWire or Thunderbolt */
	TARGET_LOOP,      /* a loop device: an image the user attached (the
			   * simulated stick) */
	TARGET_FIXED,     /* a disk of its own, neither removable nor the
			   * system's */
	TARGET_SYSTEM,    /* "/", a system mount, or on a disk that holds
			   * "/" (kind says which) */
	TARGET_NO_DISK,   /* no block device: tmpfs, a network or FUSE
			   * filesystem without one (kind as for SYSTEM) */
};

struct target_placement {
	enum target_place place;
	enum sysdisk_kind kind; /* TARGET_SYSTEM: ROOT, SYSTEM or ROOT_DISK */
	bool removable;         /* place == TARGET_REMOVABLE */
};

/* Where t (from target_probe()) is.  0, or -errno when the system's own
 * mounts cannot be read (sysdisk_load()). */
int target_place(const struct target *t, struct target_placement *ret);

#endif
