/* backend_udisks_bus.h: the udisks backend's round trips over the system
 * bus, one call each (backend_udisks_bus.c), below the backend's ops
 * (backend_udisks.c), which decide what to ask and check the answers.
 *
 * Every call blocks in the job's thread; every method call passes
 * auth.no_user_interaction.  A refusal by polkit comes back as -EACCES
 * with the action in u->denied. */
#ifndef SAFECP_UNMOUNT_BACKEND_UDISKS_BUS_H
#define SAFECP_UNMOUNT_BACKEND_UDISKS_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unmount/backend.h"

#define UDISKS "org.freedesktop.UDisks2"
#define POLKIT_PREFIX "org.freedesktop.udisks2."

struct sd_bus;

struct udisks {
	struct unmount_backend be;
	struct sd_bus *bus;
	/* the action refused by the last -EACCES; udisks asks for
	 * power-off-drive-other-seat instead of power-off-drive when the drive
	 * is not on the caller's seat, and does not say which: both */
	const char *denied;
	enum unmount_mismatch mismatch; /* why the last op refused, or failed */
};

/* The system bus, with UDisks2 answering on it (started where the bus
 * can): 0, or -errno with *ret_failed saying which step failed (-ESRCH:
 * nobody owns the name). */
int udisks_bus_open(struct udisks *u, enum udisks_open_failure *ret_failed);
void udisks_bus_close(struct udisks *u);

/* A method of iface on the object at path that takes one a{sv} of options
 * (with "force" when force); action: the polkit action to name when
 * refused; *ret_message (may be NULL) gets the daemon's words. */
int udisks_call(struct udisks *u, const char *path, const char *iface, const char *member,
		bool force, const char *action, char **ret_message);

/* Manager.ResolveDevice: the block objects of a device node, a label or
 * a UUID (key "path", "label", "uuid"): every one (several sticks can
 * share a label), 0 with *ret malloc'd and *ret_n >= 1, -ENOENT when
 * udisks knows none. */
int udisks_resolve_objects(struct udisks *u, const char *key, const char *value, char ***ret,
			   size_t *ret_n);
/* The one block object ResolveDevice gives for a device node. */
int udisks_resolve_device(struct udisks *u, const char *key, const char *value, char **ret);
void udisks_paths_free(char **paths, size_t n);

/* Properties of the object at path: one of type "o" ("/" is none:
 * -ENOENT), one of type "b". */
int udisks_get_object(struct udisks *u, const char *path, const char *iface, const char *name,
		      char **ret);
int udisks_get_bool(struct udisks *u, const char *path, const char *iface, const char *name,
		    bool *ret);
/* Whether the object is a loop device (has the Loop interface). */
bool udisks_has_loop(struct udisks *u, const char *path);
/* Block.Device: the device node (-ENOENT when empty). */
int udisks_get_device(struct udisks *u, const char *path, char **ret);
/* Block.DeviceNumber */
int udisks_get_devnum(struct udisks *u, const char *path, uint64_t *ret);
/* Whether Filesystem.MountPoints holds mountpoint: 1 yes, 0 no, -errno
 * when it cannot be read. */
int udisks_lists_mount_point(struct udisks *u, const char *path, const char *mountpoint);

#endif
