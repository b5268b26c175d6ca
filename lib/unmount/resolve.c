/* resolve.c: from a TARGET to an unmount_target, and the refusals that
 * need no writing: libmount's dry-run permission check and, for a
 * power-off, the plan's own refusals and the filesystems of the disk the
 * target leaves mounted (resolve.h says what a TARGET is). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/blockdev.h"
#include "device/blockid.h"
#include "device/mount.h"
#include "device/mount_umount.h"
#include "device/target.h"
#include "base/cleanup.h"
#include "util/sysroot.h"
#include "unmount/poweroff.h"
#include "unmount/resolve.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void unmount_refusal_done(struct unmount_refusal *r)
{
	if (!r)
		return;
	free(r->name);
	free(r->device);
	free(r->other);
	free(r->where);
	blockid_devices_free(r->matches, r->n_matches);
	memset(r, 0, sizeof(*r));
}

/* A name lost to a failed strdup is left NULL: the caller still has the
 * kind to word. */
int unmount_refuse(struct unmount_refusal *ret, enum unmount_refusal_kind kind, int error,
		   const char *name, const char *device, const char *other, const char *where)
{
	*ret = (struct unmount_refusal){
		.kind = kind, .error = error, .name = dup_or_null(name),
		.device = dup_or_null(device), .other = dup_or_null(other),
		.where = dup_or_null(where),
	};
	return error < 0 ? error : -EPERM;
}

/* The facts the job needs: bdi and disk (target_probe), device node, st_dev. */
static void fs_probe(struct unmount_fs *fs)
{
	struct target *t = NULL;
	struct stat st;

	if ((fs->m.dev_major || fs->m.dev_minor) && strncmp(fs->m.source, "/dev/", 5) == 0)
		snprintf(fs->devnode, sizeof(fs->devnode), "%s", fs->m.source);
	if (sysroot_is_real() && stat(fs->m.mountpoint, &st) == 0) {
		fs->st_major = major(st.st_dev);
		fs->st_minor = minor(st.st_dev);
	}
	if (target_probe(fs->m.mountpoint, &t) < 0)
		return;
	snprintf(fs->bdi, sizeof(fs->bdi), "%s", t->bdi);
	if (t->has_block) {
		snprintf(fs->disk, sizeof(fs->disk), "%s", t->diskname);
		fs->disk_major = t->disk_major;
		fs->disk_minor = t->disk_minor;
	}
	target_free(t);
}

static int take_mounts(struct unmount_target *t, struct unmount_mount *m, size_t n,
		       struct unmount_refusal *ret)
{
	t->fs = calloc(n ? n : 1, sizeof(*t->fs));
	if (!t->fs) {
		unmount_mounts_free(m, n);
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NO_MEMORY, -ENOMEM, NULL, NULL, NULL, NULL);
	}
	for (size_t i = 0; i < n; i++)
		t->fs[i].m = m[i]; /* the strings move over */
	t->n_fs = n;
	free(m);
	for (size_t i = 0; i < n; i++)
		fs_probe(&t->fs[i]);
	return 0;
}

static int resolve_device(const struct unmount_resolve_options *o, const char *node,
			  dev_t rdev, struct unmount_target *t, struct unmount_refusal *ret)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;
	unsigned dmaj, dmin;
	int r;

	t->device_target = true;
	snprintf(t->devnode, sizeof(t->devnode), "%s", node);
	t->dev_major = major(rdev);
	t->dev_minor = minor(rdev);
	r = blockdev_disk_of(t->dev_major, t->dev_minor, &dmaj, &dmin);
	if (r < 0)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NO_DISK, r, node, NULL, NULL, NULL);
	t->whole_disk = dmaj == t->dev_major && dmin == t->dev_minor;
	t->have_disk = true;
	t->disk_major = dmaj;
	t->disk_minor = dmin;
	r = unmount_mounts_of_device(t->dev_major, t->dev_minor, t->whole_disk, &m, &n);
	if (r < 0)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_MOUNT_TABLE, r, NULL, NULL, NULL, NULL);
	if (n == 0 && !o->power_off) {
		free(m);
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NOT_MOUNTED, 0, node, NULL, NULL, NULL);
	}
	return take_mounts(t, m, n, ret);
}

/* A backend of a service: not this machine's kernel. */
static bool by_service(const struct unmount_resolve_options *o)
{
	return o->be && o->be != unmount_backend_kernel();
}

/* Several devices have the tag: which one is meant cannot be known, so
 * none is taken (two sticks called "NO NAME", FAT's default). */
static int ambiguous(struct unmount_refusal *ret, const char *tag, char **nodes, size_t n)
{
	int r = unmount_refuse(ret, UNMOUNT_REFUSAL_TAG_AMBIGUOUS, -ENOTUNIQ, tag, NULL, NULL,
			       NULL);

	ret->matches = nodes;
	ret->n_matches = n;
	return r;
}

static int resolve_tag(const struct unmount_resolve_options *o, const char *tag,
		       struct unmount_target *t, struct unmount_refusal *ret)
{
	_cleanup_free_ char *node = NULL;
	char **nodes = NULL;
	size_t n = 0;
	struct stat st;
	int r;

	/* The service first: it sees every device, where a user's libblkid
	 * can read none and follows udev's one link for the tag.  It does
	 * not know the tag: libblkid (as root it reads every device). */
	if (by_service(o) && o->be->resolve_tag && o->be->resolve_tag(o->be, tag, &nodes, &n) == 0 &&
	    n > 0) {
		if (n > 1)
			return ambiguous(ret, tag, nodes, n);
		node = TAKE_PTR(nodes[0]);
		blockid_devices_free(nodes, n);
		r = 0;
	} else {
		blockid_devices_free(nodes, n);
		r = blockid_resolve(tag, &node);
	}
	if (r == -ENOTUNIQ) {
		r = blockid_tag_devices(tag, &nodes, &n);
		if (r == 0 && n > 1)
			return ambiguous(ret, tag, nodes, n);
		blockid_devices_free(nodes, n);
		r = -ENOTUNIQ; /* gone between the two looks: still not one */
	}

	if (r == -ENOENT || r == -EACCES)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_TAG_NOT_FOUND, r, tag, NULL, NULL, NULL);
	if (r < 0 || stat(node, &st) < 0)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_TAG_UNRESOLVED, r < 0 ? r : -errno, tag,
				      NULL, NULL, NULL);
	return resolve_device(o, node, st.st_rdev, t, ret);
}

/* Under SAFECP_SYSROOT (a captured tree, for tests) nothing is stat()ed:
 * a /dev name is looked up in the tree's sysfs, the rest is a path. */
static int resolve_in_sysroot(const struct unmount_resolve_options *o, const char *arg,
			      struct unmount_target *t, struct unmount_refusal *ret)
{
	struct target *dev = NULL;
	dev_t devt;
	int r;

	if (blockid_is_tag(arg))
		return unmount_refuse(ret, UNMOUNT_REFUSAL_TAG_IN_SYSROOT, 0, arg, NULL, NULL,
				      sysroot_get());
	r = target_probe_devname(arg, &dev);
	if (r < 0)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NO_ACCESS, r, arg, NULL, NULL, NULL);
	devt = makedev(dev->dev_major, dev->dev_minor);
	target_free(dev);
	return resolve_device(o, arg, devt, t, ret);
}

static int resolve_path(const char *arg, struct unmount_target *t, struct unmount_refusal *ret)
{
	_cleanup_free_ char *abs = NULL;
	struct mount_entry e = { 0 };
	struct unmount_mount *m;
	int r;

	r = mount_resolve_path(arg, &abs);
	if (r == 0)
		r = mount_find_for_path(abs, &e);
	if (r < 0)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NO_MOUNT_FOUND, r, arg, NULL, NULL, NULL);
	if (strcmp(e.target, "/") == 0) {
		mount_entry_done(&e);
		if (strcmp(abs, "/") == 0)
			return unmount_refuse(ret, UNMOUNT_REFUSAL_ROOT_FS, 0, arg, NULL, NULL, NULL);
		return unmount_refuse(ret, UNMOUNT_REFUSAL_ON_ROOT_FS, 0, arg, NULL, NULL, NULL);
	}
	m = calloc(1, sizeof(*m));
	r = m ? unmount_mount_at(e.target, m) : -ENOMEM;
	mount_entry_done(&e);
	if (r < 0) {
		free(m);
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NOT_MOUNTED, r, arg, NULL, NULL, NULL);
	}
	return take_mounts(t, m, 1, ret);
}

/* libmount's verdict without the syscall: a non-root user learns now, not
 * after the sync, that the unmount will be refused. */
static int check_permission(const struct unmount_target *t, struct unmount_refusal *ret)
{
	for (size_t i = 0; i < t->n_fs; i++) {
		const char *mp = t->fs[i].m.mountpoint;
		int r = mount_umount(mp, MOUNT_UMOUNT_CHECK, NULL);

		if (r == -EPERM)
			return unmount_refuse(ret, UNMOUNT_REFUSAL_NOT_PERMITTED, r, mp, NULL, NULL, NULL);
		if (r == -EINVAL)
			return unmount_refuse(ret, UNMOUNT_REFUSAL_GONE, r, mp, NULL, NULL, NULL);
	}
	return 0;
}

static bool target_has_mount(const struct unmount_target *t, int mnt_id)
{
	for (size_t i = 0; i < t->n_fs; i++)
		if (t->fs[i].m.mnt_id == mnt_id)
			return true;
	return false;
}

/* A filesystem of the disk (or a sibling) that the target leaves mounted. */
static int check_other_mounts(const struct unmount_target *t, const struct poweroff_plan *p,
			      struct unmount_refusal *ret)
{
	int r = 0;

	for (size_t i = 0; i < p->n_devs && r == 0; i++) {
		struct unmount_mount *m = NULL;
		size_t n = 0;

		if (!p->devs[i].is_disk ||
		    unmount_mounts_of_device(p->devs[i].major, p->devs[i].minor, true, &m, &n) < 0)
			continue;
		for (size_t k = 0; k < n && r == 0; k++)
			if (!target_has_mount(t, m[k].mnt_id))
				r = unmount_refuse(ret, UNMOUNT_REFUSAL_OTHER_MOUNTED, -EBUSY, p->devnode,
						   NULL, m[k].source, m[k].mountpoint);
		unmount_mounts_free(m, n);
	}
	return r;
}

static int plan_refusal(const struct poweroff_plan *p, struct unmount_refusal *ret)
{
	int r;

	switch (p->refusal) {
	case POWEROFF_OK:
	case POWEROFF_MOUNTED: /* the job unmounts; check_other_mounts says the rest */
		return 0;
	case POWEROFF_HELD:
		return unmount_refuse(ret, UNMOUNT_REFUSAL_HELD, -EBUSY, p->devnode, NULL, p->blocker,
				      p->blocker_where);
	case POWEROFF_INTERNAL_READER:
		return unmount_refuse(ret, UNMOUNT_REFUSAL_INTERNAL_READER, 0, p->devnode, NULL, NULL,
				      NULL);
	case POWEROFF_NO_DRIVE:
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NO_DRIVE, 0, p->devnode, NULL, NULL, NULL);
	case POWEROFF_NO_METHOD:
	case POWEROFF_FIXED_DISK:
		break;
	}
	r = unmount_refuse(ret, UNMOUNT_REFUSAL_FIXED_DISK, 0, p->devnode, NULL, NULL, NULL);
	ret->transport = p->transport;
	return r;
}

static int check_power_off(const struct unmount_resolve_options *o, const struct unmount_target *t,
			   struct unmount_refusal *ret)
{
	const struct unmount_backend *be;
	struct poweroff_plan p;
	int r;

	if (!t->have_disk)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NO_BLOCK_DEVICE, 0, t->arg, NULL, NULL, NULL);
	if (geteuid() != 0 && !by_service(o))
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NOT_ROOT, 0, t->arg, NULL, NULL, NULL);
	be = o->be ? o->be : unmount_backend_kernel();
	r = be->power_off_plan(be, t->disk_major, t->disk_minor,
			       POWEROFF_IGNORE_MOUNTS | (o->force ? POWEROFF_FORCE : 0), &p);
	if (r < 0)
		return unmount_refuse(ret, UNMOUNT_REFUSAL_NO_PLAN, r, t->arg, NULL, NULL, NULL);
	r = plan_refusal(&p, ret);
	if (r == 0)
		r = unmount_guard_power_off(t, &p, ret);
	if (r == 0)
		r = check_other_mounts(t, &p, ret);
	be->power_off_plan_done(be, &p);
	return r;
}

static void disk_from_fs(struct unmount_target *t)
{
	for (size_t i = 0; i < t->n_fs && !t->have_disk; i++) {
		if (t->fs[i].disk[0]) {
			t->have_disk = true;
			t->disk_major = t->fs[i].disk_major;
			t->disk_minor = t->fs[i].disk_minor;
		}
	}
}

static int resolve(const struct unmount_resolve_options *o, const char *arg,
		   struct unmount_target *t, struct unmount_refusal *ret)
{
	struct stat st;
	int r;

	if (!sysroot_is_real() && arg[0] == '/' && strncmp(arg, "/dev/", 5) != 0) {
		r = resolve_path(arg, t, ret);
		disk_from_fs(t);
	} else if (!sysroot_is_real()) {
		r = resolve_in_sysroot(o, arg, t, ret);
	} else if (blockid_is_tag(arg)) {
		r = resolve_tag(o, arg, t, ret);
	} else if (stat(arg, &st) < 0) {
		r = unmount_refuse(ret, UNMOUNT_REFUSAL_NO_ACCESS, -errno, arg, NULL, NULL, NULL);
	} else if (S_ISBLK(st.st_mode)) {
		r = resolve_device(o, arg, st.st_rdev, t, ret);
	} else {
		r = resolve_path(arg, t, ret);
		disk_from_fs(t);
	}
	return r;
}

int unmount_target_resolve(const char *arg, const struct unmount_resolve_options *o,
			   struct unmount_target *ret, struct unmount_refusal *ret_refusal)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	memset(ret_refusal, 0, sizeof(*ret_refusal));
	ret->arg = arg;
	r = resolve(o, arg, ret, ret_refusal);
	if (r == 0)
		r = unmount_guard(o, ret, ret_refusal);
	/* a service asks polkit itself, when it is asked to unmount */
	if (r == 0 && sysroot_is_real() && !by_service(o))
		r = check_permission(ret, ret_refusal);
	if (r == 0 && o->power_off)
		r = check_power_off(o, ret, ret_refusal);
	if (r < 0) {
		unmount_target_done(ret);
		ret->arg = arg;
	}
	return r;
}
