/* job_steps.c: what each step of an unmount job does, in the job's
 * thread, through its backend.
 *
 * Why this order (doc/kernel.md 7): the final unmount syncs too, but
 * blocks without a word; syncfs first, in the backend's worker thread,
 * lets the caller show the device draining, and leaves umount with almost
 * nothing to do.  The sync is clean only when the backend says so (every
 * syncfs returned, nothing pending, nothing in flight).  If someone keeps
 * dirtying the filesystem we sync again, twice at most, and then let the
 * unmount write the rest.  After the unmount an O_EXCL open proves no
 * other mount namespace or program still holds the device.  Waiting turns
 * "busy" into a retry at the retry pace until the time is up.  Who holds
 * what is told once, and again only when it changes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unmount/job_private.h"

#define POLL_MS 100          /* the figures' pace; the end of a round wakes the poll */
#define SYNC_ROUNDS 3
#define RELEASE_WAIT_MS 3000 /* a FUSE daemon lets go of its device after umount */

static void fail(struct unmount_step *s, int result, enum unmount_why why)
{
	s->state = UNMOUNT_STEP_FAILED;
	s->result = result;
	s->why = why;
}

static void done(struct unmount_step *s, int result, enum unmount_why why)
{
	s->state = UNMOUNT_STEP_DONE;
	s->result = result;
	s->why = why;
}

static double deadline_of(const struct unmount_job *job)
{
	return job->o.wait_seconds < 0 ? INFINITY : job_monotonic() + job->o.wait_seconds;
}

static bool still_waiting(const struct unmount_job *job, double deadline)
{
	return job->o.wait && job_monotonic() < deadline;
}

/* The polkit action a service refused, when r says it did. */
static const char *denied(const struct unmount_job *job, int r)
{
	if (r != -EACCES || !job->be->denied_action)
		return NULL;
	return job->be->denied_action(job->be);
}

/* What a service's op found not to match, when r is its failure. */
static enum unmount_mismatch mismatch(const struct unmount_job *job, int r)
{
	if (r >= 0 || !job->be->mismatch)
		return UNMOUNT_MISMATCH_NONE;
	return job->be->mismatch(job->be);
}

/* ---- who holds it ------------------------------------------------------ */

/* Tells who holds it when that is new; the list is kept in *last. */
static void busy_event(struct unmount_job *job, size_t step, struct unmount_busy *b,
		       struct holder_list *last, bool *told)
{
	struct unmount_event ev = { .kind = UNMOUNT_EVENT_BUSY, .step = step };
	bool tell = !*told || !holder_list_equal(&b->holders, last);

	holder_list_done(last);
	*last = b->holders;
	*told = true;
	if (!tell) {
		unmount_strv_free(b->submounts, b->n_submounts);
		return;
	}
	/* the event gets its own copy of the holders: last stays ours */
	ev.busy = *b;
	ev.busy.holders = (struct holder_list){ 0 };
	if (holder_list_copy(last, &ev.busy.holders) < 0)
		ev.busy.holders.unreadable = last->unreadable;
	job_emit(job, &ev);
}

static void mount_busy(struct unmount_job *job, const struct unmount_fs *fs,
		       const struct unmount_target *exclude, bool waiting,
		       struct unmount_busy *ret)
{
	*ret = (struct unmount_busy){ .what = fs->m.mountpoint, .mount = true, .waiting = waiting };
	if (job->be->mount_holders(job->be, exclude, fs, &ret->holders, &ret->submounts,
				   &ret->n_submounts) < 0)
		*ret = (struct unmount_busy){ .what = fs->m.mountpoint, .mount = true,
					      .waiting = waiting };
}

static void device_busy(struct unmount_job *job, size_t step, const char *devnode,
			unsigned major, unsigned minor, bool waiting, struct holder_list *last,
			bool *told)
{
	struct unmount_busy b = { .what = devnode, .waiting = waiting };

	if (job->be->device_holders(job->be, devnode, major, minor, &b.holders) < 0)
		b.holders = (struct holder_list){ 0 };
	busy_event(job, step, &b, last, told);
}

/* ---- free check (all or nothing) ---------------------------------------- */

static void free_check(struct unmount_job *job, size_t i)
{
	struct unmount_step *s = &job->steps[i];
	const struct unmount_target *t = job->t;
	double deadline = deadline_of(job);
	bool said = false;

	for (;;) {
		bool waiting = still_waiting(job, deadline), all = true;

		for (size_t k = 0; k < t->n_fs; k++) {
			struct unmount_busy b;

			mount_busy(job, &t->fs[k], t, waiting, &b);
			if (b.holders.n || b.n_submounts) {
				all = false;
				if (!said || !waiting) {
					struct unmount_event ev = { .kind = UNMOUNT_EVENT_BUSY,
								    .step = i, .busy = b };

					job_emit(job, &ev);
					continue;
				}
			}
			holder_list_done(&b.holders);
			unmount_strv_free(b.submounts, b.n_submounts);
		}
		if (all)
			return done(s, 0, UNMOUNT_WHY_NONE);
		if (!waiting)
			return fail(s, -EBUSY, UNMOUNT_WHY_BUSY);
		said = true;
		if (!job_sleep(job, job->o.retry_ms))
			return fail(s, -ECANCELED, UNMOUNT_WHY_CANCELLED);
	}
}

/* ---- sync ---------------------------------------------------------------- */

static void progress(struct unmount_job *job, size_t i, const struct syncer_figures *f)
{
	struct unmount_event ev = { .kind = UNMOUNT_EVENT_PROGRESS, .step = i, .figures = *f };

	job->t->bytes_written = f->bytes_written;
	job_emit(job, &ev);
}

/* Polls until clean, an error or a cancel.  A cancelled sync is freed at
 * once: its worker's syncfs runs on in the kernel without us. */
static void sync_loop(struct unmount_job *job, size_t i, void *sync)
{
	const struct unmount_backend *be = job->be;
	struct unmount_step *s = &job->steps[i];
	struct syncer_figures f;
	int timeout = 0, r;

	for (;;) {
		r = be->sync_poll(be, sync, timeout, &f);
		timeout = POLL_MS;
		if (job_cancelled(job)) {
			fail(s, -ECANCELED, UNMOUNT_WHY_CANCELLED);
			break;
		}
		if (r == -EINTR)
			continue;
		if (r < 0) {
			fail(s, r, UNMOUNT_WHY_SYNC_READ);
			break;
		}
		progress(job, i, &f);
		if (f.error) {
			fail(s, f.error, UNMOUNT_WHY_SYNC_WRITE);
			s->index = f.error_index;
			break;
		}
		job->sync_clean = f.clean;
		if (f.clean || (f.synced && f.round >= SYNC_ROUNDS)) {
			done(s, 0, f.clean ? UNMOUNT_WHY_NONE : UNMOUNT_WHY_DIRTIED);
			break;
		}
		if (f.synced)
			be->sync_again(be, sync);
	}
	be->sync_free(be, sync); /* closes the mount points before the unmount */
}

static void sync_step(struct unmount_job *job, size_t i)
{
	struct syncer_figures first;
	void *sync = NULL;
	int r;

	r = job->be->sync_start(job->be, job->t, &sync, &first);
	if (r < 0)
		return fail(&job->steps[i], r, UNMOUNT_WHY_SYNC_START);
	/* the state when the sync began, however late the first poll */
	progress(job, i, &first);
	sync_loop(job, i, sync);
}

/* ---- unmount --------------------------------------------------------------- */

static void unmount_step(struct unmount_job *job, size_t i)
{
	struct unmount_step *s = &job->steps[i];
	struct unmount_fs *fs = &job->t->fs[s->fs];
	struct holder_list last = { 0 };
	double deadline = deadline_of(job);
	bool told = false;

	for (;;) {
		char *msg = NULL;
		int r = job->be->unmount(job->be, fs->m.mountpoint, job->o.lazy, &msg);
		bool waiting = still_waiting(job, deadline);
		struct unmount_busy b;

		if (r == 0) {
			fs->unmounted = true;
			done(s, 0, UNMOUNT_WHY_NONE);
			break;
		}
		if (mismatch(job, r)) {
			fail(s, r, UNMOUNT_WHY_MISMATCH);
			s->mismatch = mismatch(job, r);
			free(msg);
			break;
		}
		if (r != -EBUSY) {
			fail(s, r, denied(job, r) ? UNMOUNT_WHY_NOT_ALLOWED : UNMOUNT_WHY_UNMOUNT);
			s->action = denied(job, r);
			s->message = msg;
			break;
		}
		free(msg);
		/* every mount below it counts here: the job's own are gone by now */
		mount_busy(job, fs, NULL, waiting, &b);
		busy_event(job, i, &b, &last, &told);
		if (!waiting) {
			fail(s, -EBUSY, UNMOUNT_WHY_BUSY);
			break;
		}
		if (!job_sleep(job, job->o.retry_ms)) {
			fail(s, -ECANCELED, UNMOUNT_WHY_CANCELLED);
			break;
		}
	}
	holder_list_done(&last);
}

/* ---- release check --------------------------------------------------------- */

static void release_step(struct unmount_job *job, size_t i)
{
	struct unmount_step *s = &job->steps[i];
	struct holder_list last = { 0 };
	double deadline = deadline_of(job);
	int wait_ms = RELEASE_WAIT_MS, r;
	bool told = false;

	/* still mounted elsewhere in our own namespace: not safe to remove,
	 * and not another namespace's doing */
	if (s->fs != UNMOUNT_NO_FS &&
	    job->be->mounted_here(job->be, s->major, s->minor, &s->where) > 0)
		return fail(s, -EBUSY, UNMOUNT_WHY_MOUNTED_HERE);
	for (;;) {
		bool waiting;

		r = job->be->release(job->be, s->devnode, wait_ms);
		waiting = still_waiting(job, deadline);
		if (r != -EBUSY)
			break;
		device_busy(job, i, s->devnode, s->major, s->minor, waiting, &last, &told);
		if (!waiting || !job_sleep(job, job->o.retry_ms))
			break;
		wait_ms = 0;
	}
	holder_list_done(&last);
	if (r == -EACCES || r == -EPERM)
		done(s, r, UNMOUNT_WHY_UNCHECKED);
	else if (r == -EBUSY)
		fail(s, job_cancelled(job) ? -ECANCELED : -EBUSY,
		     job_cancelled(job) ? UNMOUNT_WHY_CANCELLED : UNMOUNT_WHY_BUSY);
	else if (r < 0)
		fail(s, r, UNMOUNT_WHY_FLUSH);
	else
		done(s, 0, UNMOUNT_WHY_NONE);
}

/* ---- power off ------------------------------------------------------------- */

/* The device the run could not open exclusively, told like a held one. */
static void power_off_busy(struct unmount_job *job, size_t i)
{
	const struct poweroff_plan *p = &job->plan;
	const char *dev = job->poweroff.failed_dev[0] ? job->poweroff.failed_dev : p->devnode;
	struct holder_list last = { 0 };
	bool told = false;

	for (size_t k = 0; k < p->n_devs; k++)
		if (strcmp(p->devs[k].devnode, dev) == 0)
			device_busy(job, i, dev, p->devs[k].major, p->devs[k].minor, false,
				    &last, &told);
	holder_list_done(&last);
}

static void power_off_step(struct unmount_job *job, size_t i)
{
	struct unmount_step *s = &job->steps[i];
	const struct unmount_backend *be = job->be;
	struct unmount_event ev = { .step = i };
	int r;

	r = be->power_off_plan(be, job->t->disk_major, job->t->disk_minor,
			       job->o.force ? POWEROFF_FORCE : 0, &job->plan);
	if (r < 0)
		return fail(s, r, UNMOUNT_WHY_PLAN);
	job->have_plan = true;
	snprintf(job->t->disk_node, sizeof(job->t->disk_node), "%s", job->plan.devnode);
	if (job->plan.refusal != POWEROFF_OK)
		return fail(s, job->plan.refusal == POWEROFF_MOUNTED ||
				       job->plan.refusal == POWEROFF_HELD ? -EBUSY : -EPERM,
			    UNMOUNT_WHY_REFUSED);
	ev.kind = UNMOUNT_EVENT_POWER_OFF_PLANNED;
	job_emit(job, &ev);
	r = be->power_off_run(be, &job->plan, &job->poweroff);
	ev = (struct unmount_event){ .kind = UNMOUNT_EVENT_POWER_OFF_RAN, .step = i, .result = r };
	job_emit(job, &ev);
	if (mismatch(job, r)) {
		fail(s, r, UNMOUNT_WHY_MISMATCH);
		s->mismatch = mismatch(job, r);
	} else if (r == -EBUSY) {
		power_off_busy(job, i);
		fail(s, r, UNMOUNT_WHY_BUSY);
	} else if (denied(job, r)) {
		fail(s, r, UNMOUNT_WHY_NOT_ALLOWED);
		s->action = denied(job, r);
	} else if (r < 0) {
		fail(s, r, UNMOUNT_WHY_POWER_OFF);
	} else {
		done(s, 0, UNMOUNT_WHY_NONE);
	}
}

void job_step_run(struct unmount_job *job, size_t i)
{
	switch (job->steps[i].kind) {
	case UNMOUNT_STEP_FREE_CHECK: free_check(job, i); break;
	case UNMOUNT_STEP_SYNC: sync_step(job, i); break;
	case UNMOUNT_STEP_UNMOUNT: unmount_step(job, i); break;
	case UNMOUNT_STEP_RELEASE_CHECK: release_step(job, i); break;
	case UNMOUNT_STEP_POWER_OFF: power_off_step(job, i); break;
	}
}
