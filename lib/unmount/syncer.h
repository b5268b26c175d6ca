/* syncer.h: syncfs() on a set of filesystems (fs_sync: one transaction
 * commit on btrfs) in a worker process while the caller polls how much is
 * left to write, from the device's own counters.
 *
 *	syncer_start(mounts, n, sources, n_src, &s);
 *	do {
 *		r = syncer_poll(s, 100, &fig);     (-EINTR on a signal)
 *		show fig.bytes_left, fig.bytes_written;
 *	} while (!fig.clean && !fig.error);
 *	syncer_free(s);                        (before unmounting: it holds fds)
 *
 * The figures (doc/kernel.md 4):
 *   bytes_left    = BdiReclaimable + BdiWriteback, summed over the distinct
 *                   bdis that account the filesystems' dirty pages, but no
 *                   more than what was pending at the start less what the
 *                   device has written since (the bdi figure lags on xfs);
 *   bytes_written = growth of the disks' completed write sectors x 512;
 *   clean         = every syncfs returned, bytes_left is within the bdi
 *                   counters' percpu error and no request is in flight:
 *                   the honest "done".
 * Without debugfs (not root) the left figure is the estimate of doc/kernel.md
 * 4.5 and says so (estimate = true): D0 = the system's Dirty + Writeback
 * when we started, an upper bound for the device; left = max(0, D0 -
 * written) until syncfs returns, which is authoritative, then 0. */
#ifndef SAFECP_SYNCER_H
#define SAFECP_SYNCER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct syncer;

/* Where the data of the filesystems is accounted: a bdi ("7:3",
 * "btrfs-2"), a disk in /sys/block ("loop3").  Either may be NULL or "";
 * duplicates are counted once. */
struct syncer_source {
	const char *bdi;
	const char *disk;
};

/* The counters at one moment, summed over the sources. */
struct syncer_reading {
	double t_mono, t_real;  /* CLOCK_MONOTONIC, CLOCK_REALTIME seconds */
	uint64_t pending;       /* bdi dirty + writeback, bytes */
	uint64_t sectors;       /* completed write sectors (512 B) */
	uint64_t sys_pending;   /* meminfo Dirty + Writeback + WritebackTmp */
	uint32_t inflight;      /* requests in flight, reads + writes */
	bool estimate;          /* some bdi had no debugfs stats */
};

struct syncer_figures {
	double t_mono, t_real;
	uint64_t bytes_left;
	uint64_t bytes_written;
	bool estimate;
	bool synced;        /* the current round's syncfs calls all returned */
	bool clean;         /* synced, nothing pending nor in flight */
	int error;          /* first syncfs error of the round, -errno; 0 none */
	size_t error_index; /* its filesystem, an index into the mounts */
	unsigned round;     /* 1 for the first */
};

/* Opens the mount points (so a missing one fails here, not in the
 * worker), takes the first reading and starts the first round. */
int syncer_start(char *const *mountpoints, size_t n_mounts,
		 const struct syncer_source *sources, size_t n_sources,
		 struct syncer **ret);

/* The figures of the first reading, taken before the first round began:
 * nothing written yet, all that was pending left.  Lets a display start
 * from the true beginning however late its first poll comes. */
void syncer_first(const struct syncer *s, struct syncer_figures *ret);

/* Waits up to timeout_ms for the running round to finish (0: just look),
 * then reads the counters.  -EINTR when a signal arrived: the round goes
 * on in the kernel. */
int syncer_poll(struct syncer *s, int timeout_ms, struct syncer_figures *ret);

/* Another round of syncfs (when a round ended but someone dirtied more).
 * -EBUSY while one is running. */
int syncer_again(struct syncer *s);

/* Closes the mount points; a round still running goes on alone (its
 * worker holds its own fds until syncfs returns).  NULL is fine. */
void syncer_free(struct syncer *s);

/* The arithmetic above, on two readings; tolerance is the bytes the bdi
 * counters may be off (dirty_percpu_error() per counter and bdi). */
void syncer_compute(const struct syncer_reading *start, const struct syncer_reading *now,
		    bool synced, uint64_t tolerance, struct syncer_figures *ret);

#endif
