/* target.c: target_probe(), one answer to "where does this path's data
 * go": its mount, block device, disk, bdi and facts (doc/kernel.md 4.2, 5).
 *
 * From the mount (mount.c) to the block device, by filesystem family:
 * - block fs (ext4, xfs, vfat, exfat, f2fs): mountinfo MAJ:MIN is the
 *   device; the bdi is the whole disk's (fs/super.c setup_bdev_super).
 * - btrfs: mountinfo MAJ:MIN is an anonymous 0:NN (and st_dev differs
 *   again per subvolume), so the device comes from the mount source's
 *   name, and the bdi is the fs's own "btrfs-N" found through
 *   /sys/fs/btrfs/FSID/devices/NAME and FSID/bdi (super_setup_bdi).
 * - fuseblk (exfat-fuse, ntfs-3g): MAJ:MIN is the real device.  The fs
 *   has a private bdi "MAJ:MIN-fuseblk" (fs/fuse/inode.c fuse_bdi_init),
 *   but the daemon writes through the block device's page cache, so the
 *   dirty data is accounted on the disk's bdi: bdi = disk, fs_bdi = own.
 * - anything else with a 0:NN device and no block device behind its
 *   source (tmpfs, nfs, overlay, fuse) is FS_NOBLOCK / FS_FUSE, with the
 *   fs's own bdi when one is registered under its MAJ:MIN.
 * Names (label, uuid, type) come from libblkid, only with the real root
 * and only when the node is readable; their absence is not an error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/blockid.h"
#include "base/cleanup.h"
#include "util/debug.h"
#include "device/mount.h"
#include "device/sysfs_disk.h"
#include "util/sysroot.h"
#include "device/target.h"

DEFINE_CLEANUP_FUNC(struct target, target_free)

void target_free(struct target *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->mountpoint);
	free(t->fstype);
	free(t->source);
	free(t->mount_options);
	free(t->fs_root);
	free(t->label);
	free(t->uuid);
	free(t->blkid_fstype);
	free(t);
}

static int copy_mount(struct target *t, const struct mount_entry *m)
{
	t->mountpoint = strdup(m->target);
	t->fstype = strdup(m->fstype);
	t->source = strdup(m->source);
	t->mount_options = strdup(m->options);
	t->fs_root = strdup(m->root);
	if (!t->mountpoint || !t->fstype || !t->source || !t->mount_options || !t->fs_root)
		return -ENOMEM;
	t->fs_major = m->major;
	t->fs_minor = m->minor;
	t->kind = fs_kind_from_name(t->fstype);
	return 0;
}

/* The block device a mount's source names: "/dev/loop2" -> 7:2. */
static int source_devt(const char *source, unsigned *ret_major, unsigned *ret_minor)
{
	char name[256];
	int r;

	if (!source || source[0] != '/')
		return -ENODEV;
	r = sysfs_name_of_node(source, name, sizeof(name));
	if (r < 0)
		return r;
	r = sysfs_devt_of_name(name, ret_major, ret_minor);
	DEBUG(DEBUG_TARGET, "source '%s' is block device '%s': %s", source, name,
	      r < 0 ? strerror(-r) : "found");
	return r;
}

/* A non-block fs may have a bdi of its own registered under s_dev
 * (nfs, fuse: "0:53"); tmpfs and overlay have none. */
static void set_own_bdi(struct target *t)
{
	char name[32];

	snprintf(name, sizeof(name), "%u:%u", t->fs_major, t->fs_minor);
	if (sysfs_bdi_exists(name)) {
		snprintf(t->bdi, sizeof(t->bdi), "%s", name);
		snprintf(t->fs_bdi, sizeof(t->fs_bdi), "%s", name);
	}
}

static int resolve_btrfs(struct target *t)
{
	unsigned maj, min;
	int r;

	r = source_devt(t->source, &maj, &min);
	if (r < 0)
		return r;
	r = sysfs_fill_device(t, maj, min);
	if (r < 0)
		return r;
	r = sysfs_btrfs_bdi(t->devname, t->bdi, sizeof(t->bdi));
	if (r < 0) {
		/* the disk's bdi would be wrong for dirty accounting: none */
		DEBUG(DEBUG_TARGET, "btrfs on %s: no /sys/fs/btrfs entry, bdi unknown", t->devname);
		t->bdi[0] = '\0';
	}
	memcpy(t->fs_bdi, t->bdi, sizeof(t->fs_bdi));
	return 0;
}

static int resolve_block(struct target *t)
{
	unsigned maj = t->fs_major, min = t->fs_minor;
	int r;

	if (t->kind == FS_BTRFS)
		return resolve_btrfs(t);
	if (maj == 0) {
		/* an unknown fs on an anonymous dev: block only if its
		 * source is a block device */
		r = source_devt(t->source, &maj, &min);
		if (r < 0)
			return r;
	}
	r = sysfs_fill_device(t, maj, min);
	if (r < 0)
		return r;
	if (t->kind == FS_FUSEBLK)
		snprintf(t->fs_bdi, sizeof(t->fs_bdi), "%u:%u-fuseblk", t->fs_major, t->fs_minor);
	else if (t->fs_major == 0)
		set_own_bdi(t);
	return 0;
}

const char *target_fs_name(const struct target *t)
{
	return t->kind == FS_FUSEBLK && t->blkid_fstype ? t->blkid_fstype : t->fstype;
}

static int probe_names(struct target *t)
{
	struct blockid b = { 0 };
	int r;

	if (!t->has_block || !sysroot_is_real())
		return 0;
	r = blockid_probe(t->devnode, &b);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0; /* no permission: the names stay unknown */
	t->label = TAKE_PTR(b.label);
	t->uuid = TAKE_PTR(b.uuid);
	t->blkid_fstype = TAKE_PTR(b.fstype);
	return 0;
}

static void classify(struct target *t)
{
	int r;

	if (t->kind == FS_NOBLOCK || t->kind == FS_FUSE) {
		set_own_bdi(t);
		return;
	}
	r = resolve_block(t);
	if (r < 0 && !t->has_block) {
		DEBUG(DEBUG_TARGET, "'%s' (%s on %s): no block device: %s", t->mountpoint,
		      t->fstype, t->source, strerror(-r));
		if (t->kind == FS_OTHER)
			t->kind = FS_NOBLOCK;
		set_own_bdi(t);
	}
}

static int probe_mount(const char *path, const struct mount_entry *m, struct target **ret)
{
	_cleanup_(target_freep) struct target *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	if (path) {
		t->path = strdup(path);
		if (!t->path)
			return -ENOMEM;
	}
	r = copy_mount(t, m);
	if (r < 0)
		return r;
	classify(t);
	r = probe_names(t);
	if (r < 0)
		return r;
	DEBUG(DEBUG_TARGET, "'%s': %s on %s, kind %s, %s, bdi '%s', fs bdi '%s'",
	      path ? path : t->mountpoint, t->fstype, t->mountpoint, fs_kind_name(t->kind),
	      t->has_block ? t->devname : "no block device", t->bdi, t->fs_bdi);
	*ret = TAKE_PTR(t);
	return 0;
}

int target_probe(const char *path, struct target **ret)
{
	struct mount_entry m = { 0 };
	int r;

	if (!path || !ret)
		return -EINVAL;
	r = mount_find_for_path(path, &m);
	if (r < 0)
		return r;
	r = probe_mount(path, &m, ret);
	mount_entry_done(&m);
	return r;
}

int target_probe_mount(const struct mount_entry *m, struct target **ret)
{
	if (!m || !m->target || !ret)
		return -EINVAL;
	return probe_mount(NULL, m, ret);
}

int target_probe_blockdev(unsigned major, unsigned minor, struct target **ret)
{
	_cleanup_(target_freep) struct target *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	r = sysfs_fill_device(t, major, minor);
	if (r < 0)
		return r;
	r = probe_names(t);
	if (r < 0)
		return r;
	t->kind = t->blkid_fstype ? fs_kind_from_name(t->blkid_fstype) : FS_OTHER;
	*ret = TAKE_PTR(t);
	return 0;
}

int target_probe_devname(const char *name, struct target **ret)
{
	char kname[256];
	unsigned maj, min;
	int r;

	if (!name || !ret)
		return -EINVAL;
	r = sysfs_name_of_node(name, kname, sizeof(kname));
	if (r < 0)
		return r;
	r = sysfs_devt_of_name(kname, &maj, &min);
	if (r < 0)
		return r;
	return target_probe_blockdev(maj, min, ret);
}
