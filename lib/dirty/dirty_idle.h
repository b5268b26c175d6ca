/* dirty_idle.h: when a device is idle: the rule, on readings, that ends a
 * copy with "the device is idle" (doc/kernel.md 4.1, 4.6).
 *
 * Called after our own data is durable (syncfs and fsync returned), so
 * what is left to see is whether the device has stopped: nothing of
 * anyone's left to write, nothing in flight, nothing being written.
 *
 * With debugfs (root) one reading decides: the bdi's dirty+writeback
 * within the percpu error and no write in flight.  Without it (any user)
 * a quiet run decides: at least IDLE_QUIET_READINGS readings spanning
 * IDLE_QUIET_SECONDS in which the system's Writeback (+WritebackTmp) is
 * 0, inflight is "0 0" and the disk's write-sector counter does not
 * move.  The system's Dirty is left out: it holds other filesystems'
 * data, never ours once our sync returned. */
#ifndef SAFECP_DIRTY_IDLE_H
#define SAFECP_DIRTY_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "dirty/dirty.h"

#define IDLE_QUIET_SECONDS 0.3
#define IDLE_QUIET_READINGS 4

/* What the rule looks at, at one moment. */
struct idle_reading {
	double t;                /* CLOCK_MONOTONIC seconds */
	bool exact;              /* pending is the device's own (debugfs) */
	uint64_t pending;        /* exact: the bdi's dirty+writeback; else the
				  * system's Writeback+WritebackTmp, bytes */
	bool has_block_stat;     /* sectors_written was read */
	uint64_t sectors_written;
	uint32_t inflight_reads, inflight_writes;
};

/* The readings so far. */
struct idle_watch {
	uint64_t slack;          /* exact: what an idle bdi may show (percpu error) */
	bool quiet;              /* a quiet run is going on */
	struct idle_reading since; /* its first reading */
	unsigned n;              /* readings in it */
};

/* The reading of d taken at t: with the estimate, pending is only the
 * writeback part (the system's Writeback+WritebackTmp). */
void idle_reading_from(const struct dirty_device *d, double t, struct idle_reading *ret);

void idle_watch_init(struct idle_watch *w, uint64_t slack);

/* Adds one reading; true once the device is seen idle. */
bool idle_watch_add(struct idle_watch *w, const struct idle_reading *r);

#endif
