/* backend.h: what carries out the steps of an unmount job.
 *
 * The job (job.c) decides the order, the retries and when to stop; a
 * backend does each step's one operation.  unmount_backend_kernel() is
 * libmount, syncfs, sysfs and /proc (backend_kernel.c);
 * unmount_backend_udisks_open() has udisks2 do the privileged steps over
 * the system bus (backend_udisks.c); the unit tests use a fake one.  Every
 * op returns 0 or -errno unless it says otherwise; `data` is the
 * backend's own.  One job at a time uses a backend. */
#ifndef SAFECP_UNMOUNT_BACKEND_H
#define SAFECP_UNMOUNT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "unmount/holders.h"
#include "unmount/poweroff.h"
#include "unmount/syncer.h"
#include "unmount/target.h"

/* Why a service's op refused to act, or failed after it acted: it must
 * act on the device we resolved, and on nothing else. */
enum unmount_mismatch {
	UNMOUNT_MISMATCH_NONE = 0,
	UNMOUNT_MISMATCH_OTHER_DEVICE, /* its object has another device number (or,
					* at a power-off's run, another drive) than
					* ours: refused before acting */
	UNMOUNT_MISMATCH_NOT_ITS_MOUNT, /* it does not list our mount point for the
					 * device (another mount namespace):
					 * refused before acting */
	UNMOUNT_MISMATCH_STILL_MOUNTED, /* it said done, and our mount (its mount
					 * id) is still there: it unmounted
					 * something else */
};

struct unmount_backend {
	void *data;

	/* Sync: start syncing every filesystem of t in the background
	 * (*ret_sync is the backend's handle), with the figures of the
	 * moment it began; poll waits up to timeout_ms for the running
	 * round and reads the figures; again starts another round;
	 * sync_free lets go, also of a round still running (cancelled: its
	 * syncfs cannot be stopped and goes on alone, never holding the
	 * caller's process). */
	int (*sync_start)(const struct unmount_backend *be, const struct unmount_target *t,
			  void **ret_sync, struct syncer_figures *ret_first);
	int (*sync_poll)(const struct unmount_backend *be, void *sync, int timeout_ms,
			 struct syncer_figures *ret);
	int (*sync_again)(const struct unmount_backend *be, void *sync);
	void (*sync_free)(const struct unmount_backend *be, void *sync);

	/* Unmount mountpoint (lazily: MNT_DETACH); -EBUSY in use, -EINVAL
	 * not mounted.  *ret_message: the system's own text on failure, or
	 * NULL. */
	int (*unmount)(const struct unmount_backend *be, const char *mountpoint, bool lazy,
		       char **ret_message);

	/* Who keeps fs busy: processes, and the mounts below it (but those
	 * of t when t is not NULL, which the job unmounts itself). */
	int (*mount_holders)(const struct unmount_backend *be, const struct unmount_target *t,
			     const struct unmount_fs *fs, struct holder_list *ret,
			     char ***ret_submounts, size_t *ret_n_submounts);
	/* Who holds the block device: processes, other mount namespaces. */
	int (*device_holders)(const struct unmount_backend *be, const char *devnode,
			      unsigned major, unsigned minor, struct holder_list *ret);

	/* Release check, 1: whether the block device is still mounted in our
	 * own namespace (a bind mount, a second mount point): 1 with
	 * *ret_mountpoint malloc'd, 0 when not. */
	int (*mounted_here)(const struct unmount_backend *be, unsigned major, unsigned minor,
			    char **ret_mountpoint);
	/* Release check, 2: that nothing holds devnode any more, waiting up
	 * to wait_ms for a daemon to let go, and flush it.  -EBUSY held;
	 * -EACCES or -EPERM when it cannot be checked. */
	int (*release)(const struct unmount_backend *be, const char *devnode, int wait_ms);

	/* Power off: the plan for the disk major:minor (poweroff.h's flags),
	 * then its run. */
	int (*power_off_plan)(const struct unmount_backend *be, unsigned major, unsigned minor,
			      unsigned flags, struct poweroff_plan *ret);
	int (*power_off_run)(const struct unmount_backend *be, const struct poweroff_plan *p,
			     struct poweroff_result *ret);
	/* frees what power_off_plan filled */
	void (*power_off_plan_done)(const struct unmount_backend *be, struct poweroff_plan *p);

	/* Optional (NULL in the kernel backend).  A service that asks
	 * polkit: the action it refused in the op that last returned
	 * -EACCES (a fixed name, "org.freedesktop.udisks2...", or two
	 * separated by ", " when the service asks for one of them), or NULL. */
	const char *(*denied_action)(const struct unmount_backend *be);
	/* A LABEL=/UUID= tag the service knows, when libblkid cannot tell
	 * (a user cannot read the devices): 0 with every device node that
	 * has it in *ret_devnodes (malloc'd, *ret_n >= 1; free with
	 * blockid_devices_free), -ENOENT when none. */
	int (*resolve_tag)(const struct unmount_backend *be, const char *tag,
			   char ***ret_devnodes, size_t *ret_n);
	/* Optional: why the unmount or power-off run that last failed did
	 * (UNMOUNT_MISMATCH_NONE: for its -errno alone). */
	enum unmount_mismatch (*mismatch)(const struct unmount_backend *be);
};

/* libmount, syncfs in a thread (syncer.h), /proc, sysfs: this machine. */
const struct unmount_backend *unmount_backend_kernel(void);

/* Where opening the udisks backend failed. */
enum udisks_open_failure {
	UDISKS_OPEN_BUS,  /* no system bus to connect to */
	UDISKS_OPEN_PING, /* the bus is there; UDisks2 did not answer its ping
			   * (-ESRCH: not on the bus; a timeout; polkit or the
			   * bus's policy refused) */
};

/* udisks2 on the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured): the
 * unmount (Filesystem.Unmount), the power-off (Loop.Delete for a loop
 * device, else Drive.PowerOff where CanPowerOff) and tags
 * (Manager.ResolveDevice) by the daemon, never asking for a password;
 * the sync with progress, the holders and the release check as the
 * kernel backend does them.  -ESRCH when the bus has no UDisks2, another
 * -errno when there is no system bus to connect to. */
int unmount_backend_udisks_open(const struct unmount_backend **ret,
				enum udisks_open_failure *ret_failed);
/* NULL is fine */
void unmount_backend_udisks_close(const struct unmount_backend *be);

void unmount_strv_free(char **v, size_t n);

#endif
