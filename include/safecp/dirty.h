/* safecp/dirty.h: how much data waits in memory to be written, system-wide,
 * per device and per file, and how fast the devices drain it.
 *
 *	struct safecp_dirty *d, *prev = NULL;
 *	struct safecp_dirty_device dev;
 *	struct safecp_dirty_figures f, g;
 *	safecp_dirty_read(NULL, &d, NULL);             every block device
 *	for (size_t i = 0; i < safecp_dirty_count(d); i++) {
 *		safecp_dirty_device(d, i, &dev, sizeof(dev));   name, mounts
 *		if (safecp_dirty_figures(d, i, &f, sizeof(f)) == 0)
 *			f.dirty, f.writeback ... and with an older reading of
 *			the same device: safecp_dirty_rate(&g, &f)
 *	}
 *	safecp_dirty_free(d);
 *
 * A reading (struct safecp_dirty) is what was read at one moment: the
 * system's counters and one entry per device that can hold dirty data (a
 * whole disk with the bdi that counts its filesystems' pages, or a btrfs
 * filesystem's own bdi), with what is mounted from it.  It never changes
 * after it was read.  Every figure is in bytes.
 *
 * The device figures are the kernel's bdi counters where debugfs can be
 * read (root); elsewhere they are an estimate, and say so: the system's
 * figures, an upper bound for any one device.  The write rate comes from
 * the disk's sector counter either way, so it is real.  A file's figures
 * are cachestat(2)'s (Linux 6.5).  doc/api.md holds the contract; the
 * sysroot of <safecp/target.h> applies to every read. */
#ifndef SAFECP_DIRTY_API_H
#define SAFECP_DIRTY_API_H

#include <stddef.h>
#include <stdint.h>

#include <safecp/safecp.h>
#include <safecp/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The structures below are filled up to size bytes (pass sizeof): a
 * program built against older headers gets the fields it knows, one built
 * against newer ones gets 0 in the fields this library does not have. */

struct safecp_dirty_system {
	double time;              /* CLOCK_MONOTONIC seconds of the reading */
	double realtime;          /* CLOCK_REALTIME seconds */
	uint64_t dirty;           /* /proc/meminfo Dirty */
	uint64_t writeback;       /* Writeback */
	uint64_t writeback_tmp;   /* WritebackTmp (FUSE before Linux 6.16) */
	uint64_t thresh;          /* the dirty limit: writers wait above it */
	uint64_t bg_thresh;       /* background writeback starts above it */
	uint64_t throttle;        /* writers are slowed down above it:
				   * (thresh + bg_thresh) / 2, in pages */
	/* the knobs behind the limits (/proc/sys/vm) */
	uint64_t dirty_ratio, dirty_background_ratio; /* percent */
	uint64_t dirty_bytes, dirty_background_bytes; /* 0: the ratio applies */
	uint64_t dirty_expire_cs, dirty_writeback_cs; /* centiseconds */
};

/* Where a device's figures come from. */
enum safecp_dirty_source {
	SAFECP_DIRTY_DEBUGFS = 0,  /* the bdi's own counters: exact within error */
	SAFECP_DIRTY_ESTIMATE = 1, /* no debugfs: the system's Dirty and
				    * Writeback + WritebackTmp, an upper bound */
};
/* "debugfs", "estimate"; NULL for a value the library does not know. */
const char *safecp_dirty_source_name(enum safecp_dirty_source source);

/* A device of a reading.  Strings are the reading's, valid until
 * safecp_dirty_free(). */
struct safecp_dirty_device {
	const char *name;          /* whole disk: "sdb", "loop3"; the source of a
				    * filesystem on no block device */
	int has_block;             /* a block device; major, minor are its disk's */
	unsigned major, minor;
	const char *bdi;           /* the bdi counting its dirty pages ("8:16",
				    * "btrfs-2"); NULL when unknown */
	const char *fstype;        /* "vfat"; several types comma-joined; NULL
				    * when nothing is mounted */
	int removable;             /* a removable flag, or on USB or MMC */
	uint64_t size;             /* of the whole disk */
	const char *const *mountpoints; /* n_mountpoints, mount table order */
	size_t n_mountpoints;
};

/* One device's figures at one moment. */
struct safecp_dirty_figures {
	double time;               /* CLOCK_MONOTONIC seconds of the reading */
	enum safecp_dirty_source source;
	uint64_t dirty;            /* debugfs BdiReclaimable; estimate: Dirty */
	uint64_t writeback;        /* BdiWriteback; estimate: Writeback +
				    * WritebackTmp.  Pending: dirty + writeback */
	uint64_t error;            /* what each debugfs counter may be off by
				    * (per-CPU batching): pending at or below
				    * twice this is nothing */
	/* debugfs only, 0 with the estimate */
	uint64_t bdi_thresh;       /* BdiDirtyThresh */
	uint64_t dirtied, written; /* BdiDirtied, BdiWritten: cumulative */
	uint64_t bandwidth;        /* the kernel's write bandwidth, bytes/s */
	/* the disk's block layer (/sys/block/DISK/stat and inflight) */
	int has_block_stat;
	uint64_t bytes_written;    /* cumulative */
	uint32_t inflight_reads, inflight_writes; /* requests in flight */
};

struct safecp_dirty;

/* What a failed read could not read. */
enum safecp_dirty_part {
	SAFECP_DIRTY_PART_SYSTEM = 1,  /* /proc/meminfo, /proc/vmstat, /proc/sys/vm */
	SAFECP_DIRTY_PART_DEVICES = 2, /* /sys/block and the mount table */
};

/* A reading of the system and of devices: like NULL, of every block
 * device with a size, each with its mounts (a disk whose every
 * filesystem counts in another bdi appears under that bdi only), sorted
 * by name; else of the devices of like, listed again when like was of
 * every device, else the same ones (one that is gone stays, without
 * figures).  Reads each device's counters; mounts debugfs when the
 * process may and it is not mounted.  0, or -errno with *ret_part (may be
 * NULL) saying what could not be read. */
int safecp_dirty_read(const struct safecp_dirty *like, struct safecp_dirty **ret,
		      enum safecp_dirty_part *ret_part);

/* A selection to give safecp_dirty_read() as like: the devices that hold
 * the targets' data, one entry per device however many targets it holds,
 * each with all its mounts (a filesystem on no block device: with its own
 * mount only), in the targets' order.  It has the device entries and no
 * figures.  0, or -errno. */
int safecp_dirty_select(const struct safecp_target *const *targets, size_t n,
			struct safecp_dirty **ret);

void safecp_dirty_free(struct safecp_dirty *d);

/* The system's figures: 0; -ENODATA for a selection. */
int safecp_dirty_system(const struct safecp_dirty *d, struct safecp_dirty_system *ret,
			size_t size);

/* Devices in d, and device i: 0, or -ENOENT past the last. */
size_t safecp_dirty_count(const struct safecp_dirty *d);
int safecp_dirty_device(const struct safecp_dirty *d, size_t i, struct safecp_dirty_device *ret,
			size_t size);

/* Device i's figures: 0; -ENODATA when it has none (nothing counts its
 * pages: tmpfs, NFS; it vanished; a selection); -ENOENT past the last. */
int safecp_dirty_figures(const struct safecp_dirty *d, size_t i,
			 struct safecp_dirty_figures *ret, size_t size);

/* One device's figures without a reading: bdi is the bdi's name ("8:16",
 * "btrfs-2"), disk the /sys/block name ("sdb"; a partition is looked up);
 * either may be NULL.  Without bdi, or when its counters cannot be read,
 * the estimate.  0; -ENOENT when disk is gone; -EINVAL for a name with
 * '/'; -errno. */
int safecp_dirty_device_read(const char *bdi, const char *disk,
			     struct safecp_dirty_figures *ret, size_t size);

/* Bytes a second the device wrote between two readings of it: from the
 * disk's sector counter when both have it, else from BdiWritten when both
 * came from debugfs, else 0.  No time between them gives the kernel's
 * bandwidth; a counter that went backwards (the device was re-created)
 * gives 0. */
double safecp_dirty_rate(const struct safecp_dirty_figures *older,
			 const struct safecp_dirty_figures *newer);

/* A file's page cache, in bytes (cachestat(2) counts pages). */
struct safecp_dirty_file {
	uint64_t cached;            /* in the page cache */
	uint64_t dirty;             /* dirty: not written yet */
	uint64_t writeback;         /* being written */
	uint64_t evicted;           /* evicted (shadow entries) */
	uint64_t recently_evicted;
};

/* The whole file at path, opened read-only (never for writing; no
 * blocking on a FIFO).  0; -ENOSYS before Linux 6.5; -EPERM when the
 * caller may not write the file (cachestat(2)'s rule); -errno. */
int safecp_dirty_file(const char *path, struct safecp_dirty_file *ret, size_t size);
/* The same for an open file; an O_PATH descriptor is reopened read-only
 * through /proc/self/fd, so it is the very inode it holds. */
int safecp_dirty_file_fd(int fd, struct safecp_dirty_file *ret, size_t size);

#ifdef __cplusplus
}
#endif

#endif
