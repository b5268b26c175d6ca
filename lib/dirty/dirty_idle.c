/* dirty_idle.c: the idle rule of dirty_idle.h, on readings only (no I/O).
 *
 * Why the rule without debugfs is sound, given that our sync returned:
 * - every page under writeback, any device's, is in the global
 *   NR_WRITEBACK (meminfo Writeback; FUSE's temporary pages before 6.16
 *   in WritebackTmp) from __folio_start_writeback until the device
 *   completed it (folio_end_writeback): 0 means no page of this device is
 *   on its way, including bios blk-throttle or the scheduler still holds,
 *   which inflight does not count (doc/kernel.md 4.3);
 * - inflight "0 0": no request is with the driver now;
 * - the sector counter, counted on completion, not moving over the run:
 *   nothing that bypasses the page cache (O_DIRECT, journal and metadata
 *   buffers) completed in it either.
 * What none of it rules out is someone else's data still dirty for this
 * device and not yet started (meminfo Dirty cannot be split per device):
 * not ours, and the same as a write that starts just after we looked. */
#include "dirty/dirty_idle.h"

void idle_reading_from(const struct dirty_device *d, double t, struct idle_reading *ret)
{
	bool exact = d->source == DIRTY_SOURCE_DEBUGFS;

	*ret = (struct idle_reading){
		.t = t,
		.exact = exact,
		.pending = exact ? dirty_device_pending(d) : d->writeback,
		.has_block_stat = d->has_block_stat,
		.sectors_written = d->sectors_written,
		.inflight_reads = d->inflight_reads,
		.inflight_writes = d->inflight_writes,
	};
}

void idle_watch_init(struct idle_watch *w, uint64_t slack)
{
	*w = (struct idle_watch){ .slack = slack };
}

static bool quiet_now(const struct idle_reading *r)
{
	return r->has_block_stat && r->pending == 0 && r->inflight_reads == 0 &&
	       r->inflight_writes == 0;
}

bool idle_watch_add(struct idle_watch *w, const struct idle_reading *r)
{
	if (r->exact)
		return r->pending <= w->slack && r->inflight_writes == 0;
	if (!quiet_now(r)) {
		w->quiet = false;
		return false;
	}
	/* a write completed since the run began: a new run starts here */
	if (!w->quiet || r->sectors_written != w->since.sectors_written || r->t < w->since.t) {
		w->quiet = true;
		w->since = *r;
		w->n = 1;
		return false;
	}
	w->n++;
	/* a millisecond of grace: 0.3 s of readings 0.1 s apart is a window,
	 * whatever the doubles' rounding makes of 10.6 - 10.3 */
	return w->n >= IDLE_QUIET_READINGS && r->t - w->since.t >= IDLE_QUIET_SECONDS - 0.001;
}
