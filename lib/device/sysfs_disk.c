/* sysfs_disk.c: from a block device number to its disk, bdi and facts.
 *
 * /sys/dev/block/MAJ:MIN resolves to the device's directory under
 * /sys/devices.  A partition's directory holds a `partition` file and sits
 * inside its disk's directory (block/partitions/core.c add_partition), so
 * the disk is the parent.  Queue limits exist only on the disk.  A block
 * filesystem's sb->s_bdi is the whole disk's bdi even when mounted from a
 * partition (fs/super.c setup_bdev_super), read from the disk's `bdi`
 * link.  The transport is read off the resolved path: the device model
 * nests a disk under the bus that carries it (usbN/.../hostH for
 * usb-storage, mmc_host, nvme, virtioN, ataN, virtual/block/loopN).
 *
 * Every read goes through the sysroot, and the path reported in
 * sysfs_path is the one the kernel would show, sysroot prefix removed. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "util/debug.h"
#include "device/sysfs_disk.h"
#include "device/sysfs_usb.h"
#include "util/parse.h"
#include "util/sysroot.h"

static int copy_str(char *buf, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, s, len + 1);
	return 0;
}

static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool sysfs_exists(const char *path)
{
	char full[PATH_MAX];

	return sysroot_path(full, sizeof(full), "%s", path) == 0 && access(full, F_OK) == 0;
}

/* Canonical form of a sysfs path below the sysroot, symlinks resolved,
 * returned without the sysroot prefix: "/sys/dev/block/8:17" ->
 * "/sys/devices/pci0000:00/.../block/sdb/sdb1". */
static int sysfs_resolve(const char *path, char *buf, size_t size)
{
	_cleanup_free_ char *real = NULL, *root = NULL;
	char full[PATH_MAX];
	const char *rel;
	size_t rlen = 0;
	int r;

	r = sysroot_path(full, sizeof(full), "%s", path);
	if (r < 0)
		return r;
	real = realpath(full, NULL);
	if (!real)
		return -errno;
	rel = real;
	if (!sysroot_is_real()) {
		root = realpath(sysroot_get(), NULL);
		if (!root)
			return -errno;
		rlen = strlen(root);
		/* a fixture link that escapes its tree is a broken fixture */
		if (strncmp(real, root, rlen) != 0 || real[rlen] != '/')
			return -EXDEV;
		rel = real + rlen;
	}
	return copy_str(buf, size, rel);
}

static int read_devt(const char *path, unsigned *ret_major, unsigned *ret_minor)
{
	char line[32];
	unsigned maj, min;
	int r;

	r = sysroot_read_line(path, line, sizeof(line));
	if (r < 0)
		return r;
	if (parse_devnum(line, &maj, &min, NULL) < 0)
		return -EINVAL;
	*ret_major = maj;
	*ret_minor = min;
	return 0;
}

int sysfs_devt_of_name(const char *name, unsigned *ret_major, unsigned *ret_minor)
{
	char path[PATH_MAX];

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	return read_devt(path, ret_major, ret_minor);
}

/* "/dev/mapper/NAME" without udev's symlink (or under a sysroot): the dm
 * device whose dm/name is NAME (drivers/md/dm-sysfs.c). */
static int dm_by_name(const char *name, char *buf, size_t size)
{
	_cleanup_closedir_ DIR *d = NULL;
	char dir[PATH_MAX], path[PATH_MAX], line[256];
	struct dirent *de;

	if (sysroot_path(dir, sizeof(dir), "/sys/class/block") < 0)
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "dm-", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/dm/name", de->d_name);
		if (sysroot_read_line(path, line, sizeof(line)) == 0 && strcmp(line, name) == 0)
			return copy_str(buf, size, de->d_name);
	}
	return -ENOENT;
}

int sysfs_name_of_node(const char *node, char *buf, size_t size)
{
	_cleanup_free_ char *real = NULL;
	const char *name = node;
	int r;

	if (node[0] == '/' && sysroot_is_real()) {
		real = realpath(node, NULL);
		if (real)
			name = real;
	}
	if (strncmp(name, "/dev/mapper/", 12) == 0)
		return dm_by_name(name + 12, buf, size);
	/* nodes in /dev subdirectories are named with '!' in sysfs
	 * (block/genhd.c: "cciss/c0d0" is the kobject "cciss!c0d0") */
	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;
	else if (name[0] == '/')
		name = last_component(name);
	r = copy_str(buf, size, name);
	if (r < 0)
		return r;
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '!';
	return *buf ? 0 : -EINVAL;
}

static int readlink_last(const char *path, char *buf, size_t size)
{
	char full[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	int r;

	r = sysroot_path(full, sizeof(full), "%s", path);
	if (r < 0)
		return r;
	n = readlink(full, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	return copy_str(buf, size, last_component(target));
}

static bool path_has_component(const char *path, const char *prefix)
{
	size_t plen = strlen(prefix);

	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
		if (strncmp(p + 1, prefix, plen) == 0)
			return true;
	return false;
}

/* A FireWire node or unit directory: "fw1", "fw1.0" (firewire core-device.c). */
static bool path_has_firewire(const char *path)
{
	for (const char *p = strstr(path, "/fw"); p; p = strstr(p + 1, "/fw"))
		if (p[3] >= '0' && p[3] <= '9')
			return true;
	return false;
}

enum transport transport_from_sysfs_path(const char *path)
{
	/* outermost bus first: a card reader on USB is usb, not mmc, and
	 * usb-storage also creates the SCSI host/target below the interface */
	if (path_has_component(path, "usb"))
		return TRANSPORT_USB;
	if (path_has_firewire(path))
		return TRANSPORT_FIREWIRE;
	if (path_has_component(path, "mmc"))
		return TRANSPORT_MMC;
	if (path_has_component(path, "nvme"))
		return TRANSPORT_NVME;
	if (path_has_component(path, "virtio"))
		return TRANSPORT_VIRTIO;
	if (path_has_component(path, "ata"))
		return TRANSPORT_SATA;
	if (strstr(path, "/virtual/block/loop"))
		return TRANSPORT_LOOP;
	if (path_has_component(path, "host") && path_has_component(path, "target"))
		return TRANSPORT_SCSI;
	return TRANSPORT_UNKNOWN;
}

static const struct {
	const char *name;
	size_t offset;
} queue_attrs[] = {
	{ "logical_block_size", offsetof(struct disk_facts, logical_block_size) },
	{ "physical_block_size", offsetof(struct disk_facts, physical_block_size) },
	{ "max_sectors_kb", offsetof(struct disk_facts, max_sectors_kb) },
	{ "max_hw_sectors_kb", offsetof(struct disk_facts, max_hw_sectors_kb) },
	{ "optimal_io_size", offsetof(struct disk_facts, optimal_io_size) },
	{ "minimum_io_size", offsetof(struct disk_facts, minimum_io_size) },
	{ "nr_requests", offsetof(struct disk_facts, nr_requests) },
	{ "dma_alignment", offsetof(struct disk_facts, dma_alignment) },
};

static void read_queue(const char *disk, struct disk_facts *f)
{
	char path[PATH_MAX], line[32];
	uint64_t v;

	for (size_t i = 0; i < ARRAY_SIZE(queue_attrs); i++) {
		snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", disk, queue_attrs[i].name);
		if (sysroot_read_u64(path, &v) == 0)
			*(uint32_t *)((char *)f + queue_attrs[i].offset) =
				v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/queue/write_cache", disk);
	f->write_cache_back = sysroot_read_line(path, line, sizeof(line)) == 0 &&
			      strcmp(line, "write back") == 0;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/rotational", disk);
	f->rotational = sysroot_read_u64(path, &v) == 0 && v;
}

/* A loop device's "model" is its backing file; keep the tail of a path
 * too long for the field, the end names the file. */
static void read_backing_file(const char *disk, struct disk_facts *f)
{
	char path[PATH_MAX], file[PATH_MAX];
	size_t len, room = sizeof(f->model) - 1;

	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", disk);
	if (sysroot_read_line(path, file, sizeof(file)) < 0)
		return;
	len = strlen(file);
	if (len <= room)
		memcpy(f->model, file, len + 1);
	else
		snprintf(f->model, sizeof(f->model), "...%s", file + len - (room - 3));
}

static void read_identity(const char *disk, struct disk_facts *f)
{
	char path[PATH_MAX];

	switch (f->transport) {
	case TRANSPORT_USB:
	case TRANSPORT_SATA:
	case TRANSPORT_SCSI:
	case TRANSPORT_FIREWIRE:
		/* SCSI INQUIRY strings, space-padded; trailing blanks are trimmed */
		snprintf(path, sizeof(path), "/sys/block/%s/device/vendor", disk);
		sysroot_read_line(path, f->vendor, sizeof(f->vendor));
		/* fall through */
	case TRANSPORT_NVME:
		snprintf(path, sizeof(path), "/sys/block/%s/device/model", disk);
		sysroot_read_line(path, f->model, sizeof(f->model));
		break;
	case TRANSPORT_MMC:
		snprintf(path, sizeof(path), "/sys/block/%s/device/name", disk);
		sysroot_read_line(path, f->model, sizeof(f->model));
		break;
	case TRANSPORT_LOOP:
		read_backing_file(disk, f);
		break;
	default:
		break;
	}
}

static void read_disk_facts(const char *disk, const char *sysfs_path, struct disk_facts *f)
{
	char path[PATH_MAX];
	uint64_t v;

	read_queue(disk, f);
	snprintf(path, sizeof(path), "/sys/block/%s/removable", disk);
	f->removable = sysroot_read_u64(path, &v) == 0 && v;
	snprintf(path, sizeof(path), "/sys/block/%s/size", disk);
	if (sysroot_read_u64(path, &v) == 0)
		f->size_bytes = v * 512; /* sysfs sizes are in 512-byte sectors */
	f->transport = transport_from_sysfs_path(sysfs_path);
	read_identity(disk, f);
}

static int fill_disk(struct target *t, const char *dev_path)
{
	char disk_path[PATH_MAX], path[PATH_MAX + 16];
	int r;

	snprintf(path, sizeof(path), "%s/partition", dev_path);
	t->is_partition = sysfs_exists(path);
	r = copy_str(disk_path, sizeof(disk_path), dev_path);
	if (r < 0)
		return r;
	if (t->is_partition)
		*strrchr(disk_path, '/') = '\0';
	r = copy_str(t->diskname, sizeof(t->diskname), last_component(disk_path));
	if (r < 0)
		return r;
	r = copy_str(t->sysfs_path, sizeof(t->sysfs_path), disk_path);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/dev", disk_path);
	r = read_devt(path, &t->disk_major, &t->disk_minor);
	if (r < 0)
		return r;
	read_disk_facts(t->diskname, disk_path, &t->disk);
	if (t->disk.transport == TRANSPORT_USB)
		sysfs_usb_device(disk_path, t->usb_sysfs_path, sizeof(t->usb_sysfs_path));
	return 0;
}

static void fill_bdi(struct target *t)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/block/%s/bdi", t->diskname);
	if (readlink_last(path, t->bdi, sizeof(t->bdi)) < 0) {
		/* the disk bdi is registered under the disk's MAJ:MIN
		 * (block/genhd.c device_add_disk -> bdi_register) */
		snprintf(t->bdi, sizeof(t->bdi), "%u:%u", t->disk_major, t->disk_minor);
		DEBUG(DEBUG_TARGET, "no %s: assuming bdi %s", path, t->bdi);
	}
	memcpy(t->fs_bdi, t->bdi, sizeof(t->fs_bdi));
}

int sysfs_fill_device(struct target *t, unsigned major, unsigned minor)
{
	char dev_path[PATH_MAX], path[PATH_MAX + 16];
	uint64_t sectors;
	int r;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major, minor);
	r = sysfs_resolve(path, dev_path, sizeof(dev_path));
	if (r < 0) {
		DEBUG(DEBUG_TARGET, "cannot resolve %s: %s", path, strerror(-r));
		return r;
	}
	t->dev_major = major;
	t->dev_minor = minor;
	r = copy_str(t->devname, sizeof(t->devname), last_component(dev_path));
	if (r < 0)
		return r;
	snprintf(t->devnode, sizeof(t->devnode), "/dev/%s", t->devname);
	for (char *p = t->devnode + 5; *p; p++)
		if (*p == '!')
			*p = '/';
	snprintf(path, sizeof(path), "%s/size", dev_path);
	if (sysroot_read_u64(path, &sectors) == 0)
		t->dev_size_bytes = sectors * 512;
	r = fill_disk(t, dev_path);
	if (r < 0)
		return r;
	fill_bdi(t);
	t->has_block = true;
	DEBUG(DEBUG_TARGET, "%u:%u is %s%s, disk %s (%u:%u) at %s, %s, bdi %s", major, minor,
	      t->devname, t->is_partition ? " (partition)" : "", t->diskname, t->disk_major,
	      t->disk_minor, t->sysfs_path, transport_name(t->disk.transport), t->bdi);
	return 0;
}

int sysfs_btrfs_bdi(const char *devname, char *buf, size_t size)
{
	_cleanup_closedir_ DIR *d = NULL;
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	int r;

	r = sysroot_path(dir, sizeof(dir), "/sys/fs/btrfs");
	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "features") == 0)
			continue;
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices/%s", de->d_name, devname);
		if (!sysfs_exists(path))
			continue;
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/bdi", de->d_name);
		r = readlink_last(path, buf, size);
		DEBUG(DEBUG_TARGET, "btrfs %s has device %s, bdi %s", de->d_name, devname,
		      r < 0 ? "unknown" : buf);
		return r;
	}
	return -ENOENT;
}

bool sysfs_bdi_exists(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/bdi/%s", name);
	return sysfs_exists(path);
}
