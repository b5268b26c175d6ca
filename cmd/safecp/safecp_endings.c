/* safecp_endings.c: the last words of a run: all done ("... is on
 * '/dev/sdb1' and the device is idle; it can be removed"), interrupted
 * (what is complete, how to finish), stopped by an error, and with
 * several destinations each one's end as it comes and the job's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/msg.h"
#include "common/quote.h"
#include "safecp/events_private.h"
#include "base/cleanup.h"
#include "base/size.h"

struct dest_outcome outcome_of(const struct events *e)
{
	return (struct dest_outcome){
		.dest = e->dest_arg,
		.outcome = e->outcome ? e->outcome : "interrupted",
		.error = e->err ? strerror(e->err) : NULL,
		.files = e->snap.files_done,
		.errors = e->snap.files_failed,
		.bytes_on_device = e->snap.confirmed,
		.identical = e->plan.identical,
		.snap = &e->snap,
	};
}

void outcomes(const struct events_shared *sh, struct dest_outcome *ret)
{
	for (size_t i = 0; i < sh->n; i++)
		ret[i] = outcome_of(sh->all[i]);
}

/* Only a removable or USB/MMC disk gets "it can be removed". */
static bool disk_removable(const struct safecp_target_facts *t)
{
	return t->block && (t->removable || strcmp(t->transport, "usb") == 0 ||
				strcmp(t->transport, "mmc") == 0);
}

/* How the device was left: idle means seen idle (dirty_idle.h: as root
 * from its bdi, as any user from the system's writeback and the disk's
 * counters); else what kept it busy, or nothing known when it could not
 * be watched at all. */
static char *device_words(const struct snapshot *s)
{
	char busy[SIZE_FORMAT_MAX];

	if (s->device_idle)
		return strdup("the device is idle");
	if (s->device_busy == 0)
		return strdup("flushed (the device's idle state could not be confirmed; "
			      "wait for its light before removing it)");
	size_format(busy, sizeof(busy), s->device_busy);
	return words_format("flushed; the device was still busy with %s of other data, so it "
			    "was not seen idle: wait for its light before removing it", busy);
}

static char *final_line(const struct events *ev, int failed)
{
	const struct safecp_target_facts *t = ev->facts;
	const struct snapshot *s = &ev->snap;
	char size[SIZE_FORMAT_MAX];
	const char *files = s->files_done == 1 ? "file" : "files";
	bool idle = ev->started && s->device_idle;
	const char *after = failed ? "; some files failed (see above)"
			    : idle && disk_removable(t) ? "; it can be removed" : "";
	_cleanup_free_ char *checked = NULL, *same = NULL, *device = NULL;
	char *line = NULL;
	int r;

	if (s->verify)
		checked = words_format(" (%ju read back from the device and matched%s)",
				       (uintmax_t)s->files_verified,
				       s->verify_cached ? "; device cache not bypassed" : "");
	/* --skip-identical: what was already there, first */
	if (s->identical)
		same = words_format("%ju identical %s already there, not copied; ",
				    (uintmax_t)s->identical,
				    s->identical == 1 ? "file was" : "files were");

	size_format(size, sizeof(size), s->confirmed);
	if (t->block) {
		device = device_words(s);
		if (!device)
			return NULL;
		r = asprintf(&line, "%s%s in %ju %s%s is on %s and %s%s", same ? same : "", size,
			     (uintmax_t)s->files_done, files, checked ? checked : "",
			     quote_bare(t->device), device, after);
	} else
		r = asprintf(&line, "%s%s in %ju %s%s is on %s%s", same ? same : "", size,
			     (uintmax_t)s->files_done, files, checked ? checked : "",
			     quote(t->mountpoint ? t->mountpoint : t->path), after);
	return r < 0 ? NULL : line;
}

void events_done(struct events *ev, int failed)
{
	struct progress_state st;
	char *line;

	snapshot_take(ev, &ev->snap);
	state_from(&ev->snap, &st);
	progress_update(ev->sh->meter, &st);
	line = final_line(ev, failed);
	if (ev->json_mode)
		progress_done(ev->sh->meter, NULL);  /* the done event */
	else if (ev->sh->meter)
		progress_done(ev->sh->meter, line);
	else if (ev->o->verbosity >= VERBOSITY_VERBOSE && line)
		say(ev, "%s", line);
	if (ev->json_out && !ev->json_mode)  /* --events: the meter draws, not writes it */
		jsonev_done(&ev->jev, &ev->snap, NULL, 0, &ev->sh->src);
	free(line);
}

void events_dest_finished(struct events *ev, int result)
{
	struct events_shared *sh = ev->sh;
	_cleanup_free_ char *line = NULL;

	snapshot_take(ev, &ev->snap);
	ev->finished = true;
	ev->outcome = result == -ECANCELED ? "interrupted" : result == 0 ? "ok" : "failed";
	ev->err = result < 0 && result != -ECANCELED ? -result : 0;
	if (result >= 0) {
		line = final_line(ev, result);
		if (!ev->json_mode && ev->o->verbosity >= VERBOSITY_NORMAL && line)
			progress_note(sh->meter, "%s: %s", quote(ev->dest_arg), line);
	} else if (result != -ECANCELED) {
		if (!ev->fatal_reported) {
			note_line(ev, MSG_ERROR, "cannot copy to %s: %s",
				  quote(ev->plan.dest_root), strerror(ev->err));
			if (ev->json_out)
				jsonev_error(&ev->jev, NULL, SAFECP_STEP_WRITE, ev->err,
					     ev->plan.dest_root, strerror(ev->err), true);
		}
		note_line(ev, MSG_ERROR, "%s: stopped: %ju %s copied before the error; "
			  "temporary files removed, nothing partial was left under a final "
			  "name; the other destinations go on", quote(ev->dest_arg), (uintmax_t)ev->snap.files_done,
			      ev->snap.files_done == 1 ? "file" : "files");
	}
	if (ev->json_out) {
		struct dest_outcome d = outcome_of(ev);

		jsonev_dest_done(&ev->jev, &ev->snap, &d, line);
		stdout_check(ev);
	}
}

/* What an interrupted run leaves on ev's destination, in words: "29 of 46
 * files (119 MiB) are complete on 'DEST'" (named: "on 'DEST' 29 of 46
 * files (119 MiB) are complete"). */
static char *complete_words(const struct events *ev, bool named)
{
	const struct safecp_copy_plan *p = &ev->plan;
	uint64_t files = 0, bytes = 0;
	char size[SIZE_FORMAT_MAX];
	struct safecp_entry e;
	char *s = NULL;

	for (size_t i = 0; i < p->entries; i++)
		if (ev->published[i] &&
		    safecp_copy_entry(ev->o->copy, ev->d, i, &e, sizeof(e)) == 0 &&
		    S_ISREG(e.mode)) {
			files++;
			bytes += e.size;
		}
	size_format(size, sizeof(size), bytes);
	int r = named ? asprintf(&s, "on %s %ju of %ju %s (%s) %s complete",
				 quote(ev->dest_arg), (uintmax_t)files, (uintmax_t)p->files,
				 p->files == 1 ? "file" : "files", size, files == 1 ? "is" : "are")
		      : asprintf(&s, "%ju of %ju %s (%s) %s complete on %s", (uintmax_t)files,
				 (uintmax_t)p->files, p->files == 1 ? "file" : "files", size,
				 files == 1 ? "is" : "are", quote(ev->dest_arg));

	return r < 0 ? NULL : s;
}

/* The rest of the line: what is safe, and how to finish. */
static const char *next_step(const struct events *ev)
{
	if (ev->o->unpack)
		return "; nothing partial is left under a final name; run the same command again "
		       "to unpack the rest";
	if (ev->o->skip_identical)
		return "; nothing partial is left under a final name; run the same command again "
		       "to copy the rest";
	return "; nothing partial is left under a final name; run the same command with "
	       "--skip-identical to copy the rest";
}

void events_job_done(struct events *ev, const struct safecp_source_figures *src, int signo)
{
	struct events_shared *sh = ev->sh;
	struct dest_outcome d[SAFECP_DESTINATIONS_MAX];
	size_t ok = 0;
	char size[SIZE_FORMAT_MAX];
	_cleanup_free_ char *line = NULL;

	outcomes(sh, d);
	for (size_t i = 0; i < sh->n; i++)
		ok += strcmp(d[i].outcome, "ok") == 0;
	if (signo) {
		progress_free(sh->meter);
		sh->meter = NULL;
		if (ev->json_out) {
			jsonev_interrupted(&ev->jev, &ev->snap, signo);
			stdout_check(ev);
		}
		_cleanup_free_ char *each = NULL;

		for (size_t i = 0; i < sh->n; i++) {
			_cleanup_free_ char *one = complete_words(sh->all[i], true);
			char *joined = NULL;

			if (asprintf(&joined, "%s%s%s", each ? each : "", each ? ", " : "",
				     one ? one : "?") < 0)
				break;
			free(each);
			each = joined;
		}
		fprintf(stderr, "%s: interrupted by SIG%s: %s%s\n", program_name,
			sigabbrev_np(signo), each ? each : "", next_step(ev));
	} else {
		size_format(size, sizeof(size), src->bytes_read);
		if (asprintf(&line, "%zu of %zu destinations complete; %s read from the source",
			     ok, sh->n, size) < 0)
			line = NULL;
		tick_all(sh);
		/* for the done event; the bar's source row was drawn from the
		 * last tick's reading above, as on every tick */
		sh->src = *src;
		if (ev->json_mode)
			progress_done(sh->meter, NULL);
		else if (sh->meter)
			progress_done(sh->meter, line);
		else if (ev->o->verbosity >= VERBOSITY_VERBOSE && line)
			say(ev, "%s", line);
		if (ev->json_out && !ev->json_mode)
			jsonev_done(&sh->all[0]->jev, &sh->all[0]->snap, d, sh->n, &sh->src);
	}
}

/* Ends the bar (kept on screen) before the last words. */
static void meter_close(struct events *ev)
{
	progress_free(ev->sh->meter);
	ev->sh->meter = NULL;
}

void events_interrupted(struct events *ev, int signo)
{
	snapshot_take(ev, &ev->snap);
	meter_close(ev);
	if (ev->json_out) {
		jsonev_interrupted(&ev->jev, &ev->snap, signo);
		stdout_check(ev);
	}
	if (ev->o->pack) {
		fprintf(stderr, "%s: interrupted by SIG%s: the archive was not written, nothing is "
			"left under its name; run the same command again\n", program_name,
			sigabbrev_np(signo));
	} else {
		_cleanup_free_ char *done = complete_words(ev, false);

		fprintf(stderr, "%s: interrupted by SIG%s: %s%s\n", program_name,
			sigabbrev_np(signo), done ? done : "", next_step(ev));
	}
}

void events_cancelling(struct events *ev)
{
	meter_close(ev);
}

void events_stopped(struct events *ev, int err)
{
	snapshot_take(ev, &ev->snap);
	meter_close(ev);
	if (!ev->fatal_reported) {
		fprintf(stderr, "%s: cannot copy to %s: %s\n", program_name,
			quote(ev->plan.dest_root), strerror(err));
		if (ev->json_out)
			jsonev_error(&ev->jev, NULL, SAFECP_STEP_WRITE, err, ev->plan.dest_root,
				     strerror(err), true);
	}
	if (ev->json_out) {
		jsonev_stopped(&ev->jev, &ev->snap);
		stdout_check(ev);
	}
	fprintf(stderr, "%s: stopped: %ju %s copied before the error; temporary files "
		"removed, nothing partial was left under a final name\n", program_name,
		(uintmax_t)ev->snap.files_done, ev->snap.files_done == 1 ? "file" : "files");
}
