/* safecp_snapshot.c: one reading of a destination's progress, shared by
 * the bar, JSON and the last words: the copy's figures (<safecp/copy.h>),
 * the rate and ETA, and the other data its device has to write first.
 *
 * Honesty of the numbers: bytes_on_device is the progress's bytes_confirmed,
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

static void device_wait_sample(struct device_wait *w, const struct safecp_target_facts *t,
			       uint64_t ours)
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
	const struct safecp_copy_plan *p = &ev->plan;
	struct safecp_copy_progress pr;
	struct safecp_copy_figures f;
	struct safecp_source_figures src;
	struct safecp_entry cur;

	if (!ev->started || safecp_copy_progress(ev->o->copy, ev->d, &pr) < 0 ||
	    safecp_copy_figures(ev->o->copy, ev->d, &f, sizeof(f)) < 0) { /* not started */
		*s = (struct snapshot){ .total = p->bytes, .rate = -1, .eta = -1,
					.identical = p->identical, .t_real = clock_realtime() };
		return;
	}
	s->identical = p->identical;
	/* the library reads confirmed before written: written >= confirmed */
	s->confirmed = pr.bytes_confirmed;
	s->written = pr.bytes_written;
	s->total = pr.bytes_total ? pr.bytes_total : p->bytes;
	s->files_done = pr.files_done;
	s->files_failed = pr.files_failed;
	s->phase = (int)f.phase;
	s->file = NULL;
	if (f.phase == SAFECP_PHASE_COPYING &&
	    safecp_copy_entry(ev->o->copy, ev->d, f.current, &cur, sizeof(cur)) == 0) {
		snprintf(ev->snap_file, sizeof(ev->snap_file), "%s", cur.rel);
		s->file = ev->snap_file;
	}
	s->verify = ev->o->verify;
	s->verified = f.bytes_verified;
	s->files_verified = f.files_verified;
	s->files_mismatched = f.files_mismatched;
	s->identical_verified = ev->identical_verified;
	s->verify_cached = ev->identical_cached || f.verify_cached;
	s->pack = ev->o->pack;
	if (ev->o->pack && safecp_copy_source_figures(ev->o->copy, &src, sizeof(src)) == 0) {
		s->packed = src.packed;
		s->pack_total = src.pack_total;
	}
	s->device_idle = f.device_idle;
	s->device_busy = f.device_busy;
	s->resumed = f.bytes_resumed;
	s->t_real = clock_realtime();
	s->rate = progress_rate_sample(&ev->rate, clock_monotonic(), s->confirmed);
	device_wait_sample(&ev->wait, ev->facts, s->written - s->confirmed);
	/* confirmed bytes come in batches, so their rate over the window can
	 * exceed what the device wrote in it: the device's own is a bound */
	if (s->rate >= 0 && ev->wait.rate >= 0 && s->rate > ev->wait.rate)
		s->rate = ev->wait.rate;
	s->eta = progress_eta(s->total > s->confirmed ? s->total - s->confirmed : 0, s->rate);
}
