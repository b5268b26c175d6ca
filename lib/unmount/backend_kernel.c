/* backend_kernel.c: the unmount backend of this machine: syncfs in the
 * syncer's thread, the unmount through libmount (device/mount_umount.c),
 * holders from /proc (holders.c), the O_EXCL release check (unmount.c)
 * and the power-off through sysfs (poweroff.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/mount.h"
#include "device/mount_umount.h"
#include "base/cleanup.h"
#include "unmount/backend.h"

void unmount_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static bool target_has_mount_id(const struct unmount_target *t, int id)
{
	for (size_t i = 0; t && i < t->n_fs; i++)
		if (t->fs[i].m.mnt_id == id)
			return true;
	return false;
}

static size_t unmount_submounts(const struct unmount_target *t, const char *mountpoint, char ***ret)
{
	struct mount_entry *list = NULL;
	size_t n = 0, k = 0;
	char **out;

	*ret = NULL;
	if (mount_list(&list, &n) < 0)
		return 0;
	out = calloc(n ? n : 1, sizeof(char *));
	for (size_t i = 0; out && i < n; i++)
		if (strcmp(list[i].target, mountpoint) != 0 &&
		    holders_path_within(list[i].target, mountpoint) &&
		    !target_has_mount_id(t, list[i].id))
			out[k++] = strdup(list[i].target);
	mount_list_free(list, n);
	*ret = out;
	return k;
}

static int k_sync_start(const struct unmount_backend *be, const struct unmount_target *t,
			void **ret_sync, struct syncer_figures *ret_first)
{
	_cleanup_free_ char **mps = calloc(t->n_fs ? t->n_fs : 1, sizeof(char *));
	_cleanup_free_ struct syncer_source *src = calloc(t->n_fs ? t->n_fs : 1, sizeof(*src));
	struct syncer *s = NULL;
	int r;

	if (!mps || !src)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_fs; i++) {
		mps[i] = t->fs[i].m.mountpoint;
		src[i] = (struct syncer_source){ t->fs[i].bdi, t->fs[i].disk };
	}
	r = syncer_start(mps, t->n_fs, src, t->n_fs, &s);
	if (r < 0)
		return r;
	syncer_first(s, ret_first);
	*ret_sync = s;
	return 0;
}

static int k_sync_poll(const struct unmount_backend *be, void *sync, int timeout_ms,
		       struct syncer_figures *ret)
{
	return syncer_poll(sync, timeout_ms, ret);
}

static int k_sync_again(const struct unmount_backend *be, void *sync)
{
	return syncer_again(sync);
}

static void k_sync_free(const struct unmount_backend *be, void *sync)
{
	syncer_free(sync);
}

static int k_unmount(const struct unmount_backend *be, const char *mountpoint, bool lazy,
		     char **ret_message)
{
	return mount_umount(mountpoint, lazy ? MOUNT_UMOUNT_LAZY : 0, ret_message);
}

/* A failed /proc scan is no holder found: the busy list still has the
 * submounts, and the unmount's own verdict stands. */
static int k_mount_holders(const struct unmount_backend *be, const struct unmount_target *t,
			   const struct unmount_fs *fs, struct holder_list *ret,
			   char ***ret_submounts, size_t *ret_n_submounts)
{
	const struct holders_mount hm = {
		.mountpoint = fs->m.mountpoint, .mnt_id = fs->m.mnt_id,
		.sb_major = fs->m.sb_major, .sb_minor = fs->m.sb_minor,
		.st_major = fs->st_major, .st_minor = fs->st_minor,
	};

	*ret_n_submounts = unmount_submounts(t, fs->m.mountpoint, ret_submounts);
	if (holders_of_mount(&hm, ret) < 0)
		*ret = (struct holder_list){ 0 };
	return 0;
}

static int k_device_holders(const struct unmount_backend *be, const char *devnode,
			    unsigned major, unsigned minor, struct holder_list *ret)
{
	return holders_of_device(major, minor, devnode, ret);
}

static int k_mounted_here(const struct unmount_backend *be, unsigned major, unsigned minor,
			  char **ret_mountpoint)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;
	int r;

	*ret_mountpoint = NULL;
	if (unmount_mounts_of_device(major, minor, false, &m, &n) < 0 || n == 0) {
		free(m);
		return 0;
	}
	*ret_mountpoint = strdup(m[0].mountpoint);
	r = *ret_mountpoint ? 1 : -ENOMEM;
	unmount_mounts_free(m, n);
	return r;
}

/* The flush as root only; for a user the open alone is the check. */
static int k_release(const struct unmount_backend *be, const char *devnode, int wait_ms)
{
	return unmount_device_release(devnode, wait_ms, geteuid() == 0);
}

static int k_power_off_plan(const struct unmount_backend *be, unsigned major, unsigned minor,
			    unsigned flags, struct poweroff_plan *ret)
{
	return poweroff_plan_make(major, minor, flags, ret);
}

static int k_power_off_run(const struct unmount_backend *be, const struct poweroff_plan *p,
			   struct poweroff_result *ret)
{
	return poweroff_run(p, ret);
}

static void k_power_off_plan_done(const struct unmount_backend *be, struct poweroff_plan *p)
{
	poweroff_plan_done(p);
}

static const struct unmount_backend kernel = {
	.sync_start = k_sync_start,
	.sync_poll = k_sync_poll,
	.sync_again = k_sync_again,
	.sync_free = k_sync_free,
	.unmount = k_unmount,
	.mount_holders = k_mount_holders,
	.device_holders = k_device_holders,
	.mounted_here = k_mounted_here,
	.release = k_release,
	.power_off_plan = k_power_off_plan,
	.power_off_run = k_power_off_run,
	.power_off_plan_done = k_power_off_plan_done,
};

const struct unmount_backend *unmount_backend_kernel(void)
{
	return &kernel;
}
