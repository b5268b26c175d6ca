/* safecp_run.c: runs a prepared job: copy_run() in a thread of its own,
 * while the main thread draws progress and answers signals.
 *
 * SIGINT, SIGTERM and SIGHUP are blocked before the copy thread starts,
 * so it inherits the mask and no handler ever runs inside the engine.
 * The main thread takes them synchronously with sigtimedwait() on a
 * 100 ms tick: a tick redraws (the meter throttles), a signal sets the
 * cancel flag the engine polls between chunks.  The engine then removes
 * its temporary files and returns -ECANCELED; only then do we exit, so
 * an interrupted safecp never leaves a partial file under a final name.
 * The copy thread ends by sending SIGUSR1 to the main thread, so the end
 * is shown at once rather than on the next tick.  SIGPIPE is ignored:
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
#include "safecp/safecp.h"
#include "util/test_hook.h"

#define TICK_NS (100 * 1000 * 1000)
#define SIGNAL_WAKE SIGUSR1

struct runner {
	const struct plan *plan;
	struct copy_options copts;
	struct copy_callbacks cb;
	struct copy_stats stats;
	atomic_bool cancel;
	atomic_bool finished;
	pthread_t main_thread;
	int result;
};

static void *copy_thread(void *arg)
{
	struct runner *r = arg;

	r->result = copy_run(r->plan, &r->copts, &r->cb, &r->stats, &r->cancel);
	atomic_store(&r->finished, true);
	pthread_kill(r->main_thread, SIGNAL_WAKE);
	return NULL;
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

/* Until the copy thread ends: redraw each tick, cancel on the first
 * interrupting signal.  Returns that signal, or 0. */
static int wait_for_copy(struct runner *r, struct events *ev, const sigset_t *set)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = TICK_NS };
	int signo = 0;

	while (!atomic_load(&r->finished)) {
		int sig = sigtimedwait(set, NULL, &tick);

		if (sig > 0 && sig != SIGNAL_WAKE && signo == 0) {
			signo = sig;
			atomic_store(&r->cancel, true);
			events_warn(ev, "interrupted by SIG%s; removing temporary files",
				    sigabbrev_np(sig));
		}
		events_tick(ev);
	}
	return signo;
}

/* copy_run()'s result as the documented exit status, with its last words. */
static int finish(struct events *ev, int result, int signo)
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

int run_copy(const struct safecp_options *o, const struct safecp_job *job)
{
	struct runner r = {
		.plan = job->plan,
		.copts = {
			.wplan = &job->wplan,
			.target = job->target,
			.keep_times = o->keep_times,
			.keep_mode = o->keep_mode,
			.force = o->force,
		},
		.main_thread = pthread_self(),
	};
	struct events *ev = NULL;
	sigset_t set;
	pthread_t thread;
	int err, status, signo;

	err = events_new(o, job, &r.stats, &ev);
	if (err < 0) {
		cli_error("cannot start the copy: %s", strerror(-err));
		return EXIT_PARTIAL;
	}
	events_callbacks(ev, &r.cb);
	signals_block(&set);
	events_start(ev);
	test_hook("plan-done", job->plan->dest_root);
	err = pthread_create(&thread, NULL, copy_thread, &r);
	if (err) {
		cli_error("cannot start the copy: %s", strerror(err));
		events_free(ev);
		return EXIT_PARTIAL;
	}
	signo = wait_for_copy(&r, ev, &set);
	pthread_join(thread, NULL);
	status = finish(ev, r.result, signo);
	events_free(ev);
	return status;
}
