/* safeunmount_run.c: carry out one job: sync with progress, unmount,
 * check the device is released, power off.
 *
 * Why this order (doc/kernel.md 7): the final unmount syncs too, but blocks
 * without a word; syncfs first, in lib/syncer's worker thread, lets us show
 * the device draining, and leaves umount with almost nothing to do.  The
 * bar reaches 100% only when syncer says clean (every syncfs returned,
 * the bdi shows nothing pending, nothing in flight).  If someone keeps
 * dirtying the filesystem we sync again, twice at most, and then let the
 * unmount write the rest.  After the unmount an O_EXCL open proves no
 * other mount namespace or program still holds the device.  --wait turns
 * "busy" into a retry every half second until the time is up. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "device/mount.h"
#include "unmount/poweroff.h"
#include "common/quote.h"
#include "safeunmount/safeunmount.h"
#include "util/size.h"
#include "unmount/syncer.h"

#define POLL_MS 100          /* display pace; the end of a round wakes us at once */
#define SYNC_ROUNDS 3
#define RETRY_SECONDS 0.5
#define RELEASE_WAIT_MS 3000 /* a FUSE daemon lets go of its device after umount */

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* false when a signal cut it short */
static bool pause_for(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - floor(seconds)) * 1e9) };

	return nanosleep(&ts, NULL) == 0 && !su_interrupted;
}

static double deadline_of(const struct su_options *o)
{
	return o->wait_seconds < 0 ? INFINITY : monotonic() + o->wait_seconds;
}

/* ---- sync ---------------------------------------------------------------- */

struct sync_view {
	struct progress *meter;
	struct progress_rate rate;
	struct su_progress_json pj;
	const char *item;
};

static void show(struct sync_view *v, const struct syncer_figures *f)
{
	double rate = progress_rate_sample(&v->rate, f->t_mono, f->bytes_written);
	struct progress_state st = {
		.total = f->bytes_written + f->bytes_left,
		.done = f->bytes_written,
		.rate = rate,
		.eta = progress_eta(f->bytes_left, rate),
		.item = v->item,
		.label = "left",
		.estimate = f->estimate,
	};

	v->pj.t_real = f->t_real;
	v->pj.bytes_left = f->bytes_left;
	v->pj.bytes_written = f->bytes_written;
	progress_update(v->meter, &st);
}

/* Polls until clean, an error or an interruption.  *clean tells whether
 * the bar may say 100%. */
static enum su_status sync_loop(struct su_job *job, struct syncer *s, struct sync_view *v,
				bool *clean)
{
	struct syncer_figures f;
	int timeout = 0, r;

	for (;;) {
		r = syncer_poll(s, timeout, &f);
		timeout = POLL_MS;
		if (r == -EINTR || su_interrupted)
			return SU_INTERRUPTED;
		if (r < 0) {
			progress_free(TAKE_PTR(v->meter));
			report_error("sync", job_kind(job), job->arg, r,
				     "cannot read the state of %s: %s",
				     quote(job->arg), strerror(-r));
			return SU_FAILED;
		}
		show(v, &f);
		job->bytes_written = f.bytes_written;
		if (f.error) {
			progress_free(TAKE_PTR(v->meter));
			report_error("sync", EVENT_PATH, job->fs[f.error_index].m.mountpoint, f.error,
				     "cannot sync %s: %s; some data may not be on the device",
				     quote(job->fs[f.error_index].m.mountpoint), strerror(-f.error));
			return SU_FAILED;
		}
		*clean = f.clean;
		if (f.clean || (f.synced && f.round >= SYNC_ROUNDS))
			return SU_OK;
		if (f.synced)
			syncer_again(s);
	}
}

static enum su_status sync_phase(const struct su_options *o, struct su_job *job)
{
	_cleanup_free_ char **mps = calloc(job->n_fs, sizeof(char *));
	_cleanup_free_ struct syncer_source *src = calloc(job->n_fs, sizeof(*src));
	struct sync_view v = { .item = job->device_target ? job->devnode : job->fs[0].m.mountpoint };
	struct syncer *s = NULL;
	struct syncer_figures first;
	enum su_status st;
	bool clean = false;
	int r;

	if (!mps || !src)
		return SU_FAILED;
	for (size_t i = 0; i < job->n_fs; i++) {
		mps[i] = job->fs[i].m.mountpoint;
		src[i] = (struct syncer_source){ job->fs[i].bdi, job->fs[i].disk };
	}
	r = syncer_start(mps, job->n_fs, src, job->n_fs, &s);
	if (r < 0) {
		report_error("sync", job_kind(job), job->arg, r,
			     "cannot sync %s: %s", quote(job->arg),
			     strerror(-r));
		return SU_FAILED;
	}
	progress_rate_init(&v.rate, 0);
	r = progress_new(&(struct progress_options){ .mode = o->progress, .show = PROGRESS_SHOW_LEFT,
						     .json = report_progress_json, .userdata = &v.pj },
			 &v.meter);
	if (r < 0)
		v.meter = NULL;
	/* the state when the sync began, however late the first poll */
	syncer_first(s, &first);
	show(&v, &first);
	st = sync_loop(job, s, &v, &clean);
	if (st == SU_INTERRUPTED) {
		progress_free(v.meter);
		/* syncer stays: its thread is inside syncfs, which we cannot stop */
		report_error("sync", job_kind(job), job->arg, EINTR,
			     "interrupted; the kernel goes on writing the data, and %s is still mounted",
			     quote(job->arg));
		return st;
	}
	if (st == SU_OK && clean)
		progress_done(v.meter, NULL);
	else if (st == SU_OK)
		report_verbose("more data was written to %s during the sync; the unmount writes the rest",
			       quote(job->arg));
	progress_free(v.meter);
	syncer_free(s); /* closes the mount points before the unmount */
	return st;
}

/* ---- unmount --------------------------------------------------------------- */

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Look up and report who keeps fs busy; the list is kept to report only
 * changes while waiting. */
static void busy_report(const struct su_fs *fs, bool waiting, struct holder_list *last, bool *reported)
{
	const struct holders_mount hm = {
		.mountpoint = fs->m.mountpoint, .mnt_id = fs->m.mnt_id,
		.sb_major = fs->m.sb_major, .sb_minor = fs->m.sb_minor,
		.st_major = fs->st_major, .st_minor = fs->st_minor,
	};
	struct holder_list h = { 0 };
	char **sub = NULL;
	size_t n_sub;

	if (holders_of_mount(&hm, &h) < 0)
		h = (struct holder_list){ 0 };
	n_sub = su_submounts(NULL, fs->m.mountpoint, &sub);
	if (!*reported || !holder_list_equal(&h, last))
		report_busy(fs->m.mountpoint, fs->m.mountpoint, &h, sub, n_sub, waiting);
	*reported = true;
	holder_list_done(last);
	*last = h;
	free_strv(sub, n_sub);
}

static enum su_status unmount_one(const struct su_options *o, struct su_fs *fs)
{
	const char *mp = fs->m.mountpoint;
	struct holder_list last = { 0 };
	double deadline = deadline_of(o);
	bool reported = false;
	enum su_status st;

	for (;;) {
		_cleanup_free_ char *msg = NULL;
		int r = unmount_fs(mp, o->lazy ? UNMOUNT_LAZY : 0, &msg);
		bool waiting = o->wait && monotonic() < deadline;

		if (r == 0) {
			fs->unmounted = true;
			report_unmounted(fs);
			st = SU_OK;
			break;
		}
		if (r != -EBUSY) {
			report_error("unmount", EVENT_PATH, mp, r,
				     "cannot unmount %s: %s", quote(mp),
				     msg ? msg : strerror(-r));
			st = r == -EINVAL ? SU_USAGE : SU_FAILED;
			break;
		}
		busy_report(fs, waiting, &last, &reported);
		if (!waiting) {
			st = SU_BUSY;
			break;
		}
		if (!pause_for(RETRY_SECONDS)) {
			report_error("unmount", EVENT_PATH, mp, EINTR,
				     "interrupted while waiting; %s is still mounted", quote(mp));
			st = SU_INTERRUPTED;
			break;
		}
	}
	holder_list_done(&last);
	return st;
}

/* ---- release --------------------------------------------------------------- */

static void device_busy_report(const char *devnode, unsigned maj, unsigned min, bool waiting,
			       struct holder_list *last, bool *reported)
{
	struct holder_list h = { 0 };

	if (holders_of_device(maj, min, devnode, &h) < 0)
		h = (struct holder_list){ 0 };
	if (!*reported || !holder_list_equal(&h, last)) {
		if (!waiting)
			report_error("unmount", EVENT_DEVICE, devnode, EBUSY,
				     "%s is unmounted here but still in use: another "
				     "mount namespace or program holds it, and its data may not "
				     "all be written", quote(devnode));
		report_busy(devnode, NULL, &h, NULL, 0, waiting);
	}
	*reported = true;
	holder_list_done(last);
	*last = h;
}

static enum su_status release_one(const struct su_options *o, const char *devnode,
				  unsigned maj, unsigned min)
{
	struct holder_list last = { 0 };
	double deadline = deadline_of(o);
	bool reported = false;
	int wait_ms = RELEASE_WAIT_MS;
	enum su_status st = SU_OK;

	for (;;) {
		int r = unmount_device_release(devnode, wait_ms, geteuid() == 0);
		bool waiting = o->wait && monotonic() < deadline;

		if (r == -EACCES || r == -EPERM) {
			report_verbose("cannot check that %s is free: %s (run as root to check)",
				       quote(devnode), strerror(-r));
		} else if (r == -EBUSY) {
			device_busy_report(devnode, maj, min, waiting, &last, &reported);
			if (waiting && pause_for(RETRY_SECONDS)) {
				wait_ms = 0;
				continue;
			}
			st = su_interrupted ? SU_INTERRUPTED : SU_BUSY;
		} else if (r < 0) {
			report_error("unmount", EVENT_DEVICE, devnode, r,
				     "cannot flush %s: %s", quote(devnode),
				     strerror(-r));
			st = SU_FAILED;
		} else {
			report_verbose("%s is free and flushed", quote(devnode));
		}
		break;
	}
	holder_list_done(&last);
	return st;
}

/* Still mounted elsewhere in our own namespace (a bind mount, a second
 * mount point): not safe to remove, and not another namespace's doing. */
static bool still_mounted_here(const struct su_fs *fs)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;

	if (unmount_mounts_of_device(fs->m.dev_major, fs->m.dev_minor, false, &m, &n) < 0 || n == 0) {
		free(m);
		return false;
	}
	report_error("unmount", EVENT_DEVICE, fs->devnode, 0,
		     "%s is still mounted on %s; it is not safe to remove",
		     quote(fs->devnode), quote(m[0].mountpoint));
	unmount_mounts_free(m, n);
	return true;
}

static bool seen_before(const struct su_job *job, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(job->fs[k].devnode, job->fs[i].devnode) == 0)
			return true;
	return false;
}

static enum su_status release_phase(const struct su_options *o, const struct su_job *job)
{
	enum su_status st = SU_OK;

	for (size_t i = 0; i < job->n_fs && st == SU_OK; i++) {
		const struct su_fs *fs = &job->fs[i];

		if (!fs->devnode[0] || seen_before(job, i))
			continue;
		if (still_mounted_here(fs))
			return SU_BUSY;
		st = release_one(o, fs->devnode, fs->m.dev_major, fs->m.dev_minor);
	}
	if (st == SU_OK && job->whole_disk)
		st = release_one(o, job->devnode, job->dev_major, job->dev_minor);
	return st;
}

/* ---- power off ------------------------------------------------------------- */

static const char *step_name(enum poweroff_step s)
{
	switch (s) {
	case POWEROFF_STEP_FLUSH: return "flushing";
	case POWEROFF_STEP_INFLIGHT: return "waiting for the device";
	case POWEROFF_STEP_DETACH: return "detaching";
	case POWEROFF_STEP_GONE: return "waiting for it to disappear";
	}
	return "power-off";
}

static const char *scsi_word(int r)
{
	return r == 0 ? "done" : r == -ENOTTY || r == -EINVAL ? "not a SCSI device" : strerror(-r);
}

static enum su_status power_off_failed(const struct poweroff_plan *p,
				       const struct poweroff_result *res, int r)
{
	if (r == -EBUSY) {
		struct holder_list last = { 0 };
		bool reported = false;
		const char *dev = res->failed_dev[0] ? res->failed_dev : p->devnode;

		for (size_t i = 0; i < p->n_devs; i++)
			if (strcmp(p->devs[i].devnode, dev) == 0)
				device_busy_report(dev, p->devs[i].major, p->devs[i].minor, false,
						   &last, &reported);
		holder_list_done(&last);
		return SU_BUSY;
	}
	report_error("power-off", EVENT_DEVICE, p->devnode, r,
		     "cannot power off %s: %s %s failed: %s", quote(p->devnode),
		     step_name(res->failed_step), quote(res->failed_dev), strerror(-r));
	return SU_FAILED;
}

static enum su_status power_off_phase(const struct su_options *o, struct su_job *job)
{
	struct poweroff_plan p;
	struct poweroff_result res;
	enum su_status st = SU_OK;
	int r;

	r = poweroff_plan_make(job->disk_major, job->disk_minor, o->force ? POWEROFF_FORCE : 0, &p);
	if (r < 0) {
		report_error("power-off", job_kind(job), job->arg, r, "cannot power off %s: %s",
			     quote(job->arg), strerror(-r));
		return SU_FAILED;
	}
	snprintf(job->disk_node, sizeof(job->disk_node), "%s", p.devnode);
	if (p.refusal == POWEROFF_MOUNTED || p.refusal == POWEROFF_HELD) {
		report_error("power-off", EVENT_DEVICE, p.devnode, 0,
			     "cannot power off %s: %s is %s %s", quote(p.devnode),
			     quote(p.blocker), p.refusal == POWEROFF_MOUNTED ? "mounted on" : "in use by",
			     quote(p.blocker_where));
		st = SU_BUSY;
	} else if (p.refusal != POWEROFF_OK) {
		report_error("power-off", EVENT_DEVICE, p.devnode, 0,
			     "cannot power off %s", /* checked before */
			     quote(p.devnode));
		st = SU_USAGE;
	} else {
		report_verbose("powering off %s by %s", quote(p.devnode), poweroff_method_name(p.method));
		r = poweroff_run(&p, &res);
		if (r == 0 || res.failed_step != POWEROFF_STEP_FLUSH)
			report_verbose("SYNCHRONIZE CACHE: %s; START STOP UNIT: %s; in flight: %s",
				       scsi_word(res.sync_cache), scsi_word(res.stop_unit),
				       res.inflight_drained ? "nothing" : "still busy after 5 s");
		if (r < 0)
			st = power_off_failed(&p, &res, r);
		else
			report_powered_off(p.devnode, poweroff_method_name(p.method));
	}
	poweroff_plan_done(&p);
	return st;
}

/* ---- the job ------------------------------------------------------------- */

/* A filesystem of the job's disk that the job did not unmount. */
static bool others_mounted(const struct su_job *job, char **ret_mountpoint)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;

	*ret_mountpoint = NULL;
	if (!job->have_disk ||
	    unmount_mounts_of_device(job->disk_major, job->disk_minor, true, &m, &n) < 0)
		return false;
	if (n > 0)
		*ret_mountpoint = strdup(m[0].mountpoint);
	unmount_mounts_free(m, n);
	return *ret_mountpoint != NULL;
}

static void summary(const struct su_options *o, const struct su_job *job)
{
	char size[SIZE_FORMAT_MAX], *other = NULL;
	const char *what = job->device_target ? job->devnode : job->fs[0].m.mountpoint;

	if (o->power_off) {
		report_info("%s is powered off; it can be removed", quote(job->disk_node));
	} else if (o->lazy) {
		report_info("%s is detached; data may still be on its way to the device, so wait "
			    "before removing it", quote(what));
	} else if (others_mounted(job, &other)) {
		report_info("%s is unmounted (%s written); %s is still mounted from the same disk",
			    quote(what), size_format(size, sizeof(size), job->bytes_written), quote(other));
	} else {
		report_info("%s is unmounted (%s written); it can be removed", quote(what),
			    size_format(size, sizeof(size), job->bytes_written));
	}
	free(other);
}

enum su_status job_run(const struct su_options *o, struct su_job *job)
{
	enum su_status st = SU_OK;

	report_start(job);
	if (o->lazy && job->n_fs)
		report_warning("--lazy: %s is detached even if busy, and data may still be written "
			       "to the device after safeunmount returns; do not remove it yet", quote(job->arg));
	if (job->n_fs) {
		st = job_check_free(o, job);
		if (st == SU_OK)
			st = sync_phase(o, job);
		for (size_t i = 0; i < job->n_fs && st == SU_OK; i++)
			st = unmount_one(o, &job->fs[i]);
		if (st == SU_OK && !o->lazy)
			st = release_phase(o, job);
	}
	if (st == SU_OK && o->power_off)
		st = power_off_phase(o, job);
	if (st == SU_OK && !(job->n_fs == 0 && !o->power_off))
		summary(o, job);
	return st;
}

/* Under SAFECP_SYSROOT the tables are a captured tree, not this machine's:
 * every check runs, nothing is synced, unmounted or powered off. */
enum su_status job_check_only(const struct su_options *o, struct su_job *job)
{
	enum su_status st;

	report_found(job);
	st = job_check_free(o, job);
	for (size_t i = 0; i < job->n_fs && st == SU_OK; i++)
		report_info("would unmount %s (SAFECP_SYSROOT is set: nothing is done)",
			    quote(job->fs[i].m.mountpoint));
	if (st == SU_OK && o->power_off)
		report_info("would power off the disk of %s (SAFECP_SYSROOT is set: nothing is done)",
			    quote(job->arg));
	return st;
}
