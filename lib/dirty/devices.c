/* devices.c: list the disks and the bdis their mounted filesystems dirty.
 *
 * Algorithm: read every /sys/block entry with a nonzero size into an
 * entry keyed by (disk, the disk's own bdi).  Then walk the mount table;
 * for each mount of a block-backed filesystem, target_probe_mount() its entry
 * point, which resolves partition -> disk and the bdi rules of doc/kernel.md
 * 4.2 (btrfs-N, fuseblk on the underlying disk), and attach the mount to
 * the entry with the same (disk, bdi), cloning the disk's entry for a bdi
 * it has not seen.  Last, a disk's own-bdi entry is dropped when the disk
 * has mounts and none of them dirties that bdi, so a btrfs stick shows
 * once, under btrfs-N, with its mount point. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "dirty/devices.h"
#include "device/fs_traits.h"
#include "device/mount.h"
#include "base/grow.h"
#include "util/parse.h"
#include "util/sysroot.h"
#include "device/target.h"

struct entries {
	struct device_entry *v;
	size_t n, cap;
};

void device_entry_done(struct device_entry *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_mountpoints; i++)
		free(e->mountpoints[i]);
	free(e->mountpoints);
	free(e->fstype);
	e->mountpoints = NULL;
	e->n_mountpoints = e->cap_mountpoints = 0;
	e->fstype = NULL;
}

void devices_list_free(struct device_entry *list, size_t n)
{
	if (!list)
		return;
	for (size_t i = 0; i < n; i++)
		device_entry_done(&list[i]);
	free(list);
}

/* e's figures and names without its mounts and fstype, which it owns. */
static struct device_entry entry_bare(const struct device_entry *e)
{
	struct device_entry b = *e;

	b.mountpoints = NULL;
	b.n_mountpoints = b.cap_mountpoints = 0;
	b.fstype = NULL;
	return b;
}

static int entries_push(struct entries *es, const struct device_entry *e)
{
	if (GROW(es->v, es->cap, es->n + 1, 16) < 0)
		return -ENOMEM;
	es->v[es->n++] = *e;
	return 0;
}

/* Append fstype to a comma-joined set unless already there.  A string
 * grown to its exact length, not an array (base/grow.h): a device has one
 * or two filesystem types, so doubling would buy nothing. */
static int fstype_add(char **set, const char *fstype)
{
	size_t len = strlen(fstype);
	char *grown;

	if (!*set) {
		*set = strdup(fstype);
		return *set ? 0 : -ENOMEM;
	}
	for (const char *p = *set; p; p = strchr(p, ',')) {
		p += (*p == ',');
		if (strncmp(p, fstype, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return 0;
	}
	grown = realloc(*set, strlen(*set) + len + 2);
	if (!grown)
		return -ENOMEM;
	strcat(strcat(grown, ","), fstype);
	*set = grown;
	return 0;
}

static int entry_add_mount(struct device_entry *e, const char *mountpoint, const char *fstype)
{
	if (GROW(e->mountpoints, e->cap_mountpoints, e->n_mountpoints + 1, 2) < 0 ||
	    !(e->mountpoints[e->n_mountpoints] = strdup(mountpoint)))
		return -ENOMEM;
	e->n_mountpoints++;
	return fstype && *fstype ? fstype_add(&e->fstype, fstype) : 0;
}

/* A usb or mmc disk is removable to the user even when the device does
 * not set the removable flag (USB SSDs and many card readers don't). */
static bool disk_is_removable(unsigned major, unsigned minor, bool flag)
{
	struct target *t = NULL;
	bool r = flag;

	if (target_probe_blockdev(major, minor, &t) >= 0) {
		r = r || t->disk.removable || t->disk.transport == TRANSPORT_USB ||
		    t->disk.transport == TRANSPORT_MMC;
		target_free(t);
	}
	return r;
}

/* Fill e from /sys/block/NAME; -ENODEV for a disk without media (size 0:
 * unbound loop devices, empty card readers). */
static int disk_read(const char *name, struct device_entry *e)
{
	char path[512], line[64];
	uint64_t sectors = 0, removable = 0;
	int r;

	memset(e, 0, sizeof(*e));
	if (strlen(name) >= sizeof(e->name))
		return -ENAMETOOLONG;
	strcpy(e->name, name);
	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	r = sysroot_read_line(path, line, sizeof(line));
	if (r < 0)
		return r;
	if (parse_devnum(line, &e->major, &e->minor, NULL) < 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	r = sysroot_read_u64(path, &sectors);
	if (r < 0)
		return r;
	if (sectors == 0)
		return -ENODEV;
	e->size_bytes = sectors * 512; /* sysfs size is in 512 B sectors */
	snprintf(path, sizeof(path), "/sys/block/%s/removable", name);
	(void)sysroot_read_u64(path, &removable);
	e->removable = disk_is_removable(e->major, e->minor, removable == 1);
	e->has_block = true;
	snprintf(e->bdi, sizeof(e->bdi), "%u:%u", e->major, e->minor);
	return 0;
}

static int read_disks(struct entries *es)
{
	char dir[4096];
	DIR *d;
	struct dirent *de;
	int r = 0;

	r = sysroot_path(dir, sizeof(dir), "/sys/block");
	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct device_entry e;

		if (de->d_name[0] == '.')
			continue;
		if (disk_read(de->d_name, &e) < 0)
			continue; /* gone meanwhile, or no media: nothing to report */
		r = entries_push(es, &e);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

static struct device_entry *entries_find(struct entries *es, unsigned major,
					 unsigned minor, const char *bdi)
{
	for (size_t i = 0; i < es->n; i++)
		if (es->v[i].major == major && es->v[i].minor == minor &&
		    strcmp(es->v[i].bdi, bdi) == 0)
			return &es->v[i];
	return NULL;
}

/* The entry for (t's disk, t's bdi), cloning the disk's own entry for a
 * bdi seen the first time; NULL when the disk is not listed. */
static struct device_entry *entry_for_target(struct entries *es, const struct target *t)
{
	char own[64];
	struct device_entry *e, clone;

	e = entries_find(es, t->disk_major, t->disk_minor, t->bdi);
	if (e)
		return e;
	snprintf(own, sizeof(own), "%u:%u", t->disk_major, t->disk_minor);
	e = entries_find(es, t->disk_major, t->disk_minor, own);
	if (!e)
		return NULL;
	clone = entry_bare(e);
	snprintf(clone.bdi, sizeof(clone.bdi), "%s", t->bdi);
	if (entries_push(es, &clone) < 0)
		return NULL;
	return &es->v[es->n - 1];
}

static int attach_mounts(struct entries *es, bool **ret_has_mounts)
{
	struct mount_entry *mounts = NULL;
	size_t n = 0;
	_cleanup_free_ bool *has_mounts = calloc(es->n ? es->n : 1, sizeof(bool));
	size_t n_disks = es->n;
	int r;

	if (!has_mounts)
		return -ENOMEM;
	r = mount_list(&mounts, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r >= 0; i++) {
		enum fs_kind k = fs_kind_from_name(mounts[i].fstype);
		struct target *t = NULL;
		struct device_entry *e;

		if (!fs_traits_lookup(k, mounts[i].fstype, NULL)->on_block)
			continue;
		if (target_probe_mount(&mounts[i], &t) < 0 || !t->has_block || !t->bdi[0]) {
			target_free(t);
			continue; /* unmounted meanwhile, or not on a disk we list */
		}
		e = entry_for_target(es, t);
		for (size_t d = 0; e && d < n_disks; d++)
			if (es->v[d].major == t->disk_major && es->v[d].minor == t->disk_minor)
				has_mounts[d] = true;
		if (e)
			r = entry_add_mount(e, mounts[i].target, target_fs_name(t));
		target_free(t);
	}
	mount_list_free(mounts, n);
	*ret_has_mounts = TAKE_PTR(has_mounts);
	return r;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct device_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->bdi, y->bdi);
}

int devices_list(struct device_entry **ret, size_t *ret_n)
{
	struct entries es = { 0 };
	_cleanup_free_ bool *has_mounts = NULL;
	size_t n_disks, kept = 0;
	int r;

	r = read_disks(&es);
	n_disks = es.n;
	if (r >= 0)
		r = attach_mounts(&es, &has_mounts);
	if (r < 0) {
		devices_list_free(es.v, es.n);
		return r;
	}
	/* the first n_disks entries are the disks' own bdis */
	for (size_t i = 0; i < es.n; i++) {
		if (i < n_disks && has_mounts[i] && es.v[i].n_mountpoints == 0) {
			device_entry_done(&es.v[i]);
			continue;
		}
		es.v[kept++] = es.v[i];
	}
	if (kept > 1)
		qsort(es.v, kept, sizeof(*es.v), entry_cmp);
	*ret = es.v;
	*ret_n = kept;
	return 0;
}

int device_entry_from_target(const struct target *t, struct device_entry *ret)
{
	struct device_entry e = { 0 };
	int r;

	e.has_block = t->has_block;
	if (t->has_block) {
		snprintf(e.name, sizeof(e.name), "%s", t->diskname);
		e.major = t->disk_major;
		e.minor = t->disk_minor;
		e.removable = t->disk.removable || t->disk.transport == TRANSPORT_USB ||
			      t->disk.transport == TRANSPORT_MMC;
		e.size_bytes = t->disk.size_bytes;
	} else {
		snprintf(e.name, sizeof(e.name), "%s", t->source ? t->source : "");
	}
	snprintf(e.bdi, sizeof(e.bdi), "%s", t->bdi);
	r = entry_add_mount(&e, t->mountpoint ? t->mountpoint : t->path, target_fs_name(t));
	if (r < 0) {
		device_entry_done(&e);
		return r;
	}
	*ret = e;
	return 0;
}

int device_entry_copy(const struct device_entry *src, struct device_entry *ret)
{
	struct device_entry e = entry_bare(src);
	int r = 0;

	for (size_t i = 0; i < src->n_mountpoints && r >= 0; i++)
		r = entry_add_mount(&e, src->mountpoints[i], NULL);
	if (r >= 0 && src->fstype) {
		e.fstype = strdup(src->fstype);
		if (!e.fstype)
			r = -ENOMEM;
	}
	if (r < 0) {
		device_entry_done(&e);
		return r;
	}
	*ret = e;
	return 0;
}

const struct device_entry *devices_find(const struct device_entry *list, size_t n,
					const struct target *t)
{
	if (!t->has_block)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (list[i].major == t->disk_major && list[i].minor == t->disk_minor &&
		    strcmp(list[i].bdi, t->bdi) == 0)
			return &list[i];
	return NULL;
}
