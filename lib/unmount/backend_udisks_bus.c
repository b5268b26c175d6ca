/* backend_udisks_bus.c: the udisks backend's round trips (see
 * backend_udisks_bus.h); the only includer of the D-Bus client headers.
 *
 * Why sd-bus (libsystemd): it is small, has no main loop to run (every
 * call here is one blocking round trip in the job's thread), needs no
 * systemd as PID 1, and honours DBUS_SYSTEM_BUS_ADDRESS.  GDBus would
 * bring GLib and its threads; libudisks2 brings GDBus and adds nothing
 * we use.  Every call passes auth.no_user_interaction, so a script gets
 * "not allowed" instead of a password prompt it cannot answer; a method
 * gets a long timeout, since the D-Bus default of 25 s is shorter than a
 * slow stick's last writes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "util/debug.h"
#include "base/grow.h"
#include "unmount/backend_udisks_bus.h"

#define UDISKS_PATH "/org/freedesktop/UDisks2"
#define UDISKS_ERROR "org.freedesktop.UDisks2.Error."

/* Long enough for any stick's last writes; a running unmount cannot be
 * stopped anyway (job.h). */
#define LONG_CALL_USEC (24ULL * 3600 * 1000000)

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

/* The options: ours, never interactive. */
int udisks_call(struct udisks *u, const char *path, const char *iface, const char *member,
		bool force, const char *action, char **ret_message)
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

void udisks_paths_free(char **paths, size_t n)
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
		udisks_paths_free(list, n);
		return r;
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

int udisks_resolve_objects(struct udisks *u, const char *key, const char *value, char ***ret,
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
int udisks_resolve_device(struct udisks *u, const char *key, const char *value, char **ret)
{
	char **list = NULL;
	size_t n = 0;
	int r = udisks_resolve_objects(u, key, value, &list, &n);

	*ret = NULL;
	if (r == 0) {
		*ret = list[0];
		list[0] = NULL;
	}
	udisks_paths_free(list, n);
	return r;
}

/* A property of type "o" ("/" is none: -ENOENT). */
int udisks_get_object(struct udisks *u, const char *path, const char *iface, const char *name,
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

int udisks_get_bool(struct udisks *u, const char *path, const char *iface, const char *name,
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
bool udisks_has_loop(struct udisks *u, const char *path)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint32_t uid = 0;
	int r = sd_bus_get_property_trivial(u->bus, UDISKS, path, UDISKS ".Loop", "SetupByUID", &e,
					    'u', &uid);

	sd_bus_error_free(&e);
	return r >= 0;
}

/* Block.Device (a NUL-terminated byte string) */
int udisks_get_device(struct udisks *u, const char *path, char **ret)
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
int udisks_get_devnum(struct udisks *u, const char *path, uint64_t *ret)
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
int udisks_lists_mount_point(struct udisks *u, const char *path, const char *mountpoint)
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

int udisks_bus_open(struct udisks *u, enum udisks_open_failure *ret_failed)
{
	int r;

	*ret_failed = UDISKS_OPEN_BUS;
	r = sd_bus_open_system(&u->bus);
	if (r >= 0) {
		*ret_failed = UDISKS_OPEN_PING;
		r = ping(u->bus);
	}
	if (r < 0) {
		sd_bus_flush_close_unref(u->bus);
		u->bus = NULL;
	}
	return r;
}

void udisks_bus_close(struct udisks *u)
{
	sd_bus_flush_close_unref(u->bus);
	u->bus = NULL;
}
