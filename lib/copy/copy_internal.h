/* copy_internal.h: state shared by the copy engine's files, below all of
 * them: copy.c runs the plan, copy_dir.c makes its directories,
 * copy_file.c streams a file into its destination file (dest_file.h),
 * copy_batch.c commits finished files and copy_publish.c puts each under
 * its name, copy_finish.c has them read back again (verify.h) and makes
 * the device idle, copy_report.c tells the caller.  It does not include
 * copy.h, the job's API, which the files that need its types include
 * themselves: this header stays below copy.c and copy.h instead of
 * making one loop of includes with them.  Not part of the library's API. */
#ifndef SAFECP_COPY_INTERNAL_H
#define SAFECP_COPY_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "copy/copy_events.h"
#include "copy/dest_file.h"
#include "copy/dirstack.h"
#include "copy/lists.h"
#include "copy/plan.h"
#include "copy/reader.h"
#include "copy/verify.h"
#include "io/file_move.h"

struct copy_options;
struct copy_stats;

/* A file (or symlink) written under a temporary name, waiting for its
 * data to be confirmed and for the commit that renames it into place. */
struct batch_item {
	size_t entry;
	struct dest_file file; /* its dirfd borrowed from the batch's directory cache */
	uint64_t size;   /* a file's bytes in stats->bytes_total: the plan's
			  * size, then what was written (a stream feed's
			  * entry is as long as the feed made it) */
	bool renamed;    /* under its final name */
	bool settled;    /* renamed, kept (-n) or dropped in its commit */
	bool rejected;   /* --verify: read back different; not to be named */
	bool backed_up;  /* --backup: the file it replaces has its backup name */
	uint64_t from;   /* a resumed partial: the bytes kept, not written now */
	struct verify_file vf; /* --verify: the bytes written, what read back */
};

/* The parent directories of a batch's items, each a dup of the
 * engine's fd for that directory (a plan entry, or PLAN_TOP for
 * dest_dir): files of one directory come in runs, so the last one is
 * almost always it. */
struct batch_dir {
	size_t idx;
	int fd;
};

/* A directory this copy made, complete, waiting for its mode and times
 * until the commit that put its last entries under their names. */
struct done_dir {
	size_t idx;
	int fd;
};

struct batch {
	struct batch_item *items;
	size_t n, cap;
	struct batch_dir *dirs;
	size_t n_dirs, cap_dirs;
	size_t unwaited;  /* items before this index have all data on the device */
	uint64_t pending; /* bytes of the items from unwaited on, not yet confirmed */
	uint64_t bytes;   /* written by the items */
	double opened;    /* monotonic time the first item was added */
};

/* Fds a batch holds at most: one per file until it is put under its
 * name, the directories of its items (dups), and the made directories
 * waiting for their attributes; past any of these the batch commits.
 * These are the ceilings; engine_init() lowers them to fit the
 * RLIMIT_NOFILE it finds (copy.c: fd_budget), so a wide or deep tree
 * never runs out of descriptors. */
#define BATCH_DIRS 256
#define BATCH_DONE_DIRS 256

struct engine {
	const struct plan *plan;
	const struct copy_options *o;
	struct event_queue *events; /* the job's: what the caller is told */
	size_t dest;                /* this destination's index in the job */
	bool *published;            /* per plan entry: under its name now */
	struct copy_stats *stats;
	atomic_bool *cancel;
	struct reader_cursor *cursor; /* this destination's place in the source */
	const struct partial_digests *digests; /* the partials' (resume.h) */
	int dest_dir_fd;  /* plan->dest_dir: where the top-level names go */
	int dest_fd;      /* the destination root: syncfs and the final fsync */
	struct dirstack dirs; /* destination directories down to the current entry */
	bool *made;       /* per plan entry: a directory this copy created */
	struct done_dir *done_dirs;
	size_t n_done_dirs, cap_done_dirs;
	size_t batch_files, batch_dirs, batch_done_dirs; /* fd budget, see above */
	int bdev_fd;      /* fuseblk: the device whose cache holds the data */
	bool fuse;        /* durability by fsync per file, not syncfs */
	bool journaled;   /* the fs orders a rename after the inode's metadata */
	bool volume_fsync; /* FUSE whose fsync flushes the whole volume (exfat-fuse) */
	bool device_sync;  /* FUSE whose fsync writes nothing (fusefat): each sync
			    * syncs the block device instead (fs_sync_device) */
	bool times_after_rename; /* the rename resets the mtime (fusefat): set it again */
	bool fs_has_modes;
	bool mode_noted;
	unsigned meta_lost; /* META_* not kept here: noted (by the session or once
			     * by copy_meta.c), not tried again */
	bool meta_merged;   /* directories merged into get their metadata too */
	mode_t umask;     /* new files and directories without --preserve mode */
	struct dest_files files; /* temporary names, what the fs refused */
	struct batch batch;
	size_t next;        /* the plan entry not yet (fully) copied */
	size_t failed;
	struct verify *verify;    /* --verify; NULL: none */
	struct file_mover mover;  /* lent chunks: the source's pages to the files */
	/* --preserve=links: the copies of link groups' leaders under their
	 * names, in entry order (copy_publish.c), for their followers */
	struct copied_inode *leaders;
	size_t n_leaders, cap_leaders;
	/* followers whose leader was in the open batch: linked after its
	 * commit, each with a dup of its directory's fd (copy_file.c) */
	struct batch_dir *deferred;
	size_t n_deferred, cap_deferred;
};

/* A leader's copy: what its followers' links must lead to. */
struct copied_inode {
	size_t idx;
	dev_t dev;
	ino_t ino;
};

/* The copy of leader idx under its name here, or NULL (not copied). */
const struct copied_inode *copy_leader_copied(const struct engine *g, size_t idx);

static inline bool copy_cancelled(const struct engine *g)
{
	return g->cancel && atomic_load(g->cancel);
}

/* The engine's own fd of directory idx (PLAN_TOP: dest_dir), or -errno. */
static inline int copy_dir_fd(struct engine *g, size_t idx)
{
	return idx == PLAN_TOP ? g->dest_dir_fd : dirstack_fd(&g->dirs, idx);
}

/* What a destination's engine gets from its job (copy_job.c). */
struct engine_job {
	size_t dest;
	struct event_queue *events;
	bool *published;                 /* per plan entry, the job's */
	const struct copy_lists *lists;  /* NULL: none */
	const struct copy_lists_dests *lists_dests;
	struct copy_stats *stats;
	atomic_bool *cancel;
	struct reader_cursor *cursor;
	const struct partial_digests *digests;  /* NULL: no partials */
};

/* copy.c: one destination's copy, in the calling thread (copy_job.c
 * runs one per destination); returns as copy_job_finished() does. */
int copy_engine_run(const struct plan *p, const struct copy_options *o,
		    const struct engine_job *job);

/* copy_report.c: what the caller is told (copy_events.h) and counted. */
/* Tell the caller: ev about this destination. */
void copy_emit(struct engine *g, struct copy_event *ev);
void copy_report(struct engine *g, size_t entry, enum copy_step step, int err,
		 const char *path, bool fatal);
/* The same about entry's destination path. */
void copy_report_dst(struct engine *g, size_t entry, enum copy_step step, int err, bool fatal);
/* The destination as a whole failed at step (a sync), met at entry: the
 * copy stops; reported at the destination root.  Returns err. */
int copy_dest_failed(struct engine *g, size_t entry, enum copy_step step, int err);
/* Errors after which the copy stops (the destination is unusable). */
bool copy_fatal_error(int err);
/* Count a file or symlink as not copied. */
void copy_count_failed(struct engine *g);
/* Writing or naming it failed so that the copy stops: reported at its
 * destination.  Returns err. */
int item_fatal(struct engine *g, const struct batch_item *it, enum copy_step step, int err);
/* It cannot be copied, the copy goes on: reported (about path), its
 * temporary removed, its bytes out of the totals, counted as failed. */
void item_drop(struct engine *g, struct batch_item *it, enum copy_step step, int err,
	       const char *path);
/* The same about its destination path. */
void item_drop_dst(struct engine *g, struct batch_item *it, enum copy_step step, int err);
/* A failed file's bytes leave the totals: its temporary is gone, and
 * the bar must not count what no longer exists on the device. */
void item_forget_bytes(struct engine *g, const struct batch_item *it);
/* Free what it holds (its temporary is dest_file_remove's). */
void item_done(struct batch_item *it);
/* The copy stopped with it unnamed: a partial is kept (and the caller
 * told how much of it), any other temporary removed. */
void item_stop(struct engine *g, struct batch_item *it);

/* The path of name, another entry in entry idx's destination directory,
 * for messages (malloc'd; NULL without memory). */
char *dst_sibling_path(const struct plan *p, size_t idx, const char *name);

/* copy_backup.c: --backup */
/* Does the file it replaces still need its backup name? */
bool item_needs_backup(const struct engine *g, const struct batch_item *it);
/* Give the file it replaces its backup name (not synced): 0, or -errno;
 * when the copy goes on without it, the item is dropped, reported. */
int item_backup(struct engine *g, struct batch_item *it);
/* The backups of the batch's items still to be named, before their
 * names (the caller syncs when *made); -errno when the copy stops. */
int batch_backups(struct engine *g, bool *made);

/* copy_dir.c */
/* Make (or, merging, enter) directory idx; one that cannot be made is
 * reported and its subtree left out.  0, or -errno when the copy stops. */
int copy_dir(struct engine *g, size_t idx);
/* Leave the destination directories that do not hold entry idx. */
int copy_leave_dirs(struct engine *g, size_t idx);

/* copy_file.c: a file or symlink into its destination file, then into
 * the batch.  0, or -errno when the copy stops. */
int copy_file(struct engine *g, size_t idx);
int copy_symlink(struct engine *g, size_t idx);
int copy_link(struct engine *g, size_t idx);
/* A hard link whose first name (leader_dst) was not copied: dropped,
 * reported about that name (COPY_STEP_LINK); 0. */
int copy_link_failed(struct engine *g, struct batch_item *it, const char *leader_dst);
/* copy_file.c: an item for entry idx in its directory (nothing made yet);
 * one whose making failed: the copy stops (a fatal err) or it is
 * dropped, reported, and its chunks drained.  0 or -errno. */
int copy_item_start(struct engine *g, size_t idx, struct batch_item *it);
int copy_item_open_failed(struct engine *g, struct batch_item *it, int err);
/* After a commit: the followers it made linkable join the new batch.
 * 0 or -errno (the copy stops). */
int copy_links_deferred(struct engine *g);
/* Close what is still deferred (a copy that stops). */
void copy_links_drop(struct engine *g);
/* Take what the reader has of entry idx and will not be written; 0 or
 * -ECANCELED. */
int copy_drain(struct engine *g, size_t idx);

/* copy_batch.c */
int batch_add(struct engine *g, struct batch_item *item);
/* An fd of directory idx (a plan entry on the engine's dirstack, or
 * PLAN_TOP), valid until the batch is reset. */
int batch_parent_fd(struct engine *g, size_t idx);
/* Close the directory cache (after the engine's last batch). */
void batch_close_dirs(struct batch *b);
bool batch_due(const struct engine *g);
int batch_commit(struct engine *g);
/* The copy stops (why: -ECANCELED, or the error): what was not named
 * goes; what was named early is counted only when the user stopped it. */
void batch_abort(struct engine *g, int why);

/* copy_meta.c: what --preserve keeps, where the filesystem keeps it; a
 * failure is a warning, not a failed copy. */
/* A file's or symlink's, on its temporary. */
void publish_attrs(struct engine *g, struct batch_item *it);
/* A made directory's, through its fd, once complete. */
void meta_dir(struct engine *g, size_t idx, int fd);

/* copy_publish.c: a durable item under its name */
/* Name it (or keep or drop it); -errno only for an error that stops the
 * copy, and then it and the rest are batch_abort's. */
int publish_item(struct engine *g, struct batch_item *it);
/* Under its final name: copied, whatever comes after. */
void publish_done(struct engine *g, const struct batch_item *it);

/* copy_finish.c */
/* --verify, at the end: the files named read back again (verify.h); one
 * that differs now is reported and no longer copied.  0, or -ECANCELED. */
int finish_recheck(struct engine *g);
/* Modes and times of the created directories that are complete (all:
 * every one left, also those still being filled: the copy ends). */
void finish_dirs(struct engine *g, bool all);
/* dirstack_pop() callback: keep a made directory's fd for its attributes. */
void finish_dir_popped(void *ctx, size_t idx, int fd);
int finish_device(struct engine *g);

#endif
