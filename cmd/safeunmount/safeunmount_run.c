/* safeunmount_run.c: carry out one target: the library's unmount job
 * (<safecp/unmount.h>: sync, unmount, release check, power-off, in its own
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
#include "base/size.h"
#include "common/quote.h"
#include "safeunmount/safeunmount.h"

#define POLL_MS 100 /* display pace; an event wakes us at once */

struct run_view {
	const struct su_options *o;
	struct safecp_unmount *job;
	struct safecp_unmount_target t; /* what it is: its arg, device, filesystems */
	struct progress *meter;
	bool meter_made;
	bool syncing;             /* between the sync's first figures and its end */
	uint64_t bytes_left;      /* the sync's last figure */
	struct progress_rate rate;
	struct su_progress_json pj;
	const char *item;
};

/* ---- sync ---------------------------------------------------------------- */

static void show(struct run_view *v, const struct safecp_unmount_sync *f)
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
static void on_progress(struct run_view *v, const struct safecp_unmount_sync *f)
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

static enum su_status sync_end(struct run_view *v, const struct safecp_unmount_step *s)
{
	const char *arg = v->t.arg;

	v->syncing = false;
	if (s->state == SAFECP_UNMOUNT_STEP_DONE) {
		if (s->why == SAFECP_UNMOUNT_WHY_NONE)
			progress_done(v->meter, NULL);
		else
			report_verbose("more data was written to %s during the sync; the unmount "
				       "writes the rest", quote(arg));
		progress_free(TAKE_PTR(v->meter));
		return SU_OK;
	}
	progress_free(TAKE_PTR(v->meter));
	switch (s->why) {
	case SAFECP_UNMOUNT_WHY_CANCELLED:
		report_error("sync", job_kind(&v->t), arg, EINTR,
			     "interrupted; the kernel goes on writing the data, and %s is "
			     "still mounted", quote(arg));
		return SU_INTERRUPTED;
	case SAFECP_UNMOUNT_WHY_SYNC_READ:
		report_error("sync", job_kind(&v->t), arg, s->result,
			     "cannot read the state of %s: %s", quote(arg), strerror(-s->result));
		return SU_FAILED;
	case SAFECP_UNMOUNT_WHY_SYNC_WRITE: {
		struct safecp_unmount_fs fs = { .mountpoint = "?" };

		safecp_unmount_fs(v->job, s->index, &fs);
		report_error("sync", EVENT_PATH, fs.mountpoint, s->result,
			     "cannot sync %s: %s; some data may not be on the device",
			     quote(fs.mountpoint), strerror(-s->result));
		return SU_FAILED;
	}
	default:
		report_error("sync", job_kind(&v->t), arg, s->result,
			     "cannot sync %s: %s", quote(arg), strerror(-s->result));
		return SU_FAILED;
	}
}

/* ---- the other steps ------------------------------------------------------- */

static void on_busy(const struct safecp_unmount_busy *b)
{
	if (!b->mount && !b->waiting)
		report_error("unmount", EVENT_DEVICE, b->what, EBUSY,
			     "%s is unmounted here but still in use: another "
			     "mount namespace or program holds it, and its data may not "
			     "all be written", quote(b->what));
	report_busy(b);
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
static void unmount_mismatch(const struct safecp_unmount_fs *fs, enum safecp_unmount_mismatch m)
{
	const char *mp = fs->mountpoint;

	if (m == SAFECP_UNMOUNT_MISMATCH_STILL_MOUNTED)
		report_error("unmount", EVENT_PATH, mp, EIO,
			     "udisks unmounted something else: %s is still mounted; do not remove "
			     "the device; see what is mounted with findmnt, and unmount it as root",
			     quote(mp));
	else
		report_error("unmount", EVENT_PATH, mp, EXDEV,
			     "refusing to unmount %s through udisks: udisks' device %s is %s; "
			     "nothing was unmounted; unmount it as root", quote(mp),
			     quote(fs->source),
			     m == SAFECP_UNMOUNT_MISMATCH_OTHER_DEVICE
				     ? "not the device mounted there"
				     : "not mounted there for udisks (another mount namespace?)");
}

static enum su_status unmount_end(struct run_view *v, const struct safecp_unmount_step *s)
{
	struct safecp_unmount_fs fs = { .mountpoint = "?" };
	const char *mp;

	safecp_unmount_fs(v->job, s->fs, &fs);
	mp = fs.mountpoint;
	if (s->state == SAFECP_UNMOUNT_STEP_DONE) {
		report_unmounted(&fs);
		return SU_OK;
	}
	switch (s->why) {
	case SAFECP_UNMOUNT_WHY_BUSY:
		return SU_BUSY;
	case SAFECP_UNMOUNT_WHY_CANCELLED:
		report_error("unmount", EVENT_PATH, mp, EINTR,
			     "interrupted while waiting; %s is still mounted", quote(mp));
		return SU_INTERRUPTED;
	case SAFECP_UNMOUNT_WHY_NOT_ALLOWED:
		not_allowed("unmount", EVENT_PATH, mp, "unmount", s->action);
		return SU_USAGE;
	case SAFECP_UNMOUNT_WHY_MISMATCH:
		unmount_mismatch(&fs, s->mismatch);
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

static enum su_status release_end(const struct safecp_unmount_step *s)
{
	if (s->state == SAFECP_UNMOUNT_STEP_DONE) {
		if (s->why == SAFECP_UNMOUNT_WHY_UNCHECKED)
			report_verbose("cannot check that %s is free: %s (run as root to check)",
				       quote(s->devnode), strerror(-s->result));
		else
			report_verbose("%s is free and flushed", quote(s->devnode));
		return SU_OK;
	}
	switch (s->why) {
	case SAFECP_UNMOUNT_WHY_MOUNTED_HERE:
		report_error("unmount", EVENT_DEVICE, s->devnode, 0,
			     "%s is still mounted on %s; it is not safe to remove",
			     quote(s->devnode), quote(s->where));
		return SU_BUSY;
	case SAFECP_UNMOUNT_WHY_BUSY:
		return SU_BUSY;
	case SAFECP_UNMOUNT_WHY_CANCELLED:
		return SU_INTERRUPTED; /* the busy list said what holds it */
	default:
		report_error("unmount", EVENT_DEVICE, s->devnode, s->result,
			     "cannot flush %s: %s", quote(s->devnode), strerror(-s->result));
		return SU_FAILED;
	}
}

static const char *poweroff_step_words(enum safecp_power_off_stage s)
{
	switch (s) {
	case SAFECP_POWER_OFF_AT_FLUSH: return "flushing";
	case SAFECP_POWER_OFF_AT_INFLIGHT: return "waiting for the device";
	case SAFECP_POWER_OFF_AT_DETACH: return "detaching";
	case SAFECP_POWER_OFF_AT_GONE: return "waiting for it to disappear";
	}
	return "power-off";
}

static const char *scsi_words(int r)
{
	return r == 0 ? "done" : r == -ENOTTY || r == -EINVAL ? "not a SCSI device" : strerror(-r);
}

/* The plan and the run's findings; a job without a plan names nothing. */
static struct safecp_power_off plan_of(const struct run_view *v)
{
	struct safecp_power_off p = { .devnode = "?", .method_name = "none",
				      .blocker = "?", .blocker_where = "?", .failed_dev = "?" };

	safecp_unmount_power_off(v->job, &p);
	return p;
}

static bool by_udisks(const struct safecp_power_off *p)
{
	return p->method == SAFECP_POWER_OFF_BY_UDISKS_LOOP ||
	       p->method == SAFECP_POWER_OFF_BY_UDISKS_DRIVE;
}

static void power_off_planned(const struct run_view *v)
{
	const struct safecp_power_off p = plan_of(v);

	report_verbose("powering off %s by %s", quote(p.devnode), p.method_name);
}

static void power_off_ran(const struct run_view *v, int r)
{
	const struct safecp_power_off p = plan_of(v);

	if (by_udisks(&p))
		return; /* udisks' own steps: nothing of ours to tell */
	if (r == 0 || p.failed_stage != SAFECP_POWER_OFF_AT_FLUSH)
		report_verbose("SYNCHRONIZE CACHE: %s; START STOP UNIT: %s; in flight: %s",
			       scsi_words(p.sync_cache), scsi_words(p.stop_unit),
			       p.inflight_drained ? "nothing" : "still busy after 5 s");
}

/* The plan refused at the run (a power-off planned ahead of the unmounts). */
static enum su_status power_off_refused(const struct safecp_power_off *p)
{
	if (p->refusal == SAFECP_POWER_OFF_MOUNTED || p->refusal == SAFECP_POWER_OFF_HELD) {
		report_error("power-off", EVENT_DEVICE, p->devnode, 0,
			     "cannot power off %s: %s is %s %s", quote(p->devnode),
			     quote(p->blocker),
			     p->refusal == SAFECP_POWER_OFF_MOUNTED ? "mounted on" : "in use by",
			     quote(p->blocker_where));
		return SU_BUSY;
	}
	if (p->refusal == SAFECP_POWER_OFF_NO_DRIVE)
		report_error("power-off", EVENT_DEVICE, p->devnode, 0,
			     "refusing to power off %s: udisks cannot power it off (it is "
			     "neither a loop device nor a drive with CanPowerOff, which USB "
			     "drives have)", quote(p->devnode));
	else
		report_error("power-off", EVENT_DEVICE, p->devnode, 0,
			     "cannot power off %s", /* checked before */
			     quote(p->devnode));
	return SU_USAGE;
}

static enum su_status power_off_end(const struct run_view *v, const struct safecp_unmount_step *s)
{
	const struct safecp_power_off p = plan_of(v);

	if (s->state == SAFECP_UNMOUNT_STEP_DONE) {
		report_powered_off(p.devnode, p.method_name);
		return SU_OK;
	}
	switch (s->why) {
	case SAFECP_UNMOUNT_WHY_PLAN:
		report_error("power-off", job_kind(&v->t), v->t.arg, s->result,
			     "cannot power off %s: %s", quote(v->t.arg), strerror(-s->result));
		return SU_FAILED;
	case SAFECP_UNMOUNT_WHY_REFUSED:
		return power_off_refused(&p);
	case SAFECP_UNMOUNT_WHY_BUSY:
		return SU_BUSY;
	case SAFECP_UNMOUNT_WHY_MISMATCH:
		report_error("power-off", EVENT_DEVICE, p.devnode, EXDEV,
			     "refusing to power off %s through udisks: it is no longer the disk or "
			     "drive that was planned; nothing was powered off; run the command again",
			     quote(p.devnode));
		return SU_FAILED;
	case SAFECP_UNMOUNT_WHY_NOT_ALLOWED:
		not_allowed("power-off", EVENT_DEVICE, p.devnode,
			    p.method == SAFECP_POWER_OFF_BY_UDISKS_LOOP ? "delete the loop device"
									: "power off",
			    s->action);
		return SU_USAGE;
	default:
		if (by_udisks(&p)) {
			report_error("power-off", EVENT_DEVICE, p.devnode, s->result,
				     "cannot power off %s: udisks: %s", quote(p.devnode),
				     strerror(-s->result));
			return SU_FAILED;
		}
		report_error("power-off", EVENT_DEVICE, p.devnode, s->result,
			     "cannot power off %s: %s %s failed: %s", quote(p.devnode),
			     poweroff_step_words(p.failed_stage), quote(p.failed_dev),
			     strerror(-s->result));
		return SU_FAILED;
	}
}

/* Cancelled before the step began: the signal came during the step before,
 * which could not be stopped. */
static enum su_status not_begun(const struct run_view *v, const struct safecp_unmount_step *s)
{
	switch (s->kind) {
	case SAFECP_UNMOUNT_STEP_FREE_CHECK:
	case SAFECP_UNMOUNT_STEP_SYNC:
		report_error(s->kind == SAFECP_UNMOUNT_STEP_SYNC ? "sync" : "unmount", job_kind(&v->t),
			     v->t.arg, EINTR, "interrupted; nothing was unmounted");
		break;
	case SAFECP_UNMOUNT_STEP_UNMOUNT: {
		struct safecp_unmount_fs fs = { .mountpoint = "?" };

		safecp_unmount_fs(v->job, s->fs, &fs);
		report_error("unmount", EVENT_PATH, fs.mountpoint, EINTR,
			     "interrupted; %s is still mounted", quote(fs.mountpoint));
		break;
	}
	case SAFECP_UNMOUNT_STEP_RELEASE_CHECK:
		report_error("unmount", EVENT_DEVICE, s->devnode, EINTR,
			     "interrupted before checking that %s is free; "
			     "do not remove it yet", quote(s->devnode));
		break;
	case SAFECP_UNMOUNT_STEP_POWER_OFF:
		report_error("power-off", job_kind(&v->t), v->t.arg, EINTR,
			     "interrupted; %s was not powered off", quote(v->t.arg));
		break;
	}
	return SU_INTERRUPTED;
}

static enum su_status step_end(struct run_view *v, const struct safecp_unmount_step *s)
{
	if (s->why == SAFECP_UNMOUNT_WHY_NOT_BEGUN)
		return not_begun(v, s);
	switch (s->kind) {
	case SAFECP_UNMOUNT_STEP_FREE_CHECK:
		if (s->state == SAFECP_UNMOUNT_STEP_DONE)
			return SU_OK;
		if (s->why == SAFECP_UNMOUNT_WHY_CANCELLED) {
			report_error("unmount", job_kind(&v->t), v->t.arg, EINTR,
				     "interrupted while waiting; nothing was unmounted");
			return SU_INTERRUPTED;
		}
		report_error("unmount", job_kind(&v->t), v->t.arg, 0,
			     "nothing was unmounted: every filesystem of %s must be "
			     "free before any is unmounted", quote(v->t.arg));
		return SU_BUSY;
	case SAFECP_UNMOUNT_STEP_SYNC: return sync_end(v, s);
	case SAFECP_UNMOUNT_STEP_UNMOUNT: return unmount_end(v, s);
	case SAFECP_UNMOUNT_STEP_RELEASE_CHECK: return release_end(s);
	case SAFECP_UNMOUNT_STEP_POWER_OFF: return power_off_end(v, s);
	}
	return SU_FAILED;
}

/* ---- the job ------------------------------------------------------------- */

static enum su_status render(struct run_view *v, const struct safecp_unmount_event *ev)
{
	switch (ev->kind) {
	case SAFECP_UNMOUNT_EVENT_PROGRESS: on_progress(v, &ev->sync); break;
	case SAFECP_UNMOUNT_EVENT_BUSY: on_busy(&ev->busy); break;
	case SAFECP_UNMOUNT_EVENT_POWER_OFF_PLANNED: power_off_planned(v); break;
	case SAFECP_UNMOUNT_EVENT_POWER_OFF_RAN: power_off_ran(v, ev->result); break;
	case SAFECP_UNMOUNT_EVENT_STEP_END: return step_end(v, &ev->outcome);
	case SAFECP_UNMOUNT_EVENT_END: break;
	case SAFECP_UNMOUNT_EVENT_OTHER: break;
	}
	return SU_OK;
}

/* What the bar and the ending name: the device given, else the mount. */
static const char *item_of(const struct safecp_unmount *job, const struct safecp_unmount_target *t)
{
	struct safecp_unmount_fs fs;

	if (t->device && t->devnode)
		return t->devnode;
	return safecp_unmount_fs(job, 0, &fs) == 0 ? fs.mountpoint : t->arg;
}

/* Runs the job to its end; the status of the step that failed, if any. */
static enum su_status run_job(const struct su_options *o, struct safecp_unmount *job)
{
	struct run_view v = { .o = o, .job = job };
	enum su_status st = SU_OK;
	bool cancelled = false, stop = false;
	sig_atomic_t seen = 0; /* signals taken */
	int r;

	safecp_unmount_target(job, &v.t);
	v.item = item_of(job, &v.t);
	r = safecp_unmount_start(job);
	if (r < 0) {
		report_error(NULL, job_kind(&v.t), v.t.arg, r,
			     "cannot start the unmount of %s: %s", quote(v.t.arg), strerror(-r));
		return SU_FAILED;
	}
	for (;;) {
		struct safecp_unmount_event ev;

		r = safecp_unmount_poll(job, POLL_MS, &ev);
		if (su_interrupted > seen) {
			/* the first during the sync: it goes on (nothing can stop
			 * syncfs), shown; the next leaves it to the kernel */
			if (seen == 0 && v.syncing && su_interrupted == 1) {
				safecp_unmount_stop_after_step(job);
				sync_cannot_stop(&v);
			} else {
				stop = true;
			}
			seen = su_interrupted;
		}
		if (stop && !cancelled) {
			safecp_unmount_cancel(job);
			cancelled = true;
		}
		if (r <= 0)
			continue;
		if (st == SU_OK)
			st = render(&v, &ev);
		if (ev.kind == SAFECP_UNMOUNT_EVENT_END)
			break;
	}
	progress_free(v.meter);
	return st;
}

/* -P: the target as the plain ending names it, with its bytes, and the
 * disk that went with it (a mount point says nothing of /dev/sdb). */
static void summary_powered_off(const struct safecp_unmount_target *t, const char *what)
{
	char size[SIZE_FORMAT_MAX];
	const char *disk = t->disk ? t->disk : "";
	const bool is_disk = strcmp(what, disk) == 0;

	size_format(size, sizeof(size), t->bytes_written);
	if (t->n_fs == 0 && is_disk)
		report_info("%s is powered off; it can be removed", quote(what));
	else if (t->n_fs == 0)
		report_info("the disk of %s, %s, is powered off; it can be removed", quote(what),
			    quote(disk));
	else if (is_disk)
		report_info("%s is unmounted (%s written) and powered off; it can be removed",
			    quote(what), size);
	else
		report_info("%s is unmounted (%s written) and its disk %s is powered off; it can be "
			    "removed", quote(what), size, quote(disk));
}

static void summary(const struct su_options *o, struct safecp_unmount *job)
{
	char size[SIZE_FORMAT_MAX];
	const char *other = NULL;
	struct safecp_unmount_target t;
	const char *what;

	safecp_unmount_target(job, &t);
	what = item_of(job, &t);
	if (o->power_off) {
		summary_powered_off(&t, what);
	} else if (o->lazy) {
		report_info("%s is detached; data may still be on its way to the device, so wait "
			    "before removing it", quote(what));
	} else if (safecp_unmount_still_mounted(job, &other) > 0) {
		report_info("%s is unmounted (%s written); %s is still mounted from the same disk",
			    quote(what), size_format(size, sizeof(size), t.bytes_written), quote(other));
	} else {
		report_info("%s is unmounted (%s written); it can be removed", quote(what),
			    size_format(size, sizeof(size), t.bytes_written));
	}
}

enum su_status job_run(const struct su_options *o, struct safecp_unmount *job)
{
	struct safecp_unmount_target t;
	enum su_status st;

	safecp_unmount_target(job, &t);
	report_start(job);
	if (o->lazy && t.n_fs)
		report_warning("--lazy: %s is detached even if busy, and data may still be written "
			       "to the device after safeunmount returns; do not remove it yet", quote(t.arg));
	st = run_job(o, job);
	if (st == SU_OK && !(t.n_fs == 0 && !o->power_off))
		summary(o, job);
	return st;
}

/* Under SAFECP_SYSROOT the tables are a captured tree, not this machine's:
 * every check runs, nothing is synced, unmounted or powered off. */
enum su_status job_check_only(const struct su_options *o, struct safecp_unmount *job)
{
	struct safecp_unmount_target t;
	struct safecp_unmount_fs fs;
	enum su_status st;

	safecp_unmount_target(job, &t);
	report_found(job);
	st = run_job(o, job);
	for (size_t i = 0; st == SU_OK && safecp_unmount_fs(job, i, &fs) == 0; i++)
		report_info("would unmount %s (SAFECP_SYSROOT is set: nothing is done)",
			    quote(fs.mountpoint));
	if (st == SU_OK && o->power_off)
		report_info("would power off the disk of %s (SAFECP_SYSROOT is set: nothing is done)",
			    quote(t.arg));
	return st;
}
