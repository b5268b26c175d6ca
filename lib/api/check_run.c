/* check_run.c: <safecp/check.h> from start to free, over the check job
 * (copy/check.h): its wake-ups as the public events, its counters as the
 * public figures. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "api/check_internal.h"

/* The public outcomes, each with the job's result it names. */
static const enum check_result results[] = {
	[SAFECP_CHECK_MATCH] = CHECK_MATCH,
	[SAFECP_CHECK_DIFFERS] = CHECK_DIFFERS,
	[SAFECP_CHECK_SIZE_DIFFERS] = CHECK_SIZE_DIFFERS,
	[SAFECP_CHECK_FAILED_BEFORE] = CHECK_FAILED_BEFORE,
	[SAFECP_CHECK_MISSING] = CHECK_MISSING,
	[SAFECP_CHECK_SYMLINK] = CHECK_SYMLINK,
	[SAFECP_CHECK_OUTSIDE] = CHECK_OUTSIDE,
	[SAFECP_CHECK_NOT_REGULAR] = CHECK_NOT_REGULAR,
	[SAFECP_CHECK_UNREADABLE] = CHECK_UNREADABLE,
};
#define N_OUTCOMES (sizeof(results) / sizeof(*results))

static enum safecp_check_outcome outcome_of(enum check_result r)
{
	for (size_t o = 0; o < N_OUTCOMES; o++)
		if (results[o] == r)
			return (enum safecp_check_outcome)o;
	return SAFECP_CHECK_UNREADABLE; /* never: every result has its outcome */
}

int safecp_check_start(struct safecp_check *c)
{
	int r;

	if (!c->prepared || !c->p.t || c->p.refusal.kind != CHECK_READY)
		return -EINVAL;
	if (c->job)
		return -EBUSY;
	if (atomic_load(&c->cancelled))
		return -ECANCELED;
	r = check_job_start(c->dir, c->p.t, &c->p.list, &c->job);
	if (r == 0 && atomic_load(&c->cancelled))
		check_job_cancel(c->job); /* a cancel that came while it started */
	return r;
}

int safecp_check_fd(const struct safecp_check *c)
{
	return c->job ? check_job_fd(c->job) : -1;
}

const char *safecp_check_outcome_name(enum safecp_check_outcome o)
{
	return (unsigned)o < N_OUTCOMES ? check_result_name(results[o]) : NULL;
}

const char *safecp_read_back_name(enum safecp_read_back how)
{
	static const char *const names[] = {
		[SAFECP_READ_BACK_DIRECT] = "direct",
		[SAFECP_READ_BACK_DROPPED] = "dropped",
		[SAFECP_READ_BACK_DEVICE_DROPPED] = "device-dropped",
		[SAFECP_READ_BACK_CACHED] = "cached",
	};

	return (unsigned)how < sizeof(names) / sizeof(*names) ? names[how] : NULL;
}

static enum safecp_read_back read_back_of(enum readback_how h)
{
	switch (h) {
	case READBACK_DIRECT: return SAFECP_READ_BACK_DIRECT;
	case READBACK_DROPPED: return SAFECP_READ_BACK_DROPPED;
	case READBACK_DEVICE_DROPPED: return SAFECP_READ_BACK_DEVICE_DROPPED;
	case READBACK_CACHED: break;
	}
	return SAFECP_READ_BACK_CACHED;
}

/* The job's bits of enum readback_how as the public ones. */
static unsigned read_back_bits(unsigned hows)
{
	unsigned bits = 0;

	for (int h = READBACK_DIRECT; h <= READBACK_CACHED; h++)
		if (hows & (1u << h))
			bits |= 1u << read_back_of(h);
	return bits;
}

static void file_event(const struct safecp_check *c, size_t i, struct safecp_check_event *ret)
{
	const struct check_entry *e = &c->p.list.entries[i];
	const struct check_outcome *o = check_job_outcome(c->job, i);

	*ret = (struct safecp_check_event){
		.kind = SAFECP_CHECK_EVENT_FILE,
		.index = i,
		.path = e->path,
		.outcome = outcome_of(o->result),
		.outcome_name = check_result_name(o->result),
		.algorithm = checksum_alg_name(e->alg),
		.size = o->size,
		.listed_size = e->has_size ? e->size : UINT64_MAX,
		.err = o->err,
		.read = o->read,
		.how = o->read ? read_back_of(o->how) : SAFECP_READ_BACK_DIRECT,
	};
}

int safecp_check_poll(struct safecp_check *c, int timeout_ms, struct safecp_check_event *ret)
{
	struct check_event e;
	int r;

	if (!c->job)
		return 0;
	r = check_job_poll(c->job, timeout_ms, &e);
	if (r <= 0)
		return r;
	if (e.end)
		*ret = (struct safecp_check_event){ .kind = SAFECP_CHECK_EVENT_END };
	else
		file_event(c, e.index, ret);
	return 1;
}

int safecp_check_progress(const struct safecp_check *c, struct safecp_check_progress *ret)
{
	const struct check_stats *st;
	size_t cur;

	if (!c->job)
		return -ENOENT;
	st = check_job_stats(c->job);
	cur = atomic_load(&st->current);
	*ret = (struct safecp_check_progress){
		.files_total = atomic_load(&st->files_total),
		.files_done = atomic_load(&st->files_done),
		.bytes_total = atomic_load(&st->bytes_total),
		.bytes_done = atomic_load(&st->bytes_done),
		.bytes_read = atomic_load(&st->bytes_read),
		.sized = atomic_load(&st->sized),
		.file = cur < c->p.list.n ? c->p.list.entries[cur].path : NULL,
		.read_back = read_back_bits(atomic_load(&st->hows)),
	};
	return 0;
}

uint64_t safecp_check_count(const struct safecp_check *c, enum safecp_check_outcome o)
{
	if (!c->job || (unsigned)o >= N_OUTCOMES)
		return 0;
	return atomic_load(&check_job_stats(c->job)->count[results[o]]);
}

int safecp_check_done(const struct safecp_check *c)
{
	return c->job && check_job_done(c->job, NULL);
}

int safecp_check_result(const struct safecp_check *c)
{
	const struct check_stats *st;
	uint64_t bad = 0;
	int result;

	if (!c->job)
		return -ENOENT;
	if (!check_job_done(c->job, &result))
		return -EBUSY;
	if (result < 0)
		return result;
	st = check_job_stats(c->job);
	for (int r = 0; r < CHECK_RESULT_COUNT; r++)
		if (r != CHECK_MATCH)
			bad += atomic_load(&st->count[r]);
	return bad > INT_MAX ? INT_MAX : (int)bad;
}

void safecp_check_cancel(struct safecp_check *c)
{
	atomic_store(&c->cancelled, true);
	if (c->job)
		check_job_cancel(c->job);
}

void safecp_check_free(struct safecp_check *c)
{
	if (!c)
		return;
	check_job_free(c->job);
	check_prepared_free(&c->p);
	free(c->dir);
	free(c->sums);
	free(c);
}
