/* dirty.h: how much data is dirty or under writeback, system-wide, per
 * device and per file, and how fast it drains.
 *
 * Sources (doc/kernel.md 3-4): /proc/meminfo and /proc/vmstat for the system;
 * debugfs bdi stats (root) and /sys/block/DISK/{stat,inflight} for a
 * device; cachestat(2) for a file (cachestat.h).  Every figure is in
 * bytes.  All /proc and /sys reads go through sysroot, so the parsers run
 * on captured trees in tests.
 *
 * Without debugfs (not root, lockdown, not mounted in a sysroot) the
 * per-device dirty figure is an estimate and says so
 * (source == DIRTY_SOURCE_ESTIMATE): the system-wide Dirty and
 * Writeback+WritebackTmp, an upper bound for any one device because
 * every dirty page counted in a bdi is also counted in the global
 * NR_FILE_DIRTY / NR_WRITEBACK (mm/page-writeback.c folio_account_dirtied,
 * __folio_start_writeback).  cachestat of the block device node is not
 * used to tighten it: the bdev mapping holds only metadata and FUSE
 * daemons' data, so it bounds the device's dirty data from below, not
 * from above.  The sector counter of /sys/block/DISK/stat stays exact,
 * so the write rate is real in both modes. */
#ifndef SAFECP_DIRTY_H
#define SAFECP_DIRTY_H

#include <stdbool.h>
#include <stdint.h>

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
	/* the memory behind the thresholds (meminfo), bytes */
	uint64_t mem_free;       /* MemFree */
	uint64_t file_lru;       /* Active(file) + Inactive(file) */
	uint64_t page_size;      /* of this machine; pages -> bytes */
};

/* Read /proc/meminfo, /proc/vmstat and the six vm knobs once each. */
int dirty_system_read(struct dirty_system *ret);

/* The kernel's totalreserve_pages, in bytes, from /proc/zoneinfo: per
 * zone its high watermark (without a transient boost) plus its largest
 * lowmem reserve, capped at the zone's managed pages
 * (mm/page_alloc.c calculate_totalreserve_pages).  Not read by
 * dirty_system_read: only the threshold explanation needs it. */
int dirty_reserve_read(uint64_t *ret);

/* The global thresholds as domain_dirty_limits() computes them for a
 * normal (not real-time) task, in bytes:
 *   dirtyable = max(MemFree - reserve, 0) + Active(file) + Inactive(file) + 1
 *   thresh    = dirty_bytes ? ceil(dirty_bytes / PAGE)
 *                           : (dirty_ratio * PAGE / 100) * dirtyable / PAGE
 *   bg_thresh likewise; bg_thresh >= thresh gives thresh / 2.
 * (64-bit, no highmem: highmem_dirtyable_memory() is 0.)  Used to explain
 * s->thresh and s->bg_thresh, which remain the kernel's word. */
void dirty_thresholds_compute(const struct dirty_system *s, uint64_t reserve,
			      uint64_t *ret_thresh, uint64_t *ret_bg_thresh);

/* Throttling starts above the freerun ceiling (thresh+bg)/2, computed in
 * pages as the kernel does (mm/page-writeback.c dirty_freerun_ceiling). */
uint64_t dirty_freerun_ceiling(const struct dirty_system *s);

enum dirty_source {
	DIRTY_SOURCE_DEBUGFS,   /* exact within dirty_percpu_error() */
	DIRTY_SOURCE_ESTIMATE,  /* no debugfs: an upper bound, labelled */
};
const char *dirty_source_name(enum dirty_source s); /* "debugfs", "estimate" */

struct dirty_device {
	enum dirty_source source;
	/* debugfs bdi stats; with the estimate: system Dirty and
	 * Writeback+WritebackTmp, the rest 0 (unknown) */
	uint64_t dirty;          /* BdiReclaimable, bytes */
	uint64_t writeback;      /* BdiWriteback */
	uint64_t bdi_thresh;     /* BdiDirtyThresh */
	uint64_t dirtied;        /* BdiDirtied, cumulative (the file says kB) */
	uint64_t written;        /* BdiWritten, cumulative (kB, too) */
	uint64_t bandwidth;      /* BdiWriteBandwidth, bytes/s (0 when idle) */
	/* block layer (disk given and its stat readable) */
	bool has_block_stat;
	bool has_flushes;           /* 17-field stat (4.19+); 0 flushes if not */
	uint64_t sectors_written;   /* /sys/block/DISK/stat field 7, 512 B units */
	uint64_t flushes;           /* field 16 */
	uint32_t inflight_reads, inflight_writes;  /* /sys/block/DISK/inflight */
};

/* Read one device's figures; bdi names the debugfs directory ("7:0",
 * "btrfs-3"), disk the /sys/block entry ("loop0"; a partition name is
 * looked up in /sys/class/block).  Either may be NULL or "".  Mounts
 * debugfs at /sys/kernel/debug when root, on the real root, and it is not
 * mounted.  Falls back to the estimate, reading meminfo for it, when
 * bdi is not given or its stats file cannot be read (ENOENT, EACCES,
 * EPERM).  -ENOENT when disk is given and gone, -EINVAL for a name with
 * a '/'. */
int dirty_device_read(const char *bdi, const char *disk, struct dirty_device *ret);

/* Same, taking the estimate from sys (already read) instead of reading
 * meminfo again; sys may be NULL. */
int dirty_device_read_with(const char *bdi, const char *disk,
			   const struct dirty_system *sys, struct dirty_device *ret);

/* Parse the text of /sys/block/DISK/stat: 17 fields (4.19+), 15 (4.18:
 * discards, no flushes) or 11 (older).  Sets sectors_written, flushes,
 * has_flushes, has_block_stat.  -EINVAL for anything else. */
int dirty_block_stat_parse(const char *text, struct dirty_device *d);
/* Parse the text of /sys/block/DISK/inflight: requests in flight, reads
 * then writes.  -EINVAL when it does not start with two counts. */
int dirty_inflight_parse(const char *text, unsigned *ret_reads, unsigned *ret_writes);

/* dirty + writeback */
uint64_t dirty_device_pending(const struct dirty_device *d);

/* Percpu counter error bound of one bdi stat counter (BdiReclaimable or
 * BdiWriteback) on this machine, in bytes: nr_cpu_ids * WB_STAT_BATCH
 * pages with WB_STAT_BATCH = 8 * (1 + ilog2(nr_cpu_ids))
 * (include/linux/backing-dev-defs.h).  nr_cpu_ids comes from
 * /sys/devices/system/cpu/possible (highest id + 1; the configured CPU
 * count when that is unreadable). */
uint64_t dirty_percpu_error(void);
uint64_t dirty_percpu_error_for(unsigned nr_cpu_ids, uint64_t page_size);

/* nr_cpu_ids from a cpu list such as "0-1" or "0-3,8-11\n". */
int dirty_cpu_list_nr_ids(const char *list, unsigned *ret);

/* A sample is what was read at one moment. */
struct dirty_sample {
	double t_mono;           /* CLOCK_MONOTONIC seconds */
	double t_real;           /* CLOCK_REALTIME seconds */
	struct dirty_system sys;
	struct dirty_device dev;
	bool have_dev;
};

/* Read the system and, when bdi or disk is given, the device (each file
 * once).  An error reading the device fails the sample. */
int dirty_sample_take(const char *bdi, const char *disk, struct dirty_sample *ret);

/* Between two samples of the same device: bytes/s written to the device,
 * from the sector counter when both samples have it, else from
 * BdiWritten when both came from debugfs.  A zero or negative time delta
 * gives BdiWriteBandwidth of the newer sample; a counter that went
 * backwards (device re-created, 32-bit wrap) gives 0. */
double dirty_write_rate(const struct dirty_sample *older, const struct dirty_sample *newer);

/* Seconds until the pending data (the device's dirty+writeback, or the
 * system's without a device) is written at rate: 0 when nothing is
 * pending, -1 when something is and the rate is 0. */
double dirty_eta(const struct dirty_sample *newer, double rate);

#endif
