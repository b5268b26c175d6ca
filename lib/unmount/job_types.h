/* job_types.h: the data of an unmount job (job.h): its steps, options
 * and events.  Below both job.h (the calls) and job_private.h (the job's
 * insides), so that neither includes the other. */
#ifndef SAFECP_UNMOUNT_JOB_TYPES_H
#define SAFECP_UNMOUNT_JOB_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "unmount/backend.h"
#include "unmount/holders.h"
#include "unmount/syncer.h"

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

#endif
