/* job.h: one target's unmount as data: its steps, run in a thread the
 * job owns, through a backend (backend.h), polled by the caller.
 *
 *	unmount_job_new(target, &opts, unmount_backend_kernel(), &job);
 *	unmount_job_start(job);
 *	do {
 *		r = unmount_job_poll(job, 100, &ev);   (-EINTR on a signal:
 *		                                         unmount_job_cancel(job))
 *		if (r > 0) show ev; unmount_event_done(&ev);
 *	} while (r <= 0 || ev.kind != UNMOUNT_EVENT_END);
 *	unmount_job_free(job);
 *
 * The steps, in order, each only when it applies:
 *	FREE_CHECK     all or nothing: a target with several filesystems
 *	               waits (or gives up) until none is held, before any
 *	               is touched (not with lazy)
 *	SYNC           syncfs of all of them, with progress, up to three
 *	               rounds while someone keeps dirtying them
 *	UNMOUNT        one per filesystem, innermost first; busy: retried
 *	               with wait, until the time is up
 *	RELEASE_CHECK  one per block device (and the whole disk of a whole
 *	               disk target): not mounted elsewhere here, and an
 *	               O_EXCL open proves no other namespace holds it (not
 *	               with lazy)
 *	POWER_OFF      with power_off
 * The first step that fails ends the job; the rest stay PENDING.
 * Cancelling stops a wait at once, and otherwise at the next step: a
 * running syncfs, unmount or power-off cannot be stopped.
 *
 * Signals: the job's threads block them all, so they reach the caller's
 * thread, whose poll then returns -EINTR.  lib/ never prints: the caller
 * words the events and the steps' results. */
#ifndef SAFECP_UNMOUNT_JOB_H
#define SAFECP_UNMOUNT_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "unmount/backend.h"
#include "unmount/job_types.h"
#include "unmount/poweroff.h"
#include "unmount/target.h"

struct unmount_job;

/* The steps for t (borrowed until unmount_job_free; the job writes its
 * outcome fields).  be is borrowed too. */
int unmount_job_new(struct unmount_target *t, const struct unmount_job_options *o,
		    const struct unmount_backend *be, struct unmount_job **ret);
/* Starts the job's thread. */
int unmount_job_start(struct unmount_job *job);
/* The eventfd that is readable while an event waits (the job's own). */
int unmount_job_event_fd(const struct unmount_job *job);
/* Waits up to timeout_ms for the next event: 1 with *ret filled, 0 when
 * none came, -EINTR when a signal arrived.  After END, END again. */
int unmount_job_poll(struct unmount_job *job, int timeout_ms, struct unmount_event *ret);
/* Asks the job to stop: see above.  Safe from any thread, not from a
 * signal handler. */
void unmount_job_cancel(struct unmount_job *job);
/* Lets the running step end as it would, and begins no other: the steps
 * after it end NOT_BEGUN (-ECANCELED).  For a sync that cannot be stopped
 * but that the caller wants to see to its end.  Any thread. */
void unmount_job_stop_after_step(struct unmount_job *job);
/* Cancels a running job and waits for its thread.  NULL is fine. */
void unmount_job_free(struct unmount_job *job);

void unmount_event_done(struct unmount_event *ev);

/* Read a step once its STEP_END was polled, the rest after END. */
size_t unmount_job_n_steps(const struct unmount_job *job);
const struct unmount_step *unmount_job_step(const struct unmount_job *job, size_t i);
/* The power-off plan (POWER_OFF_PLANNED, or a POWER_OFF step's end) and
 * the run's findings (POWER_OFF_RAN). */
const struct poweroff_plan *unmount_job_plan(const struct unmount_job *job);
const struct poweroff_result *unmount_job_power_off(const struct unmount_job *job);
/* Whether the sync ended clean (the bar may say 100%). */
bool unmount_job_sync_clean(const struct unmount_job *job);

#endif
