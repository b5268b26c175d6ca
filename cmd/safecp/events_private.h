/* events_private.h: what the files of safecp's run output share: one
 * destination's struct events, the struct events_shared of them all,
 * and the helpers each file lends the others.
 *
 *   safecp_events.c       made, started, freed; the output primitives
 *   safecp_file_events.c  what the copy job says: events_handle()
 *   safecp_snapshot.c     one reading of the counters, the device's backlog
 *   safecp_bar.c          the bar, several destinations' rows, JSON progress
 *   safecp_endings.c      done, interrupted, stopped, the job done
 *
 * Every call comes from the main thread (safecp_run.c polls the copy
 * job's events), so nothing here takes a lock.  Private to those files. */
#ifndef SAFECP_CMD_SAFECP_EVENTS_PRIVATE_H
#define SAFECP_CMD_SAFECP_EVENTS_PRIVATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/msg.h"
#include "common/progress.h"
#include "safecp/tool.h"

/* What every destination's events share: one meter, one stdout. */
struct events_shared {
	struct progress *meter;
	bool stdout_gone;    /* its reader went away: EPIPE */
	FILE *devnull;       /* where JSON goes once stdout is gone */
	struct events *all[SAFECP_DESTINATIONS_MAX];
	size_t n;
	size_t refs;
	struct safecp_source_figures src; /* the last reading: the source row, the done event */
};

/* The destination device's figures (device_wait_sample()). */
struct device_wait {
	bool started;
	double next;                 /* when to read it again */
	struct progress_rate dev_rate;
	double rate;                 /* its write rate, bytes/s; -1 unknown */
	uint64_t other;              /* bytes of other data ahead of ours */
};

/* One destination's events. */
struct events {
	struct events_shared *sh;
	const struct safecp_options *o;
	size_t d;           /* its destination's index (<safecp/copy_plan.h>) */
	struct safecp_copy_plan plan; /* what it will do */
	const char *dest_arg; /* the destination as given */
	const struct safecp_target_facts *facts; /* its target's (dest_facts()) */
	bool started;       /* the copy runs: its figures can be read */
	/* identical files read back and the same, judged at prepare: counted
	 * once, not on every tick (a walk of every entry) */
	size_t identical_verified;
	bool identical_cached;
	struct jsonev jev;  /* its --progress=json stream */
	bool json_mode;  /* --progress=json: events instead of the text */
	bool json_out;   /* events written: json_mode or --events */
	bool verbose_stdout; /* -v lines on stdout rather than through the meter */
	bool fatal_reported; /* the engine reported the error that stops it */
	bool finished;       /* its end was shown */
	const char *outcome; /* "ok", "failed", "interrupted", or NULL */
	int err;             /* failed: the error that stopped it, or 0 */
	struct progress_rate rate;
	struct snapshot snap;
	/* snap.file's bytes: safecp_copy_entry()'s strings last only until
	 * its next call */
	char snap_file[PATH_MAX];
	struct device_wait wait; /* the destination device's own figures */
	char wait_line[192];     /* its words, while it waits */
	bool *published;     /* per plan entry: its file_done came */
};

/* safecp_events.c: output.  stdout_check(): a
 * reader of stdout that went away ends our output to it. */
void stdout_check(struct events *ev);
/* A diagnostic line through the meter. */
void note_line(struct events *ev, enum msg_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A -v line. */
void say(struct events *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* safecp_snapshot.c: ev's counters read into s, with its device's
 * backlog; that backlog in words for the bar (false: none to speak of). */
void snapshot_take(struct events *ev, struct snapshot *s);
bool device_wait_words(const struct device_wait *w, const struct safecp_target_facts *t,
		       char *buf, size_t size);

/* safecp_bar.c: a reading as the meter's state; the meter's callback in
 * --progress=json (userdata: the struct events_shared); a tick. */
void state_from(struct snapshot *s, struct progress_state *ret);
void json_progress(FILE *out, const struct progress_state *st, bool final, void *userdata);
void tick_all(struct events_shared *sh);

/* safecp_endings.c: a destination's end for JSON; every destination's. */
struct dest_outcome outcome_of(const struct events *e);
void outcomes(const struct events_shared *sh, struct dest_outcome *ret);

#endif
