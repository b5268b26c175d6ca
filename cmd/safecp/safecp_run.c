/* safecp_run.c: runs the prepared copy: safecp_copy_start() (the library
 * owns the reader and one thread per destination), while the main thread
 * polls its events, draws progress and answers signals.
 *
 * SIGINT, SIGTERM and SIGHUP are blocked before the job starts, so its
 * threads inherit the mask and no handler ever runs inside the engine.
 * The main thread waits in poll() on the job's event fd and a signalfd,
 * with a 100 ms tick: an event is worded at once, a tick redraws (the
 * meter throttles), a signal cancels the job, whose threads look
 * between chunks.  The engine then removes its temporary files and
 * returns -ECANCELED; only then do we exit, so an interrupted safecp
 * never leaves a partial file under a final name.  A destination's last
 * event says its thread ended, so its end is shown at once.  SIGPIPE is
 * ignored:
 * when the reader of --progress=json goes away, the copy goes on and
 * cleans up as usual instead of dying with temporaries on the stick. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "safecp/tool.h"
#include "base/test_hook.h"

#define TICK_MS 100

struct runner {
	struct events *ev[SAFECP_DESTINATIONS_MAX];
	bool ended[SAFECP_DESTINATIONS_MAX]; /* its last event came */
	size_t n, n_ended;
	struct safecp_copy *job;
};

static void signals_block(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Destination i's result: 0, a count of failed files, -ECANCELED,
 * -errno; -EBUSY while it runs. */
static int result_of(const struct runner *r, size_t i)
{
	return safecp_copy_result(r->job, i);
}

/* Destination i ended: shown at once (several destinations). */
static void dest_ended(struct runner *r, size_t i)
{
	if (r->ended[i])
		return;
	r->ended[i] = true;
	r->n_ended++;
	if (r->n > 1)
		events_dest_finished(r->ev[i], result_of(r, i));
}

/* Word every event that waits. */
static void drain_events(struct runner *r)
{
	struct safecp_copy_event e;
	struct safecp_event_detail x;

	while (safecp_copy_poll(r->job, 0, &e) > 0) {
		if (e.dest >= r->n || safecp_copy_event_detail(r->job, &x, sizeof(x)) < 0)
			continue;
		events_handle(r->ev[e.dest], &e, &x);
		if (e.kind == SAFECP_EVENT_DEST_END)
			dest_ended(r, e.dest);
	}
}

static void source_figures(const struct runner *r, struct safecp_source_figures *src)
{
	if (safecp_copy_source_figures(r->job, src, sizeof(*src)) < 0)
		*src = (struct safecp_source_figures){ 0 };
}

/* Files of destination i that read back different. */
static uint64_t mismatched(const struct runner *r, size_t i)
{
	struct safecp_copy_figures f;

	return safecp_copy_figures(r->job, i, &f, sizeof(f)) == 0 ? f.files_mismatched : 0;
}

/* Until every destination's last event: word events as they come,
 * redraw each tick, cancel on the first interrupting signal.  Returns
 * that signal, or 0. */
static int wait_for_copy(struct runner *r, int sigfd)
{
	struct pollfd fds[2] = { { .fd = safecp_copy_fd(r->job), .events = POLLIN },
				 { .fd = sigfd, .events = POLLIN } };
	int signo = 0;

	while (r->n_ended < r->n && !safecp_copy_done(r->job)) {
		struct signalfd_siginfo si;

		/* a poll that fails (EINTR, ENOMEM) is a tick: the loop ends
		 * only when the job did */
		if (poll(fds, 2, TICK_MS) < 0)
			fds[0].revents = fds[1].revents = 0;
		if (fds[1].revents && read(sigfd, &si, sizeof(si)) == sizeof(si) && signo == 0) {
			signo = (int)si.ssi_signo;
			safecp_copy_cancel(r->job);
			events_cancelling(r->ev[0]);
		}
		drain_events(r);
		if (r->n > 1) {
			struct safecp_source_figures src;

			source_figures(r, &src);
			events_source(r->ev[0], &src);
		}
		events_tick(r->ev[0]);
	}
	/* every thread ended: their events are in (a last one that found
	 * no memory is the only one that can be missing) */
	drain_events(r);
	for (size_t i = 0; i < r->n; i++)
		dest_ended(r, i);
	return signo;
}

/* One destination: its result as the documented exit status, with its
 * last words. */
static int finish_one(struct events *ev, int result, int signo)
{
	if (result == -ECANCELED) {
		events_interrupted(ev, signo ? signo : SIGINT);
		return EXIT_INTERRUPTED;
	}
	if (result < 0) {
		events_stopped(ev, -result);
		return EXIT_PARTIAL;
	}
	/* a signal that came too late to stop anything: all is copied */
	events_done(ev, result);
	return result > 0 ? EXIT_PARTIAL : EXIT_OK;
}

/* Several: interrupted wins, then any destination that failed. */
static int finish_all(struct runner *r, int signo)
{
	struct safecp_source_figures src;
	bool cancelled = false, failed = false;

	for (size_t i = 0; i < r->n; i++) {
		int result = result_of(r, i);

		cancelled = cancelled || result == -ECANCELED;
		failed = failed || (result != 0 && result != -ECANCELED);
	}
	source_figures(r, &src);
	events_job_done(r->ev[0], &src, cancelled ? (signo ? signo : SIGINT) : 0);
	return cancelled ? EXIT_INTERRUPTED : failed ? EXIT_PARTIAL : EXIT_OK;
}

/* --unmount: the destinations whose copy succeeded, every file confirmed;
 * the copy's own failure outranks the unmount's. */
static int unmount_after(const struct safecp_options *o, struct runner *r, int status)
{
	bool ok[SAFECP_DESTINATIONS_MAX];
	int s;

	for (size_t i = 0; i < r->n; i++)
		ok[i] = result_of(r, i) == 0 && mismatched(r, i) == 0;
	s = unmount_dests(o, r->n, ok);
	return status != EXIT_OK && s != EXIT_INTERRUPTED ? status : s;
}

static void runner_free(struct runner *r)
{
	for (size_t i = r->n; i-- > 0;)
		events_free(r->ev[i]);
}

/* The copy could not start: nothing was written. */
static void say_not_started(const struct safecp_options *o, int err)
{
	if (o->pack)
		cli_error("cannot start packing as %s: %s; nothing was written; free memory "
			  "and pack again", o->pack_format, strerror(-err));
	else
		cli_error("cannot start the copy: %s", strerror(-err));
}

int run_copy(const struct safecp_options *o, size_t n)
{
	struct runner r = { .n = n, .job = o->copy };
	struct safecp_copy_plan first;
	unsigned lists_failed = 0;
	sigset_t set;
	int err = 0, status, signo, sigfd;

	signals_block(&set);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sigfd < 0)
		err = -errno;
	/* the figures can be read once it started */
	for (size_t i = 0; i < n && err == 0; i++)
		err = events_new(o, i, i ? r.ev[0] : NULL, &r.ev[i]);
	for (size_t i = 0; i < n && err == 0; i++) {
		if (n > 1)
			events_tag_dest(r.ev[i]);
		events_start(r.ev[i]);
	}
	if (safecp_copy_plan(o->copy, 0, &first, sizeof(first)) == 0)
		test_hook("plan-done", first.dest_root);
	if (err == 0)
		err = safecp_copy_start(r.job);
	if (err < 0) {
		say_not_started(o, err);
		runner_free(&r);
		if (sigfd >= 0)
			close(sigfd);
		return EXIT_PARTIAL;
	}
	for (size_t i = 0; i < n; i++)
		events_started(r.ev[i]);
	signo = wait_for_copy(&r, sigfd);
	close(sigfd);
	/* the lists on no destination's filesystem, before the last event */
	if (signo == 0 && (o->n_checksums || o->mhl)) {
		lists_failed = safecp_copy_write_lists(r.job);
		drain_events(&r);
	}
	if (n == 1) {
		struct safecp_source_figures src;

		source_figures(&r, &src);
		events_source(r.ev[0], &src); /* for the done event */
		status = finish_one(r.ev[0], result_of(&r, 0), signo);
	} else {
		status = finish_all(&r, signo);
	}
	if (status == EXIT_OK && lists_failed)
		status = EXIT_PARTIAL;
	/* a file that read back different outranks other failures */
	for (size_t i = 0; (status == EXIT_OK || status == EXIT_PARTIAL) && i < n; i++)
		if (mismatched(&r, i) > 0)
			status = EXIT_MISMATCH;
	if ((o->unmount || o->power_off) && status != EXIT_INTERRUPTED)
		status = unmount_after(o, &r, status);
	runner_free(&r);
	return status;
}
