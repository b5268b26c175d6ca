/* safeunmount_target.c: from a TARGET to a job, and every refusal that can
 * be made before the sync starts.
 *
 * A TARGET is a LABEL=/UUID=/PARTUUID=/PARTLABEL= tag (libblkid), a block
 * device (a partition: its mounts; a whole disk: the mounts of it and of
 * all its partitions), or a path, which stands for the mount it is on,
 * unless that is the root filesystem.  Before a byte is written we check
 * what would only fail at the end: the system-disk guards
 * (safeunmount_guard.c), libmount's permission check (a dry-run unmount)
 * and, for --power-off, that the disk can be detached and that nothing
 * outside the job is mounted from it.  Under SAFECP_SYSROOT (tests on a
 * captured tree) device names are looked up in the tree and the
 * permission check, which would ask this machine's libmount, is skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/blockid.h"
#include "util/cleanup.h"
#include "device/mount.h"
#include "unmount/poweroff.h"
#include "common/quote.h"
#include "safeunmount/safeunmount.h"
#include "util/sysroot.h"
#include "device/target.h"

static bool is_tag(const char *s)
{
	static const char *const tags[] = { "LABEL=", "UUID=", "PARTUUID=", "PARTLABEL=" };

	for (size_t i = 0; i < ARRAY_SIZE(tags); i++)
		if (strncmp(s, tags[i], strlen(tags[i])) == 0)
			return true;
	return false;
}

void job_done(struct su_job *job)
{
	for (size_t i = 0; i < job->n_fs; i++)
		unmount_mount_done(&job->fs[i].m);
	free(job->fs);
	job->fs = NULL;
	job->n_fs = 0;
}

/* The facts run needs: bdi and disk (target_probe), device node, st_dev. */
static void fs_probe(struct su_fs *fs)
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

static enum su_status take_mounts(struct su_job *job, struct unmount_mount *m, size_t n)
{
	job->fs = calloc(n ? n : 1, sizeof(*job->fs));
	if (!job->fs) {
		unmount_mounts_free(m, n);
		report_error(NULL, job_kind(job), job->arg, ENOMEM,
			     "cannot unmount %s: out of memory", quote(job->arg));
		return SU_FAILED;
	}
	for (size_t i = 0; i < n; i++)
		job->fs[i].m = m[i]; /* the strings move over */
	job->n_fs = n;
	free(m);
	for (size_t i = 0; i < n; i++)
		fs_probe(&job->fs[i]);
	return SU_OK;
}

static enum su_status resolve_device(const struct su_options *o, const char *node,
				     dev_t rdev, struct su_job *job)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;
	unsigned dmaj, dmin;
	int r;

	job->device_target = true;
	snprintf(job->devnode, sizeof(job->devnode), "%s", node);
	job->dev_major = major(rdev);
	job->dev_minor = minor(rdev);
	r = unmount_disk_of(job->dev_major, job->dev_minor, &dmaj, &dmin);
	if (r < 0) {
		report_error(NULL, EVENT_DEVICE, node, r,
			     "cannot find the disk of %s: %s", quote(node),
			     strerror(-r));
		return SU_USAGE;
	}
	job->whole_disk = dmaj == job->dev_major && dmin == job->dev_minor;
	job->have_disk = true;
	job->disk_major = dmaj;
	job->disk_minor = dmin;
	r = unmount_mounts_of_device(job->dev_major, job->dev_minor, job->whole_disk, &m, &n);
	if (r < 0) {
		report_error(NULL, EVENT_PATH,
			     "/proc/self/mountinfo", r, "cannot read the mount table: %s",
			     strerror(-r));
		return SU_FAILED;
	}
	if (n == 0 && !o->power_off) {
		free(m);
		report_error(NULL, EVENT_DEVICE, node, 0, "%s is not mounted", quote(node));
		return SU_USAGE;
	}
	return take_mounts(job, m, n);
}

static enum su_status resolve_tag(const struct su_options *o, const char *tag, struct su_job *job)
{
	_cleanup_free_ char *node = NULL;
	struct stat st;
	int r = blockid_resolve(tag, &node);

	if (r == -ENOENT || r == -EACCES) {
		report_error(NULL, EVENT_DEVICE, tag, r,
			     "no filesystem with %s was found%s", quote_bare(tag),
			     geteuid() != 0 ? " (finding it may need root)" : "");
		return SU_USAGE;
	}
	if (r < 0 || stat(node, &st) < 0) {
		report_error(NULL, EVENT_DEVICE, tag, r < 0 ? r : errno,
			     "cannot resolve %s: %s", quote(tag),
			     strerror(r < 0 ? -r : errno));
		return SU_USAGE;
	}
	return resolve_device(o, node, st.st_rdev, job);
}

/* Under SAFECP_SYSROOT (a captured tree, for tests) nothing is stat()ed:
 * a /dev name is looked up in the tree's sysfs, the rest is a path. */
static enum su_status resolve_in_sysroot(const struct su_options *o, const char *arg,
					 struct su_job *job)
{
	struct target *t = NULL;
	dev_t devt;
	int r;

	if (is_tag(arg)) {
		report_error(NULL, EVENT_DEVICE, arg, 0,
			     "cannot resolve %s in the captured tree %s", quote(arg),
			     quote(sysroot_get()));
		return SU_USAGE;
	}
	r = target_probe_devname(arg, &t);
	if (r < 0) {
		report_error(NULL, EVENT_DEVICE, arg, r,
			     "cannot access %s: %s", quote(arg), strerror(-r));
		return SU_USAGE;
	}
	devt = makedev(t->dev_major, t->dev_minor);
	target_free(t);
	return resolve_device(o, arg, devt, job);
}

static enum su_status resolve_path(const char *arg, struct su_job *job)
{
	_cleanup_free_ char *abs = NULL;
	struct mount_entry e = { 0 };
	struct unmount_mount *m;
	int r;

	r = mount_resolve_path(arg, &abs);
	if (r == 0)
		r = mount_find_for_path(abs, &e);
	if (r < 0) {
		report_error(NULL, EVENT_PATH, arg, r,
			     "cannot find the mount of %s: %s", quote(arg),
			     strerror(-r));
		return SU_USAGE;
	}
	if (strcmp(e.target, "/") == 0) {
		if (strcmp(abs, "/") == 0)
			report_error(NULL, EVENT_PATH, arg, 0,
				     "refusing to unmount the root filesystem");
		else
			report_error(NULL, EVENT_PATH, arg, 0,
				     "%s is not mounted (it is on the root filesystem)",
				     quote(arg));
		mount_entry_done(&e);
		return SU_USAGE;
	}
	m = calloc(1, sizeof(*m));
	r = m ? unmount_mount_at(e.target, m) : -ENOMEM;
	mount_entry_done(&e);
	if (r < 0) {
		free(m);
		report_error(NULL, EVENT_PATH, arg, 0, "%s is not mounted", quote(arg));
		return SU_USAGE;
	}
	return take_mounts(job, m, 1);
}

/* libmount's verdict without the syscall: a non-root user learns now, not
 * after the sync, that the unmount will be refused. */
static enum su_status check_permission(const struct su_job *job)
{
	for (size_t i = 0; i < job->n_fs; i++) {
		const char *mp = job->fs[i].m.mountpoint;
		_cleanup_free_ char *msg = NULL;
		int r = unmount_fs(mp, UNMOUNT_CHECK, &msg);

		if (r == -EPERM) {
			report_error("unmount", EVENT_PATH, mp, EPERM,
				     "cannot unmount %s: only root, or the user who mounted it, may do that",
				     quote(mp));
			return SU_USAGE;
		}
		if (r == -EINVAL) {
			report_error("unmount", EVENT_PATH, mp, 0, "%s is not mounted", quote(mp));
			return SU_USAGE;
		}
	}
	return SU_OK;
}

static bool job_has_mount(const struct su_job *job, int mnt_id)
{
	for (size_t i = 0; i < job->n_fs; i++)
		if (job->fs[i].m.mnt_id == mnt_id)
			return true;
	return false;
}

/* A filesystem of the disk (or a sibling) that the job leaves mounted. */
static enum su_status check_other_mounts(const struct su_job *job, const struct poweroff_plan *p)
{
	enum su_status s = SU_OK;

	for (size_t i = 0; i < p->n_devs && s == SU_OK; i++) {
		struct unmount_mount *m = NULL;
		size_t n = 0;

		if (!p->devs[i].is_disk ||
		    unmount_mounts_of_device(p->devs[i].major, p->devs[i].minor, true, &m, &n) < 0)
			continue;
		for (size_t k = 0; k < n && s == SU_OK; k++) {
			if (job_has_mount(job, m[k].mnt_id))
				continue;
			report_error("power-off", EVENT_DEVICE, p->devnode, 0,
				     "cannot power off %s: %s is mounted on %s; "
				     "unmount it too, or give the whole disk %s",
				     quote(p->devnode), quote(m[k].source), quote(m[k].mountpoint), quote(p->devnode));
			s = SU_BUSY;
		}
		unmount_mounts_free(m, n);
	}
	return s;
}

static const char *bus_words(enum transport t)
{
	switch (t) {
	case TRANSPORT_SATA: return "a SATA";
	case TRANSPORT_SCSI: return "a SCSI";
	case TRANSPORT_FIREWIRE: return "a FireWire";
	case TRANSPORT_THUNDERBOLT: return "a Thunderbolt";
	case TRANSPORT_NVME: return "an NVMe";
	case TRANSPORT_VIRTIO: return "a virtio";
	default: return "a fixed";
	}
}

static enum su_status refusal_status(const struct poweroff_plan *p)
{
	switch (p->refusal) {
	case POWEROFF_OK:
	case POWEROFF_MOUNTED: /* the job unmounts; check_other_mounts says the rest */
		return SU_OK;
	case POWEROFF_HELD:
		report_error("power-off", EVENT_DEVICE, p->devnode, 0,
			     "cannot power off %s: %s is in use by %s",
			     quote(p->devnode), quote(p->blocker), quote(p->blocker_where));
		return SU_BUSY;
	case POWEROFF_INTERNAL_READER:
		report_error("power-off", EVENT_DEVICE, p->devnode, 0,
			     "refusing to power off %s: an SD card in a built-in reader "
			     "may not come back until it is re-inserted; use --force to do it anyway",
			     quote(p->devnode));
		return SU_USAGE;
	case POWEROFF_NO_METHOD:
	case POWEROFF_FIXED_DISK:
		report_error("power-off", EVENT_DEVICE, p->devnode, 0,
			     "refusing to power off %s: it is %s disk; only USB and loop "
			     "devices are powered off (and, with --force, an SD card in a built-in reader)",
			     quote(p->devnode), bus_words(p->transport));
		return SU_USAGE;
	}
	return SU_USAGE;
}

static enum su_status check_power_off(const struct su_options *o, const struct su_job *job)
{
	struct poweroff_plan p;
	enum su_status s;
	int r;

	if (!job->have_disk) {
		report_error("power-off", job_kind(job), job->arg, 0,
			     "cannot power off %s: it is not on a block device",
			     quote(job->arg));
		return SU_USAGE;
	}
	if (geteuid() != 0) {
		report_error("power-off", job_kind(job), job->arg, EPERM,
			     "cannot power off %s: only root may do that",
			     quote(job->arg));
		return SU_USAGE;
	}
	r = poweroff_plan_make(job->disk_major, job->disk_minor,
			       POWEROFF_IGNORE_MOUNTS | (o->force ? POWEROFF_FORCE : 0), &p);
	if (r < 0) {
		report_error("power-off", job_kind(job), job->arg, r, "cannot power off %s: %s",
			     quote(job->arg), strerror(-r));
		return SU_FAILED;
	}
	s = refusal_status(&p);
	if (s == SU_OK)
		s = job_guard_power_off(job, &p);
	if (s == SU_OK)
		s = check_other_mounts(job, &p);
	poweroff_plan_done(&p);
	return s;
}

static void job_disk_from_fs(struct su_job *job)
{
	for (size_t i = 0; i < job->n_fs && !job->have_disk; i++) {
		if (job->fs[i].disk[0]) {
			job->have_disk = true;
			job->disk_major = job->fs[i].disk_major;
			job->disk_minor = job->fs[i].disk_minor;
		}
	}
}

enum su_status job_resolve(const struct su_options *o, const char *arg, struct su_job *job)
{
	enum su_status s;
	struct stat st;

	memset(job, 0, sizeof(*job));
	job->arg = arg;
	if (!sysroot_is_real() && arg[0] == '/' && strncmp(arg, "/dev/", 5) != 0) {
		s = resolve_path(arg, job);
		job_disk_from_fs(job);
	} else if (!sysroot_is_real()) {
		s = resolve_in_sysroot(o, arg, job);
	} else if (is_tag(arg)) {
		s = resolve_tag(o, arg, job);
	} else if (stat(arg, &st) < 0) {
		report_error(NULL, EVENT_PATH, arg, errno,
			     "cannot access %s: %s", quote(arg), strerror(errno));
		return SU_USAGE;
	} else if (S_ISBLK(st.st_mode)) {
		s = resolve_device(o, arg, st.st_rdev, job);
	} else {
		s = resolve_path(arg, job);
		job_disk_from_fs(job);
	}
	if (s == SU_OK)
		s = job_guard(o, job);
	if (s == SU_OK && sysroot_is_real())
		s = check_permission(job);
	if (s == SU_OK && o->power_off)
		s = check_power_off(o, job);
	return s;
}
