/* guard.c: the refusals that protect the running system.
 *
 * device/sysdisk.c has the facts.  Whatever the target's form, "/" and
 * the disk that holds it are never unmounted or powered off; the other
 * system mounts, anything else on the root disk, and a disk with active
 * swap need the system option.  They run on the target's filesystems, so
 * a device, a whole disk, LABEL= and UUID= are judged like a path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device/sysdisk.h"
#include "unmount/poweroff.h"
#include "unmount/resolve.h"

static const char *fs_device(const struct unmount_fs *fs)
{
	return fs->devnode[0] ? fs->devnode : fs->m.source;
}

/* One filesystem's guard; o->system lifts all but the root's. */
static int guard_fs(const struct unmount_resolve_options *o, const struct sysdisk *sd,
		    const struct unmount_fs *fs, struct unmount_refusal *ret)
{
	const char *mp = fs->m.mountpoint, *dev = fs_device(fs);
	enum sysdisk_kind k = sysdisk_classify(sd, mp, fs->m.dev_major, fs->m.dev_minor);
	const struct sysdisk_swap *sw;

	switch (k) {
	case SYSDISK_NONE:
		return 0;
	case SYSDISK_ROOT:
		return unmount_refuse(ret, UNMOUNT_REFUSAL_ROOT, 0, mp, dev, NULL, NULL);
	default:
		break;
	}
	if (o->system)
		return 0;
	if (k == SYSDISK_SYSTEM)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_SYSTEM, 0, mp, dev, NULL, NULL);
	if (k == SYSDISK_ROOT_DISK)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_ROOT_DISK, 0, mp, dev, NULL, NULL);
	sw = sysdisk_swap_of_dev(sd, fs->m.dev_major, fs->m.dev_minor);
	return unmount_refuse(ret, UNMOUNT_REFUSAL_SWAP_DISK, 0, mp, dev, sw ? sw->name : NULL, NULL);
}

/* The disk that holds "/": never as a whole, never powered off. */
static int guard_root_disk(const struct unmount_resolve_options *o, const struct sysdisk *sd,
			   const struct unmount_target *t, struct unmount_refusal *ret)
{
	if (!t->have_disk || !sysdisk_holds_root(sd, t->disk_major, t->disk_minor))
		return 0;
	if (t->whole_disk)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_WHOLE_ROOT_DISK, 0, t->arg, NULL, NULL,
				      sd->root_source);
	if (o->power_off)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_POWER_OFF_ROOT, 0, t->arg, NULL, NULL,
				      sd->root_source);
	return 0;
}

static int load(struct sysdisk *sd, struct unmount_refusal *ret)
{
	int r = sysdisk_load(sd);

	return r < 0 ? unmount_refuse(ret, UNMOUNT_REFUSAL_MOUNT_TABLE, r, NULL, NULL, NULL, NULL) : 0;
}

int unmount_guard(const struct unmount_resolve_options *o, const struct unmount_target *t,
		  struct unmount_refusal *ret)
{
	struct sysdisk sd;
	int r;

	r = load(&sd, ret);
	/* "/" first: of all the reasons, that one must be heard */
	for (size_t i = 0; i < t->n_fs && r == 0; i++)
		if (strcmp(t->fs[i].m.mountpoint, "/") == 0)
			r = guard_fs(o, &sd, &t->fs[i], ret);
	if (r == 0)
		r = guard_root_disk(o, &sd, t, ret);
	for (size_t i = 0; i < t->n_fs && r == 0; i++)
		r = guard_fs(o, &sd, &t->fs[i], ret);
	return r;
}

/* Every disk that goes with the power-off (the other slots of a USB card
 * reader too): none may hold "/", none may have active swap. */
int unmount_guard_power_off(const struct unmount_target *t, const struct poweroff_plan *p,
			    struct unmount_refusal *ret)
{
	const struct sysdisk_swap *sw = NULL;
	struct sysdisk sd;
	int r;

	r = load(&sd, ret);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->n_devs; i++) {
		if (!p->devs[i].is_disk)
			continue;
		if (sysdisk_holds_root(&sd, p->devs[i].major, p->devs[i].minor))
			return unmount_refuse(ret, UNMOUNT_REFUSAL_POWER_OFF_ROOT_WITH, 0, p->devnode,
					      NULL, p->devs[i].devnode, sd.root_source);
		if (!sw)
			sw = sysdisk_swap_on(&sd, p->devs[i].major, p->devs[i].minor);
	}
	if (!sw)
		return 0;
	return unmount_refuse(ret, UNMOUNT_REFUSAL_POWER_OFF_SWAP, -EBUSY, t->arg, NULL, sw->name, NULL);
}
