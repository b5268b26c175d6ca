/* copy_internal.h: the public copy (<safecp/copy.h>) as the library
 * holds it, shared by lib/api/copy.c (options, run), copy_findings.c
 * (what preparing found) and copy_plan.c (what it will do). */
#ifndef SAFECP_API_COPY_INTERNAL_H
#define SAFECP_API_COPY_INTERNAL_H

#include <safecp/copy.h>

#include <limits.h>

#include "api/target_handle.h"
#include "base/arena.h"
#include "copy/session.h"

/* The paths the API hands out, built from the tree's and plans' names
 * (no entry keeps its paths: source_tree.h).  Behind a pointer, so that
 * the calls on a const copy may fill them. */
struct api_strings {
	/* safecp_copy_entry()'s: until its next call */
	char entry_source[PATH_MAX], entry_rel[PATH_MAX], entry_dest[PATH_MAX];
	/* the polled event's: until the next poll */
	char event_source[PATH_MAX], event_path[PATH_MAX];
	char pack_source[PATH_MAX]; /* safecp_copy_pack_failed()'s */
	struct arena kept;          /* findings' paths: until free */
};

/* s copied into c's kept strings (valid until free); "?" when memory ran
 * out. */
const char *api_keep(const struct safecp_copy *c, const char *s);

/* e's source path in buf (PATH_MAX), or "?". */
const char *api_source_path(const struct source_entry *e, char *buf);

struct safecp_copy {
	struct copy_session *s;
	struct copy_session_options o; /* as set; its strings are the two below */
	char *sums_prefix;
	char *spool_dir;
	char *backup_suffix;
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
	struct api_strings *str;
};

#endif
