/* copy_job.c: one reader, one engine thread per destination; the
 * reader's sizes suit every destination (sizing_reader_plan()). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "copy/reader.h"
#include "base/cleanup.h"
#include "util/debug.h"
#include "util/thread_signals.h"

struct dest_run {
	struct copy_job *job;
	size_t i;
	pthread_t thread;
	bool started;
	struct copy_stats stats;
	bool *published;  /* per plan entry: under its name here now */
	int result;
	atomic_bool finished;
};

struct copy_job {
	const struct copy_dest *dests;
	size_t n;
	struct copy_job_hooks hooks;
	atomic_bool cancel;
	struct reader *reader;
	struct write_plan rplan;
	struct dest_run *runs;
	struct event_queue *events;
	/* what the lists see of the destinations (lists.h) */
	const struct plan *plans[COPY_DESTS_MAX];
	const bool *published[COPY_DESTS_MAX];
	struct copy_lists_dests lists_dests;
};

static void *dest_thread(void *arg)
{
	struct dest_run *dr = arg;
	struct copy_job *j = dr->job;
	const struct copy_dest *d = &j->dests[dr->i];

	dr->result = copy_engine_run(d->plan, &d->opts, &(struct engine_job){
		.dest = dr->i,
		.events = j->events,
		.published = dr->published,
		.lists = j->hooks.lists,
		.lists_dests = &j->lists_dests,
		.stats = &dr->stats,
		.cancel = &j->cancel,
		.cursor = reader_cursor(j->reader, (unsigned)dr->i),
		.digests = j->hooks.digests,
	});
	atomic_store(&dr->finished, true);
	copy_events_emit(j->events, &(struct copy_event){ .kind = COPY_EVENT_DEST_END,
							  .dest = dr->i });
	return NULL;
}

int copy_job_start(const struct copy_dest *dests, size_t n, const struct copy_job_hooks *hooks,
		   struct copy_job **ret)
{
	const struct plan *plans[COPY_DESTS_MAX];
	const struct write_plan *wplans[COPY_DESTS_MAX];
	struct copy_job *j;
	sigset_t old;
	bool verify = false, verify_source = false, punch = false;
	int r;

	if (n == 0 || n > COPY_DESTS_MAX)
		return -EINVAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->dests = dests;
	j->n = n;
	if (hooks)
		j->hooks = *hooks;
	j->runs = calloc(n, sizeof(*j->runs));
	r = j->runs ? event_queue_new(sizeof(struct copy_event), &j->events) : -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++) {
		j->runs[i].published = calloc(dests[i].plan->n_entries + 1, sizeof(bool));
		if (!j->runs[i].published)
			r = -ENOMEM;
		j->plans[i] = dests[i].plan;
		j->published[i] = j->runs[i].published;
	}
	j->lists_dests = (struct copy_lists_dests){ j->plans, j->published, n };
	for (size_t i = 0; i < n; i++) {
		plans[i] = dests[i].plan;
		wplans[i] = dests[i].opts.wplan;
		verify = verify || dests[i].opts.verify;
		verify_source = verify_source || dests[i].opts.verify_source;
		/* --sparse=always looks for zeros in the bytes: none lent */
		punch = punch || (plans[i]->holes && plans[i]->opts.sparse == SPARSE_ALWAYS);
	}
	if (r == 0)
		r = sizing_reader_plan(wplans, n, &j->rplan);
	/* one reader serves every destination: entry i must be one source */
	for (size_t i = 1; r == 0 && i < n; i++)
		if (plans[i]->tree != plans[0]->tree)
			r = -EINVAL;
	/* the reader's thread and the destinations' take no signal */
	thread_signals_block(&old);
	if (r == 0)
		r = reader_start(&(struct reader_opts){ .plans = plans, .n = (unsigned)n,
							.wp = &j->rplan, .feed = j->hooks.feed,
							.tap = j->hooks.tap, .bytes_seen = verify || punch,
							.verify_source = verify_source,
							.starts = j->hooks.starts,
							.n_starts = j->hooks.n_starts,
							.cancel = &j->cancel },
				 &j->reader);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct dest_run *dr = &j->runs[i];

		dr->job = j;
		dr->i = i;
		r = -pthread_create(&dr->thread, NULL, dest_thread, dr);
		dr->started = r == 0;
	}
	thread_signals_restore(&old);
	if (r < 0) {
		copy_job_free(j);
		return r;
	}
	DEBUG(DEBUG_COPY, "job: %zu destinations, reader chunk %llu, %u slots", n,
	      (unsigned long long)j->rplan.chunk, j->rplan.ring_slots);
	*ret = j;
	return 0;
}

int copy_job_event_fd(const struct copy_job *j)
{
	return event_queue_fd(j->events);
}

int copy_job_poll(struct copy_job *j, int timeout_ms, struct copy_event *ret)
{
	return event_queue_pop(j->events, timeout_ms, ret);
}

static void event_done(void *ev)
{
	copy_event_done(ev);
}

unsigned copy_job_write_lists(struct copy_job *j)
{
	return copy_lists_write(j->hooks.lists, &j->lists_dests, -1, -1, j->events);
}

const struct copy_stats *copy_job_stats(const struct copy_job *j, size_t i)
{
	return &j->runs[i].stats;
}

bool copy_job_finished(const struct copy_job *j, size_t i, int *result)
{
	if (!atomic_load(&j->runs[i].finished))
		return false;
	if (result)
		*result = j->runs[i].result;
	return true;
}

bool copy_job_done(const struct copy_job *j)
{
	for (size_t i = 0; i < j->n; i++)
		if (!atomic_load(&j->runs[i].finished))
			return false;
	return true;
}

void copy_job_cancel(struct copy_job *j)
{
	atomic_store(&j->cancel, true);
}

void copy_job_source(const struct copy_job *j, struct copy_source_stats *ret)
{
	struct reader_stats rs = { 0 };

	if (j->reader)
		reader_stats(j->reader, &rs);
	*ret = (struct copy_source_stats){ rs.bytes_read, rs.bytes_reread, rs.detached,
					   rs.mismatches };
}

void copy_job_free(struct copy_job *j)
{
	if (!j)
		return;
	for (size_t i = 0; j->runs && i < j->n; i++)
		if (j->runs[i].started && !atomic_load(&j->runs[i].finished))
			atomic_store(&j->cancel, true);
	for (size_t i = 0; j->runs && i < j->n; i++)
		if (j->runs[i].started)
			pthread_join(j->runs[i].thread, NULL);
	reader_free(j->reader);
	for (size_t i = 0; j->runs && i < j->n; i++)
		free(j->runs[i].published);
	event_queue_free(j->events, event_done);
	free(j->runs);
	free(j);
}
