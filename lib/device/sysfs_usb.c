/* sysfs_usb.c: see sysfs_usb.h. */
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "device/sysfs_usb.h"
#include "util/sysroot.h"

static bool has(const char *dir, const char *name)
{
	char full[PATH_MAX];

	return sysroot_path(full, sizeof(full), "%s/%s", dir, name) == 0 &&
	       access(full, F_OK) == 0;
}

void sysfs_usb_device(const char *sysfs_path, char *buf, size_t size)
{
	char dir[PATH_MAX];
	char *slash;

	buf[0] = '\0';
	if (strlen(sysfs_path) >= sizeof(dir))
		return;
	strcpy(dir, sysfs_path);
	/* "/sys/devices" itself is no device */
	while ((slash = strrchr(dir, '/')) && slash > dir + strlen("/sys/devices")) {
		*slash = '\0';
		if (has(dir, "idVendor") && has(dir, "busnum") && has(dir, "devnum")) {
			if (strlen(dir) < size)
				strcpy(buf, dir);
			return;
		}
	}
}
