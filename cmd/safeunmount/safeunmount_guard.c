/* safeunmount_guard.c: the refusals that protect the running system, and
 * the all-or-nothing check of a job with several filesystems.
 *
 * Guards (lib/sysdisk.c has the facts): whatever the target's form, "/"
 * and the disk that holds it are never unmounted or powered off; the
 * other system mounts, anything else on the root disk, and a disk with
 * active swap need --system.  They run on the job's filesystems, so a
 * device, a whole disk, LABEL= and UUID= are judged like a path.
 *
 * All or nothing: a whole disk or a device mounted in several places is
 * one job; if its second filesystem turned out busy after the first was
 * unmounted, the user would be left with half a disk.  So before the
 * sync every filesystem is checked for holders (processes, as fuser -m)
 * and for mounts inside it that the job leaves alone; --wait waits until
 * all are free at once.  What the kernel alone holds (a loop device
 * backed by a file on it) is only found by the unmount itself. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/cleanup.h"
#include "device/mount.h"
#include "unmount/poweroff.h"
#include "common/quote.h"
#include "safeunmount/safeunmount.h"
#include "device/sysdisk.h"

#define RETRY_SECONDS 0.5

static const char *fs_device(const struct su_fs *fs)
{
	return fs->devnode[0] ? fs->devnode : fs->m.source;
}

/* One filesystem's guard; o->system lifts all but the root's. */
static enum su_status guard_fs(const struct su_options *o, const struct sysdisk *sd,
			       const struct su_fs *fs)
{
	const char *mp = fs->m.mountpoint, *dev = fs_device(fs);
	enum sysdisk_kind k = sysdisk_classify(sd, mp, fs->m.dev_major, fs->m.dev_minor);
	const struct sysdisk_swap *sw;

	switch (k) {
	case SYSDISK_NONE:
		return SU_OK;
	case SYSDISK_ROOT:
		report_error(NULL, EVENT_PATH, mp, 0,
			     "refusing to unmount '/' on %s: it is the root filesystem",
			     quote_bare(dev));
		return SU_USAGE;
	default:
		break;
	}
	if (o->system)
		return SU_OK;
	if (k == SYSDISK_SYSTEM) {
		report_error(NULL, EVENT_PATH, mp, 0,
			     "refusing to unmount %s on %s: it is a system mount; "
			     "use --system if you really mean it", quote(mp), quote_bare(dev));
	} else if (k == SYSDISK_ROOT_DISK) {
		report_error(NULL, EVENT_PATH, mp, 0,
			     "refusing to unmount %s on %s: it is on the disk that holds the "
			     "root filesystem; use --system if you really mean it", quote(mp),
			     quote_bare(dev));
	} else {
		sw = sysdisk_swap_of_dev(sd, fs->m.dev_major, fs->m.dev_minor);
		report_error(NULL, EVENT_PATH, mp, 0,
			     "refusing to unmount %s on %s: its disk has active swap (%s); "
			     "use --system if you really mean it", quote(mp), quote_bare(dev),
			     quote(sw ? sw->name : "?"));
	}
	return SU_USAGE;
}

/* The disk that holds "/": never as a whole, never powered off. */
static enum su_status guard_root_disk(const struct su_options *o, const struct sysdisk *sd,
				      const struct su_job *job)
{
	if (!job->have_disk || !sysdisk_holds_root(sd, job->disk_major, job->disk_minor))
		return SU_OK;
	if (job->whole_disk) {
		report_error(NULL, EVENT_DEVICE, job->arg, 0,
			     "refusing to unmount %s: it is the disk that holds the root "
			     "filesystem ('/' on %s); name one of its other filesystems instead",
			     quote(job->arg), quote_bare(sd->root_source));
		return SU_USAGE;
	}
	if (o->power_off) {
		report_error("power-off", job_kind(job), job->arg, 0,
			     "refusing to power off the disk of %s: it holds the "
			     "root filesystem ('/' on %s)", quote(job->arg), quote_bare(sd->root_source));
		return SU_USAGE;
	}
	return SU_OK;
}

static int load(struct sysdisk *sd)
{
	int r = sysdisk_load(sd);

	if (r < 0)
		report_error(NULL, EVENT_PATH,
			     "/proc/self/mountinfo", r, "cannot read the mount table: %s",
			     strerror(-r));
	return r;
}

enum su_status job_guard(const struct su_options *o, const struct su_job *job)
{
	struct sysdisk sd;
	enum su_status s = SU_OK;

	if (load(&sd) < 0)
		return SU_FAILED;
	/* "/" first: of all the reasons, that one must be heard */
	for (size_t i = 0; i < job->n_fs && s == SU_OK; i++)
		if (strcmp(job->fs[i].m.mountpoint, "/") == 0)
			s = guard_fs(o, &sd, &job->fs[i]);
	if (s == SU_OK)
		s = guard_root_disk(o, &sd, job);
	for (size_t i = 0; i < job->n_fs && s == SU_OK; i++)
		s = guard_fs(o, &sd, &job->fs[i]);
	return s;
}

/* Every disk that goes with the power-off (the other slots of a USB card
 * reader too): none may hold "/", none may have active swap. */
enum su_status job_guard_power_off(const struct su_job *job, const struct poweroff_plan *p)
{
	const struct sysdisk_swap *sw = NULL;
	struct sysdisk sd;
	size_t i;

	if (load(&sd) < 0)
		return SU_FAILED;
	for (i = 0; i < p->n_devs; i++) {
		if (!p->devs[i].is_disk)
			continue;
		if (sysdisk_holds_root(&sd, p->devs[i].major, p->devs[i].minor)) {
			report_error("power-off", EVENT_DEVICE, p->devnode, 0,
				     "refusing to power off %s: %s, which goes with it, "
				     "holds the root filesystem ('/' on %s)", quote(p->devnode),
				     quote_bare(p->devs[i].devnode), quote_bare(sd.root_source));
			return SU_USAGE;
		}
		if (!sw)
			sw = sysdisk_swap_on(&sd, p->devs[i].major, p->devs[i].minor);
	}
	if (!sw)
		return SU_OK;
	report_error("power-off", job_kind(job), job->arg, 0,
		     "cannot power off the disk of %s: %s on it is active swap; "
		     "run swapoff %s first", quote(job->arg), quote(sw->name), quote(sw->name));
	return SU_BUSY;
}

/* ---- all or nothing ------------------------------------------------------ */

static bool job_has_mount_id(const struct su_job *job, int id)
{
	for (size_t i = 0; i < job->n_fs; i++)
		if (job->fs[i].m.mnt_id == id)
			return true;
	return false;
}

size_t su_submounts(const struct su_job *job, const char *mountpoint, char ***ret)
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
		    !(job && job_has_mount_id(job, list[i].id)))
			out[k++] = strdup(list[i].target);
	mount_list_free(list, n);
	*ret = out;
	return k;
}

/* Whether fs is free; when not and report, says who holds it. */
static bool fs_free(const struct su_job *job, const struct su_fs *fs, bool waiting, bool report)
{
	const struct holders_mount hm = {
		.mountpoint = fs->m.mountpoint, .mnt_id = fs->m.mnt_id,
		.sb_major = fs->m.sb_major, .sb_minor = fs->m.sb_minor,
		.st_major = fs->st_major, .st_minor = fs->st_minor,
	};
	struct holder_list h = { 0 };
	char **sub = NULL;
	size_t n_sub = su_submounts(job, fs->m.mountpoint, &sub);
	bool free_ = true;

	if (holders_of_mount(&hm, &h) < 0)
		h = (struct holder_list){ 0 };
	if (h.n || n_sub) {
		if (report)
			report_busy(fs->m.mountpoint, fs->m.mountpoint, &h, sub, n_sub, waiting);
		free_ = false;
	}
	holder_list_done(&h);
	for (size_t i = 0; i < n_sub; i++)
		free(sub[i]);
	free(sub);
	return free_;
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum su_status job_check_free(const struct su_options *o, const struct su_job *job)
{
	double deadline = o->wait_seconds < 0 ? INFINITY : monotonic() + o->wait_seconds;
	bool said = false;

	if (job->n_fs < 2 || o->lazy)
		return SU_OK;
	for (;;) {
		bool waiting = o->wait && monotonic() < deadline, all = true;

		for (size_t i = 0; i < job->n_fs; i++)
			if (!fs_free(job, &job->fs[i], waiting, !said || !waiting))
				all = false;
		if (all)
			return SU_OK;
		if (!waiting) {
			report_error("unmount", job_kind(job), job->arg, 0,
				     "nothing was unmounted: every filesystem of %s must be "
				     "free before any is unmounted", quote(job->arg));
			return SU_BUSY;
		}
		said = true;
		if (nanosleep(&(struct timespec){ 0, (long)(RETRY_SECONDS * 1e9) }, NULL) < 0 ||
		    su_interrupted) {
			report_error("unmount", job_kind(job), job->arg, EINTR,
				     "interrupted while waiting; nothing was unmounted");
			return SU_INTERRUPTED;
		}
	}
}
