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
#include "base/cleanup.h"
#include "util/debug.h"
#include "base/grow.h"

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

bool blockid_is_tag(const char *spec)
{
	static const char *const tags[] = { "LABEL=", "UUID=", "PARTUUID=", "PARTLABEL=" };

	for (size_t i = 0; i < ARRAY_SIZE(tags); i++)
		if (strncmp(spec, tags[i], strlen(tags[i])) == 0)
			return true;
	return false;
}

static inline void iterate_endp(blkid_dev_iterate *it)
{
	if (*it)
		blkid_dev_iterate_end(*it);
}

void blockid_devices_free(char **devnodes, size_t n)
{
	for (size_t i = 0; devnodes && i < n; i++)
		free(devnodes[i]);
	free(devnodes);
}

static int add_devnode(char ***list, size_t *n, size_t *cap, const char *node)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], node) == 0)
			return 0;
	if (GROW(*list, *cap, *n + 1, 4) < 0 || !((*list)[*n] = strdup(node)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* Every device probe_all finds (each one listed in /proc/partitions,
 * read), kept when it has the tag. */
int blockid_tag_devices(const char *spec, char ***ret_devnodes, size_t *ret_n)
{
	_cleanup_(cache_putp) blkid_cache cache = NULL;
	_cleanup_(iterate_endp) blkid_dev_iterate it = NULL;
	_cleanup_free_ char *type = NULL, *value = NULL;
	char **list = NULL;
	size_t n = 0, cap = 0;
	blkid_dev dev;
	int r = 0;

	*ret_devnodes = NULL;
	*ret_n = 0;
	if (!blockid_is_tag(spec) || blkid_parse_tag_string(spec, &type, &value) < 0 || !value)
		return -EINVAL;
	if (blkid_get_cache(&cache, "/dev/null") < 0)
		return -ENOMEM;
	if (blkid_probe_all(cache) < 0)
		return -EIO;
	it = blkid_dev_iterate_begin(cache);
	if (!it || blkid_dev_set_search(it, type, value) < 0)
		return -ENOMEM;
	while (r == 0 && blkid_dev_next(it, &dev) == 0)
		r = add_devnode(&list, &n, &cap, blkid_dev_devname(dev));
	if (r < 0) {
		blockid_devices_free(list, n);
		return r;
	}
	DEBUG(DEBUG_TARGET, "blkid: %zu device(s) have %s", n, spec);
	*ret_devnodes = list;
	*ret_n = n;
	return 0;
}

/* One device, or -ENOTUNIQ when several have the tag.  None found by
 * reading them (a user may not read the devices): the udev link, as
 * blkid_evaluate_tag finds it, which names one device whatever the
 * others hold. */
static int resolve_tag(const char *spec, char **ret)
{
	_cleanup_(cache_putp) blkid_cache cache = NULL;
	char **list = NULL, *dev;
	size_t n = 0;
	int r = blockid_tag_devices(spec, &list, &n);

	if (r < 0 && r != -EIO)
		return r;
	if (n > 1) {
		blockid_devices_free(list, n);
		return -ENOTUNIQ;
	}
	if (n == 1) {
		*ret = list[0];
		free(list);
		return 0;
	}
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
	if (blockid_is_tag(spec))
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
