/* safecp_snapshot.c: one reading of a destination's progress, shared by
 * the bar, JSON and the last words: the copy job's counters (copy_stats),
 * the rate and ETA, and the other data its device has to write first.
 *
 * Honesty of the numbers: bytes_on_device is copy_stats.bytes_confirmed,
 * which the engine advances only when the device completed those bytes.
 * The counters are read before the clock, so a progress event never
 * claims, at its time "t", more than the device had completed by then. */
#include <stdatomic.h>
#include <stdio.h>

#include <safecp/dirty.h>

#include "common/format.h"
#include "safecp/events_private.h"
#include "base/clock.h"
#include "base/size.h"

/* Other data ahead of ours on the destination's device: its dirty and
 * writeback bytes (debugfs bdi stats; the estimate is system-wide and
 * would name other devices' data) less our own bytes written and not yet
 * confirmed, which hold all of ours still dirty, so the figure is a lower
 * bound.  Read every half second; the device's write rate is its sector
 * counter over the meter's window. */
#define WAIT_READ_EVERY 0.5
#define WAIT_MIN_BYTES (1024 * 1024)

static void device_wait_sample(struct device_wait *w, const struct safecp_target_facts *t, uint64_t ours)
{
	struct safecp_dirty_figures d;
	double now = clock_monotonic();
	uint64_t pending;

	if (!w->started) {
		progress_rate_init(&w->dev_rate, 0);
		w->rate = -1;
		w->started = true;
	}
	if (!t || !t->block || !t->bdi[0] || now < w->next)
		return;
	w->next = now + WAIT_READ_EVERY;
	if (safecp_dirty_device_read(t->bdi, t->disk, &d, sizeof(d)) < 0)
		return;
	if (d.has_block_stat)
		w->rate = progress_rate_sample(&w->dev_rate, now, d.bytes_written);
	pending = d.dirty + d.writeback;
	w->other = d.source == SAFECP_DIRTY_DEBUGFS && pending > ours ? pending - ours : 0;
}

bool device_wait_words(const struct device_wait *w, const struct safecp_target_facts *t,
		       char *buf, size_t size)
{
	char sz[SIZE_FORMAT_MAX], r[FORMAT_RATE_MAX], e[FORMAT_DURATION_MAX];

	if (w->other < WAIT_MIN_BYTES)
		return false;
	size_format(sz, sizeof(sz), w->other);
	if (w->rate > 0)
		snprintf(buf, size, "for %s of other data on %s ahead of ours (%s, %s)", sz,
			 t->device, format_rate(r, sizeof(r), w->rate),
			 format_duration(e, sizeof(e), (double)w->other / w->rate));
	else
		snprintf(buf, size, "for %s of other data on %s ahead of ours", sz,
			 t->device);
	return true;
}

void snapshot_take(struct events *ev, struct snapshot *s)
{
	const struct copy_stats *st = ev->stats;
	const struct plan *p = ev->job->plan;
	size_t cur;

	if (!st) { /* not started */
		*s = (struct snapshot){ .total = p->total_bytes, .rate = -1, .eta = -1,
					.identical = p->n_identical, .t_real = clock_realtime() };
		return;
	}

	s->identical = p->n_identical;
	s->confirmed = atomic_load(&st->bytes_confirmed);
	/* written >= confirmed at every instant; reading it second keeps that */
	s->written = atomic_load(&st->bytes_written);
	s->total = atomic_load(&st->bytes_total);
	if (s->total == 0)
		s->total = p->total_bytes;
	s->files_done = atomic_load(&st->files_done);
	s->files_failed = atomic_load(&st->files_failed);
	s->phase = atomic_load(&st->phase);
	cur = atomic_load(&st->current);
	s->file = s->phase == COPY_PHASE_COPYING && cur < p->n_entries ?
		  p->entries[cur].source->rel : NULL;
	s->verify = ev->o->verify;
	s->verified = atomic_load(&st->bytes_verified);
	s->files_verified = atomic_load(&st->files_verified);
	s->files_mismatched = atomic_load(&st->files_mismatched);
	s->identical_verified = identical_read_back_count(ev->o, ev->d, &s->verify_cached);
	s->verify_cached = s->verify_cached || atomic_load(&st->verify_cached);
	s->pack = ev->o->pack;
	if (ev->o->pack)
		copy_session_packed(ev->o->session, &s->packed, &s->pack_total);
	s->device_idle = atomic_load(&st->device_idle);
	s->device_busy = atomic_load(&st->device_busy_bytes);
	s->t_real = clock_realtime();
	s->rate = progress_rate_sample(&ev->rate, clock_monotonic(), s->confirmed);
	device_wait_sample(&ev->wait, ev->facts, s->written - s->confirmed);
	/* confirmed bytes come in batches, so their rate over the window can
	 * exceed what the device wrote in it: the device's own is a bound */
	if (s->rate >= 0 && ev->wait.rate >= 0 && s->rate > ev->wait.rate)
		s->rate = ev->wait.rate;
	s->eta = progress_eta(s->total > s->confirmed ? s->total - s->confirmed : 0, s->rate);
}
