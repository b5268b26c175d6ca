/* backend_udisks.c: the unmount backend of a desktop user without root:
 * udisks2 does the privileged steps, over the system bus (the round trips
 * are backend_udisks_bus.c's); here, what to ask it and the checks that
 * it acts on the device we mean.
 *
 * Objects are always looked up (Manager.ResolveDevice, Block.Drive),
 * never built from a device name, and checked again against the device
 * numbers before each step.  The sync with progress runs first, as in the
 * kernel backend (udisks' Unmount syncs inside the call, with nothing to
 * show), so Unmount finds little left to write.  The holders, the release
 * check and the sync are the kernel backend's: they need no privilege (a
 * user sees its own processes, and an estimate of the bytes left,
 * doc/kernel.md 4.5). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/mount.h"
#include "device/mount_umount.h"
#include "util/debug.h"
#include "unmount/backend.h"
#include "unmount/backend_udisks_bus.h"
#include "unmount/unmount.h"

static struct udisks *ud(const struct unmount_backend *be)
{
	return be->data;
}

/* ---- checks --------------------------------------------------------------- */

/* The block object is the device of the mount at mountpoint, and udisks
 * has it mounted there: else udisks would act on something else (a
 * source string names any device, and another mount namespace may mount
 * a device node's path over another one). */
static int check_mount_object(struct udisks *u, const char *block, unsigned maj,
			      unsigned min, const char *mountpoint)
{
	uint64_t dev;
	int r = udisks_get_devnum(u, block, &dev);

	if (r == 0 && dev != (uint64_t)makedev(maj, min)) {
		DEBUG(DEBUG_UNMOUNT, "udisks: %s is %u:%u, not %u:%u", block, major(dev),
		      minor(dev), maj, min);
		u->mismatch = UNMOUNT_MISMATCH_OTHER_DEVICE;
		r = -EXDEV;
	}
	if (r == 0 && (r = udisks_lists_mount_point(u, block, mountpoint)) == 0) {
		DEBUG(DEBUG_UNMOUNT, "udisks: %s is not mounted on %s for udisks", block, mountpoint);
		u->mismatch = UNMOUNT_MISMATCH_NOT_ITS_MOUNT;
		r = -EXDEV;
	}
	return r < 0 ? r : 0;
}

/* Whether the mount mnt_id is still on mountpoint in our mountinfo (an id
 * alone may be given to a new mount). */
static bool still_mounted(int mnt_id, const char *mountpoint)
{
	struct mount_entry *list = NULL;
	size_t n = 0;
	bool found = false;

	if (mount_list(&list, &n) < 0)
		return true; /* cannot tell: not unmounted for all we know */
	for (size_t i = 0; i < n && !found; i++)
		found = list[i].id == mnt_id && strcmp(list[i].target, mountpoint) == 0;
	mount_list_free(list, n);
	return found;
}

/* Whether udisks may unmount m: it has a block device, named by a device
 * node; and not FUSE (a FUSE source string is whatever its daemon says,
 * fsname=/dev/sdc1), but fuseblk, which the kernel opened the block device
 * of (checked by its number, as any other). */
static bool for_udisks(const struct unmount_mount *m)
{
	if (!m->dev_major && !m->dev_minor)
		return false;
	if (strncmp(m->source, "/dev/", 5) != 0)
		return false;
	return strcmp(m->fstype, "fuse") != 0 && strncmp(m->fstype, "fuse.", 5) != 0;
}

/* ---- the ops -------------------------------------------------------------- */

/* A mount of one's own (an fstab user mount, FUSE) is unmounted directly,
 * as before; the rest by udisks, which knows only block devices. */
static int u_unmount(const struct unmount_backend *be, const char *mountpoint, bool lazy,
		     char **ret_message)
{
	struct udisks *u = ud(be);
	struct unmount_mount m = { 0 };
	char *block = NULL;
	int r;

	u->denied = NULL;
	u->mismatch = UNMOUNT_MISMATCH_NONE;
	if (geteuid() != 0 && mount_umount(mountpoint, MOUNT_UMOUNT_CHECK, NULL) == 0)
		return unmount_backend_kernel()->unmount(be, mountpoint, lazy, ret_message);
	r = unmount_mount_at(mountpoint, &m);
	if (r < 0)
		return r;
	r = for_udisks(&m) ? udisks_resolve_device(u, "path", m.source, &block) : -ENOENT;
	if (r == -ENOENT) {
		unmount_mount_done(&m);
		return unmount_backend_kernel()->unmount(be, mountpoint, lazy, ret_message);
	}
	/* the superblock's own device, where it has one (btrfs' is anonymous,
	 * major 0), must be the one the source names here too */
	if (r == 0 && m.sb_major && (m.sb_major != m.dev_major || m.sb_minor != m.dev_minor)) {
		DEBUG(DEBUG_UNMOUNT, "udisks: %s is %u:%u, its source %s %u:%u", mountpoint,
		      m.sb_major, m.sb_minor, m.source, m.dev_major, m.dev_minor);
		u->mismatch = UNMOUNT_MISMATCH_OTHER_DEVICE;
		r = -EXDEV;
	}
	if (r == 0)
		r = check_mount_object(u, block, m.dev_major, m.dev_minor, mountpoint);
	if (r == 0)
		r = udisks_call(u, block, UDISKS ".Filesystem", "Unmount", lazy,
				POLKIT_PREFIX "filesystem-unmount-others", ret_message);
	if (r == 0 && still_mounted(m.mnt_id, mountpoint)) {
		DEBUG(DEBUG_UNMOUNT, "udisks: Unmount of %s returned, mount %d is still there",
		      block, m.mnt_id);
		u->mismatch = UNMOUNT_MISMATCH_STILL_MOUNTED;
		r = -EIO;
	}
	unmount_mount_done(&m);
	free(block);
	return r;
}

/* An object path into the plan, for the run; one too long for it: no
 * drive udisks can power off. */
static void keep_object(char *buf, size_t size, const char *path, struct poweroff_plan *p)
{
	if ((size_t)snprintf(buf, size, "%s", path) >= size) {
		p->method = POWEROFF_NONE;
		p->refusal = POWEROFF_NO_DRIVE;
	}
}

/* The plan's objects at the run: still the planned disk (its device
 * number) and drive, else the run would power off what took the name. */
static int check_plan_objects(struct udisks *u, const struct poweroff_plan *p)
{
	char *drive = NULL;
	uint64_t dev;
	int r = udisks_get_devnum(u, p->service_block, &dev);

	if (r == 0 && dev != (uint64_t)makedev(p->major, p->minor))
		r = -EXDEV;
	if (r == 0 && p->method == POWEROFF_UDISKS_DRIVE) {
		r = udisks_get_object(u, p->service_block, UDISKS ".Block", "Drive", &drive);
		if (r == 0 && strcmp(drive, p->service_drive) != 0)
			r = -EXDEV;
		if (r == -ENOENT)
			r = -EXDEV;
	}
	if (r == -EXDEV) {
		DEBUG(DEBUG_UNMOUNT, "udisks: %s is no longer %u:%u on drive %s (now %u:%u on %s)",
		      p->service_block, p->major, p->minor, p->service_drive, major(dev),
		      minor(dev), drive ? drive : "none");
		u->mismatch = UNMOUNT_MISMATCH_OTHER_DEVICE;
	}
	free(drive);
	return r;
}

/* The kernel's plan (the devices that go, who holds them), with udisks'
 * say on how: a loop device is deleted, a drive powered off where udisks
 * can (CanPowerOff: USB), anything else refused. */
static int u_power_off_plan(const struct unmount_backend *be, unsigned major, unsigned minor,
			    unsigned flags, struct poweroff_plan *ret)
{
	struct udisks *u = ud(be);
	char *block = NULL, *drive = NULL;
	uint64_t dev = 0;
	bool can = false;
	int r = poweroff_plan_make(major, minor, flags, ret);

	if (r < 0)
		return r;
	if (udisks_resolve_device(u, "path", ret->devnode, &block) < 0 ||
	    udisks_get_devnum(u, block, &dev) < 0 || dev != (uint64_t)makedev(ret->major, ret->minor)) {
		ret->refusal = POWEROFF_NO_DRIVE; /* none, or not the disk we planned */
	} else if (udisks_has_loop(u, block)) {
		ret->method = POWEROFF_UDISKS_LOOP;
		keep_object(ret->service_block, sizeof(ret->service_block), block, ret);
	} else if (udisks_get_object(u, block, UDISKS ".Block", "Drive", &drive) < 0 ||
		   udisks_get_bool(u, drive, UDISKS ".Drive", "CanPowerOff", &can) < 0 || !can) {
		ret->refusal = POWEROFF_NO_DRIVE;
	} else if (ret->refusal == POWEROFF_OK || ret->refusal == POWEROFF_MOUNTED ||
		   ret->refusal == POWEROFF_HELD) {
		/* udisks does the power-off; who holds it stays ours to tell */
		ret->method = POWEROFF_UDISKS_DRIVE;
		keep_object(ret->service_block, sizeof(ret->service_block), block, ret);
		keep_object(ret->service_drive, sizeof(ret->service_drive), drive, ret);
	}
	/* else the kernel's refusal stands (a fixed disk, no method, an
	 * internal reader without POWEROFF_FORCE): CanPowerOff does not
	 * overrule what we never power off */
	DEBUG(DEBUG_UNMOUNT, "udisks: power-off plan of %s: method %s, refusal %d, drive %s",
	      ret->devnode, poweroff_method_name(ret->method), (int)ret->refusal,
	      drive ? drive : "none");
	free(block);
	free(drive);
	return 0;
}

static int u_power_off_run(const struct unmount_backend *be, const struct poweroff_plan *p,
			   struct poweroff_result *ret)
{
	struct udisks *u = ud(be);
	bool system = false;
	int r;

	u->denied = NULL;
	u->mismatch = UNMOUNT_MISMATCH_NONE;
	*ret = (struct poweroff_result){ .sync_cache = -ENOTTY, .stop_unit = -ENOTTY,
					 .failed_step = POWEROFF_STEP_DETACH };
	snprintf(ret->failed_dev, sizeof(ret->failed_dev), "%s", p->devnode);
	r = check_plan_objects(u, p);
	if (r == 0 && p->method == POWEROFF_UDISKS_LOOP) {
		r = udisks_call(u, p->service_block, UDISKS ".Loop", "Delete", false,
				POLKIT_PREFIX "loop-delete-others", NULL);
	} else if (r == 0) {
		udisks_get_bool(u, p->service_block, UDISKS ".Block", "HintSystem", &system);
		r = udisks_call(u, p->service_drive, UDISKS ".Drive", "PowerOff", false,
				system ? POLKIT_PREFIX "power-off-drive-system"
				       : POLKIT_PREFIX "power-off-drive, " POLKIT_PREFIX
						       "power-off-drive-other-seat",
				NULL);
	}
	if (r == 0)
		ret->inflight_drained = true;
	return r;
}

static enum unmount_mismatch u_mismatch(const struct unmount_backend *be)
{
	return ud(be)->mismatch;
}

static const char *u_denied_action(const struct unmount_backend *be)
{
	return ud(be)->denied;
}

static int u_resolve_tag(const struct unmount_backend *be, const char *tag, char ***ret_devnodes,
			 size_t *ret_n)
{
	struct udisks *u = ud(be);
	char **blocks = NULL, **nodes = NULL;
	size_t n = 0;
	int r;

	*ret_devnodes = NULL;
	*ret_n = 0;
	if (strncmp(tag, "LABEL=", 6) == 0)
		r = udisks_resolve_objects(u, "label", tag + 6, &blocks, &n);
	else if (strncmp(tag, "UUID=", 5) == 0)
		r = udisks_resolve_objects(u, "uuid", tag + 5, &blocks, &n);
	else
		r = -ENOENT;
	if (r == 0 && !(nodes = calloc(n, sizeof(*nodes))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		r = udisks_get_device(u, blocks[i], &nodes[i]);
	udisks_paths_free(blocks, n);
	if (r < 0) {
		udisks_paths_free(nodes, n);
		return r;
	}
	*ret_devnodes = nodes;
	*ret_n = n;
	return 0;
}

/* ---- open, close ------------------------------------------------------------ */

int unmount_backend_udisks_open(const struct unmount_backend **ret,
				enum udisks_open_failure *ret_failed)
{
	struct udisks *u = calloc(1, sizeof(*u));
	int r;

	*ret = NULL;
	*ret_failed = UDISKS_OPEN_BUS;
	if (!u)
		return -ENOMEM;
	r = udisks_bus_open(u, ret_failed);
	if (r < 0) {
		free(u);
		return r;
	}
	u->be = *unmount_backend_kernel();
	u->be.data = u;
	u->be.unmount = u_unmount;
	u->be.power_off_plan = u_power_off_plan;
	u->be.power_off_run = u_power_off_run;
	u->be.denied_action = u_denied_action;
	u->be.resolve_tag = u_resolve_tag;
	u->be.mismatch = u_mismatch;
	*ret = &u->be;
	return 0;
}

void unmount_backend_udisks_close(const struct unmount_backend *be)
{
	struct udisks *u;

	if (!be)
		return;
	u = ud(be);
	udisks_bus_close(u);
	free(u);
}
