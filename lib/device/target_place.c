/* target_place.c: a destination as removable, loop, fixed, system or no
 * disk (target_place.h).  No disk comes first (a tmpfs on /dev/shm is
 * memory, whatever directory holds it), then the system: a USB disk
 * that holds "/" (a live system on a stick) is the system's. */
#include "device/target_place.h"

#include <errno.h>

static bool on_removable_bus(const struct disk_facts *d)
{
	return d->removable || d->transport == TRANSPORT_USB || d->transport == TRANSPORT_MMC ||
	       d->transport == TRANSPORT_FIREWIRE || d->transport == TRANSPORT_THUNDERBOLT;
}

int target_place(const struct target *t, struct target_placement *ret)
{
	struct sysdisk sd;
	int r;

	*ret = (struct target_placement){ .place = TARGET_NO_DISK, .kind = SYSDISK_NONE };
	r = sysdisk_load(&sd);
	if (r < 0)
		return r;
	if (t->mountpoint)
		ret->kind = sysdisk_classify(&sd, t->mountpoint, t->has_block ? t->dev_major : 0,
					     t->has_block ? t->dev_minor : 0);
	if (!t->has_block)
		ret->place = TARGET_NO_DISK;
	else if (ret->kind >= SYSDISK_ROOT_DISK)
		ret->place = TARGET_SYSTEM;
	else if (on_removable_bus(&t->disk))
		ret->place = TARGET_REMOVABLE;
	else if (t->disk.transport == TRANSPORT_LOOP)
		ret->place = TARGET_LOOP;
	else
		ret->place = TARGET_FIXED;
	ret->removable = ret->place == TARGET_REMOVABLE;
	return 0;
}
