/* backend_udisks.c: the unmount backend of a desktop user without root:
 * udisks2 does the privileged steps, over the system bus; the only
 * includer of the D-Bus client headers.
 *
 * Why sd-bus (libsystemd): it is small, has no main loop to run (every
 * call here is one blocking round trip in the job's thread), needs no
 * systemd as PID 1, and honours DBUS_SYSTEM_BUS_ADDRESS.  GDBus would
 * bring GLib and its threads; libudisks2 brings GDBus and adds nothing
 * we use.
 *
 * Objects are always looked up (Manager.ResolveDevice, Block.Drive),
 * never built from a device name.  Every call passes
 * auth.no_user_interaction, so a script gets "not allowed" instead of a
 * password prompt it cannot answer.  The sync with progress runs first,
 * as in the kernel backend (udisks' Unmount syncs inside the call, with
 * nothing to show), so Unmount finds little left to write; it still gets
 * a long timeout, since the D-Bus default of 25 s is shorter than a slow
 * stick's last writes.  The holders, the release check and the sync are
 * the kernel backend's: they need no privilege (a user sees its own
 * processes, and an estimate of the bytes left, doc/kernel.md 4.5). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "device/mount.h"
#include "device/mount_umount.h"
#include "util/debug.h"
#include "util/grow.h"
#include "unmount/backend.h"
#include "unmount/unmount.h"

#define UDISKS "org.freedesktop.UDisks2"
#define UDISKS_PATH "/org/freedesktop/UDisks2"
#define UDISKS_ERROR "org.freedesktop.UDisks2.Error."
#define POLKIT_PREFIX "org.freedesktop.udisks2."

/* Long enough for any stick's last writes; a running unmount cannot be
 * stopped anyway (job.h). */
#define LONG_CALL_USEC (24ULL * 3600 * 1000000)

struct udisks {
	struct unmount_backend be;
	sd_bus *bus;
	/* the action refused by the last -EACCES; udisks asks for
	 * power-off-drive-other-seat instead of power-off-drive when the drive
	 * is not on the caller's seat, and does not say which: both */
	const char *denied;
	enum unmount_mismatch mismatch; /* why the last op refused, or failed */
};

static struct udisks *ud(const struct unmount_backend *be)
{
	return be->data;
}

/* ---- calls -------------------------------------------------------------- */

static const char *const not_authorized[] = {
	UDISKS_ERROR "NotAuthorized", UDISKS_ERROR "NotAuthorizedCanObtain",
	UDISKS_ERROR "NotAuthorizedDismissed",
};

/* A udisks error as -errno; *ret_message gets the daemon's words. */
static int map_error(struct udisks *u, const sd_bus_error *e, int r, const char *action,
		     char **ret_message)
{
	if (ret_message && e->message)
		*ret_message = strdup(e->message);
	DEBUG(DEBUG_UNMOUNT, "udisks: %s: %s", e->name ? e->name : "?", e->message ? e->message : "");
	for (size_t i = 0; i < sizeof(not_authorized) / sizeof(*not_authorized); i++)
		if (sd_bus_error_has_name(e, not_authorized[i])) {
			u->denied = action;
			return -EACCES;
		}
	if (sd_bus_error_has_name(e, UDISKS_ERROR "DeviceBusy"))
		return -EBUSY;
	if (sd_bus_error_has_name(e, UDISKS_ERROR "NotMounted"))
		return -EINVAL;
	if (sd_bus_error_has_name(e, UDISKS_ERROR "Cancelled"))
		return -ECANCELED;
	if (sd_bus_error_has_name(e, UDISKS_ERROR "Timedout") ||
	    sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY) ||
	    sd_bus_error_has_name(e, SD_BUS_ERROR_TIMEOUT))
		return -ETIMEDOUT;
	if (e->name && strncmp(e->name, UDISKS_ERROR, strlen(UDISKS_ERROR)) == 0)
		return -EIO;
	return r < 0 ? r : -EIO;
}

/* A method that takes one a{sv} of options: ours, never interactive. */
static int call_with_options(struct udisks *u, const char *path, const char *iface,
			     const char *member, bool force, const char *action,
			     char **ret_message)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	int r;

	r = sd_bus_message_new_method_call(u->bus, &m, UDISKS, path, iface, member);
	if (r >= 0)
		r = force ? sd_bus_message_append(m, "a{sv}", 2, "auth.no_user_interaction", "b", 1,
						  "force", "b", 1)
			  : sd_bus_message_append(m, "a{sv}", 1, "auth.no_user_interaction", "b", 1);
	if (r >= 0) {
		DEBUG(DEBUG_UNMOUNT, "udisks: %s.%s on %s", iface, member, path);
		r = sd_bus_call(u->bus, m, LONG_CALL_USEC, &e, &reply);
		if (r < 0)
			r = map_error(u, &e, r, action, ret_message);
	}
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	sd_bus_message_unref(m);
	return r < 0 ? r : 0;
}

static void paths_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/* The object paths of the reply's array "ao", every one. */
static int read_objects(sd_bus_message *reply, char ***ret, size_t *ret_n)
{
	char **list = NULL;
	const char *path;
	size_t n = 0, cap = 0;
	int r = sd_bus_message_enter_container(reply, 'a', "o");

	while (r >= 0 && (r = sd_bus_message_read(reply, "o", &path)) > 0) {
		if (GROW(list, cap, n + 1, 4) < 0 || !(list[n] = strdup(path))) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	if (r < 0) {
		paths_free(list, n);
		return r;
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

/* Manager.ResolveDevice: the block objects of a device node, a label or
 * a UUID ("path", "label", "uuid"): every one (several sticks can share
 * a label), 0 with *ret malloc'd and *ret_n >= 1, -ENOENT when udisks
 * knows none. */
static int resolve_objects(struct udisks *u, const char *key, const char *value, char ***ret,
			   size_t *ret_n)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = sd_bus_message_new_method_call(u->bus, &m, UDISKS, UDISKS_PATH "/Manager",
					   UDISKS ".Manager", "ResolveDevice");
	if (r >= 0)
		r = sd_bus_message_append(m, "a{sv}a{sv}", 1, key, "s", value, 1,
					  "auth.no_user_interaction", "b", 1);
	if (r >= 0) {
		r = sd_bus_call(u->bus, m, 0, &e, &reply);
		if (r < 0)
			r = map_error(u, &e, r, NULL, NULL);
	}
	if (r >= 0)
		r = read_objects(reply, ret, ret_n);
	if (r >= 0 && *ret_n == 0)
		r = -ENOENT;
	DEBUG(DEBUG_UNMOUNT, "udisks: ResolveDevice %s=%s: %s (%zu object(s), %d)", key, value,
	      *ret_n ? (*ret)[0] : "none", *ret_n, r);
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	sd_bus_message_unref(m);
	return r;
}

/* The block object of a device node: the one object ResolveDevice gives
 * for a path. */
static int resolve_device(struct udisks *u, const char *key, const char *value, char **ret)
{
	char **list = NULL;
	size_t n = 0;
	int r = resolve_objects(u, key, value, &list, &n);

	*ret = NULL;
	if (r == 0) {
		*ret = list[0];
		list[0] = NULL;
	}
	paths_free(list, n);
	return r;
}

/* A property of type "o" ("/" is none: -ENOENT). */
static int get_object(struct udisks *u, const char *path, const char *iface, const char *name,
		      char **ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *o = NULL;
	int r;

	*ret = NULL;
	r = sd_bus_get_property(u->bus, UDISKS, path, iface, name, &e, &reply, "o");
	if (r >= 0)
		r = sd_bus_message_read(reply, "o", &o);
	if (r >= 0 && (!o || strcmp(o, "/") == 0))
		r = -ENOENT;
	if (r >= 0) {
		*ret = strdup(o);
		r = *ret ? 0 : -ENOMEM;
	}
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return r;
}

static int get_bool(struct udisks *u, const char *path, const char *iface, const char *name,
		    bool *ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int v = 0, r;

	r = sd_bus_get_property_trivial(u->bus, UDISKS, path, iface, name, &e, 'b', &v);
	sd_bus_error_free(&e);
	*ret = r >= 0 && v;
	return r < 0 ? r : 0;
}

/* Whether the object has the interface: udisks answers a property of an
 * interface the object lacks with an error. */
static bool has_loop(struct udisks *u, const char *path)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint32_t uid = 0;
	int r = sd_bus_get_property_trivial(u->bus, UDISKS, path, UDISKS ".Loop", "SetupByUID", &e,
					    'u', &uid);

	sd_bus_error_free(&e);
	return r >= 0;
}

/* Block.Device (a NUL-terminated byte string) */
static int get_device(struct udisks *u, const char *path, char **ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const void *p = NULL;
	size_t n = 0;
	int r;

	*ret = NULL;
	r = sd_bus_get_property(u->bus, UDISKS, path, UDISKS ".Block", "Device", &e, &reply, "ay");
	if (r >= 0)
		r = sd_bus_message_read_array(reply, 'y', &p, &n);
	if (r >= 0) {
		*ret = strndup(p ? p : "", n);
		r = *ret && (*ret)[0] ? 0 : *ret ? -ENOENT : -ENOMEM;
	}
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return r;
}

/* Block.DeviceNumber (t) */
static int get_devnum(struct udisks *u, const char *path, uint64_t *ret)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	*ret = 0;
	r = sd_bus_get_property_trivial(u->bus, UDISKS, path, UDISKS ".Block", "DeviceNumber", &e,
					't', ret);
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

/* Whether Filesystem.MountPoints (aay: NUL-terminated byte strings) holds
 * mountpoint: 1 yes, 0 no, -errno when it cannot be read. */
static int lists_mount_point(struct udisks *u, const char *path, const char *mountpoint)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const void *p;
	size_t n;
	int r, found = 0;

	r = sd_bus_get_property(u->bus, UDISKS, path, UDISKS ".Filesystem", "MountPoints", &e,
				&reply, "aay");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "ay");
	while (r >= 0 && !found && (r = sd_bus_message_read_array(reply, 'y', &p, &n)) > 0)
		found = strnlen(p, n) == strlen(mountpoint) &&
			memcmp(p, mountpoint, strlen(mountpoint)) == 0;
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return r < 0 ? r : found;
}

/* The block object is the device of the mount at mountpoint, and udisks
 * has it mounted there: else udisks would act on something else (a
 * source string names any device, and another mount namespace may mount
 * a device node's path over another one). */
static int check_mount_object(struct udisks *u, const char *block, unsigned maj,
			      unsigned min, const char *mountpoint)
{
	uint64_t dev;
	int r = get_devnum(u, block, &dev);

	if (r == 0 && dev != (uint64_t)makedev(maj, min)) {
		DEBUG(DEBUG_UNMOUNT, "udisks: %s is %u:%u, not %u:%u", block, major(dev),
		      minor(dev), maj, min);
		u->mismatch = UNMOUNT_MISMATCH_OTHER_DEVICE;
		r = -EXDEV;
	}
	if (r == 0 && (r = lists_mount_point(u, block, mountpoint)) == 0) {
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
	r = for_udisks(&m) ? resolve_device(u, "path", m.source, &block) : -ENOENT;
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
		r = call_with_options(u, block, UDISKS ".Filesystem", "Unmount", lazy,
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
	int r = get_devnum(u, p->service_block, &dev);

	if (r == 0 && dev != (uint64_t)makedev(p->major, p->minor))
		r = -EXDEV;
	if (r == 0 && p->method == POWEROFF_UDISKS_DRIVE) {
		r = get_object(u, p->service_block, UDISKS ".Block", "Drive", &drive);
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
	if (resolve_device(u, "path", ret->devnode, &block) < 0 ||
	    get_devnum(u, block, &dev) < 0 || dev != (uint64_t)makedev(ret->major, ret->minor)) {
		ret->refusal = POWEROFF_NO_DRIVE; /* none, or not the disk we planned */
	} else if (has_loop(u, block)) {
		ret->method = POWEROFF_UDISKS_LOOP;
		keep_object(ret->service_block, sizeof(ret->service_block), block, ret);
	} else if (get_object(u, block, UDISKS ".Block", "Drive", &drive) < 0 ||
		   get_bool(u, drive, UDISKS ".Drive", "CanPowerOff", &can) < 0 || !can) {
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
		r = call_with_options(u, p->service_block, UDISKS ".Loop", "Delete", false,
				      POLKIT_PREFIX "loop-delete-others", NULL);
	} else if (r == 0) {
		get_bool(u, p->service_block, UDISKS ".Block", "HintSystem", &system);
		r = call_with_options(u, p->service_drive, UDISKS ".Drive", "PowerOff", false,
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
		r = resolve_objects(u, "label", tag + 6, &blocks, &n);
	else if (strncmp(tag, "UUID=", 5) == 0)
		r = resolve_objects(u, "uuid", tag + 5, &blocks, &n);
	else
		r = -ENOENT;
	if (r == 0 && !(nodes = calloc(n, sizeof(*nodes))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		r = get_device(u, blocks[i], &nodes[i]);
	paths_free(blocks, n);
	if (r < 0) {
		paths_free(nodes, n);
		return r;
	}
	*ret_devnodes = nodes;
	*ret_n = n;
	return 0;
}

/* ---- open, close ------------------------------------------------------------ */

/* Peer.Ping: whether UDisks2 answers (starting it, where the bus can). */
static int ping(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_call_method(bus, UDISKS, UDISKS_PATH "/Manager", "org.freedesktop.DBus.Peer",
				   "Ping", &e, NULL, "");

	if (r < 0)
		DEBUG(DEBUG_UNMOUNT, "udisks: ping: %s", e.message ? e.message : strerror(-r));
	if (r < 0 && (sd_bus_error_has_name(&e, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
		      sd_bus_error_has_name(&e, SD_BUS_ERROR_NAME_HAS_NO_OWNER)))
		r = -ESRCH;
	sd_bus_error_free(&e);
	return r < 0 ? r : 0;
}

int unmount_backend_udisks_open(const struct unmount_backend **ret,
				enum udisks_open_failure *ret_failed)
{
	struct udisks *u = calloc(1, sizeof(*u));
	int r;

	*ret = NULL;
	*ret_failed = UDISKS_OPEN_BUS;
	if (!u)
		return -ENOMEM;
	r = sd_bus_open_system(&u->bus);
	if (r >= 0) {
		*ret_failed = UDISKS_OPEN_PING;
		r = ping(u->bus);
	}
	if (r < 0) {
		sd_bus_flush_close_unref(u->bus);
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
	sd_bus_flush_close_unref(u->bus);
	free(u);
}
