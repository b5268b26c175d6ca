/* safecp/copy.h: a copy to removable media whose progress counts only
 * what the device confirmed and which ends when nothing is left to write.
 *
 *	struct safecp_copy *c;
 *	safecp_copy_new(SAFECP_COPY_RECURSIVE | SAFECP_COPY_KEEP_TIMES, &c);
 *	safecp_copy_add_source(c, "DCIM");
 *	safecp_copy_add_dest(c, "/media/usb");       several: each at its own pace
 *	if (safecp_copy_prepare(c) == 0 && safecp_copy_start(c) == 0)
 *		until SAFECP_EVENT_DEST_END of each destination:
 *			safecp_copy_poll(c, 1000, &ev) ... safecp_copy_progress(c, 0, &p);
 *	safecp_copy_free(c);
 *
 * Everything is checked before the first byte (prepare): refusals come
 * back as kinds, all of them.  A file gets its final name only once it is
 * durable on the device; cancelled or failed, nothing partial is left
 * under a final name.  The library runs its own threads; the caller polls
 * one queue (safecp_copy_fd() for its own poll loop), from any one thread
 * at a time.  It installs no signal handler: a caller that wants Ctrl-C
 * calls safecp_copy_cancel().  Errors are negative errno values or kinds,
 * never words.  doc/api.md holds the contract. */
#ifndef SAFECP_COPY_API_H
#define SAFECP_COPY_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <safecp/check.h>
#include <safecp/safecp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct safecp_copy;

/* The most destinations one copy writes (safecp_max_destinations() says
 * the same at run time), for arrays sized at compile time. */
#define SAFECP_DESTINATIONS_MAX 16

/* What cp would do (the flags of safecp(1) of the same names). */
enum safecp_copy_flags {
	SAFECP_COPY_RECURSIVE = 1 << 0,      /* -r */
	SAFECP_COPY_DEREFERENCE = 1 << 1,    /* -L */
	SAFECP_COPY_TARGET_DIRECTORY = 1 << 2, /* -t: the destination is a directory */
	SAFECP_COPY_NO_TARGET_DIRECTORY = 1 << 3, /* -T */
	SAFECP_COPY_NO_CLOBBER = 1 << 4,     /* -n: existing files are kept */
	SAFECP_COPY_KEEP_TIMES = 1 << 5,     /* the sources' modification times */
	SAFECP_COPY_KEEP_MODE = 1 << 6,      /* the permission bits */
	SAFECP_COPY_VERIFY = 1 << 7,         /* read every file back from the device
					      * before it gets its name */
	SAFECP_COPY_VERIFY_SOURCE = 1 << 8,  /* and the source again, past its cache */
	SAFECP_COPY_RENAME_INVALID = 1 << 9, /* names the stick cannot hold get one it can */
	SAFECP_COPY_SYSTEM_DISK = 1 << 10,   /* a destination on the system disk or on
					      * no disk is meant (else refused) */
	SAFECP_COPY_MHL = 1 << 11,           /* an ASC MHL generation in each
					      * destination, continuing its history */
	SAFECP_COPY_SKIP_UNSAFE = 1 << 12,   /* unpack: unsafe entries are left out
					      * (notes) instead of refusing the copy */
	SAFECP_COPY_DRY_RUN = 1 << 13,       /* prepare only: not even the unnamed file
					      * that asks whether direct I/O works */
	SAFECP_COPY_RESUME = 1 << 14,        /* (0.3.0) large files are written as
					      * resumable partials, which a stopped copy
					      * keeps (hidden, with a record, noted in this
					      * machine's state) and the next copy of the
					      * same files goes on from (safecp(1), RESUME
					      * INSIDE A FILE); without it such partials
					      * are removed as stale temporaries */
	SAFECP_COPY_KEEP_LINKS = 1 << 15,    /* (0.5.0) cp's --preserve=links: files with
					      * several names in the tree keep them as one
					      * file where the destination can (hard links:
					      * each further name made once the first is
					      * durable); elsewhere copies, in the note
					      * SAFECP_NOTE_NOT_KEPT (SAFECP_ATTR_LINKS)
					      */
	SAFECP_COPY_ONE_FILE_SYSTEM = 1 << 16, /* (0.5.0) -x: a directory on another
						* filesystem than its source operand's
						* is copied empty */
	SAFECP_COPY_UPDATE = 1 << 17,        /* (0.5.0) -u: an existing file is replaced
					      * only when older than its source, as the
					      * destination keeps times */
	SAFECP_COPY_DEREFERENCE_OPERANDS = 1 << 18, /* (0.5.0) -H: a symbolic link named as
						     * a source is followed, also with
						     * RECURSIVE (links below are not) */
	SAFECP_COPY_NO_DEREFERENCE = 1 << 19, /* (0.5.0) -P: a symbolic link named as a
					       * source is copied as a link, also
					       * without RECURSIVE */
	SAFECP_COPY_PARENTS = 1 << 20,       /* (0.5.0) --parents: a source goes to
					      * DEST/its path (without '.' parts;
					      * '..' refused), the directories on it
					      * made as the source's; DEST must be
					      * a directory */
	SAFECP_COPY_REMOVE_DESTINATION = 1 << 21, /* (0.5.0) cp's --remove-destination:
					      * a replaced file is as if removed
					      * first: the copy gets a new file's
					      * mode, a link there is replaced,
					      * not followed */
};

/* A copy with these flags: 0, or -errno (-EINVAL: a flag this library
 * does not know). */
int safecp_copy_new(unsigned flags, struct safecp_copy **ret);

/* Paths are copied.  -EBUSY after prepare; -E2BIG past
 * safecp_max_destinations(). */
int safecp_copy_add_source(struct safecp_copy *c, const char *path);
int safecp_copy_add_dest(struct safecp_copy *c, const char *dir);
/* dir, reached from the directory beneath without a symbolic link, a
 * ".." or a mount on the way (dir must be written as beneath/...). */
int safecp_copy_add_dest_beneath(struct safecp_copy *c, const char *dir, const char *beneath);

/* More of safecp(1), each before prepare: 0; -EINVAL for a value this
 * library does not know (safecp_feature_value() lists the names) or a
 * second mode; -EBUSY after prepare. */

/* How bytes are written: "auto" (the default: chosen from the device),
 * "direct" (O_DIRECT), "window" (bounded write-behind), "sync-window"
 * (a window closed by fdatasync); window: bytes a window holds (0: sized
 * from the device's queue limits). */
int safecp_copy_set_strategy(struct safecp_copy *c, const char *strategy, uint64_t window);
/* Checksums of every file from the one read of it: n names of
 * SAFECP_FEATURE_CHECKSUMS ("xxh128", "sha256", ...); with list_prefix
 * one list PREFIX.ALG of each, its lines relative to the destination
 * (`cd DEST && sha256sum -c PREFIX.sha256`); NULL: no lists.  With
 * skip_identical, the lists a run before wrote there are read too. */
int safecp_copy_set_checksums(struct safecp_copy *c, const char *const *algs, size_t n,
			      const char *list_prefix);
/* Files a destination holds already are left alone: "quick" (the same
 * size and modification time, or a record of the run before vouches),
 * "hash" (the same content). */
int safecp_copy_set_skip_identical(struct safecp_copy *c, const char *how);
/* Holes, as cp's --sparse: "auto" (the default: where the source file
 * has holes), "always" (also for whole blocks of zeros in its data),
 * "never" (every byte written).  A destination whose filesystem keeps no
 * holes (FAT, exFAT) gets zeros written for them, always. */
int safecp_copy_set_sparse(struct safecp_copy *c, const char *when);
/* The sources as one archive on each destination, of a format of
 * SAFECP_FEATURE_PACK ("tar", "tar.zst", "zip", ...). */
int safecp_copy_set_pack(struct safecp_copy *c, const char *format);
/* The sources are archives: their entries are copied, every one checked
 * before the first byte.  spool_dir: where entries read out of the
 * archives' order wait (NULL: $TMPDIR if absolute, else /var/tmp). */
int safecp_copy_set_unpack(struct safecp_copy *c, const char *spool_dir);

/* (0.5.0) The attributes of cp's --preserve and --no-preserve. */
enum safecp_attr {
	SAFECP_ATTR_MODE = 1 << 0,       /* the permission bits and POSIX ACLs (default
					  * ACLs of directories too) */
	SAFECP_ATTR_OWNERSHIP = 1 << 1,  /* owner and group (chown: root; without it
					  * the group where it is one of the caller's);
					  * with it setuid, setgid and sticky are kept */
	SAFECP_ATTR_TIMESTAMPS = 1 << 2, /* atime and mtime, of directories and
					  * symbolic links too, to the filesystem's step */
	SAFECP_ATTR_LINKS = 1 << 3,      /* hard links: not kept yet (-EOPNOTSUPP) */
	SAFECP_ATTR_XATTR = 1 << 4,      /* extended attributes (user.*; as root also
					  * trusted.* and security.*), but what
					  * /etc/xattr.conf skips */
	SAFECP_ATTR_CONTEXT = 1 << 5,    /* the SELinux context: none is kept; asked
					  * for as required, -EOPNOTSUPP */
	SAFECP_ATTR_ACL = 1 << 6,        /* only in what a note or refusal says is not
					  * kept: the ACLs SAFECP_ATTR_MODE asks */
};
/* What each file, symbolic link and directory keeps of its source
 * (cp's --preserve): keep, a set of enum safecp_attr, replaces what the
 * flags KEEP_TIMES and KEEP_MODE said.  required: those of keep named
 * explicitly (cp's --preserve=LIST): a destination whose filesystem
 * cannot hold one is refused before the first byte
 * (SAFECP_REFUSED_PRESERVE); the others it cannot hold are said in one
 * note (SAFECP_NOTE_NOT_KEPT), and the copy goes on.  dropped: cp's
 * --no-preserve: SAFECP_ATTR_MODE gives a new file 0666 (a directory
 * 0777) less the umask instead of the source's bits less the umask.
 * Without SAFECP_ATTR_MODE a file that replaces another keeps that one's
 * permission bits, as cp's write in place does (0.4.0 gave 0666 less the
 * umask to every file).  0; -EOPNOTSUPP for LINKS in keep or CONTEXT in
 * required; -EINVAL for a bit this library does not know; -EBUSY after
 * prepare. */
int safecp_copy_set_preserve(struct safecp_copy *c, unsigned keep, unsigned required,
			     unsigned dropped);

/* (0.5.0) cp's -i: during safecp_copy_prepare(), on its thread, ask(data,
 * source, dest) is called for each file or symlink that would replace one
 * at a destination (once per destination; not for one left alone already:
 * NO_CLOBBER, UPDATE, identical).  It returns 1 to replace it, 0 to leave
 * the one there (counted as kept, as NO_CLOBBER keeps it), or a negative
 * errno, which stops prepare and is its result.  So every question is
 * answered before the first byte.  ask NULL: none asked.  0; -EBUSY after
 * prepare. */
typedef int (*safecp_copy_ask_fn)(void *data, const char *source, const char *dest);
int safecp_copy_set_ask_replace(struct safecp_copy *c, safecp_copy_ask_fn ask, void *data);

/* (0.5.0) cp's --backup: what a file or symlink the copy replaces is kept
 * as.  It gets its backup name, durably, before the new one takes its
 * name (a backup of the same name is replaced, as cp does). */
enum safecp_backup {
	SAFECP_BACKUP_NONE = 0,
	SAFECP_BACKUP_SIMPLE,     /* NAME + suffix */
	SAFECP_BACKUP_EXISTING,   /* numbered where NAME has numbered backups, else simple */
	SAFECP_BACKUP_NUMBERED,   /* NAME.~N~, one past the highest N in its directory */
};
/* suffix: SIMPLE's, NULL for "~".  0; -EINVAL for an unknown how, an empty
 * suffix or one with '/', or with NO_CLOBBER (cp: they exclude each
 * other); -EBUSY after prepare. */
int safecp_copy_set_backup(struct safecp_copy *c, enum safecp_backup how, const char *suffix);

enum safecp_refusal_kind {
	SAFECP_REFUSED_OTHER = 0,        /* a kind this header does not name */
	SAFECP_REFUSED_SOURCE_MISSING,   /* path; err */
	SAFECP_REFUSED_SOURCE_UNREADABLE, /* path; err */
	SAFECP_REFUSED_OMIT_DIRECTORY,   /* path: a directory without RECURSIVE */
	SAFECP_REFUSED_SAME_FILE,        /* path, path2 */
	SAFECP_REFUSED_INTO_ITSELF,      /* path, path2 */
	SAFECP_REFUSED_DEST_NOT_DIR,     /* path2 */
	SAFECP_REFUSED_DEST_MISSING,     /* path, path2: the missing directory; err */
	SAFECP_REFUSED_TYPE_CLASH,       /* path, path2: a directory onto a file */
	SAFECP_REFUSED_NO_SPACE,         /* path2; need, have: bytes */
	SAFECP_REFUSED_FILE_TOO_BIG,     /* path, path2; need, have: the fs's limit */
	SAFECP_REFUSED_NO_INODES,        /* path2; need, have */
	SAFECP_REFUSED_NAME,             /* path, path2: a name the filesystem cannot
					  * hold (rule, ch) */
	SAFECP_REFUSED_DEST_UNWRITABLE,  /* path2; err */
	SAFECP_REFUSED_SYSTEM_DISK,      /* the destination is on the system's disk */
	SAFECP_REFUSED_NO_DISK,          /* on no disk: memory or a network */
	SAFECP_REFUSED_STRATEGY,         /* the write strategy cannot work there
					  * (safecp_copy_write_plan()'s reason) */
	SAFECP_REFUSED_SOURCE_CHANGED,   /* path: the sources changed while they were
					  * planned (NULL: between two destinations) */
	SAFECP_REFUSED_DEST_NOT_BENEATH, /* path, path2: a link (err ELOOP), ".." or
					  * mount (EXDEV) on the way */
	SAFECP_REFUSED_PACK_SOURCE,      /* reserved: a source that cannot be packed
					  * comes as the copy's kinds, with pack_walk */
	SAFECP_REFUSED_PACK_NAME,        /* path: a source whose name (or path2, whose
					  * link's target) unpacking would refuse */
	SAFECP_REFUSED_ARCHIVE,          /* path: an archive that cannot be read (name:
					  * "archive-unreadable", "-format", "-damaged",
					  * "-too-many", "-names-too-large"); err; need:
					  * entries read; have: the bound passed; detail:
					  * libarchive's words, or NULL */
	SAFECP_REFUSED_UNSAFE_ENTRIES,   /* need: how many (safecp_copy_unsafe_entry()) */
	SAFECP_REFUSED_SPOOL,            /* path: the spool; need, have: bytes; err */
	SAFECP_REFUSED_LIST,             /* path: a checksum list whose folder cannot be
					  * opened (err), or the --sums prefix that names
					  * a folder (err 0) */
	SAFECP_REFUSED_LIST_CLASH,       /* path: a list that would replace a copied file */
	SAFECP_REFUSED_HISTORY_OVERLAP,  /* path, path2: a source that would land in the
					  * ASC MHL history folder */
	SAFECP_REFUSED_HISTORY,          /* path: the damaged file in path2's ascmhl
					  * folder ("" for the folder); err; the detail's
					  * problem and line */
	SAFECP_REFUSED_HISTORY_CHAIN,    /* path2: the history's newest manifest is not
					  * the one its chain records */
	SAFECP_REFUSED_SOURCE_TWICE,     /* path, path2: one file given twice */
	SAFECP_REFUSED_LOOP,             /* path, path2: a directory reached again (DEREFERENCE) */
	SAFECP_REFUSED_NONDIR_ONTO_DIR,  /* path, path2: a file onto a directory */
	SAFECP_REFUSED_DEST_CLASH,       /* path, path2: two sources, one destination */
	SAFECP_REFUSED_NAME_TOO_LONG,    /* path; err */
	SAFECP_REFUSED_NAME_RESERVED,    /* path, path2: a device name on Windows */
	SAFECP_REFUSED_NAME_CLASH,       /* path, path2: names the filesystem holds as
					  * one (exists: path2 is there already) */
	SAFECP_REFUSED_PRESERVE,         /* (0.5.0) path2: the destination; need: the
					  * attributes required (enum safecp_attr) that
					  * its filesystem cannot hold ("preserve") */
	SAFECP_REFUSED_DEST_DANGLING,    /* (0.5.0) path, path2: a file onto a symbolic
					  * link that leads nowhere, as cp refuses it
					  * (REMOVE_DESTINATION replaces the link) */
};

struct safecp_refusal {
	enum safecp_refusal_kind kind;
	const char *name;   /* the kind as a stable identifier ("no-space", ...) */
	size_t dest;        /* the destination, in the order added (0 for what is
			     * about no destination: the sources, the lists) */
	const char *path;   /* NULL where the kind has none; valid until free */
	const char *path2;
	int err;            /* an errno value, or 0 */
	uint64_t need, have;
};

/* More of refusal i (0.2.0), filled up to size bytes (pass sizeof: a
 * later version appends fields, and a program built against this header
 * still gets the ones it knows).  0, or -ENOENT past the last. */
struct safecp_refusal_detail {
	/* names and space: collected from every destination, so one round
	 * of fixes does; the others stop the preparation where found */
	bool deferred;
	/* SAFECP_REFUSED_NAME: the rule ("character", "encoding", "too-long",
	 * "trailing", "empty"), and for "character" the first refused byte */
	const char *rule;
	unsigned char ch;
	bool exists;        /* SAFECP_REFUSED_NAME_CLASH: path2 is there already */
	bool pack_walk;     /* found walking the sources to pack (DEST_CLASH: two
			     * sources, one name in the archive) */
	enum safecp_record_problem problem; /* SAFECP_REFUSED_HISTORY */
	size_t line;        /* its line, 0 when unknown */
	const char *detail; /* SAFECP_REFUSED_ARCHIVE: libarchive's words, or NULL */
};
int safecp_copy_refusal_detail(const struct safecp_copy *c, size_t i,
			       struct safecp_refusal_detail *ret, size_t size);

/* Plan and check every destination, writing nothing.  0: ready;
 * a positive count of refusals (safecp_copy_refusal()); -errno. */
int safecp_copy_prepare(struct safecp_copy *c);
/* Where prepare stopped when it returned -errno (something could not
 * even be examined), and the destination it was at. */
enum safecp_prepare_stage {
	SAFECP_STAGE_SOURCES = 0,  /* the arguments */
	SAFECP_STAGE_OLD_LISTS,    /* the lists of a run before (SKIP_IDENTICAL) */
	SAFECP_STAGE_PACK_WALK,    /* walking the sources to pack */
	SAFECP_STAGE_UNPACK_RULES, /* checking the archives' entries */
	SAFECP_STAGE_UNPACK_FEED,  /* planning their bytes */
	SAFECP_STAGE_PLAN,         /* planning the destination */
	SAFECP_STAGE_EXAMINE,      /* what it is */
	SAFECP_STAGE_SPACE,        /* its free space */
	SAFECP_STAGE_PLACE,        /* which disk it is on */
	SAFECP_STAGE_NAMES,        /* its name rules */
	SAFECP_STAGE_IDENTICAL,    /* what it holds already */
	SAFECP_STAGE_CHECK,        /* the plan against its space */
	SAFECP_STAGE_LISTS,        /* the lists and manifests beside the copy */
	SAFECP_STAGE_RESUME,       /* (0.3.0) a stopped copy's partials and their
				    * sources' prefixes */
};
/* 0 with *stage and *dest set after a prepare that failed; -ENOENT. */
int safecp_copy_prepare_failure(const struct safecp_copy *c, enum safecp_prepare_stage *stage,
				size_t *dest);

/* Refusal i into ret: 0, or -ENOENT past the last.  The notes and the
 * unsafe entries below (0.2.0) are filled up to size bytes (pass sizeof:
 * a later version appends fields, and a program built against this
 * header still gets the ones it knows). */
int safecp_copy_refusal(const struct safecp_copy *c, size_t i, struct safecp_refusal *ret);

/* What preparing noted without refusing. */
enum safecp_note_kind {
	SAFECP_NOTE_OTHER = 0,           /* a kind this header does not name */
	SAFECP_NOTE_FIXED_DISK,          /* the destination is on a fixed disk */
	SAFECP_NOTE_LEFT_OUT,            /* path: a source neither file, directory nor
					  * link, not packed; or count: unsafe entries
					  * left out (SKIP_UNSAFE) */
	SAFECP_NOTE_OLD_LIST,            /* path: a list of a run before not read (err),
					  * or count of its lines not read */
	SAFECP_NOTE_HISTORY_NOT_USED,    /* path: a history skip_identical cannot use */
	SAFECP_NOTE_READ_BACK_DIFFERS,   /* path: a file judged identical that read back
					  * different: copied again */
	SAFECP_NOTE_RESUMED,             /* (0.3.0) path, entry, count: a stopped copy's
					  * partial of it goes on from count bytes
					  * (claimed: what its record said; less where
					  * the source differs there) */
	SAFECP_NOTE_PARTIAL_DISCARDED,   /* (0.3.0) path, entry, why: a stopped copy's
					  * partial that cannot be resumed; the file
					  * is copied whole */
	SAFECP_NOTE_NOT_KEPT,            /* (0.5.0) path: the destination; count: the
					  * attributes asked (enum safecp_attr) that its
					  * filesystem cannot hold: the copies get its
					  * defaults ("not-kept") */
};

struct safecp_note {
	enum safecp_note_kind kind;
	const char *name;   /* a stable identifier ("fixed-disk", ...) */
	size_t dest;
	const char *path;   /* or NULL; valid until free */
	int err;
	uint64_t count;
	/* SAFECP_NOTE_HISTORY_NOT_USED: the file in the history folder
	 * ("" for the folder), what is wrong with it, its line (0 unknown) */
	const char *file;
	enum safecp_record_problem problem;
	size_t line;
	size_t entry;       /* READ_BACK_DIFFERS: the entry (safecp_copy_entry());
			     * SIZE_MAX for the others */
	uint32_t mode;      /* LEFT_OUT of a source: its st_mode */
	/* 0.3.0 */
	uint64_t claimed;   /* RESUMED: the bytes the partial's record claimed */
	/* PARTIAL_DISCARDED: "record" (unreadable, not our form), "source" (of
	 * another source or file), "machine" (not written by this machine),
	 * "prefix" (its first chunk is not the source's), "chunk" (another
	 * chunk size), "partial" (not a file of ours, or shorter than its
	 * record), "read-back" (VERIFY: its first chunk read back from the
	 * device is not what was written); NULL for the others */
	const char *why;
	uint64_t rewritten; /* RESUMED with VERIFY: of what the source matched, the
			     * bytes that read back different from the device
			     * (from the first such chunk on): written again */
};

/* Finding i of all that preparing found, in the order found: a refusal
 * (*refuses) or a note, and which (safecp_copy_refusal()'s or
 * safecp_copy_note()'s index).  0, or -ENOENT past the last. */
int safecp_copy_finding(const struct safecp_copy *c, size_t i, bool *refuses, size_t *index);

/* Note i into ret: 0, or -ENOENT past the last. */
int safecp_copy_note(const struct safecp_copy *c, size_t i, struct safecp_note *ret,
		     size_t size);

/* SAFECP_REFUSED_UNSAFE_ENTRIES (or SAFECP_NOTE_LEFT_OUT's count): entry
 * i of those refused, its name as the archive holds it (cut to a bound:
 * its first bytes) and why ("absolute", "dotdot", "link-escapes", ...,
 * as safecp's JSON).  0, or -ENOENT past the last. */
struct safecp_unsafe_entry {
	const char *archive;
	const char *name;   /* cut when longer than the bound kept: cut */
	const char *why;
	size_t length;      /* the whole name's bytes in the archive */
	bool cut;
	const char *link;   /* a symbolic or hard link's target, or NULL */
	const char *other;  /* the entry it passes through or duplicates, or NULL */
	/* "special-file": "char-device", "block-device", "fifo", "socket",
	 * "other"; NULL for the others */
	const char *special;
	uint32_t mode;      /* its permission bits (07777) */
};
int safecp_copy_unsafe_entry(const struct safecp_copy *c, size_t i,
			     struct safecp_unsafe_entry *ret, size_t size);

/* After prepare: destination d's bytes to write and files to copy. */
int safecp_copy_planned(const struct safecp_copy *c, size_t d, uint64_t *bytes, uint64_t *files);

int safecp_copy_start(struct safecp_copy *c);

enum safecp_copy_event_kind {
	SAFECP_EVENT_FILE_STARTED = 1,  /* path, source */
	SAFECP_EVENT_FILE_DONE,         /* path: durable under its final name */
	SAFECP_EVENT_FILE_WITHDRAWN,    /* path: read back different at the end, removed */
	SAFECP_EVENT_SKIPPED,           /* path, source: kept (-n), or not a regular
					 * file, directory or symbolic link */
	SAFECP_EVENT_ERROR,             /* path, err; fatal: the destination stopped,
					 * else that file is not copied, the rest goes on */
	SAFECP_EVENT_NOTE,              /* path: something to know that is not a failure */
	SAFECP_EVENT_DEST_END,          /* the destination's last event: its result
					 * is in safecp_copy_result() */
	SAFECP_EVENT_OTHER,             /* a kind this header does not name */
	SAFECP_EVENT_STRATEGY,          /* a file's writer changed strategy midway */
	SAFECP_EVENT_LIST_WRITTEN,      /* path: a checksum list, durable */
	SAFECP_EVENT_LIST_FAILED,       /* path, err: the copy stands, the list does not */
	SAFECP_EVENT_LIST_LEFT_OUT,     /* path: a list whose format cannot hold a name */
	SAFECP_EVENT_LIST_UNKNOWN,      /* path: files left alone as identical whose
					 * checksum nobody has (not in the last list) */
	SAFECP_EVENT_MANIFEST_WRITTEN,  /* path: an ASC MHL generation, durable */
	SAFECP_EVENT_MANIFEST_FAILED,   /* path, err */
};

struct safecp_copy_event {
	enum safecp_copy_event_kind kind;
	size_t dest;
	const char *path;     /* the destination path, or NULL; valid until the
			       * next poll or free */
	const char *source;   /* the source path, or NULL; as path */
	int err;              /* an errno value, or 0 */
	int fatal;
};

/* The descriptor that is readable while an event waits (the copy's own:
 * never close it); -1 before start. */
int safecp_copy_fd(const struct safecp_copy *c);
/* The next event: 1; 0 when none came in timeout_ms (0: do not wait,
 * -1: until one comes); -EINTR on a signal; -errno. */
int safecp_copy_poll(struct safecp_copy *c, int timeout_ms, struct safecp_copy_event *ret);

enum safecp_strategy {
	SAFECP_STRATEGY_AUTO = 0,    /* to be chosen (never a plan's) */
	SAFECP_STRATEGY_WINDOW,      /* bounded write-behind windows */
	SAFECP_STRATEGY_DIRECT,      /* O_DIRECT chunks */
	SAFECP_STRATEGY_SYNC_WINDOW, /* windows each closed by fdatasync */
};
/* "auto", "window", "direct", "sync-window"; NULL for another value. */
const char *safecp_strategy_name(enum safecp_strategy s);
/* The strategy of that name: 0, or -EINVAL. */
int safecp_strategy_from_name(const char *name, enum safecp_strategy *ret);

/* What failed (ERROR). */
enum safecp_copy_step {
	SAFECP_STEP_READ = 0,       /* the source: that file is left out */
	SAFECP_STEP_CREATE,
	SAFECP_STEP_WRITE,
	SAFECP_STEP_SYNC,
	SAFECP_STEP_RENAME,         /* giving it its name (path_given: the temporary) */
	SAFECP_STEP_ATTRS,          /* its times and mode: a note, not a failure */
	SAFECP_STEP_FINAL_SYNC,
	SAFECP_STEP_CHANGED,        /* the source changed while it was copied */
	SAFECP_STEP_VERIFY,         /* VERIFY: read back different (EBADMSG) or unreadable */
	SAFECP_STEP_SOURCE_VERIFY,  /* VERIFY_SOURCE: the source read again differed */
	SAFECP_STEP_NAME_CLASH,     /* EEXIST: its name was taken when it was to get it
				     * (path_given: the file there, or NULL) */
	SAFECP_STEP_BACKUP,         /* (0.5.0) set_backup: the file there could not get
				     * its backup name; it is left, the new one not named */
	SAFECP_STEP_LINK,           /* (0.5.0) KEEP_LINKS: a further name of a file whose
				     * first name (path_given) was not copied */
};
/* Why an entry is not copied (SKIPPED). */
enum safecp_skip_reason {
	SAFECP_SKIP_KEPT = 0,       /* NO_CLOBBER: it exists */
	SAFECP_SKIP_IDENTICAL,      /* the destination holds it already */
	SAFECP_SKIP_APPEARED,       /* NO_CLOBBER: it appeared during the copy */
	SAFECP_SKIP_FIFO,
	SAFECP_SKIP_SOCKET,
	SAFECP_SKIP_DEVICE,
	SAFECP_SKIP_OTHER,          /* not a file, directory or symbolic link */
};
/* What a NOTE event says. */
enum safecp_event_note {
	SAFECP_NOTE_STALE_REMOVED = 0, /* path: an interrupted copy's temporary; bytes freed */
	SAFECP_NOTE_STALE_KEPT,        /* path: one that could not be removed (err); bytes */
	SAFECP_NOTE_NO_MODES,          /* path: the filesystem stores no file modes */
	SAFECP_NOTE_VERIFY_CACHED,     /* path: a read-back could not bypass the page cache */
	SAFECP_NOTE_PARTIAL_KEPT,      /* (0.3.0) path: the copy stopped in this file; bytes
					* of it are kept hidden for the next copy, which
					* goes on from there */
	SAFECP_NOTE_ATTRS_NOT_KEPT,    /* (0.5.0) path: the first file whose attributes
					* the filesystem refused as such; count: which
					* (enum safecp_attr), once each per destination */
};
/* Why a writer changed strategy (STRATEGY). */
enum safecp_switch_reason {
	SAFECP_SWITCH_DIRECT_REFUSED = 0, /* the filesystem refused O_DIRECT on this file */
	SAFECP_SWITCH_DEVICE_DIRTY,       /* dirty data grew in the device's cache (FUSE) */
	SAFECP_SWITCH_FELL_BACK,          /* O_DIRECT writes left dirty pages */
};

/* The details of the event the last poll returned, valid until the next
 * poll; filled up to size bytes (pass sizeof): 0, or -ENOENT when no
 * event was polled. */
struct safecp_event_detail {
	size_t entry;             /* the entry it is about (safecp_copy_entry()), or
				   * SIZE_MAX */
	const char *path_given;   /* the path the library named, or NULL when it
				   * named only the entry */
	enum safecp_copy_step step;     /* ERROR */
	enum safecp_skip_reason skip;   /* SKIPPED */
	enum safecp_event_note note;    /* NOTE */
	uint64_t bytes;                 /* NOTE; FILE_STARTED: the bytes a stopped copy's
					 * partial kept, not written again (0.3.0) */
	enum safecp_strategy strategy;  /* STRATEGY: the one it switched to */
	enum safecp_switch_reason switch_reason;
	const char *algorithm;    /* LIST_*: "sha256", ... */
	const char *name;         /* LIST_LEFT_OUT: the name left out */
	uint64_t count;           /* LIST_WRITTEN, LIST_UNKNOWN, MANIFEST_WRITTEN: files */
	unsigned sequence;        /* MANIFEST_WRITTEN: its generation */
	uint64_t unlisted;        /* MANIFEST_WRITTEN: files it could not list */
};
int safecp_copy_event_detail(const struct safecp_copy *c, struct safecp_event_detail *ret,
			     size_t size);

struct safecp_copy_progress {
	uint64_t bytes_total;     /* to write (it can grow: a file that grew) */
	uint64_t bytes_written;   /* handed to the kernel */
	uint64_t bytes_confirmed; /* the device completed them: the honest figure */
	uint64_t files_done;      /* durable under their names */
	uint64_t files_failed;
	int syncing;              /* every file is written; the last sync and the
				   * wait for the device to go idle run */
};
int safecp_copy_progress(const struct safecp_copy *c, size_t d, struct safecp_copy_progress *ret);

enum safecp_copy_phase {
	SAFECP_PHASE_START = 0,
	SAFECP_PHASE_COPYING,
	SAFECP_PHASE_RECHECK,      /* VERIFY: files named earlier read back again */
	SAFECP_PHASE_FINAL_SYNC,   /* the filesystem synced */
	SAFECP_PHASE_WAIT_IDLE,    /* the device writes what the filesystem wrote last */
	SAFECP_PHASE_DONE,
};
/* Destination d's figures past safecp_copy_progress()'s, filled up to
 * size bytes.  0, or -ENOENT before start or past the last. */
struct safecp_copy_figures {
	enum safecp_copy_phase phase;
	size_t current;           /* the entry being written */
	uint64_t bytes_verified;  /* VERIFY: read back and compared */
	uint64_t files_verified, files_mismatched;
	bool verify_cached;       /* some read-back could not bypass the page cache */
	bool device_idle;         /* the end: the device was seen idle */
	uint64_t device_busy;     /* not seen idle: other data it was busy with */
	uint64_t bytes_resumed;   /* (0.3.0) kept by a stopped copy's partials: in
				   * bytes_written and bytes_confirmed from the start */
};
int safecp_copy_figures(const struct safecp_copy *c, size_t d, struct safecp_copy_figures *ret,
			size_t size);

/* The sources' figures, for all destinations: filled up to size bytes. */
struct safecp_source_figures {
	uint64_t bytes_read;      /* every read, second reads included */
	uint64_t bytes_reread;    /* second reads: a destination that fell behind */
	unsigned detached;        /* destinations that went on from a second read */
	uint64_t mismatches;      /* chunks a second read found different */
	uint64_t packed, pack_total; /* PACK: source bytes in the archive, of all */
};
int safecp_copy_source_figures(const struct safecp_copy *c, struct safecp_source_figures *ret,
			       size_t size);
/* PACK: the source that failed the archive (err: its read's errno, 0: it
 * changed); false if none did. */
bool safecp_copy_pack_failed(const struct safecp_copy *c, const char **source, int *err);
/* After every destination ended: the checksum lists on no destination's
 * filesystem (each destination wrote its own before its last sync); their
 * events are queued.  How many failed. */
unsigned safecp_copy_write_lists(struct safecp_copy *c);

/* Every destination ended.  Their events are all queued by then: poll
 * with timeout 0 until it returns 0 to have the last of them. */
int safecp_copy_done(const struct safecp_copy *c);
/* Destination d: -ENOENT before start or past the last; -EBUSY while it
 * runs; 0 everything copied and durable; a positive count of files that
 * failed (the rest is durable); -ECANCELED;
 * -errno when the destination stopped (its temporaries removed). */
int safecp_copy_result(const struct safecp_copy *c, size_t d);

/* Stop every destination; returns at once (async-signal-safe). */
void safecp_copy_cancel(struct safecp_copy *c);
/* Cancel what runs, wait for its threads, free. */
void safecp_copy_free(struct safecp_copy *c);

#ifdef __cplusplus
}
#endif

#endif
