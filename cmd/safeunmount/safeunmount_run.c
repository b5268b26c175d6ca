/* safeunmount_run.c: carry out one target: lib's unmount job
 * (unmount/job.h: sync, unmount, release check, power-off, in its own
 * thread) is polled here, and what it tells is put in words, a bar and
 * JSON events; a step's result becomes the exit status.
 *
 * The job's events come in the order things happened, so the messages
 * do too.  A signal interrupts our poll (the job's threads block signals)
 * and cancels the job: a wait stops at once, anything else at the end of
 * its step. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "unmount/job.h"
#include "unmount/poweroff.h"
#include "common/quote.h"
#include "safeunmount/safeunmount.h"
#include "base/size.h"

#define POLL_MS 100 /* display pace; an event wakes us at once */

struct run_view {
	const struct su_options *o;
	struct unmount_target *t;
	struct unmount_job *job;
	struct progress *meter;
	bool meter_made;
	bool syncing;             /* between the sync's first figures and its end */
	uint64_t bytes_left;      /* the sync's last figure */
	struct progress_rate rate;
	struct su_progress_json pj;
	const char *item;
};

/* ---- sync ---------------------------------------------------------------- */

static void show(struct run_view *v, const struct syncer_figures *f)
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
	v->bytes_left = f->bytes_left;
	v->pj.bytes_left = f->bytes_left;
	v->pj.bytes_written = f->bytes_written;
	progress_update(v->meter, &st);
}

/* A first Ctrl-C while syncfs runs: said once, above the bar. */
static void sync_cannot_stop(struct run_view *v)
{
	char left[SIZE_FORMAT_MAX];

	size_format(left, sizeof(left), v->bytes_left);
	progress_note(v->meter, "%s: the sync cannot be interrupted: the kernel is writing %s "
		      "to %s and nothing will be unmounted after it; press Ctrl-C again to "
		      "leave the rest to the kernel and return now", program_name, left,
		      quote(v->item));
}

/* The meter starts with the sync's first figures. */
static void on_progress(struct run_view *v, const struct syncer_figures *f)
{
	v->syncing = true;
	if (!v->meter_made) {
		v->meter_made = true;
		progress_rate_init(&v->rate, 0);
		if (progress_new(&(struct progress_options){
					 .mode = v->o->progress, .show = PROGRESS_SHOW_LEFT,
					 .json = report_progress_json, .userdata = &v->pj },
				 &v->meter) < 0)
			v->meter = NULL;
	}
	show(v, f);
}

static enum su_status sync_end(struct run_view *v, const struct unmount_step *s)
{
	const char *arg = v->t->arg;

	v->syncing = false;
	if (s->state == UNMOUNT_STEP_DONE) {
		if (s->why == UNMOUNT_WHY_NONE)
			progress_done(v->meter, NULL);
		else
			report_verbose("more data was written to %s during the sync; the unmount "
				       "writes the rest", quote(arg));
		progress_free(TAKE_PTR(v->meter));
		return SU_OK;
	}
	progress_free(TAKE_PTR(v->meter));
	switch (s->why) {
	case UNMOUNT_WHY_CANCELLED:
		report_error("sync", job_kind(v->t), arg, EINTR,
			     "interrupted; the kernel goes on writing the data, and %s is "
			     "still mounted", quote(arg));
		return SU_INTERRUPTED;
	case UNMOUNT_WHY_SYNC_READ:
		report_error("sync", job_kind(v->t), arg, s->result,
			     "cannot read the state of %s: %s", quote(arg), strerror(-s->result));
		return SU_FAILED;
	case UNMOUNT_WHY_SYNC_WRITE:
		report_error("sync", EVENT_PATH, v->t->fs[s->index].m.mountpoint, s->result,
			     "cannot sync %s: %s; some data may not be on the device",
			     quote(v->t->fs[s->index].m.mountpoint), strerror(-s->result));
		return SU_FAILED;
	default:
		report_error("sync", job_kind(v->t), arg, s->result,
			     "cannot sync %s: %s", quote(arg), strerror(-s->result));
		return SU_FAILED;
	}
}

/* ---- the other steps ------------------------------------------------------- */

static void on_busy(const struct unmount_busy *b)
{
	if (!b->mount && !b->waiting)
		report_error("unmount", EVENT_DEVICE, b->what, EBUSY,
			     "%s is unmounted here but still in use: another "
			     "mount namespace or program holds it, and its data may not "
			     "all be written", quote(b->what));
	report_busy(b->what, b->mount ? b->what : NULL, &b->holders, b->submounts,
		    b->n_submounts, b->waiting);
}

/* polkit said no to udisks' call; naming the action lets an administrator
 * write the rule. */
static void not_allowed(const char *step, enum event_subject kind, const char *name,
			const char *verb, const char *action)
{
	report_error(step, kind, name, EACCES,
		     "cannot %s %s: not allowed: polkit does not grant this user %s; ask an "
		     "administrator for a polkit rule that does, or run as root", verb, quote(name),
		     action);
}

/* udisks would have acted, or acted, on something else than the mount
 * we resolved. */
static void unmount_mismatch(const struct unmount_fs *fs, enum unmount_mismatch m)
{
	const char *mp = fs->m.mountpoint;

	if (m == UNMOUNT_MISMATCH_STILL_MOUNTED)
		report_error("unmount", EVENT_PATH, mp, EIO,
			     "udisks unmounted something else: %s is still mounted; do not remove "
			     "the device; see what is mounted with findmnt, and unmount it as root",
			     quote(mp));
	else
		report_error("unmount", EVENT_PATH, mp, EXDEV,
			     "refusing to unmount %s through udisks: udisks' device %s is %s; "
			     "nothing was unmounted; unmount it as root", quote(mp),
			     quote(fs->m.source),
			     m == UNMOUNT_MISMATCH_OTHER_DEVICE
				     ? "not the device mounted there"
				     : "not mounted there for udisks (another mount namespace?)");
}

static enum su_status unmount_end(struct run_view *v, const struct unmount_step *s)
{
	struct unmount_fs *fs = &v->t->fs[s->fs];
	const char *mp = fs->m.mountpoint;

	if (s->state == UNMOUNT_STEP_DONE) {
		report_unmounted(fs);
		return SU_OK;
	}
	switch (s->why) {
	case UNMOUNT_WHY_BUSY:
		return SU_BUSY;
	case UNMOUNT_WHY_CANCELLED:
		report_error("unmount", EVENT_PATH, mp, EINTR,
			     "interrupted while waiting; %s is still mounted", quote(mp));
		return SU_INTERRUPTED;
	case UNMOUNT_WHY_NOT_ALLOWED:
		not_allowed("unmount", EVENT_PATH, mp, "unmount", s->action);
		return SU_USAGE;
	case UNMOUNT_WHY_MISMATCH:
		unmount_mismatch(fs, s->mismatch);
		return SU_FAILED;
	default:
		/* the system's text names the mount point, which has the label
		 * in it: quoted, as any name */
		if (s->message)
			report_error("unmount", EVENT_PATH, mp, s->result,
				     "cannot unmount %s: %s (the system says: %s)", quote(mp),
				     strerror(-s->result), quote(s->message));
		else
			report_error("unmount", EVENT_PATH, mp, s->result, "cannot unmount %s: %s",
				     quote(mp), strerror(-s->result));
		return s->result == -EINVAL ? SU_USAGE : SU_FAILED;
	}
}

static enum su_status release_end(const struct unmount_step *s)
{
	if (s->state == UNMOUNT_STEP_DONE) {
		if (s->why == UNMOUNT_WHY_UNCHECKED)
			report_verbose("cannot check that %s is free: %s (run as root to check)",
				       quote(s->devnode), strerror(-s->result));
		else
			report_verbose("%s is free and flushed", quote(s->devnode));
		return SU_OK;
	}
	switch (s->why) {
	case UNMOUNT_WHY_MOUNTED_HERE:
		report_error("unmount", EVENT_DEVICE, s->devnode, 0,
			     "%s is still mounted on %s; it is not safe to remove",
			     quote(s->devnode), quote(s->where));
		return SU_BUSY;
	case UNMOUNT_WHY_BUSY:
		return SU_BUSY;
	case UNMOUNT_WHY_CANCELLED:
		return SU_INTERRUPTED; /* the busy list said what holds it */
	default:
		report_error("unmount", EVENT_DEVICE, s->devnode, s->result,
			     "cannot flush %s: %s", quote(s->devnode), strerror(-s->result));
		return SU_FAILED;
	}
}

static const char *poweroff_step_words(enum poweroff_step s)
{
	switch (s) {
	case POWEROFF_STEP_FLUSH: return "flushing";
	case POWEROFF_STEP_INFLIGHT: return "waiting for the device";
	case POWEROFF_STEP_DETACH: return "detaching";
	case POWEROFF_STEP_GONE: return "waiting for it to disappear";
	}
	return "power-off";
}

static const char *scsi_words(int r)
{
	return r == 0 ? "done" : r == -ENOTTY || r == -EINVAL ? "not a SCSI device" : strerror(-r);
}

static void power_off_planned(const struct run_view *v)
{
	const struct poweroff_plan *p = unmount_job_plan(v->job);

	report_verbose("powering off %s by %s", quote(p->devnode), poweroff_method_name(p->method));
}

static void power_off_ran(const struct run_view *v, int r)
{
	const struct poweroff_result *res = unmount_job_power_off(v->job);
	const enum poweroff_method m = unmount_job_plan(v->job)->method;

	if (m == POWEROFF_UDISKS_LOOP || m == POWEROFF_UDISKS_DRIVE)
		return; /* udisks' own steps: nothing of ours to tell */
	if (r == 0 || res->failed_step != POWEROFF_STEP_FLUSH)
		report_verbose("SYNCHRONIZE CACHE: %s; START STOP UNIT: %s; in flight: %s",
			       scsi_words(res->sync_cache), scsi_words(res->stop_unit),
			       res->inflight_drained ? "nothing" : "still busy after 5 s");
}

static enum su_status power_off_end(const struct run_view *v, const struct unmount_step *s)
{
	const struct poweroff_plan *p = unmount_job_plan(v->job);
	const struct poweroff_result *res = unmount_job_power_off(v->job);

	if (s->state == UNMOUNT_STEP_DONE) {
		report_powered_off(p->devnode, poweroff_method_name(p->method));
		return SU_OK;
	}
	switch (s->why) {
	case UNMOUNT_WHY_PLAN:
		report_error("power-off", job_kind(v->t), v->t->arg, s->result,
			     "cannot power off %s: %s", quote(v->t->arg), strerror(-s->result));
		return SU_FAILED;
	case UNMOUNT_WHY_REFUSED:
		if (p->refusal == POWEROFF_MOUNTED || p->refusal == POWEROFF_HELD) {
			report_error("power-off", EVENT_DEVICE, p->devnode, 0,
				     "cannot power off %s: %s is %s %s", quote(p->devnode),
				     quote(p->blocker),
				     p->refusal == POWEROFF_MOUNTED ? "mounted on" : "in use by",
				     quote(p->blocker_where));
			return SU_BUSY;
		}
		if (p->refusal == POWEROFF_NO_DRIVE)
			report_error("power-off", EVENT_DEVICE, p->devnode, 0,
				     "refusing to power off %s: udisks cannot power it off (it is "
				     "neither a loop device nor a drive with CanPowerOff, which USB "
				     "drives have)", quote(p->devnode));
		else
			report_error("power-off", EVENT_DEVICE, p->devnode, 0,
				     "cannot power off %s", /* checked before */
				     quote(p->devnode));
		return SU_USAGE;
	case UNMOUNT_WHY_BUSY:
		return SU_BUSY;
	case UNMOUNT_WHY_MISMATCH:
		report_error("power-off", EVENT_DEVICE, p->devnode, EXDEV,
			     "refusing to power off %s through udisks: it is no longer the disk or "
			     "drive that was planned; nothing was powered off; run the command again",
			     quote(p->devnode));
		return SU_FAILED;
	case UNMOUNT_WHY_NOT_ALLOWED:
		not_allowed("power-off", EVENT_DEVICE, p->devnode,
			    p->method == POWEROFF_UDISKS_LOOP ? "delete the loop device" : "power off",
			    s->action);
		return SU_USAGE;
	default:
		if (p->method == POWEROFF_UDISKS_LOOP || p->method == POWEROFF_UDISKS_DRIVE) {
			report_error("power-off", EVENT_DEVICE, p->devnode, s->result,
				     "cannot power off %s: udisks: %s", quote(p->devnode),
				     strerror(-s->result));
			return SU_FAILED;
		}
		report_error("power-off", EVENT_DEVICE, p->devnode, s->result,
			     "cannot power off %s: %s %s failed: %s", quote(p->devnode),
			     poweroff_step_words(res->failed_step), quote(res->failed_dev),
			     strerror(-s->result));
		return SU_FAILED;
	}
}

/* Cancelled before the step began: the signal came during the step before,
 * which could not be stopped. */
static enum su_status not_begun(const struct run_view *v, const struct unmount_step *s)
{
	switch (s->kind) {
	case UNMOUNT_STEP_FREE_CHECK:
	case UNMOUNT_STEP_SYNC:
		report_error(s->kind == UNMOUNT_STEP_SYNC ? "sync" : "unmount", job_kind(v->t),
			     v->t->arg, EINTR, "interrupted; nothing was unmounted");
		break;
	case UNMOUNT_STEP_UNMOUNT:
		report_error("unmount", EVENT_PATH, v->t->fs[s->fs].m.mountpoint, EINTR,
			     "interrupted; %s is still mounted", quote(v->t->fs[s->fs].m.mountpoint));
		break;
	case UNMOUNT_STEP_RELEASE_CHECK:
		report_error("unmount", EVENT_DEVICE, s->devnode, EINTR,
			     "interrupted before checking that %s is free; "
			     "do not remove it yet", quote(s->devnode));
		break;
	case UNMOUNT_STEP_POWER_OFF:
		report_error("power-off", job_kind(v->t), v->t->arg, EINTR,
			     "interrupted; %s was not powered off", quote(v->t->arg));
		break;
	}
	return SU_INTERRUPTED;
}

static enum su_status step_end(struct run_view *v, const struct unmount_step *s)
{
	if (s->why == UNMOUNT_WHY_NOT_BEGUN)
		return not_begun(v, s);
	switch (s->kind) {
	case UNMOUNT_STEP_FREE_CHECK:
		if (s->state == UNMOUNT_STEP_DONE)
			return SU_OK;
		if (s->why == UNMOUNT_WHY_CANCELLED) {
			report_error("unmount", job_kind(v->t), v->t->arg, EINTR,
				     "interrupted while waiting; nothing was unmounted");
			return SU_INTERRUPTED;
		}
		report_error("unmount", job_kind(v->t), v->t->arg, 0,
			     "nothing was unmounted: every filesystem of %s must be "
			     "free before any is unmounted", quote(v->t->arg));
		return SU_BUSY;
	case UNMOUNT_STEP_SYNC: return sync_end(v, s);
	case UNMOUNT_STEP_UNMOUNT: return unmount_end(v, s);
	case UNMOUNT_STEP_RELEASE_CHECK: return release_end(s);
	case UNMOUNT_STEP_POWER_OFF: return power_off_end(v, s);
	}
	return SU_FAILED;
}

/* ---- the job ------------------------------------------------------------- */

static enum su_status render(struct run_view *v, const struct unmount_event *ev)
{
	switch (ev->kind) {
	case UNMOUNT_EVENT_PROGRESS: on_progress(v, &ev->figures); break;
	case UNMOUNT_EVENT_BUSY: on_busy(&ev->busy); break;
	case UNMOUNT_EVENT_POWER_OFF_PLANNED: power_off_planned(v); break;
	case UNMOUNT_EVENT_POWER_OFF_RAN: power_off_ran(v, ev->result); break;
	case UNMOUNT_EVENT_STEP_END: return step_end(v, &ev->outcome);
	case UNMOUNT_EVENT_END: break;
	}
	return SU_OK;
}

/* Runs the job to its end; the status of the step that failed, if any. */
static enum su_status run_job(const struct su_options *o, struct unmount_target *t, bool check_only)
{
	const struct unmount_job_options jo = {
		.lazy = o->lazy, .power_off = o->power_off, .force = o->force,
		.wait = o->wait, .wait_seconds = o->wait_seconds, .check_only = check_only,
	};
	struct run_view v = { .o = o, .t = t,
			      .item = t->device_target ? t->devnode : t->n_fs ? t->fs[0].m.mountpoint : t->arg };
	enum su_status st = SU_OK;
	bool cancelled = false, stop = false;
	sig_atomic_t seen = 0; /* signals taken */
	int r;

	r = unmount_job_new(t, &jo, o->backend.be, &v.job);
	if (r == 0)
		r = unmount_job_start(v.job);
	if (r < 0) {
		report_error(NULL, job_kind(t), t->arg, r,
			     "cannot start the unmount of %s: %s", quote(t->arg), strerror(-r));
		unmount_job_free(v.job);
		return SU_FAILED;
	}
	for (;;) {
		struct unmount_event ev;

		r = unmount_job_poll(v.job, POLL_MS, &ev);
		if (su_interrupted > seen) {
			/* the first during the sync: it goes on (nothing can stop
			 * syncfs), shown; the next leaves it to the kernel */
			if (seen == 0 && v.syncing && su_interrupted == 1) {
				unmount_job_stop_after_step(v.job);
				sync_cannot_stop(&v);
			} else {
				stop = true;
			}
			seen = su_interrupted;
		}
		if (stop && !cancelled) {
			unmount_job_cancel(v.job);
			cancelled = true;
		}
		if (r <= 0)
			continue;
		if (st == SU_OK)
			st = render(&v, &ev);
		if (ev.kind == UNMOUNT_EVENT_END) {
			unmount_event_done(&ev);
			break;
		}
		unmount_event_done(&ev);
	}
	progress_free(v.meter);
	unmount_job_free(v.job);
	return st;
}

/* A filesystem of the target's disk that the job did not unmount. */
static bool others_mounted(const struct unmount_target *t, char **ret_mountpoint)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;

	*ret_mountpoint = NULL;
	if (!t->have_disk ||
	    unmount_mounts_of_device(t->disk_major, t->disk_minor, true, &m, &n) < 0)
		return false;
	if (n > 0)
		*ret_mountpoint = strdup(m[0].mountpoint);
	unmount_mounts_free(m, n);
	return *ret_mountpoint != NULL;
}

/* -P: the target as the plain ending names it, with its bytes, and the
 * disk that went with it (a mount point says nothing of /dev/sdb). */
static void summary_powered_off(const struct unmount_target *t, const char *what)
{
	char size[SIZE_FORMAT_MAX];
	const bool is_disk = strcmp(what, t->disk_node) == 0;

	size_format(size, sizeof(size), t->bytes_written);
	if (t->n_fs == 0 && is_disk)
		report_info("%s is powered off; it can be removed", quote(what));
	else if (t->n_fs == 0)
		report_info("the disk of %s, %s, is powered off; it can be removed", quote(what),
			    quote(t->disk_node));
	else if (is_disk)
		report_info("%s is unmounted (%s written) and powered off; it can be removed",
			    quote(what), size);
	else
		report_info("%s is unmounted (%s written) and its disk %s is powered off; it can be "
			    "removed", quote(what), size, quote(t->disk_node));
}

static void summary(const struct su_options *o, const struct unmount_target *t)
{
	char size[SIZE_FORMAT_MAX], *other = NULL;
	const char *what = t->device_target ? t->devnode : t->n_fs ? t->fs[0].m.mountpoint : t->arg;

	if (o->power_off) {
		summary_powered_off(t, what);
	} else if (o->lazy) {
		report_info("%s is detached; data may still be on its way to the device, so wait "
			    "before removing it", quote(what));
	} else if (others_mounted(t, &other)) {
		report_info("%s is unmounted (%s written); %s is still mounted from the same disk",
			    quote(what), size_format(size, sizeof(size), t->bytes_written), quote(other));
	} else {
		report_info("%s is unmounted (%s written); it can be removed", quote(what),
			    size_format(size, sizeof(size), t->bytes_written));
	}
	free(other);
}

enum su_status job_run(const struct su_options *o, struct unmount_target *t)
{
	enum su_status st;

	report_start(t);
	if (o->lazy && t->n_fs)
		report_warning("--lazy: %s is detached even if busy, and data may still be written "
			       "to the device after safeunmount returns; do not remove it yet", quote(t->arg));
	st = run_job(o, t, false);
	if (st == SU_OK && !(t->n_fs == 0 && !o->power_off))
		summary(o, t);
	return st;
}

/* Under SAFECP_SYSROOT the tables are a captured tree, not this machine's:
 * every check runs, nothing is synced, unmounted or powered off. */
enum su_status job_check_only(const struct su_options *o, struct unmount_target *t)
{
	enum su_status st;

	report_found(t);
	st = run_job(o, t, true);
	for (size_t i = 0; i < t->n_fs && st == SU_OK; i++)
		report_info("would unmount %s (SAFECP_SYSROOT is set: nothing is done)",
			    quote(t->fs[i].m.mountpoint));
	if (st == SU_OK && o->power_off)
		report_info("would power off the disk of %s (SAFECP_SYSROOT is set: nothing is done)",
			    quote(t->arg));
	return st;
}
