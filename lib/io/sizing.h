/* sizing.h: how safecp writes to a given target, decided from its facts.
 *
 * Pure functions (no I/O) so the choice table and the arithmetic are unit
 * tested: strategy per filesystem (doc/kernel.md 2.4), window and chunk sizes
 * from the disk's queue limits (doc/kernel.md 1.4), and the adaptation of the
 * window to the measured device rate. */
#ifndef SAFECP_SIZING_H
#define SAFECP_SIZING_H

#include <stdbool.h>
#include <stdint.h>

#include "device/target.h"

enum write_strategy {
	STRATEGY_AUTO = 0,
	STRATEGY_WINDOW,      /* buffered + sync_file_range write-behind */
	STRATEGY_DIRECT,      /* O_DIRECT, aligned chunks */
	STRATEGY_SYNC_WINDOW, /* fdatasync per window (FUSE; O_DIRECT on fuseblk) */
};

const char *strategy_name(enum write_strategy s); /* "auto", "window", ... */
int strategy_from_name(const char *name, enum write_strategy *ret);

/* What statx(STATX_DIOALIGN) said about the destination directory's fs. */
struct dio_caps {
	bool known;           /* STATX_DIOALIGN came back set */
	uint32_t mem_align;   /* 0 with known: O_DIRECT unsupported */
	uint32_t offset_align;
};

/* Why sizing_plan() chose (or refused) a strategy; cmd/ words it. */
enum sizing_reason {
	SIZING_NONE = 0,
	SIZING_FUSE_DAEMON,       /* FUSE: only fdatasync per window bounds the daemon's dirt */
	SIZING_DIO_SUPPORTED,     /* statx DIOALIGN: direct */
	SIZING_DIO_REFUSED,       /* the fs refuses O_DIRECT: windows */
	SIZING_DIO_WOULD_FALL_BACK, /* O_DIRECT would fall back silently: windows */
	SIZING_ASKED_DIO_REFUSED, /* direct was asked for and cannot work (the refusal) */
	SIZING_ASKED_DIO_OK,      /* direct asked; supported */
	SIZING_ASKED_DIO_UNKNOWN, /* direct asked; the writer checks at run time */
	SIZING_ASKED_WINDOW_FUSE, /* window asked on FUSE: it switches if dirt grows */
	SIZING_ASKED,             /* asked for */
	SIZING_FUSE_NOOP_FSYNC,   /* FUSE whose fsync may write nothing (fusefat, the
				   * unknown fuseblk): fdatasync and a device sync per window */
};

/* Why the writer changed strategy while writing a file. */
enum writer_switch_reason {
	WRITER_SWITCH_DIO_REFUSED, /* the fs refused O_DIRECT on this file */
	WRITER_SWITCH_DEVICE_DIRTY, /* dirt grew in the device's cache (FUSE) */
	WRITER_SWITCH_FELL_BACK,   /* O_DIRECT silently left dirty pages */
};

struct write_plan {
	enum write_strategy strategy;
	enum sizing_reason reason; /* why this strategy, for -v/--dry-run */
	uint64_t window;       /* bytes per write-behind window */
	uint64_t window_min, window_max; /* adaptation bounds */
	uint64_t chunk;        /* bytes per read/write call; DIO multiple */
	uint32_t mem_align;    /* buffer alignment */
	uint32_t offset_align; /* DIO offset/length alignment (0: not direct) */
	unsigned ring_slots;   /* reader buffers of chunk bytes */
	bool sync_device;      /* the daemon's fsync is a no-op (fusefat): each
				* wait also syncs the block device (fs_sync.h) */
	bool fuse_direct;      /* sync-window on a FUSE daemon over a disk
				* (fuseblk): O_DIRECT, so the daemon takes our
				* pages without a copy into the FUSE file's
				* cache (doc/kernel.md 2.3) */
};

/* Decide strategy and sizes.  requested is the user's --strategy (AUTO
 * to choose); window_override is --window (0: derive).  Returns 0, or
 * -EINVAL when the requested strategy cannot work here (direct without
 * O_DIRECT support), with plan->reason saying why. */
int sizing_plan(const struct target *t, const struct dio_caps *dio,
		enum write_strategy requested, uint64_t window_override,
		struct write_plan *ret);

/* The reader's chunk, alignment and ring for n destinations' plans.
 * 0, or -EINVAL when their chunk sizes have no common multiple under
 * 64 MiB. */
int sizing_reader_plan(const struct write_plan *const *plans, size_t n, struct write_plan *ret);

/* Window adaptation after a window of `bytes` took `seconds` to drain:
 * aim at 0.25-1 s per window, within [min, max]. Returns the new size. */
uint64_t sizing_adapt_window(const struct write_plan *p, uint64_t current,
			     uint64_t bytes, double seconds);

/* What O_DIRECT alignment a new file in dir would have: statx of an
 * O_TMPFILE there (directories report no DIO alignment, and an unnamed
 * file leaves nothing behind).  Unknown (not an error) where O_TMPFILE
 * is unsupported (vfat, FUSE). */
int dio_caps_probe_dir(const char *dir, struct dio_caps *ret);

/* The same for a destination directory, without a trace where
 * create_nothing (--dry-run): an existing regular file there is asked
 * first (opened O_PATH: no atime, no write), then an O_TMPFILE.  Unknown
 * (zeros) when neither answers.  The writer checks each file again; this
 * answer picks the strategy. */
void dio_caps_of_dest(const char *dir, bool create_nothing, struct dio_caps *ret);

/* Read statx(STATX_DIOALIGN) of an open fd (syscall; glibc 2.36's struct
 * lacks the fields). */
int dio_caps_read(int fd, struct dio_caps *ret);

#endif
