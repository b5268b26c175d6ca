/* unmount.c: unmounting through libmount, the mounts of a device, and the
 * O_EXCL release check.
 *
 * Unmount: one libmount context per filesystem; mnt_context_umount() does
 * lookup, permission checks (restricted users: fstab user/users/owner,
 * FUSE user_id), helpers and the utab update; mnt_context_get_excode()
 * turns the outcome into umount(8)'s words, which we hand back as a string
 * and a -errno (the syscall's errno when it ran).
 *
 * Release: kill_block_super() drops the superblock's exclusive claim on
 * the device, so once the last superblock is gone an O_EXCL open succeeds
 * (blkdev_get_by_dev -> bd_prepare_to_claim).  A copy of the mount in
 * another namespace keeps the superblock alive and the open fails with
 * EBUSY although umount returned 0 (doc/kernel.md 7, measured).  A partition
 * claim also marks its whole disk claimed, so O_EXCL on the disk is the
 * check for "no partition in use". */
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/debug.h"
#include "device/mount.h"
#include "util/sysroot.h"
#include "unmount/unmount.h"

static inline void context_freep(struct libmnt_context **c)
{
	mnt_free_context(*c);
}

/* The errno behind a failed mnt_context_umount(): the syscall's when it
 * was called, else the library's own (negative) code; MNT_ERR_* codes
 * (5000+) are not errnos and become -EIO. */
static int umount_errno(struct libmnt_context *cxt, int rc)
{
	int e;

	if (mnt_context_syscall_called(cxt)) {
		e = mnt_context_get_syscall_errno(cxt);
		if (e)
			return -e;
	}
	if (mnt_context_helper_executed(cxt))
		return -EIO; /* umount.<type> said no; its words are in the message */
	/* restricted user, target not in mountinfo: libmount says "not mounted" */
	if (rc == -EPERM && !mnt_context_tab_applied(cxt))
		return -EINVAL;
	if (rc < 0 && rc > -4096)
		return rc;
	return -EIO;
}

int unmount_fs(const char *mountpoint, unsigned flags, char **ret_message)
{
	_cleanup_(context_freep) struct libmnt_context *cxt = NULL;
	char buf[BUFSIZ] = "";
	int rc, ex, r;

	if (ret_message)
		*ret_message = NULL;
	cxt = mnt_new_context();
	if (!cxt)
		return -ENOMEM;
	if (flags & UNMOUNT_LAZY)
		mnt_context_enable_lazy(cxt, 1);
	if (flags & UNMOUNT_CHECK) {
		mnt_context_enable_fake(cxt, 1);
		mnt_context_disable_mtab(cxt, 1);
		mnt_context_disable_helpers(cxt, 1);
	}
	r = mnt_context_set_target(cxt, mountpoint);
	if (r < 0)
		return r;
	rc = mnt_context_umount(cxt);
	ex = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));
	DEBUG(DEBUG_UNMOUNT, "umount %s%s: rc %d excode %d '%s'", mountpoint,
	      flags & UNMOUNT_CHECK ? " (check)" : "", rc, ex, buf);
	if (ex == MNT_EX_SUCCESS)
		return 0;
	r = umount_errno(cxt, rc);
	if (ret_message) {
		*ret_message = strdup(buf[0] ? buf : strerror(-r));
		if (!*ret_message)
			return -ENOMEM;
	}
	return r;
}

void unmount_mount_done(struct unmount_mount *m)
{
	if (!m)
		return;
	free(m->mountpoint);
	free(m->source);
	free(m->fstype);
	memset(m, 0, sizeof(*m));
}

void unmount_mounts_free(struct unmount_mount *list, size_t n)
{
	if (!list)
		return;
	for (size_t i = 0; i < n; i++)
		unmount_mount_done(&list[i]);
	free(list);
}

int unmount_disk_of(unsigned major, unsigned minor, unsigned *ret_major, unsigned *ret_minor)
{
	char link[PATH_MAX], dir[PATH_MAX], rel[PATH_MAX + 16], line[32];
	const char *root = sysroot_get();
	size_t rlen = strlen(root);
	unsigned maj, min;
	int r;

	r = sysroot_path(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
	if (r < 0)
		return r;
	if (!realpath(link, dir))
		return -errno;
	if (strncmp(dir, root, rlen) != 0)
		return -EINVAL; /* a fixture link that escapes the sysroot */
	snprintf(rel, sizeof(rel), "%s/partition", dir + rlen);
	if (sysroot_read_line(rel, line, sizeof(line)) < 0) {
		*ret_major = major;
		*ret_minor = minor;
		return 0;
	}
	snprintf(rel, sizeof(rel), "%s/../dev", dir + rlen);
	r = sysroot_read_line(rel, line, sizeof(line));
	if (r < 0)
		return r;
	if (sscanf(line, "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	*ret_major = maj;
	*ret_minor = min;
	return 0;
}

/* The block device a mount comes from.  On the real root: stat() of the
 * source, which is right for btrfs (anonymous MAJ:MIN in mountinfo) and
 * fuseblk alike.  Under a sysroot nothing can be stat()ed, and a root the
 * kernel mounted itself says "/dev/root", a node that does not exist:
 * then mountinfo's MAJ:MIN, when sysfs knows it as a block device. */
bool unmount_block_dev(const struct mount_entry *e, unsigned *maj, unsigned *min)
{
	char link[PATH_MAX];
	struct stat st;

	if (e->source[0] != '/')
		return false;
	if (sysroot_is_real() && stat(e->source, &st) == 0) {
		if (!S_ISBLK(st.st_mode))
			return false;
		*maj = major(st.st_rdev);
		*min = minor(st.st_rdev);
		return true;
	}
	if (strncmp(e->source, "/dev/", 5) != 0 || e->major == 0 ||
	    sysroot_path(link, sizeof(link), "/sys/dev/block/%u:%u", e->major, e->minor) < 0 ||
	    access(link, F_OK) < 0)
		return false;
	*maj = e->major;
	*min = e->minor;
	return true;
}

static int mount_copy(const struct mount_entry *e, unsigned maj, unsigned min,
		      struct unmount_mount *m)
{
	m->mountpoint = strdup(e->target);
	m->source = strdup(e->source);
	m->fstype = strdup(e->fstype);
	if (!m->mountpoint || !m->source || !m->fstype) {
		unmount_mount_done(m);
		return -ENOMEM;
	}
	m->mnt_id = e->id;
	m->sb_major = e->major;
	m->sb_minor = e->minor;
	m->dev_major = maj;
	m->dev_minor = min;
	return 0;
}

static size_t path_depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

/* Deeper mount points first; ties keep their (reversed mountinfo) order,
 * so of two mounts stacked on one directory the upper one goes first. */
static void sort_innermost_first(struct unmount_mount *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct unmount_mount cur = v[i];
		size_t j = i, d = path_depth(cur.mountpoint);

		while (j > 0 && path_depth(v[j - 1].mountpoint) < d) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = cur;
	}
}

static bool on_device(const struct mount_entry *e, unsigned major, unsigned minor,
		      bool partitions, unsigned *ret_maj, unsigned *ret_min)
{
	unsigned maj, min, dmaj, dmin;

	if (!unmount_block_dev(e, &maj, &min))
		return false;
	*ret_maj = maj;
	*ret_min = min;
	if (maj == major && min == minor)
		return true;
	return partitions && unmount_disk_of(maj, min, &dmaj, &dmin) == 0 &&
	       dmaj == major && dmin == minor;
}

int unmount_mounts_of_device(unsigned major, unsigned minor, bool partitions,
			     struct unmount_mount **ret, size_t *ret_n)
{
	struct mount_entry *list = NULL;
	struct unmount_mount *out = NULL;
	size_t n = 0, k = 0;
	int r;

	r = mount_list(&list, &n);
	if (r < 0)
		return r;
	out = calloc(n ? n : 1, sizeof(*out));
	if (!out) {
		mount_list_free(list, n);
		return -ENOMEM;
	}
	for (size_t i = n; i-- > 0 && r >= 0;) {
		unsigned maj, min;

		if (on_device(&list[i], major, minor, partitions, &maj, &min))
			r = mount_copy(&list[i], maj, min, &out[k++]);
	}
	mount_list_free(list, n);
	if (r < 0) {
		unmount_mounts_free(out, k);
		return r;
	}
	sort_innermost_first(out, k);
	*ret = out;
	*ret_n = k;
	return 0;
}

int unmount_mount_at(const char *mountpoint, struct unmount_mount *ret)
{
	struct mount_entry *list = NULL;
	size_t n = 0;
	int r;

	r = mount_list(&list, &n);
	if (r < 0)
		return r;
	r = -ENOENT;
	for (size_t i = n; i-- > 0;) {
		unsigned maj = 0, min = 0;

		if (strcmp(list[i].target, mountpoint) != 0)
			continue;
		if (!unmount_block_dev(&list[i], &maj, &min))
			maj = min = 0;
		r = mount_copy(&list[i], maj, min, ret);
		break;
	}
	mount_list_free(list, n);
	return r;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int unmount_device_release(const char *devnode, int wait_ms, bool do_fsync)
{
	_cleanup_close_ int fd = -1;
	int waited = 0;

	for (;;) {
		fd = open(devnode, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno != EBUSY || waited >= wait_ms) {
			int r = -errno;

			DEBUG(DEBUG_UNMOUNT, "O_EXCL %s: %s after %d ms", devnode, strerror(-r), waited);
			return r;
		}
		sleep_ms(50);
		waited += 50;
	}
	DEBUG(DEBUG_UNMOUNT, "O_EXCL %s: free after %d ms", devnode, waited);
	if (do_fsync && fsync(fd) < 0)
		return -errno;
	return 0;
}
