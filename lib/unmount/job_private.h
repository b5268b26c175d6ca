/* job_private.h: the job's insides, shared by job.c (the thread, the
 * event queue, cancelling) and job_steps.c (what each step does). */
#ifndef SAFECP_UNMOUNT_JOB_PRIVATE_H
#define SAFECP_UNMOUNT_JOB_PRIVATE_H

#include <pthread.h>

#include "unmount/job_types.h"
#include "unmount/poweroff.h"
#include "unmount/target.h"
#include "util/event_queue.h"

struct unmount_job {
	struct unmount_target *t;
	struct unmount_job_options o;
	const struct unmount_backend *be;
	struct unmount_step *steps;
	size_t n_steps, cap_steps;

	/* outcomes the caller reads */
	bool sync_clean;
	bool have_plan;
	struct poweroff_plan plan;
	struct poweroff_result poweroff;

	pthread_t thread;
	bool started;
	int cancel_fd;           /* "cancel": wakes the job's waits */

	struct event_queue *events; /* util/event_queue.h: what the caller polls */
	pthread_mutex_t lock;    /* cancelled, finished */
	bool cancelled, finished;
	bool stop_after_step;    /* unmount_job_stop_after_step() */
	size_t last_step;
};

/* Queue ev (its lists move to the queue). */
void job_emit(struct unmount_job *job, struct unmount_event *ev);
bool job_cancelled(struct unmount_job *job);
/* Sleep ms, or less when cancelled: false then. */
bool job_sleep(struct unmount_job *job, int ms);
double job_monotonic(void);

/* job_steps.c: carry out steps[i], setting its state and result. */
void job_step_run(struct unmount_job *job, size_t i);

#endif
