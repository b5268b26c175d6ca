/* dirty.h: how much data is dirty or under writeback, system-wide, per
 * device and per file, and how fast it drains.
 *
 * Sources (KERNEL.md 3-4): /proc/meminfo and /proc/vmstat for the system;
 * debugfs bdi stats (root) and /sys/block/DISK/{stat,inflight} for a
 * device; cachestat(2) for a file.  Without debugfs the per-device dirty
 * figure is an estimate and says so (source == DIRTY_SOURCE_ESTIMATE). */
#ifndef SAFECP_DIRTY_H
#define SAFECP_DIRTY_H

#include <stdbool.h>
#include <stdint.h>

struct target;

struct dirty_system {
	uint64_t dirty;          /* meminfo Dirty, bytes */
	uint64_t writeback;      /* meminfo Writeback */
	uint64_t writeback_tmp;  /* meminfo WritebackTmp (FUSE before 6.16) */
	uint64_t thresh;         /* vmstat nr_dirty_threshold, bytes */
	uint64_t bg_thresh;      /* vmstat nr_dirty_background_threshold, bytes */
	/* the knobs behind the thresholds (/proc/sys/vm) */
	uint64_t dirty_ratio, dirty_background_ratio;  /* percent */
	uint64_t dirty_bytes, dirty_background_bytes;  /* 0: ratio applies */
	uint64_t dirty_expire_cs, dirty_writeback_cs;  /* centiseconds */
};

int dirty_system_read(struct dirty_system *ret);

/* Throttling starts above the freerun ceiling (thresh+bg)/2
 * (mm/page-writeback.c dirty_freerun_ceiling). */
uint64_t dirty_freerun_ceiling(const struct dirty_system *s);

enum dirty_source {
	DIRTY_SOURCE_DEBUGFS,   /* exact within percpu error */
	DIRTY_SOURCE_ESTIMATE,  /* no debugfs: an upper bound, labelled */
};
const char *dirty_source_name(enum dirty_source s); /* "debugfs", "estimate" */

struct dirty_device {
	enum dirty_source source;
	uint64_t dirty;          /* BdiReclaimable, bytes */
	uint64_t writeback;      /* BdiWriteback */
	uint64_t bdi_thresh;     /* BdiDirtyThresh */
	uint64_t dirtied;        /* BdiDirtied, cumulative */
	uint64_t written;        /* BdiWritten, cumulative */
	uint64_t bandwidth;      /* BdiWriteBandwidth, bytes/s (0 when idle) */
	/* block layer, whole disk */
	uint64_t sectors_written;   /* /sys/block/DISK/stat field 7 */
	uint64_t flushes;           /* field 16 */
	uint32_t inflight_reads, inflight_writes;
};

/* Read one device's figures; bdi names the debugfs directory, disk the
 * /sys/block entry (either may be NULL/""). Mounts debugfs when root and
 * it is not mounted.  Falls back to the estimate without debugfs. */
int dirty_device_read(const char *bdi, const char *disk, struct dirty_device *ret);

/* dirty + writeback */
uint64_t dirty_device_pending(const struct dirty_device *d);

/* Percpu counter error bound for the bdi stats on this machine
 * (nr_cpu_ids * WB_STAT_BATCH pages, KERNEL.md 4.1), in bytes. */
uint64_t dirty_percpu_error(void);

/* A sample is what was read at one moment. */
struct dirty_sample {
	double t_mono;           /* CLOCK_MONOTONIC seconds */
	double t_real;           /* CLOCK_REALTIME seconds */
	struct dirty_system sys;
	struct dirty_device dev;
	bool have_dev;
};

int dirty_sample_take(const char *bdi, const char *disk, struct dirty_sample *ret);

/* Between two samples of the same device: bytes/s written to the device
 * (sector counter), and seconds until the pending data is written at that
 * rate (-1 when the rate is 0 and data is pending, 0 when nothing is). */
double dirty_write_rate(const struct dirty_sample *older, const struct dirty_sample *newer);
double dirty_eta(const struct dirty_sample *newer, double rate);

#endif
