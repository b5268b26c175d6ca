/* target.c: <safecp/target.h> over device/target.h (the probe) and
 * util/sysroot.h (the test seam). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <safecp/target.h>

#include "api/fill.h"
#include "api/target_handle.h"
#include "device/fs_traits.h"
#include "util/sysroot.h"

int safecp_target_probe(const char *path, struct safecp_target **ret)
{
	struct safecp_target *h;
	int r;

	if (!path || !ret)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	r = target_probe(path, &h->t);
	if (r < 0) {
		free(h);
		return r;
	}
	*ret = h;
	return 0;
}

void safecp_target_free(struct safecp_target *t)
{
	if (!t)
		return;
	target_free(t->t);
	free(t);
}

const char *safecp_target_mountpoint(const struct safecp_target *t)
{
	return t->t->mountpoint;
}

const char *safecp_target_fs_name(const struct safecp_target *t)
{
	return target_fs_name(t->t);
}

const char *safecp_target_cache_device(const struct safecp_target *t)
{
	return fs_traits_of(t->t)->device_cache && t->t->has_block ? t->t->devnode : NULL;
}

static const char *name_rules(const struct target *t)
{
	switch (fs_traits_of(t)->names) {
	case NAME_FS_FAT: return "fat";
	case NAME_FS_FUSEFAT: return "fusefat";
	case NAME_FS_EXFAT: return "exfat";
	case NAME_FS_NTFS: return "ntfs";
	case NAME_FS_FUSEBLK: return "exfat-or-ntfs";
	case NAME_FS_POSIX: break;
	}
	return "posix";
}

int safecp_target_facts(const struct safecp_target *h, struct safecp_target_facts *ret,
			size_t size)
{
	const struct target *t = h->t;
	const struct disk_facts *d = &t->disk;
	struct safecp_target_facts f = {
		.path = t->path, .mountpoint = t->mountpoint, .mount_type = t->fstype,
		.fs_name = target_fs_name(t), .label = t->label, .uuid = t->uuid,
		.name_rules = name_rules(t), .block = t->has_block, .device = t->devnode,
		.dev_major = t->dev_major, .dev_minor = t->dev_minor,
		.partition = t->is_partition, .disk = t->diskname,
		.disk_major = t->disk_major, .disk_minor = t->disk_minor,
		.disk_size = d->size_bytes, .transport = transport_name(d->transport),
		.vendor = d->vendor, .model = d->model, .removable = d->removable,
		.write_cache = d->write_cache_back, .max_sectors_kb = d->max_sectors_kb,
		.max_hw_sectors_kb = d->max_hw_sectors_kb, .optimal_io_size = d->optimal_io_size,
		.minimum_io_size = d->minimum_io_size, .nr_requests = d->nr_requests,
		.logical_block_size = d->logical_block_size,
		.physical_block_size = d->physical_block_size, .dma_alignment = d->dma_alignment,
		.bdi = t->bdi,
	};

	return api_fill(ret, size, &f, sizeof(f));
}

int safecp_sysroot_set(const char *dir)
{
	return sysroot_set(dir);
}

const char *safecp_sysroot(void)
{
	return sysroot_get();
}
