/* session.h: a copy from its arguments to its end, in the shape of the
 * unmount job (unmount/job.h):
 *
 *	copy_session_new(&opts, &s);
 *	copy_session_add_source(s, "DCIM");       as many as there are
 *	copy_session_add_dest(s, "/media/usb", NULL);  up to COPY_DESTS_MAX
 *	copy_session_prepare(s);   everything checked before the first byte:
 *	                           refusals come back as kinds (struct
 *	                           copy_refusal), nothing is written
 *	copy_session_start(s);
 *	until each destination's COPY_EVENT_DEST_END:
 *		copy_session_poll(s, 100, &ev) ... copy_session_stats(s, d) ...
 *	copy_session_cancel(s);     from any thread, or a signal's waker
 *	copy_session_free(s);
 *
 * The session owns its threads; the caller polls one queue (its fd can
 * go into the caller's own poll loop).  Nothing is printed, no signal
 * handler is installed, no option names or words: errors are -errno or
 * a kind.  The safecp command still prepares its jobs itself (cmd/safecp)
 * and moves onto this next; until then the session covers the plain copy
 * (no checksum lists, manifests, --skip-identical, archives). */
#ifndef SAFECP_SESSION_H
#define SAFECP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "copy/copy.h"
#include "copy/plan.h"
#include "device/target.h"
#include "device/target_place.h"
#include "io/sizing.h"

struct copy_session_options {
	struct plan_options plan;      /* -r, -L, -t, -T, -n (beneath: per destination) */
	enum write_strategy strategy;  /* STRATEGY_AUTO to choose */
	uint64_t window;               /* 0: derived from the device */
	bool keep_times;
	bool keep_mode;
	bool verify;                   /* read every file back before it is named */
	bool verify_source;
	bool rename_invalid;           /* names the stick cannot hold get one it can */
	bool system_disk;              /* a destination on the system disk or on no
				        * disk is meant (else refused) */
};

/* Why a destination is refused before the first byte. */
enum copy_refusal_kind {
	COPY_REFUSED_PLAN,         /* problem: the plan's (plan.h, plan_names.h kinds) */
	COPY_REFUSED_SYSTEM_DISK,  /* on the disk the system runs from (place) */
	COPY_REFUSED_NO_DISK,      /* on no disk: tmpfs, a network (place) */
	COPY_REFUSED_STRATEGY,     /* the strategy asked cannot work here (reason) */
	COPY_REFUSED_SOURCE_CHANGED, /* the sources changed between two destinations' plans */
};

struct copy_refusal {
	size_t dest;
	enum copy_refusal_kind kind;
	const struct plan_problem *problem; /* COPY_REFUSED_PLAN: kind, paths, err,
					     * need, have; the session's */
	struct target_placement place; /* SYSTEM_DISK, NO_DISK */
	enum sizing_reason reason;     /* STRATEGY */
};

struct copy_session;

/* 0, or -errno. */
int copy_session_new(const struct copy_session_options *o, struct copy_session **ret);
/* Paths are copied.  -EBUSY once prepared; -E2BIG past COPY_DESTS_MAX. */
int copy_session_add_source(struct copy_session *s, const char *path);
/* beneath: NULL, or the root dir must be reached beneath (plan.h). */
int copy_session_add_dest(struct copy_session *s, const char *dir, const char *beneath);

/* Plan every destination and check it (sources, names, space, the disk it
 * is on, the strategy).  0: ready to start; a positive count of refusals
 * (copy_session_refusal(); all of them, for every destination, so one
 * round of fixes does; only a refused plan of the first destination
 * leaves the others unplanned: there is no source tree); -errno: a
 * destination could not even be examined (*bad_dest says which; the
 * session cannot start). */
int copy_session_prepare(struct copy_session *s, size_t *bad_dest);
const struct copy_refusal *copy_session_refusal(const struct copy_session *s, size_t i);

/* After prepare: what was decided for destination d (NULL past the end). */
size_t copy_session_n_dests(const struct copy_session *s);
const struct plan *copy_session_plan(const struct copy_session *s, size_t d);

/* Start the copy (prepare returned 0).  0, or -errno. */
int copy_session_start(struct copy_session *s);
int copy_session_event_fd(const struct copy_session *s);
/* As copy_job_poll(); before start: 0 at once. */
int copy_session_poll(struct copy_session *s, int timeout_ms, struct copy_event *ret);
/* Destination d's counters, readable at any time after start. */
const struct copy_stats *copy_session_stats(const struct copy_session *s, size_t d);
/* Every destination finished (the last events may still be queued). */
bool copy_session_done(const struct copy_session *s);
/* As copy_job_finished(). */
bool copy_session_result(const struct copy_session *s, size_t d, int *result);
void copy_session_cancel(struct copy_session *s);
/* Cancel what runs, join, free everything. */
void copy_session_free(struct copy_session *s);

#endif
