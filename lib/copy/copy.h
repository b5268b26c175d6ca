/* copy.h: the copy engine: runs a checked plan through the reader and the
 * writer, makes every file durable, renames it into place, and returns
 * only when the device holds everything.
 *
 * Per file: data goes to an unnamed file (O_TMPFILE) in the destination
 * directory, linked into place once it is durable, or, where the
 * filesystem has no unnamed files (FAT, exfat, FUSE), to a hidden
 * temporary name renamed into place.  Small files are committed in
 * batches (write several, wait for all, make them durable at once, put
 * all under their names, sync) so they do not pay a flush each.  At the end: syncfs on the destination
 * filesystem, fsync of the destination root (the only thing that makes
 * vfat flush the device cache), then wait until the device shows nothing
 * dirty or in flight.  On error or cancel, temporary files are removed:
 * no partial file ever carries a final name. */
#ifndef SAFECP_COPY_H
#define SAFECP_COPY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "copy/plan.h"
#include "io/sizing.h"
#include "device/target.h"

enum copy_phase {
	COPY_PHASE_START = 0,
	COPY_PHASE_COPYING,
	COPY_PHASE_FINAL_SYNC,  /* syncfs + root fsync */
	COPY_PHASE_WAIT_IDLE,   /* device draining what the fs wrote last */
	COPY_PHASE_DONE,
};

/* Written by the engine, read by the display thread at any time. */
struct copy_stats {
	_Atomic uint64_t bytes_total;
	_Atomic uint64_t bytes_written;    /* handed to the kernel */
	_Atomic uint64_t bytes_confirmed;  /* the device completed them */
	_Atomic uint64_t files_done;
	_Atomic uint64_t files_failed;
	_Atomic size_t current;            /* plan entry being written */
	_Atomic int phase;                 /* enum copy_phase */
	_Atomic uint64_t device_pending;   /* dirty+writeback of the device, last seen */
	_Atomic bool device_idle;          /* the end: the device was seen idle (not
					    * just given up on: someone else's writes,
					    * or no debugfs to look at) */
};

enum copy_step {
	COPY_STEP_READ,     /* source: that file is skipped, the copy goes on */
	COPY_STEP_CREATE,
	COPY_STEP_WRITE,
	COPY_STEP_SYNC,
	COPY_STEP_RENAME,
	COPY_STEP_ATTRS,    /* timestamps/mode: a note, not a failure */
	COPY_STEP_FINAL_SYNC,
	COPY_STEP_CHANGED,  /* the source is not what the plan saw, or changed
			     * while it was read: not published, the copy goes on */
};

/* Called from the engine thread; the caller serialises its own output. */
struct copy_callbacks {
	void *ctx;
	void (*file_start)(void *ctx, const struct plan_entry *e);
	void (*file_done)(void *ctx, const struct plan_entry *e);
	void (*skipped)(void *ctx, const struct plan_entry *e, const char *why);
	/* fatal: the copy stops; else that entry (a directory: its
	 * subtree) is not copied and the rest goes on */
	void (*error)(void *ctx, const struct plan_entry *e, enum copy_step step,
		      int err, const char *path, bool fatal);
	void (*note)(void *ctx, const char *what, const char *path);
	void (*strategy)(void *ctx, const struct plan_entry *e,
			 enum write_strategy s, const char *why);
};

struct copy_options {
	const struct write_plan *wplan;   /* from sizing_plan() */
	const struct target *target;      /* destination facts */
	bool keep_times;                  /* default true */
	bool keep_mode;                   /* the permission bits (never setuid, setgid
					   * or sticky: the owner is not kept); else
					   * 0666/0777 & ~umask, as new files get */
	/* -f: with replace-by-rename a read-only destination is replaced
	 * anyway, so nothing in the engine depends on it */
	bool force;
};

/* Run the plan.  Returns 0 when everything is copied and durable, a
 * positive count of entries that failed (source errors, files that
 * changed, names or directories that could not be created; the rest is
 * copied and durable), -ECANCELED when *cancel became true, or -errno
 * on a destination error (the copy stopped; temporaries removed).
 *
 * Nothing below plan->dest_dir is reached by path: each directory is
 * made with mkdirat and opened with O_NOFOLLOW from its parent's fd, an
 * existing one must be the one the plan saw, and modes and times are set
 * through the kept fds (dirstack.h), so a symlink planted in the
 * destination during the copy is never followed. */
int copy_run(const struct plan *p, const struct copy_options *o,
	     const struct copy_callbacks *cb, struct copy_stats *stats,
	     atomic_bool *cancel);

#endif
