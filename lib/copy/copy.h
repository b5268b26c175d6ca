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
 * dirty or in flight.  On error or cancel, temporary files are removed,
 * but a large file's resumable partial whose record lists a chunk, which
 * stays for the next copy (dest_file.h): no partial file ever carries a
 * final name. */
#ifndef SAFECP_COPY_H
#define SAFECP_COPY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "copy/copy_events.h"
#include "copy/plan.h"
#include "io/sizing.h"
#include "device/target.h"

enum copy_phase {
	COPY_PHASE_START = 0,
	COPY_PHASE_COPYING,
	COPY_PHASE_RECHECK,     /* --verify: files named earlier read back again */
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
	_Atomic uint64_t device_pending;   /* dirty+writeback of the device, last seen
					    * (without debugfs: the system's writeback) */
	_Atomic bool device_idle;          /* the end: the device was seen idle (not
					    * just given up on: someone else's writes,
					    * or nothing to look at; dirty_idle.h) */
	_Atomic uint64_t device_busy_bytes; /* not seen idle: other data the device
					     * wrote while we waited after our sync,
					     * plus (debugfs) what it still had to
					     * write; 0 when idle or not watched */
	_Atomic uint64_t bytes_verified;   /* --verify: read back and compared */
	_Atomic uint64_t files_verified;   /*   files that read back the same */
	_Atomic uint64_t files_mismatched; /*   files that read back different */
	_Atomic bool verify_cached;        /*   some read-back came from the cache */
	_Atomic uint64_t bytes_resumed;    /* kept from a stopped copy's partials:
					    * counted in bytes_written and
					    * bytes_confirmed from the start */
};

struct copy_options {
	const struct write_plan *wplan;   /* from sizing_plan() */
	const struct target *target;      /* destination facts */
	bool keep_times;                  /* default true */
	bool keep_mode;                   /* the permission bits and ACLs (setuid, setgid
					   * and sticky only with keep_owners); else
					   * cp's: the source's bits less the umask, and a
					   * replaced file keeps the mode it had */
	/* issue 29, cp's --preserve beyond times and mode (copy_meta.c) */
	bool keep_owners;                 /* owner and group (chown: root); the tree
					   * keeps them (plan_options.keep_owners) */
	bool keep_xattrs;                 /* extended attributes (meta_copy.h) */
	bool drop_mode;                   /* --no-preserve=mode: a new file gets
					   * 0666/0777 & ~umask, not the source's bits */
	bool meta_from_source;            /* the entries are files whose xattrs and ACLs
					   * can be read (not --unpack's) */
	unsigned meta_noted;              /* META_* (meta_attrs.h) the session noted
					   * this filesystem cannot hold: not tried,
					   * not noted again */
	/* read every file back from the device before it gets its name
	 * (read_back.h): one that differs is not published */
	bool verify;
	/* also read every source file again past the page cache and compare
	 * (a card that returned wrong bytes once): the reader does it, once
	 * for all destinations; any destination asking is enough */
	bool verify_source;
	/* the large files written as resumable partials, and where kept
	 * ones go on (resume.h); NULL: none, every file from its start */
	const struct resume_plan *resume;
};

/* One destination of a copy job. */
struct copy_dest {
	const struct plan *plan;          /* its plan: plan_same_source() as the others' */
	struct copy_options opts;
};

/* A running copy: one reader of the source (reader.h) and one thread per
 * destination, each at its own pace.  The job owns its threads; the
 * caller polls its events (copy_events.h), the counters and the results. */
struct copy_job;
struct reader_tap;
struct source_feed;
struct copy_lists;
struct partial_digests;
struct reader_start;
struct resume_plan;

struct copy_job_hooks {
	/* sees every chunk of the first read (file_sums.h); NULL: none */
	const struct reader_tap *tap;
	/* the bytes of each file entry (source_feed.h); NULL: the plans'
	 * source files.  The caller's: it must outlive copy_job_free() */
	const struct source_feed *feed;
	/* the checksum lists and manifests to write beside the copy
	 * (lists.h); NULL: none.  The caller's: it must outlive the job */
	const struct copy_lists *lists;
	/* the digests of the files written as partials (partial_digests.h);
	 * needed when any destination has a resume plan.  The caller's */
	const struct partial_digests *digests;
	/* per entry, sorted: where the reader starts a file (the smallest
	 * resumed offset of the destinations that write it); none: 0 */
	const struct reader_start *starts;
	size_t n_starts;
};

/* Start copying to n destinations (at most COPY_DESTS_MAX), whose plans
 * share one source tree (-EINVAL if not).  0 with *ret set, or -errno
 * (nothing started). */
#define COPY_DESTS_MAX 16
int copy_job_start(const struct copy_dest *dests, size_t n, const struct copy_job_hooks *hooks,
		   struct copy_job **ret);

/* The job's event queue: readable while an event waits (poll(2) it
 * beside the caller's own fds); the job's own, never close it. */
int copy_job_event_fd(const struct copy_job *j);

/* The next event into ret (its strings then the caller's, until
 * copy_event_done()): 1; 0 when none came within timeout_ms (0: do not
 * wait, -1: until one comes); -EINTR. */
int copy_job_poll(struct copy_job *j, int timeout_ms, struct copy_event *ret);

/* Once every destination finished: write the checksum lists no
 * destination holds (lists.h); their events follow in the queue.
 * Returns how many failed. */
unsigned copy_job_write_lists(struct copy_job *j);

/* Destination i's counters, written by its thread, readable at any time. */
const struct copy_stats *copy_job_stats(const struct copy_job *j, size_t i);

/* Has destination i finished?  Then its result, as a copy of one
 * destination ends: 0 when everything is copied and durable, a positive
 * count of entries that failed (source errors, files that changed,
 * names or directories that could not be created; the rest is copied
 * and durable), -ECANCELED after copy_job_cancel(), or -errno on a
 * destination error (that destination stopped, its temporaries removed;
 * the others go on).
 *
 * Nothing below plan->dest_dir is reached by path: each directory is
 * made with mkdirat and opened with O_NOFOLLOW from its parent's fd, an
 * existing one must be the one the plan saw, and modes and times are set
 * through the kept fds (dirstack.h), so a symlink planted in the
 * destination during the copy is never followed. */
bool copy_job_finished(const struct copy_job *j, size_t i, int *result);

/* Every destination finished. */
bool copy_job_done(const struct copy_job *j);

/* Stop every destination (each removes its temporaries and returns
 * -ECANCELED); returns at once. */
void copy_job_cancel(struct copy_job *j);

/* Source reads so far. */
struct copy_source_stats {
	uint64_t bytes_read;    /* every read of the source, second reads included */
	uint64_t bytes_reread;  /* second reads: a destination that fell behind */
	unsigned detached;      /* destinations that went on from a second read */
	uint64_t mismatches;    /* chunks a second read found different */
};
void copy_job_source(const struct copy_job *j, struct copy_source_stats *ret);

/* Cancel what still runs, join every thread, free. */
void copy_job_free(struct copy_job *j);

#endif
