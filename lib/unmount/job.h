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
#include "unmount/holders.h"
#include "unmount/poweroff.h"
#include "unmount/syncer.h"
#include "unmount/target.h"

enum unmount_step_kind {
	UNMOUNT_STEP_FREE_CHECK,
	UNMOUNT_STEP_SYNC,
	UNMOUNT_STEP_UNMOUNT,
	UNMOUNT_STEP_RELEASE_CHECK,
	UNMOUNT_STEP_POWER_OFF,
};

enum unmount_step_state {
	UNMOUNT_STEP_PENDING,
	UNMOUNT_STEP_RUNNING,
	UNMOUNT_STEP_DONE,      /* result 0, or a note: see why */
	UNMOUNT_STEP_FAILED,    /* result -errno, why */
};

/* What a result means, beside its -errno. */
enum unmount_why {
	UNMOUNT_WHY_NONE = 0,
	UNMOUNT_WHY_CANCELLED,    /* -ECANCELED in the step: its wait, or its sync */
	UNMOUNT_WHY_NOT_BEGUN,    /* -ECANCELED before the step began */
	UNMOUNT_WHY_BUSY,         /* -EBUSY: BUSY events said who holds it */
	UNMOUNT_WHY_SYNC_START,   /* the sync could not start */
	UNMOUNT_WHY_SYNC_READ,    /* the device's counters could not be read */
	UNMOUNT_WHY_SYNC_WRITE,   /* a syncfs failed (data may be lost); index: its fs */
	UNMOUNT_WHY_DIRTIED,      /* DONE: still dirtied after the last round; the
				   * unmount writes the rest */
	UNMOUNT_WHY_UNMOUNT,      /* the unmount failed; message: the system's text */
	UNMOUNT_WHY_NOT_ALLOWED,  /* -EACCES: a service's polkit said no (action);
				   * UNMOUNT and POWER_OFF */
	UNMOUNT_WHY_MOUNTED_HERE, /* still mounted on `where` in our namespace */
	UNMOUNT_WHY_UNCHECKED,    /* DONE: not allowed to check (-EACCES, -EPERM) */
	UNMOUNT_WHY_FLUSH,        /* the release check's flush failed */
	UNMOUNT_WHY_PLAN,         /* no power-off plan for the disk */
	UNMOUNT_WHY_REFUSED,      /* the plan's refusal (unmount_job_plan()) */
	UNMOUNT_WHY_POWER_OFF,    /* a power-off step failed (unmount_job_power_off()) */
	UNMOUNT_WHY_MISMATCH,     /* a service would act, or acted, on another
				   * device or mount (mismatch); UNMOUNT and POWER_OFF */
};

#define UNMOUNT_NO_FS ((size_t)-1)

struct unmount_step {
	enum unmount_step_kind kind;
	size_t fs;               /* its filesystem in the target, or UNMOUNT_NO_FS */
	const char *devnode;     /* RELEASE_CHECK: the device */
	unsigned major, minor;
	enum unmount_step_state state;
	int result;
	enum unmount_why why;
	size_t index;            /* SYNC_WRITE: the filesystem that failed */
	char *message;           /* UNMOUNT: the system's words, or NULL */
	char *where;             /* MOUNTED_HERE: the other mount point */
	const char *action;      /* NOT_ALLOWED: the polkit action refused */
	enum unmount_mismatch mismatch; /* MISMATCH: what did not match */
};

struct unmount_job_options {
	bool lazy, power_off, force;
	bool wait;               /* retry while busy ... */
	double wait_seconds;     /* ... for this long; negative: no limit */
	bool check_only;         /* only FREE_CHECK: a captured tree (SAFECP_SYSROOT) */
	int retry_ms;            /* the retry pace; 0: 500 */
};

enum unmount_event_kind {
	UNMOUNT_EVENT_PROGRESS,          /* figures of the sync */
	UNMOUNT_EVENT_BUSY,              /* who holds it: first seen, or changed */
	UNMOUNT_EVENT_POWER_OFF_PLANNED, /* the plan is agreed, the run begins */
	UNMOUNT_EVENT_POWER_OFF_RAN,     /* the run returned result */
	UNMOUNT_EVENT_STEP_END,          /* a step ended: step holds its outcome */
	UNMOUNT_EVENT_END,               /* the job ended; always the last */
};

struct unmount_busy {
	const char *what;        /* the mount point, or the device node */
	bool mount;              /* what is a mount point (else a device) */
	bool waiting;            /* and the job waits for it */
	struct holder_list holders;
	char **submounts;        /* mount points below it */
	size_t n_submounts;
};

struct unmount_event {
	enum unmount_event_kind kind;
	size_t step;             /* index of its step (END: of the last that ran) */
	struct unmount_step outcome;    /* STEP_END: a copy of the step */
	struct syncer_figures figures;  /* PROGRESS */
	struct unmount_busy busy;       /* BUSY */
	int result;                     /* POWER_OFF_RAN */
};

struct unmount_job;

/* The steps for t (borrowed until unmount_job_free; the job writes its
 * outcome fields).  be is borrowed too. */
int unmount_job_new(struct unmount_target *t, const struct unmount_job_options *o,
		    const struct unmount_backend *be, struct unmount_job **ret);
/* Starts the job's thread. */
int unmount_job_start(struct unmount_job *job);
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
