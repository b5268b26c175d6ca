/* safecp_run.c: runs a prepared job: copy_job_start() (lib owns the
 * reader and one thread per destination), while the main thread polls
 * the counters, draws progress and answers signals.
 *
 * SIGINT, SIGTERM and SIGHUP are blocked before the job starts, so its
 * threads inherit the mask and no handler ever runs inside the engine.
 * The main thread takes them synchronously with sigtimedwait() on a
 * 100 ms tick: a tick redraws (the meter throttles), a signal sets the
 * cancel flag the engine polls between chunks.  The engine then removes
 * its temporary files and returns -ECANCELED; only then do we exit, so
 * an interrupted safecp never leaves a partial file under a final name.
 * Each destination's thread ends by having SIGUSR1 sent to the main
 * thread (the job's finished hook), so its end is shown at once rather
 * than on the next tick.  SIGPIPE is ignored:
 * when the reader of --progress=json goes away, the copy goes on and
 * cleans up as usual instead of dying with temporaries on the stick. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "safecp/tool.h"
#include "util/test_hook.h"

#define TICK_NS (100 * 1000 * 1000)
#define SIGNAL_WAKE SIGUSR1

struct runner;

/* What a destination's thread writes after its files (the epilogue). */
struct dest_end {
	struct runner *r;
	size_t i;
};

struct runner {
	struct copy_dest dests[COPY_DESTS_MAX];
	struct dest_end ends[COPY_DESTS_MAX];
	struct sums *sums;
	struct manifests *mhl;
	struct copy_callbacks cb[COPY_DESTS_MAX];
	struct events *ev[COPY_DESTS_MAX];
	bool shown[COPY_DESTS_MAX]; /* its end was shown */
	size_t n;
	struct copy_job *job;
	pthread_t main_thread;
};

static unsigned on_epilogue(void *ctx, int dest_dir_fd)
{
	struct dest_end *de = ctx;
	struct runner *r = de->r;

	return sums_write_dest(r->sums, de->i) +
	       manifests_write(r->mhl, de->i, dest_dir_fd, sums_digests(r->sums), r->ev[de->i]);
}

/* A destination's thread ended: show it now, not on the next tick. */
static void on_finished(void *ctx, size_t dest)
{
	struct runner *r = ctx;

	(void)dest;
	pthread_kill(r->main_thread, SIGNAL_WAKE);
}

static void signals_block(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGNAL_WAKE);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Several destinations: each one's end as soon as it comes. */
static void show_finished(struct runner *r)
{
	for (size_t i = 0; r->n > 1 && i < r->n; i++) {
		int result;

		if (!r->shown[i] && copy_job_finished(r->job, i, &result)) {
			r->shown[i] = true;
			events_dest_finished(r->ev[i], result);
		}
	}
}

/* Until every destination ends: redraw each tick, cancel on the first
 * interrupting signal.  Returns that signal, or 0. */
static int wait_for_copy(struct runner *r, const sigset_t *set)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = TICK_NS };
	int signo = 0;

	while (!copy_job_done(r->job)) {
		int sig = sigtimedwait(set, NULL, &tick);

		if (sig > 0 && sig != SIGNAL_WAKE && signo == 0) {
			signo = sig;
			copy_job_cancel(r->job);
			events_cancelling(r->ev[0]);
		}
		show_finished(r);
		if (r->n > 1) {
			struct copy_source_stats src;

			copy_job_source(r->job, &src);
			events_source(r->ev[0], &src);
		}
		events_tick(r->ev[0]);
	}
	show_finished(r);
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
	struct copy_source_stats src;
	bool cancelled = false, failed = false;

	for (size_t i = 0; i < r->n; i++) {
		int result = 0;

		copy_job_finished(r->job, i, &result);
		cancelled = cancelled || result == -ECANCELED;
		failed = failed || (result != 0 && result != -ECANCELED);
	}
	copy_job_source(r->job, &src);
	events_job_done(r->ev[0], &src, cancelled ? (signo ? signo : SIGINT) : 0);
	return cancelled ? EXIT_INTERRUPTED : failed ? EXIT_PARTIAL : EXIT_OK;
}

/* --unmount: the destinations whose copy succeeded, every file confirmed;
 * the copy's own failure outranks the unmount's. */
static int unmount_after(const struct safecp_options *o, const struct safecp_job *jobs,
			 struct runner *r, int status)
{
	bool ok[COPY_DESTS_MAX];
	int s;

	for (size_t i = 0; i < r->n; i++) {
		int result = 0;

		ok[i] = copy_job_finished(r->job, i, &result) && result == 0 &&
			atomic_load(&copy_job_stats(r->job, i)->files_mismatched) == 0;
	}
	s = unmount_dests(o, jobs, r->n, ok);
	return status != EXIT_OK && s != EXIT_INTERRUPTED ? status : s;
}

static void runner_free(struct runner *r)
{
	copy_job_free(r->job);
	for (size_t i = r->n; i-- > 0;)
		events_free(r->ev[i]);
}

int run_copy(const struct safecp_options *o, struct safecp_job *jobs, size_t n,
	     struct sums *sums, struct manifests *mhl)
{
	struct runner r = { .n = n, .main_thread = pthread_self(), .sums = sums, .mhl = mhl };
	struct copy_job_hooks hooks = { .ctx = &r, .finished = on_finished, .tap = sums_tap(sums),
					.feed = o->pack_feed ? pack_feed_source(o->pack_feed) : unpack_feed() };
	unsigned lists_failed = 0;
	sigset_t set;
	int err = 0, status, signo, result = 0;

	/* the stats live in the job; the events read them once it exists */
	for (size_t i = 0; i < n; i++) {
		r.dests[i] = (struct copy_dest){
			.plan = jobs[i].plan,
			.opts = {
				.wplan = &jobs[i].wplan,
				.target = jobs[i].target,
				.keep_times = o->keep_times,
				.keep_mode = o->keep_mode,
				.verify = o->verify,
				.verify_source = o->verify_source,
			},
			.cb = &r.cb[i],
		};
		r.ends[i] = (struct dest_end){ &r, i };
		if (sums || mhl) {
			r.dests[i].opts.epilogue = on_epilogue;
			r.dests[i].opts.epilogue_ctx = &r.ends[i];
		}
	}
	signals_block(&set);
	for (size_t i = 0; i < n && err == 0; i++)
		err = events_new(o, &jobs[i], NULL, i ? r.ev[0] : NULL, &r.ev[i]);
	for (size_t i = 0; i < n && err == 0; i++) {
		events_callbacks(r.ev[i], &r.cb[i]);
		if (n > 1)
			events_tag_dest(r.ev[i]);
		events_start(r.ev[i]);
	}
	sums_set_events(sums, r.ev);
	test_hook("plan-done", jobs[0].plan->dest_root);
	if (err == 0)
		err = copy_job_start(r.dests, n, &hooks, &r.job);
	if (err < 0) {
		cli_error("cannot start the copy: %s", strerror(-err));
		runner_free(&r);
		return EXIT_PARTIAL;
	}
	for (size_t i = 0; i < n; i++)
		events_set_stats(r.ev[i], copy_job_stats(r.job, i));
	signo = wait_for_copy(&r, &set);
	/* the lists on no destination's filesystem, before the last event */
	if (signo == 0)
		lists_failed = sums_finish(sums);
	if (n == 1) {
		struct copy_source_stats src;

		copy_job_source(r.job, &src);
		events_source(r.ev[0], &src); /* for the done event */
		copy_job_finished(r.job, 0, &result);
		status = finish_one(r.ev[0], result, signo);
	} else {
		status = finish_all(&r, signo);
	}
	if (status == EXIT_OK && lists_failed)
		status = EXIT_PARTIAL;
	/* a file that read back different outranks other failures */
	for (size_t i = 0; (status == EXIT_OK || status == EXIT_PARTIAL) && i < n; i++)
		if (atomic_load(&copy_job_stats(r.job, i)->files_mismatched) > 0)
			status = EXIT_MISMATCH;
	if ((o->unmount || o->power_off) && status != EXIT_INTERRUPTED)
		status = unmount_after(o, jobs, &r, status);
	runner_free(&r);
	return status;
}
