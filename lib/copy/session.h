/* session.h: a copy from its arguments to its end, in the shape of the
 * unmount job (unmount/job.h):
 *
 *	copy_session_new(&opts, &s);
 *	copy_session_add_source(s, "DCIM");       as many as there are
 *	copy_session_add_dest(s, "/media/usb", NULL);  up to COPY_DESTS_MAX
 *	copy_session_prepare(s, &failed);  everything checked before the first
 *	                           byte: what it found comes back as kinds
 *	                           (struct copy_finding), nothing is written
 *	copy_session_start(s, NULL);
 *	until each destination's COPY_EVENT_DEST_END:
 *		copy_session_poll(s, 100, &ev) ... copy_session_stats(s, d) ...
 *	copy_session_cancel(s);     from any thread, or a signal's waker
 *	copy_session_free(s);
 *
 * A plain copy, --pack (the sources as one archive on each destination)
 * and --unpack (the sources are archives, every entry checked first) are
 * modes of it.  The session owns its threads; the caller polls one queue
 * (its fd can go into the caller's own poll loop).  Nothing is printed,
 * no signal handler is installed, no option names or words: errors are
 * -errno or a kind.  The checksum lists and ASC MHL manifests written
 * beside the copy are the session's too (lists.h). */
#ifndef SAFECP_SESSION_H
#define SAFECP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive/pack_writer.h"
#include "archive/unpack_list.h"
#include "copy/copy.h"
#include "copy/identical.h"
#include "copy/judge.h"
#include "copy/mhl_record.h"
#include "copy/plan.h"
#include "copy/plan_names.h"
#include "copy/resume.h"
#include "copy/sums_index.h"
#include "device/target.h"
#include "device/target_place.h"
#include "io/sizing.h"

enum copy_mode {
	COPY_MODE_COPY = 0,   /* the sources, as cp copies them */
	COPY_MODE_PACK,       /* the sources as one archive (pack_format) */
	COPY_MODE_UNPACK,     /* the sources are archives: their entries */
};

struct copy_session_options {
	enum copy_mode mode;
	struct plan_options plan;      /* -r, -L, -t, -T, -n (beneath: per destination) */
	enum write_strategy strategy;  /* STRATEGY_AUTO to choose */
	uint64_t window;               /* 0: derived from the device */
	bool keep_times;
	bool keep_mode;
	/* issue 29, cp's --preserve beyond times and mode (copy.h) */
	bool keep_owners;
	bool keep_xattrs;
	bool drop_mode;
	unsigned meta_required;        /* META_* named explicitly (--preserve=LIST):
				        * refused where the filesystem cannot hold
				        * them; the others asked are a note there */
	bool verify;                   /* read every file back before it is named */
	bool verify_source;
	bool rename_invalid;           /* names the stick cannot hold get one it can */
	bool system_disk;              /* a destination on the system disk or on no
				        * disk is meant (else refused) */
	bool dry_run;                  /* prepare only: not even the O_DIRECT probe's
				        * unnamed file is made */
	enum pack_format pack_format;  /* COPY_MODE_PACK */
	bool skip_unsafe;              /* COPY_MODE_UNPACK: refused entries are left
				        * out (notes) instead of refusing the run */
	const char *spool_dir;         /* COPY_MODE_UNPACK: where entries read out of
				        * the archives' order wait; NULL: /var/tmp */
	/* the digests the one read computes; with sums_prefix, one list
	 * PREFIX.ALG of each, its lines relative to the destination */
	checksum_set checksums;
	const char *sums_prefix;       /* NULL: no lists; with skip_identical, the
				        * lists of a run before are read there too */
	bool manifests;                /* an ASC MHL generation in each destination */
	enum identical_mode skip_identical; /* 0, or which files are left alone */
	bool no_resume;                /* large files are not written as resumable
				        * partials, and kept ones are not resumed
				        * (they go as stale temporaries) */
	plan_ask_fn ask_replace;       /* -i: asked of each file that would replace
				        * one (plan_ask_replace()), or NULL */
	void *ask_data;
};

/* What preparing found, in the order found: refusals (the session cannot
 * start), and notes (something to know that changes nothing). */
enum copy_finding_kind {
	COPY_REFUSED_PLAN,         /* problem: the plan's (plan.h, plan_names.h kinds) */
	COPY_REFUSED_SYSTEM_DISK,  /* on the disk the system runs from (place) */
	COPY_REFUSED_NO_DISK,      /* on no disk: tmpfs, a network (place) */
	COPY_REFUSED_STRATEGY,     /* the strategy asked cannot work here (reason) */
	COPY_REFUSED_SOURCE_CHANGED, /* the sources changed between two destinations' plans */
	COPY_REFUSED_PACK_SOURCES, /* problem: the sources cannot be packed (plan kinds;
				    * PLAN_OK with err: reading them failed) */
	COPY_REFUSED_PACK_NAME,    /* entry: a name (or a link's target, link_target)
				    * that unpacking would refuse */
	COPY_REFUSED_UNPACK_SCAN,  /* archive: it cannot be read (unpack_list()'s error) */
	COPY_REFUSED_UNPACK_ENTRIES, /* count: unsafe entries (those of unpack_list()
				      * whose refusal is set) */
	COPY_REFUSED_UNPACK_SPOOL, /* path, need, have, err: the spool has no room */
	COPY_REFUSED_LIST_NAME,    /* path: the sums prefix names a directory */
	COPY_REFUSED_LIST_DIR,     /* path, err: a list's directory cannot be opened */
	COPY_REFUSED_LIST_CLASH,   /* path, dest: a list would replace a copied file */
	COPY_REFUSED_HISTORY_OVERLAP, /* dest, entry: a source lands in the ascmhl folder */
	COPY_REFUSED_HISTORY_DAMAGED, /* dest, history: the ASC MHL history is unreadable */
	COPY_REFUSED_HISTORY_CHAIN, /* dest: the chain does not vouch for the newest
				     * manifest (another C4 ID) */
	COPY_REFUSED_PRESERVE,     /* dest, attrs: attributes named explicitly that
				    * its filesystem cannot hold (issue 29) */
	COPY_NOTE_FIXED_DISK,      /* dest: on a fixed disk, not a removable one */
	COPY_NOTE_PACK_SKIPPED,    /* entry: a source that is no file, dir or link */
	COPY_NOTE_UNPACK_SKIPPED,  /* count: unsafe entries left out (skip_unsafe) */
	COPY_NOTE_LIST_UNREADABLE, /* path, err (EINVAL: not a regular file): an old
				    * list --skip-identical cannot use */
	COPY_NOTE_LIST_BAD_LINES,  /* path, count: lines of an old list unread */
	COPY_NOTE_HISTORY,         /* dest, judge: an ASC MHL history not used */
	COPY_NOTE_READ_BACK_DIFFERS, /* dest, entry: an identical file read back
				      * different: copied again, or kept (-n) */
	COPY_NOTE_RESUMED,         /* dest, entry, count: a stopped copy's partial goes
				    * on from count bytes (need: what its record
				    * claimed; less where the source differs; have:
				    * --verify, the bytes that read back different
				    * from the device and are written again) */
	COPY_NOTE_PARTIAL_DISCARDED, /* dest, entry, resume: a stopped copy's partial
				      * that cannot be resumed; the file is copied whole */
	COPY_NOTE_META_LOST,       /* dest, attrs: attributes asked (-p, all) that its
				    * filesystem cannot hold: the copies get its
				    * defaults, once for the run (issue 29) */
};

struct copy_finding {
	enum copy_finding_kind kind;
	size_t dest;
	/* names and space: shown after a dry run's plan; the others stop
	 * the preparation of later destinations where they are found */
	bool deferred;
	const struct plan_problem *problem; /* PLAN, PACK_SOURCES; the session's */
	struct target_placement place;      /* SYSTEM_DISK, NO_DISK, FIXED_DISK */
	enum sizing_reason reason;          /* STRATEGY */
	size_t entry;                       /* PACK_*: the pack tree's;
					     * READ_BACK_DIFFERS: the plan's */
	size_t archive;                     /* UNPACK_SCAN: the source's index */
	const char *path;                   /* LIST_*: the session's */
	int err;
	uint64_t need, have, count;
	const struct judge_result *judge;   /* NOTE_HISTORY */
	const struct mhl_read_problem *history; /* HISTORY_DAMAGED: the session's */
	enum resume_outcome resume;         /* PARTIAL_DISCARDED: why */
	unsigned attrs;                     /* PRESERVE, META_NOT_KEPT: META_* */
};

/* What was decided for one destination (copy_session_prepared()). */
struct copy_prepared {
	const char *dest_arg;        /* the destination as given */
	struct plan *plan;
	struct target *target;
	struct target_placement place; /* which disk target is on */
	struct fs_space space;
	uint64_t space_needed;
	struct dio_caps dio;
	struct write_plan wplan;
	struct plan_problem refusal; /* PLAN_OK, or why plan_check said no */
	struct plan_names names;     /* name rule problems, or the renames */
	/* --skip-identical by the ASC MHL history: the record judged by (the
	 * manifest carries its entries of the files left alone), or NULL */
	struct mhl_record *identical_mhl;
	struct recorded_sums identical_rec;
	unsigned meta_lost;          /* META_* asked that its filesystem cannot hold */
};

/* Where preparing stopped on an error that is no refusal. */
enum copy_prepare_stage {
	COPY_STAGE_SOURCES,   /* the arguments (-EINVAL: none, or prepared twice) */
	COPY_STAGE_OLD_LISTS, /* reading the lists of a run before */
	COPY_STAGE_PACK_WALK, /* walking the sources to pack (dest: the source
			       * from which on) */
	COPY_STAGE_UNPACK_RULES, /* checking the archives' entries */
	COPY_STAGE_UNPACK_FEED,  /* planning their bytes */
	COPY_STAGE_PLAN,      /* planning dest */
	COPY_STAGE_EXAMINE,   /* what dest is (target_probe) */
	COPY_STAGE_SPACE,     /* its free space */
	COPY_STAGE_PLACE,     /* which disk it is on */
	COPY_STAGE_NAMES,     /* its name rules */
	COPY_STAGE_IDENTICAL, /* what it holds already (--skip-identical) */
	COPY_STAGE_CHECK,     /* the plan against its space */
	COPY_STAGE_LISTS,     /* the lists and manifests beside the copy */
	COPY_STAGE_RESUME,    /* the partials of a stopped copy, and their sources */
};

struct copy_prepare_failure {
	enum copy_prepare_stage stage;
	size_t dest;
};

struct copy_session;

/* 0, or -errno. */
int copy_session_new(const struct copy_session_options *o, struct copy_session **ret);
/* The options replaced (strings are the caller's: they must outlive the
 * session).  -EBUSY once prepared. */
int copy_session_set_options(struct copy_session *s, const struct copy_session_options *o);
/* Paths are copied.  -EBUSY once prepared; -E2BIG past COPY_DESTS_MAX. */
int copy_session_add_source(struct copy_session *s, const char *path);
/* beneath: NULL, or the root dir must be reached beneath (plan.h). */
int copy_session_add_dest(struct copy_session *s, const char *dir, const char *beneath);

/* Read the sources (the archives, the pack's walk), then plan and check
 * every destination (its plan, what it is, the disk it is on, names,
 * what it holds already, space, strategy), then where the checksum lists
 * go and the ASC MHL histories they continue.  0: ready to start; a
 * positive count of refusals among the findings; -errno: something
 * could not even be examined (*failed says what; the findings so far
 * stay readable; the session cannot start).  A refusal that is not
 * deferred stops there, after the destination it was found for; the
 * deferred ones (names, space) are collected from every destination,
 * so one round of fixes does. */
int copy_session_prepare(struct copy_session *s, struct copy_prepare_failure *failed);
size_t copy_session_n_findings(const struct copy_session *s);
/* A refusal (the session cannot start), not a note. */
bool copy_finding_refuses(const struct copy_finding *f);
const struct copy_finding *copy_session_finding(const struct copy_session *s, size_t i);

/* After prepare: the destinations planned (the first n of those added;
 * fewer when a refusal stopped the preparation). */
size_t copy_session_n_prepared(const struct copy_session *s);
const struct copy_prepared *copy_session_prepared(const struct copy_session *s);
/* Destination d's plan, NULL past those prepared. */
const struct plan *copy_session_plan(const struct copy_session *s, size_t d);
/* The sources as read: the pack's walk (NULL in other modes), the
 * archives' entries (NULL unless unpacking), the entries an unsafe
 * --unpack leaves out. */
const struct source_tree *copy_session_pack_tree(const struct copy_session *s);
const struct unpack_list *copy_session_unpack_list(const struct copy_session *s);
size_t copy_session_unpack_skipped(const struct copy_session *s);
/* Source i as added (UNPACK_SCAN's archive), NULL past the last. */
const char *copy_session_source_path(const struct copy_session *s, size_t i);

/* Start the copy (prepare returned 0).  0, or -errno. */
int copy_session_start(struct copy_session *s);
int copy_session_event_fd(const struct copy_session *s);
/* As copy_job_poll(); before start: 0 at once. */
int copy_session_poll(struct copy_session *s, int timeout_ms, struct copy_event *ret);
/* Destination d's counters, readable at any time after start. */
const struct copy_stats *copy_session_stats(const struct copy_session *s, size_t d);
/* The source's figures (copy_job_source()); the pack's bytes packed so
 * far and of all (0 and 0 unless packing). */
void copy_session_source(const struct copy_session *s, struct copy_source_stats *ret);
void copy_session_packed(const struct copy_session *s, uint64_t *packed, uint64_t *total);
/* The pack's failed source (pack_feed_problem()); false if none. */
bool copy_session_pack_problem(const struct copy_session *s, size_t *entry, int *err);
/* Every destination finished (the last events may still be queued). */
bool copy_session_done(const struct copy_session *s);
/* As copy_job_finished(). */
bool copy_session_result(const struct copy_session *s, size_t d, int *result);
/* The lists no destination holds, written after every destination
 * finished (copy_job_write_lists()): how many failed. */
unsigned copy_session_write_lists(struct copy_session *s);
void copy_session_cancel(struct copy_session *s);
/* Cancel what runs, join, free everything. */
void copy_session_free(struct copy_session *s);

#endif
