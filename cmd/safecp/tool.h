/* tool.h: what the parts of the safecp command share (the library's
 * public headers are <safecp/...>; this one is the command's own).
 *
 *   safecp.c         the checks before the first byte, exit code
 *   safecp_options.c the command line, parsed and checked (safecp_options.h)
 *   safecp_run.c     the copy thread, signals, the polling loop
 *   safecp_events.c  the run's output: one struct events a destination
 *                    (events_private.h), with safecp_file_events.c (what
 *                    the copy job says), safecp_snapshot.c (the counters
 *                    read), safecp_bar.c (the bar, the rows of several
 *                    destinations) and safecp_endings.c (the last words)
 *   safecp_json.c    the --progress=json events
 *   safecp_words.c   plan problems and copy errors as sentences
 *   safecp_names.c   the destination's name rules as sentences
 *   safecp_dryrun.c  --dry-run: the plan and the target, nothing written
 *   safecp_sums.c    --checksum, --sums: the checksum lists
 *   safecp_identical.c  --skip-identical: what the destination holds already
 *   safecp_check*.c  --check: an existing copy read back (safecp_check.h)
 *   safecp_pack.c    --pack: the sources as one archive file
 *   safecp_features.c  --features: what the library can do
 *
 * Private to cmd/safecp*; lib/ knows nothing of it. */
#ifndef SAFECP_CMD_SAFECP_TOOL_H
#define SAFECP_CMD_SAFECP_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <time.h>

#include "common/cli.h" /* enum verbosity */
#include "common/json.h"
#include <safecp/copy_plan.h>
#include "common/progress.h"

/* Checksum names --checksum can give (the algorithms a list holds). */
#define SAFECP_CHECKSUMS_MAX 16

struct safecp_options {
	/* cp's operand rules */
	bool recursive, dereference, target_directory, no_target_directory, no_clobber;
	bool update, one_file_system; /* -u, -x: as cp */
	bool parents;              /* --parents: as cp */
	bool remove_destination;   /* --remove-destination: as cp */
	bool no_dereference, dereference_operands; /* -P, -H: as cp */
	const char *const *sources;
	size_t n_sources;
	const char *dest;          /* dests[0] */
	const char *dests[SAFECP_DESTINATIONS_MAX]; /* -t DIR, each one; or DEST */
	const char *beneath[SAFECP_DESTINATIONS_MAX]; /* dests[i]'s --beneath DIR, or NULL */
	size_t n_dests;
	const char *strategy;      /* --strategy as given (the library checks the
				    * name), or NULL: auto */
	uint64_t window;          /* --window; 0: derived from the target */
	enum progress_mode progress;
	FILE *events_out;          /* --events FILE: the JSON events there too, or NULL */
	enum verbosity verbosity;
	bool dry_run;
	bool keep_times;
	bool keep_mode;
	bool force;                /* -f: cp's; a copy replaces by rename anyway */
	bool interactive;          /* -i: asked during the plan (safecp_replacing.c) */
	bool debug;                /* --debug: -v and cp's line of how each file is written */
	bool backup_asked;         /* -b, --backup, -S */
	const char *backup_control; /* --backup=CONTROL, or NULL: $VERSION_CONTROL */
	const char *backup_suffix; /* -S, $SIMPLE_BACKUP_SUFFIX, or NULL: "~" */
	enum safecp_backup backup; /* as decided by replacing_validate() */
	bool rename_invalid;       /* --rename-invalid */
	bool verify;               /* --verify */
	bool verify_source;        /* --verify=source */
	bool mhl;                  /* --mhl */
	bool unmount, power_off;   /* --unmount, --power-off: after the copy */
	/* --checksum's names (xxh128 for --sums alone), each one the library
	 * lists (safecp_feature_value(SAFECP_FEATURE_CHECKSUMS)) */
	const char *checksums[SAFECP_CHECKSUMS_MAX];
	size_t n_checksums;
	const char *sums_prefix;   /* --sums, or NULL */
	const char *skip_identical; /* --skip-identical: "quick", "hash"; or NULL */
	const char *sparse;        /* --sparse: "auto", "always", "never"; or NULL */
	const char *check_dir;     /* --check DIR (safecp_check.c), or NULL */
	bool pack;                 /* --pack=FORMAT (safecp_pack.c) */
	const char *pack_format;   /* one of SAFECP_FEATURE_PACK's values */
	bool unpack;               /* --unpack: the sources are archives */
	bool skip_unsafe;          /* --skip-unsafe */
	bool system_disk;          /* --system-disk */
	bool no_resume;            /* --no-resume */
	/* -p, --preserve, --no-preserve (safecp_preserve.c): enum safecp_attr
	 * sets, what is kept, named explicitly, turned off */
	unsigned preserve, preserve_required, preserve_dropped;
	/* the run's copy (safecp.c): what was read and decided, the copy */
	struct safecp_copy *copy;
};

/* Everything decided before the first byte is the copy's, read through
 * <safecp/copy.h> and <safecp/copy_plan.h> by destination index. */

struct events;

/* A refusal of the copy with its detail (<safecp/copy.h>'s two calls),
 * as safecp reads them: safecp.c's refusal_get(), 0 or -ENOENT. */
struct refusal {
	enum safecp_refusal_kind kind;
	const char *name;
	size_t dest;
	const char *path, *path2;
	int err;
	uint64_t need, have;
	bool deferred;
	const char *rule;
	unsigned char ch;
	bool exists, pack_walk;
	enum safecp_record_problem problem;
	size_t line;
	const char *detail;
};
int refusal_get(const struct safecp_options *o, size_t i, struct refusal *ret);

/* safecp.c: one refusal before the first byte, in words on stderr and as
 * a JSON "refused" event of that kind. */
void report_refusal(const struct safecp_options *o, const char *kind, const char *msg);

/* safecp_place.c: a destination on the system disk or on no disk
 * refused (unless --system-disk), one on a fixed disk noted. */
void place_say(const struct safecp_options *o, size_t d, bool note, const char *kind);

/* safecp_unmount.c: --unmount, --power-off.  Before the first byte: each
 * destination resolved to what will be unmounted, the refusals said
 * (true: some).  After the copy: each destination with ok[i] unmounted
 * (and powered off), the others left mounted; the exit status. */
bool unmount_refusals(const struct safecp_options *o, size_t n);
int unmount_dests(const struct safecp_options *o, size_t n, const bool *ok);
void unmount_dests_done(void);

/* safecp_run.c: run the prepared copy o->copy to its n destinations;
 * returns the exit status. */
int run_copy(const struct safecp_options *o, size_t n);

/* safecp_sums.c: --checksum, --sums.  A list that cannot be written or
 * would replace a copied file (SAFECP_REFUSED_LIST*), in words; a list
 * event that is a warning. */
void sums_say(const struct safecp_options *o, const struct refusal *r);
void sums_warn(struct events *ev, const struct safecp_copy_event *e,
	       const struct safecp_event_detail *x);

/* safecp_mhl.c: --mhl.  A destination's ASC MHL history refused
 * (SAFECP_REFUSED_HISTORY*), in words. */
void mhl_say(const struct safecp_options *o, const struct refusal *r);

/* safecp_identical.c: --skip-identical's findings (an old list that
 * cannot be read, a history not used, a file judged identical that read
 * back different), as warnings. */
void identical_say(const struct safecp_options *o, const struct safecp_note *n);
/* safecp_resume.c: what preparing found of an interrupted copy's
 * partials (SAFECP_NOTE_RESUMED, SAFECP_NOTE_PARTIAL_DISCARDED), in
 * words; and destination d's kept bytes, the sum of its RESUMED notes. */
void resume_say(const struct safecp_options *o, const struct safecp_note *n);
uint64_t resume_bytes(const struct safecp_options *o, size_t d);

/* safecp_preserve.c: cp's -p, --preserve[=LIST], --no-preserve=LIST in
 * the order given (preserve_init first, preserve_validate after them);
 * preserve_set hands the result to
 * the copy (0 or -errno); the words of the note and the refusal for what
 * a destination's filesystem cannot hold (enum safecp_attr sets). */
void preserve_init(struct safecp_options *o);
void preserve_p(struct safecp_options *o);
void preserve_list(struct safecp_options *o, const char *list, bool on);
void preserve_archive(struct safecp_options *o);
void preserve_validate(struct safecp_options *o);
int preserve_set(const struct safecp_options *o, struct safecp_copy *c);

/* safecp_replacing.c: -b, --backup[=CONTROL], -S as given, then checked
 * against -n and made o->backup (replacing_validate; the strings given,
 * popt's, are kept there until exit); -i's question
 * (ask_replace, the library's callback); replacing_set hands both to the
 * copy (0 or -errno). */
void replacing_backup(struct safecp_options *o, char *control);
void replacing_suffix(struct safecp_options *o, char *suffix);
void replacing_validate(struct safecp_options *o);
int ask_replace(void *data, const char *source, const char *dest);
int replacing_set(const struct safecp_options *o, struct safecp_copy *c);
char *words_attrs(unsigned attrs, const char *last_joint);
char *words_not_kept(unsigned attrs);
char *words_preserve_refused(unsigned attrs, const char *where);
void preserve_say(const struct safecp_options *o, size_t d, unsigned attrs, bool refused);
/* safecp_file_events.c: "FAT", "exFAT", "NTFS", or the mount's type: a
 * stick's filesystem as its notes name it */
const char *words_fs_kind(const struct safecp_target_facts *t);

/* "same size and modification time", ...: the -v line's */
const char *identical_basis_words(enum safecp_identical_basis basis);
/* The -v line's words for an identical file: its basis, and whether and
 * how its copy was read back */
const char *identical_words(const struct safecp_entry *e);
/* Of destination d's identical files, those whose copy was read back and
 * matched (when it was prepared); *cached: some of them through the page
 * cache */
size_t identical_read_back_count(const struct safecp_options *o, size_t d,
				 const struct safecp_copy_plan *plan, bool *cached);

/* safecp_pack.c: --pack.  What the walk of the sources found: a source
 * that cannot be packed, a name unpacking would refuse (after n of them,
 * pack_unsafe_end() says nothing was written), one that is left out. */
void pack_say(const struct safecp_options *o, const struct refusal *r);
void pack_note(const struct safecp_options *o, const struct safecp_note *n);
void pack_unsafe_end(size_t n);
/* The archive failed because of a source (the feed's problem) or the
 * writer; PLAN_FILE_TOO_BIG of an archive. */
char *words_pack_failed(const struct safecp_options *o, const struct safecp_entry *archive,
			enum safecp_copy_step step, int err);
char *words_pack_too_big(const struct safecp_options *o, const struct refusal *p,
			 const struct safecp_target_facts *t);
/* safecp_unpack.c: --unpack.  What reading and checking the archives
 * found: one that cannot be read, the unsafe entries (each named, or
 * left out with --skip-unsafe), a spool without room. */
void unpack_say(const struct safecp_options *o, const struct refusal *r);
/* SKIP_UNSAFE: the entries left out, each named as a refusal would be. */
void unpack_note(const struct safecp_options *o);

/* safecp_features.c: --features, what the library can do, on stdout. */
void features_print(void);

/* safecp_dryrun.c: print the plan and the target on stdout. */
void dryrun_print(const struct safecp_options *o, size_t d);

/* safecp.c: the facts of destination d's target (<safecp/target.h>),
 * NULL when it was not probed; job_facts() of a prepared job, whose
 * place among the session's prepared destinations is its index. */
const struct safecp_target_facts *dest_facts(const struct safecp_options *o, size_t d);


/* safecp_words.c: sentences without the "safecp: " prefix; malloc'd,
 * NULL only when out of memory. t may be NULL (not probed yet). */
char *words_problem(const struct refusal *p, const struct safecp_target_facts *t);
/* vasprintf into a new string, or NULL (safecp_words.c) */
char *words_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *words_copy_error(const struct safecp_entry *e, enum safecp_copy_step step, int err,
		       const char *path, const struct safecp_target_facts *t, bool fatal);
char *words_sizing_refused(const struct safecp_options *o, const struct safecp_target_facts *t,
			   const struct safecp_write_plan *w);
/* "'/media/usb' (ext4 on /dev/sdb1)", "'/tmp' (tmpfs)" */
char *words_where(const struct safecp_target_facts *t);
/* safecp_names.c: a PLAN_NAME_* problem; a --rename-invalid note
 * ("'a:b.jpg' is written as 'a_b.jpg': exFAT does not allow ':'..."),
 * and its reason for JSON ("character", "reserved", ..., "clash"). */
char *words_name_problem(const struct refusal *p, const struct safecp_target_facts *t);
/* the closing line after n names refused for the destination dest */
char *words_names_refused(const struct safecp_target_facts *t, const char *dest, size_t n);
char *words_rename(const struct safecp_copy *c, size_t d, const struct safecp_rename *r,
		   const struct safecp_target_facts *t);
/* Why an entry is not copied; a note (malloc'd, NULL when out of memory). */
const char *words_skip_reason(enum safecp_skip_reason why);
/* sizing_plan()'s and the writer's reasons */
const char *words_sizing_reason(enum safecp_strategy_reason r);
const char *words_switch_reason(enum safecp_switch_reason r);
char *words_note(enum safecp_event_note kind, int err, uint64_t bytes);
/* "read", "create", "write", "sync", "rename", "attrs", "final-sync" */
const char *words_step_name(enum safecp_copy_step step);

/* One reading of the engine's counters, shared by the bar and JSON. */
struct snapshot {
	double t_real;       /* CLOCK_REALTIME, taken after the counters */
	uint64_t total, confirmed, written, files_done, files_failed;
	uint64_t identical;  /* files left alone as identical (the plan's) */
	const char *file;    /* the plan entry's rel (its events' copy), or NULL */
	int phase;           /* enum copy_phase */
	double rate, eta;    /* negative: unknown */
	bool verify;         /* --verify: the figures below count */
	uint64_t verified, files_verified, files_mismatched;
	uint64_t identical_verified; /* identical files read back and the same */
	bool verify_cached;  /* some read-back could not bypass the cache */
	bool pack;           /* --pack: the source figures below count */
	uint64_t packed, pack_total; /* source bytes packed, of all */
	bool device_idle;    /* the end: the device was seen idle */
	uint64_t device_busy; /* not seen idle: other data it was busy with */
	uint64_t resumed;    /* kept by an interrupted copy's partials */
	char label[96];      /* the bar's words after the sizes */
};

/* safecp_json.c: one event per call, a whole line, flushed.  Each
 * destination has its own stream: the writer and, with several
 * destinations, the directory as given, which its events then carry as
 * "dest" (NULL with one destination: today's fields). */
struct jsonev {
	struct json json;
	const char *dest;
};
void jsonev_init(struct jsonev *j, FILE *f, const char *dest);
void jsonev_start(struct jsonev *j, const struct safecp_copy *c, size_t d,
		  const struct safecp_target_facts *t);
void jsonev_progress(struct jsonev *j, const struct snapshot *s);
/* One destination's end, for the done event of several. */
struct dest_outcome {
	const char *dest;     /* as given */
	const char *outcome;  /* "ok", "failed", "interrupted" */
	const char *error;    /* what stopped it, or NULL */
	uint64_t files, errors, bytes_on_device, identical;
	const struct snapshot *snap; /* its verify figures */
};
/* d: NULL with one destination (today's fields), else n outcomes; src:
 * the source's figures at the end */
void jsonev_done(struct jsonev *j, const struct snapshot *s, const struct dest_outcome *d,
		 size_t n, const struct safecp_source_figures *src);
/* One of several destinations ended (line: its last words, or NULL). */
void jsonev_dest_done(struct jsonev *j, const struct snapshot *s, const struct dest_outcome *d,
		      const char *line);
void jsonev_file(struct jsonev *j, const struct safecp_entry *e, const char *state,
		 const char *reason);
/* A file started: "bytes_resumed", what an interrupted copy kept of it. */
void jsonev_file_started(struct jsonev *j, const struct safecp_entry *e, uint64_t resumed);
/* A file left alone as identical: state "skipped", reason (the word),
 * and how it was judged (identical_basis_name()). */
void jsonev_identical(struct jsonev *j, const struct safecp_entry *e, const char *reason,
		      const char *judged);
void jsonev_changed(struct jsonev *j, const struct safecp_entry *e, const char *msg);
void jsonev_error(struct jsonev *j, const struct safecp_entry *e, enum safecp_copy_step step,
		  int err,
		  const char *path, const char *msg, bool fatal);
void jsonev_note(struct jsonev *j, const char *path, const char *msg);
void jsonev_list(struct jsonev *j, const char *path, const char *alg, size_t files);
void jsonev_manifest(struct jsonev *j, const char *path, unsigned sequence, size_t files,
		     size_t unlisted);
void jsonev_strategy(struct jsonev *j, const struct safecp_entry *e, enum safecp_strategy s,
		     const char *why);
void jsonev_interrupted(struct jsonev *j, const struct snapshot *s, int signo);
void jsonev_stopped(struct jsonev *j, const struct snapshot *s);
void jsonev_refused(struct jsonev *j, const char *kind, const char *message);

/* safecp_events.c and the files events_private.h names: the run's
 * output, all from the main thread, from the copy's events and figures
 * (<safecp/copy.h>). */
struct events;

/* One per destination; the first (first NULL) owns the meter the others
 * share. */
int events_new(const struct safecp_options *o, size_t d, struct events *first,
	       struct events **ret);
void events_tag_dest(struct events *ev);
/* The copy started: its figures can be read. */
void events_started(struct events *ev);
/* Several destinations: one ended with this result (copy_job_finished). */
void events_dest_finished(struct events *ev, int result);
/* Several destinations: all ended (signo: the interrupting signal, or 0). */
void events_job_done(struct events *ev, const struct safecp_source_figures *src, int signo);
void events_free(struct events *ev);
/* A checksum list was written, or could not be (err: errno). */
void events_list_written(struct events *ev, const char *path, const char *alg, size_t files);
void events_list_failed(struct events *ev, const char *path, int err);
/* An ASC MHL generation was written, or could not be. */
void events_manifest_written(struct events *ev, const char *path, unsigned sequence,
			     size_t files, size_t unlisted);
void events_manifest_failed(struct events *ev, const char *path, int err);
/* What the copy job said (copy_job_poll()), about ev's destination. */
void events_handle(struct events *ev, const struct safecp_copy_event *e,
		   const struct safecp_event_detail *x);
/* The start event, and with -v the strategy line. */
void events_start(struct events *ev);
/* A poll tick of the main thread: the bar, a progress event. */
void events_tick(struct events *ev);
/* The source's figures for the next tick (several destinations) and,
 * the last time, for the done event. */
void events_source(struct events *ev, const struct safecp_source_figures *src);
/* copy_run() returned this many failed files (>= 0): all else is durable. */
void events_done(struct events *ev, int failed);
/* A signal came: the bar ends where it stands (its line closed, no more
 * redraws) while the job cancels; the last words come once, after. */
void events_cancelling(struct events *ev);
/* copy_run() returned -ECANCELED after signal signo. */
void events_interrupted(struct events *ev, int signo);
/* copy_run() returned -errno on a destination error it already reported. */
void events_stopped(struct events *ev, int err);
/* A message line that does not garble the bar: "safecp: " + text. */
void events_warn(struct events *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
