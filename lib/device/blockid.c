/* blockid.c: label, UUID and type of a device, and LABEL=/UUID= specs,
 * through libblkid.
 *
 * Probing uses the low-level probe (superblocks only, safe mode), which
 * reads the device through its page cache and never writes.  Tag lookup
 * uses a cache bound to /dev/null: libblkid then scans /proc/partitions
 * and probes each device, instead of trusting or rewriting a blkid.tab
 * that may describe last week's sticks. */
#include <blkid.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "device/blockid.h"
#include "util/cleanup.h"
#include "util/debug.h"

static inline void probe_freep(blkid_probe *pr)
{
	if (*pr)
		blkid_free_probe(*pr);
}

static inline void cache_putp(blkid_cache *c)
{
	if (*c)
		blkid_put_cache(*c);
}

void blockid_done(struct blockid *b)
{
	if (!b)
		return;
	free(b->label);
	free(b->uuid);
	free(b->fstype);
	b->label = b->uuid = b->fstype = NULL;
}

static int dup_value(blkid_probe pr, const char *name, char **ret)
{
	const char *v = NULL;

	*ret = NULL;
	if (blkid_probe_lookup_value(pr, name, &v, NULL) < 0 || !v)
		return 0;
	*ret = strdup(v);
	return *ret ? 0 : -ENOMEM;
}

int blockid_probe(const char *devnode, struct blockid *ret)
{
	_cleanup_(probe_freep) blkid_probe pr = NULL;
	struct blockid b = { 0 };
	int r;

	errno = 0;
	pr = blkid_new_probe_from_filename(devnode);
	if (!pr) {
		r = errno ? -errno : -EIO;
		DEBUG(DEBUG_TARGET, "blkid cannot open '%s': %s", devnode, strerror(-r));
		return r;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_TYPE);
	r = blkid_do_safeprobe(pr);
	if (r != 0) {
		/* 1: nothing found, -2: two signatures disagree; both leave us
		 * without names, which is not a failure of the caller's job */
		DEBUG(DEBUG_TARGET, "blkid '%s': %s", devnode,
		      r == 1 ? "no filesystem" : r == -2 ? "ambivalent signatures" : "probe failed");
		*ret = b;
		return 0;
	}
	if (dup_value(pr, "LABEL", &b.label) < 0 || dup_value(pr, "UUID", &b.uuid) < 0 ||
	    dup_value(pr, "TYPE", &b.fstype) < 0) {
		blockid_done(&b);
		return -ENOMEM;
	}
	DEBUG(DEBUG_TARGET, "blkid '%s': type %s label %s uuid %s", devnode,
	      b.fstype ? b.fstype : "-", b.label ? b.label : "-", b.uuid ? b.uuid : "-");
	*ret = b;
	return 0;
}

static bool is_tag(const char *spec)
{
	static const char *const tags[] = { "LABEL=", "UUID=", "PARTUUID=", "PARTLABEL=" };

	for (size_t i = 0; i < ARRAY_SIZE(tags); i++)
		if (strncmp(spec, tags[i], strlen(tags[i])) == 0)
			return true;
	return false;
}

static int resolve_tag(const char *spec, char **ret)
{
	_cleanup_(cache_putp) blkid_cache cache = NULL;
	char *dev;

	if (blkid_get_cache(&cache, "/dev/null") < 0)
		return -ENOMEM;
	dev = blkid_evaluate_tag(spec, NULL, &cache);
	if (!dev) {
		DEBUG(DEBUG_TARGET, "blkid: no device has %s", spec);
		return -ENOENT;
	}
	*ret = dev;
	return 0;
}

int blockid_resolve(const char *spec, char **ret_devnode)
{
	_cleanup_free_ char *node = NULL;
	struct stat st;

	if (!spec || !*spec)
		return -EINVAL;
	if (is_tag(spec))
		return resolve_tag(spec, ret_devnode);
	node = realpath(spec, NULL);
	if (!node)
		return -errno;
	if (stat(node, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	DEBUG(DEBUG_TARGET, "'%s' is device '%s'", spec, node);
	*ret_devnode = TAKE_PTR(node);
	return 0;
}
