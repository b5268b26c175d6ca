/* copy_internal.h: the public copy (<safecp/copy.h>) as the library
 * holds it, shared by lib/api/copy.c (options, run), copy_findings.c
 * (what preparing found) and copy_plan.c (what it will do). */
#ifndef SAFECP_API_COPY_INTERNAL_H
#define SAFECP_API_COPY_INTERNAL_H

#include <safecp/copy.h>

#include "api/target_handle.h"
#include "copy/session.h"

struct safecp_copy {
	struct copy_session *s;
	struct copy_session_options o; /* as set; its strings are the two below */
	char *sums_prefix;
	char *spool_dir;
	struct copy_event last; /* its strings live until the next poll */
	bool polled;            /* last holds the event the last poll returned */
	bool did_prepare;       /* prepare was called: the options are fixed */
	int prepared;           /* what it returned */
	/* the findings by kind, made once prepared: refusal i is finding
	 * refusals[i], note i notes[i]; a finding's index among its kind */
	size_t *refusals, *notes, *index_of;
	size_t n_refusals, n_notes;
	size_t *unsafe;         /* the archives' refused entries, in order */
	size_t n_unsafe;
	struct copy_prepare_failure failed;
	/* safecp_copy_target()'s handles, one per destination (the array is
	 * filled as they are asked for; the session owns the targets) */
	struct safecp_target *targets;
};

#endif
