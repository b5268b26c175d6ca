/* job.c: an unmount job's steps, its thread and its event queue.
 *
 * The job's thread runs the steps in order (job_steps.c) and queues an
 * event for everything the caller may want to show; the caller's thread
 * polls an eventfd with its own timeout, which both paces a display and
 * wakes it at once when something happens, and takes the events in
 * order.  Signals are blocked in the job's thread (and so in the sync
 * worker it starts), so that they interrupt the caller's poll, never a
 * syscall of ours.  Cancelling sets a flag and writes a second eventfd,
 * which every wait of the job polls. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "util/debug.h"
#include "util/event_queue.h"
#include "base/grow.h"
#include "util/thread_signals.h"
#include "unmount/job.h"
#include "unmount/job_private.h"

double job_monotonic(void)
{
	return clock_monotonic();
}

static void kick(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0) {
		/* cannot fail below 2^64-1; a poll timeout sees the state anyway */
	}
}

void unmount_event_done(struct unmount_event *ev)
{
	if (!ev)
		return;
	holder_list_done(&ev->busy.holders);
	unmount_strv_free(ev->busy.submounts, ev->busy.n_submounts);
	memset(ev, 0, sizeof(*ev));
}

/* Out of memory, the event is dropped: the steps' own states still say
 * what happened, and END is never lost (see unmount_job_poll). */
void job_emit(struct unmount_job *job, struct unmount_event *ev)
{
	if (!event_queue_push(job->events, ev))
		unmount_event_done(ev);
	memset(ev, 0, sizeof(*ev));
}

bool job_cancelled(struct unmount_job *job)
{
	bool c;

	pthread_mutex_lock(&job->lock);
	c = job->cancelled;
	pthread_mutex_unlock(&job->lock);
	return c;
}

static bool job_stops_after_step(struct unmount_job *job)
{
	bool stop;

	pthread_mutex_lock(&job->lock);
	stop = job->stop_after_step;
	pthread_mutex_unlock(&job->lock);
	return stop;
}

bool job_sleep(struct unmount_job *job, int ms)
{
	struct pollfd p = { .fd = job->cancel_fd, .events = POLLIN };

	if (job_cancelled(job))
		return false;
	while (poll(&p, 1, ms) < 0 && errno == EINTR) {
		/* signals are blocked here; kept for safety */
	}
	return !job_cancelled(job);
}

static int add_step(struct unmount_job *job, enum unmount_step_kind kind, size_t fs,
		    const char *devnode, unsigned major, unsigned minor)
{
	if (GROW(job->steps, job->cap_steps, job->n_steps + 1, 8) < 0)
		return -ENOMEM;
	job->steps[job->n_steps++] = (struct unmount_step){
		.kind = kind, .fs = fs, .devnode = devnode, .major = major, .minor = minor,
	};
	return 0;
}

static bool seen_before(const struct unmount_target *t, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(t->fs[k].devnode, t->fs[i].devnode) == 0)
			return true;
	return false;
}

/* The release checks: each distinct block device once, then the whole
 * disk of a whole-disk target (a claimed partition marks its disk). */
static int add_release_steps(struct unmount_job *job)
{
	struct unmount_target *t = job->t;
	int r = 0;

	for (size_t i = 0; i < t->n_fs && r >= 0; i++)
		if (t->fs[i].devnode[0] && !seen_before(t, i))
			r = add_step(job, UNMOUNT_STEP_RELEASE_CHECK, i, t->fs[i].devnode,
				     t->fs[i].m.dev_major, t->fs[i].m.dev_minor);
	if (r >= 0 && t->whole_disk)
		r = add_step(job, UNMOUNT_STEP_RELEASE_CHECK, UNMOUNT_NO_FS, t->devnode,
			     t->dev_major, t->dev_minor);
	return r;
}

static int build_steps(struct unmount_job *job)
{
	struct unmount_target *t = job->t;
	int r = 0;

	if (t->n_fs >= 2 && !job->o.lazy)
		r = add_step(job, UNMOUNT_STEP_FREE_CHECK, UNMOUNT_NO_FS, NULL, 0, 0);
	if (job->o.check_only || r < 0)
		return r;
	if (t->n_fs)
		r = add_step(job, UNMOUNT_STEP_SYNC, UNMOUNT_NO_FS, NULL, 0, 0);
	for (size_t i = 0; i < t->n_fs && r >= 0; i++)
		r = add_step(job, UNMOUNT_STEP_UNMOUNT, i, NULL, 0, 0);
	if (r >= 0 && t->n_fs && !job->o.lazy)
		r = add_release_steps(job);
	if (r >= 0 && job->o.power_off)
		r = add_step(job, UNMOUNT_STEP_POWER_OFF, UNMOUNT_NO_FS, NULL, 0, 0);
	return r;
}

int unmount_job_new(struct unmount_target *t, const struct unmount_job_options *o,
		    const struct unmount_backend *be, struct unmount_job **ret)
{
	struct unmount_job *job = calloc(1, sizeof(*job));
	int r;

	if (!job)
		return -ENOMEM;
	job->t = t;
	job->o = *o;
	if (job->o.retry_ms <= 0)
		job->o.retry_ms = 500;
	job->be = be;
	pthread_mutex_init(&job->lock, NULL);
	job->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r = job->cancel_fd < 0 ? -errno : event_queue_new(sizeof(struct unmount_event), &job->events);
	if (r == 0)
		r = build_steps(job);
	if (r < 0) {
		unmount_job_free(job);
		return r;
	}
	*ret = job;
	return 0;
}

static void end_step(struct unmount_job *job, size_t i)
{
	struct unmount_event ev = { .kind = UNMOUNT_EVENT_STEP_END, .step = i,
				    .outcome = job->steps[i] };

	DEBUG(DEBUG_UNMOUNT, "job: step %zu (kind %d) ends: state %d, result %d, why %d", i,
	      (int)job->steps[i].kind, (int)job->steps[i].state, job->steps[i].result,
	      (int)job->steps[i].why);
	job_emit(job, &ev);
}

static void *job_main(void *arg)
{
	struct unmount_job *job = arg;
	struct unmount_event end = { .kind = UNMOUNT_EVENT_END };

	for (size_t i = 0; i < job->n_steps; i++) {
		struct unmount_step *s = &job->steps[i];

		end.step = i;
		if (job_cancelled(job) || (i > 0 && job_stops_after_step(job))) {
			s->state = UNMOUNT_STEP_FAILED;
			s->result = -ECANCELED;
			s->why = UNMOUNT_WHY_NOT_BEGUN;
		} else {
			s->state = UNMOUNT_STEP_RUNNING;
			job_step_run(job, i);
		}
		end_step(job, i);
		if (s->state == UNMOUNT_STEP_FAILED)
			break;
	}
	pthread_mutex_lock(&job->lock);
	job->finished = true;
	job->last_step = end.step;
	pthread_mutex_unlock(&job->lock);
	job_emit(job, &end);
	return NULL;
}

int unmount_job_start(struct unmount_job *job)
{
	sigset_t old;
	int r;

	thread_signals_block(&old);
	r = pthread_create(&job->thread, NULL, job_main, job);
	thread_signals_restore(&old);
	if (r != 0)
		return -r;
	job->started = true;
	return 0;
}

/* The job ended: what it queued last, else END again (also when its
 * queueing ran out of memory).  The queue is asked once more after
 * finished is seen: a step's end queued just before it must come first. */
static bool ended(struct unmount_job *job, struct unmount_event *ret)
{
	bool finished;

	pthread_mutex_lock(&job->lock);
	finished = job->finished;
	pthread_mutex_unlock(&job->lock);
	if (finished && event_queue_pop(job->events, 0, ret) != 1)
		*ret = (struct unmount_event){ .kind = UNMOUNT_EVENT_END, .step = job->last_step };
	return finished;
}

int unmount_job_poll(struct unmount_job *job, int timeout_ms, struct unmount_event *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	r = event_queue_pop(job->events, 0, ret);
	if (r != 0 || ended(job, ret))
		return r != 0 ? r : 1;
	r = event_queue_pop(job->events, timeout_ms, ret);
	if (r != 0)
		return r;
	return ended(job, ret) ? 1 : 0;
}

int unmount_job_event_fd(const struct unmount_job *job)
{
	return event_queue_fd(job->events);
}

void unmount_job_stop_after_step(struct unmount_job *job)
{
	pthread_mutex_lock(&job->lock);
	job->stop_after_step = true;
	pthread_mutex_unlock(&job->lock);
}

void unmount_job_cancel(struct unmount_job *job)
{
	pthread_mutex_lock(&job->lock);
	job->cancelled = true;
	pthread_mutex_unlock(&job->lock);
	kick(job->cancel_fd);
}

static void event_done(void *ev)
{
	unmount_event_done(ev);
}

void unmount_job_free(struct unmount_job *job)
{
	if (!job)
		return;
	if (job->started) {
		unmount_job_cancel(job);
		pthread_join(job->thread, NULL);
	}
	event_queue_free(job->events, event_done);
	for (size_t i = 0; i < job->n_steps; i++) {
		free(job->steps[i].message);
		free(job->steps[i].where);
	}
	free(job->steps);
	if (job->have_plan)
		job->be->power_off_plan_done(job->be, &job->plan);
	if (job->cancel_fd >= 0)
		close(job->cancel_fd);
	pthread_mutex_destroy(&job->lock);
	free(job);
}

size_t unmount_job_n_steps(const struct unmount_job *job)
{
	return job->n_steps;
}

const struct unmount_step *unmount_job_step(const struct unmount_job *job, size_t i)
{
	return i < job->n_steps ? &job->steps[i] : NULL;
}

const struct poweroff_plan *unmount_job_plan(const struct unmount_job *job)
{
	return job->have_plan ? &job->plan : NULL;
}

const struct poweroff_result *unmount_job_power_off(const struct unmount_job *job)
{
	return &job->poweroff;
}

bool unmount_job_sync_clean(const struct unmount_job *job)
{
	return job->sync_clean;
}
