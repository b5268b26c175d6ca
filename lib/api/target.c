/* target.c: <safecp/target.h> over device/target.h (the probe) and
 * util/sysroot.h (the test seam). */
#include <errno.h>
#include <stdlib.h>

#include <safecp/target.h>

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

int safecp_sysroot_set(const char *dir)
{
	return sysroot_set(dir);
}

const char *safecp_sysroot(void)
{
	return sysroot_get();
}
