/* safecp/check.h: an existing copy read back from its device and compared
 * with what its record says it holds.
 *
 *	struct safecp_check *c;
 *	safecp_check_new(0, &c);
 *	safecp_check_set_dir(c, "/media/usb/DCIM");
 *	safecp_check_set_sums(c, "/media/usb/DCIM.sums");   else DIR/ascmhl
 *	if (safecp_check_prepare(c) == 0 && safecp_check_start(c) == 0)
 *		until SAFECP_CHECK_EVENT_END:
 *			safecp_check_poll(c, 1000, &ev) ... safecp_check_progress(c, &p);
 *	safecp_check_free(c);
 *
 * The record is the newest ASC MHL generation in DIR/ascmhl (with, for
 * the paths it does not list, the older generations its chain vouches
 * for), or the checksum lists PREFIX.ALG (xxhsum -c, sha256sum -c; every
 * algorithm whose list exists).  Either may come from someone else's
 * stick: one that is hostile or damaged is refused whole, with a kind, the
 * file and its line, never a part used; a record that lists no file is
 * refused too (a check that read nothing must not pass).  Each listed file
 * is opened beneath DIR without following a symbolic link, must be a
 * regular file of the listed size, and is read from the device, not from
 * the page cache, where the kernel lets it; what could not bypass the
 * cache is said, not hidden.
 *
 * The library runs its own thread; the caller polls one queue
 * (safecp_check_fd() for its own poll loop), from any one thread at a
 * time.  It installs no signal handler: a caller that wants Ctrl-C calls
 * safecp_check_cancel().  Errors are negative errno values or kinds,
 * never words.  doc/api.md holds the contract. */
#ifndef SAFECP_CHECK_API_H
#define SAFECP_CHECK_API_H

#include <stddef.h>
#include <stdint.h>

#include <safecp/safecp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct safecp_check;

/* A check; flags: 0 (none is defined yet), else -EINVAL.  0, or -errno. */
int safecp_check_new(unsigned flags, struct safecp_check **ret);

/* The directory the copy was made to (copied).  -EBUSY after prepare. */
int safecp_check_set_dir(struct safecp_check *c, const char *dir);
/* Check against the lists PREFIX.ALG rather than DIR/ascmhl (copied).
 * -EBUSY after prepare. */
int safecp_check_set_sums(struct safecp_check *c, const char *prefix);

enum safecp_check_refusal_kind {
	SAFECP_CHECK_REFUSED_OTHER = 0,      /* a kind this header does not name */
	SAFECP_CHECK_REFUSED_DIR,            /* path: DIR cannot be examined; err */
	SAFECP_CHECK_REFUSED_NO_HISTORY,     /* path: DIR/ascmhl, which holds no
					      * ASC MHL history (and no lists set) */
	SAFECP_CHECK_REFUSED_HISTORY,        /* path: DIR/ascmhl, or the file in it,
					      * refused; problem, line, err */
	SAFECP_CHECK_REFUSED_MANIFEST_CHANGED, /* path: the newest manifest, whose
					      * C4 ID is not the one the chain
					      * records: changed after it was written */
	SAFECP_CHECK_REFUSED_NO_LISTS,       /* path: the prefix; no PREFIX.ALG exists */
	SAFECP_CHECK_REFUSED_LIST,           /* path: a list that cannot be used;
					      * problem, line, err */
	SAFECP_CHECK_REFUSED_EMPTY,          /* path: DIR; the record lists no file */
};

/* What is wrong with a record's file. */
enum safecp_record_problem {
	SAFECP_RECORD_NONE = 0,     /* the refusal is not about a file's content */
	SAFECP_RECORD_OTHER,        /* a problem this header does not name */
	SAFECP_RECORD_IO,           /* it cannot be opened or read: err */
	SAFECP_RECORD_NOT_REGULAR,  /* a symbolic link, a directory, a device... */
	SAFECP_RECORD_TOO_BIG,      /* larger than any manifest is */
	SAFECP_RECORD_DOCTYPE,      /* a DOCTYPE, which ASC MHL files never have */
	SAFECP_RECORD_MALFORMED,    /* not well-formed XML (a truncated file?) */
	SAFECP_RECORD_NOT_MHL,      /* not an ASC MHL v2 file */
	SAFECP_RECORD_BAD_VALUE,    /* a value not of the schema's form */
	SAFECP_RECORD_BAD_PATH,     /* a path absolute or out of the folder */
	SAFECP_RECORD_DUPLICATE,    /* a path or a sequence number twice */
	SAFECP_RECORD_BAD_CHAIN,    /* a chain link whose file name or number is wrong */
	SAFECP_RECORD_BAD_LINE,     /* a line that is no line of such a list */
	SAFECP_RECORD_NO_MEMORY,
};

/* "io", "doctype", "bad-line", ...; NULL for SAFECP_RECORD_NONE or a
 * value the library does not know. */
const char *safecp_record_problem_name(enum safecp_record_problem p);

struct safecp_check_refusal {
	enum safecp_check_refusal_kind kind;
	const char *name;         /* the kind as a stable identifier ("no-history", ...) */
	const char *path;         /* valid until free */
	enum safecp_record_problem problem;
	const char *problem_name; /* "doctype", "bad-line", ...; NULL for none */
	size_t line;              /* 1-based line of path, 0 when unknown */
	int err;                  /* an errno value, or 0 */
};

/* Examine DIR and read its record, reading no file of the copy.  0:
 * ready; a positive count of refusals (today at most one: each step
 * needs the one before); -EINVAL without a directory; -errno. */
int safecp_check_prepare(struct safecp_check *c);
/* Refusal i into ret: 0, or -ENOENT past the last. */
int safecp_check_refusal(const struct safecp_check *c, size_t i,
			 struct safecp_check_refusal *ret);

/* After a prepare that returned 0 (else -ENOENT): what the files are
 * checked against. */
struct safecp_check_reference {
	int mhl;                /* 1: an ASC MHL history; 0: checksum lists */
	const char *manifest;   /* its newest manifest's file name in DIR/ascmhl/,
				 * or NULL */
	size_t lists;           /* the lists found (safecp_check_list()), or 0 */
	size_t files;           /* the files listed, each checked once */
};
int safecp_check_reference(const struct safecp_check *c, struct safecp_check_reference *ret);

struct safecp_check_list {
	const char *path;       /* PREFIX.ALG */
	const char *algorithm;  /* "xxh128", "sha256", ... */
	size_t files;           /* the lines it holds */
};
/* List i into ret: 0, or -ENOENT past the last. */
int safecp_check_list(const struct safecp_check *c, size_t i, struct safecp_check_list *ret);
/* The i-th algorithm the files are compared by, cheapest first (one
 * digest a file is enough); NULL past the last. */
const char *safecp_check_algorithm(const struct safecp_check *c, size_t i);

/* After prepare (else -ENOENT): where DIR is. */
struct safecp_check_place {
	const char *path;        /* DIR resolved */
	const char *mountpoint;  /* or NULL */
	const char *fstype;      /* the mount's type ("vfat", "fuseblk"), or NULL */
	const char *format;      /* the filesystem on the device where the mount's
				  * type does not name it (a FUSE mount's "exfat"),
				  * or NULL */
	const char *device;      /* the block device ("/dev/sdb1"), or NULL: on none */
	int device_cache;        /* the filesystem reads through the device's page
				  * cache (FUSE): reading past it needs the device
				  * node, which needs root */
};
int safecp_check_place(const struct safecp_check *c, struct safecp_check_place *ret);

/* Read the files back in the library's thread: 0, or -errno (-ENOENT,
 * -ENOTDIR: DIR went away; -EINVAL: not prepared, or refused). */
int safecp_check_start(struct safecp_check *c);

/* What a file turned out to be.  Every kind but MATCH is a problem;
 * UNREADABLE is the one that says nothing about the content. */
enum safecp_check_outcome {
	SAFECP_CHECK_MATCH = 0,
	SAFECP_CHECK_DIFFERS,        /* read whole: the digest is another */
	SAFECP_CHECK_SIZE_DIFFERS,   /* not the listed size (not read) */
	SAFECP_CHECK_FAILED_BEFORE,  /* the manifest says its copy failed (not read) */
	SAFECP_CHECK_MISSING,        /* no such file */
	SAFECP_CHECK_SYMLINK,        /* a symbolic link on its path: not followed */
	SAFECP_CHECK_OUTSIDE,        /* its path leads out of DIR: not opened */
	SAFECP_CHECK_NOT_REGULAR,    /* a directory, a fifo, a device...: not read */
	SAFECP_CHECK_UNREADABLE,     /* opening or reading it failed: err */
};
/* "match", "differs", "size-differs", "failed-before", "missing",
 * "symlink", "outside", "not-regular", "unreadable"; NULL for a value the
 * library does not know (a caller lists them by counting up from 0). */
const char *safecp_check_outcome_name(enum safecp_check_outcome o);

/* How a file was read back. */
enum safecp_read_back {
	SAFECP_READ_BACK_DIRECT = 0,     /* O_DIRECT: past the page cache */
	SAFECP_READ_BACK_DROPPED,        /* its cached pages dropped and proved gone */
	SAFECP_READ_BACK_DEVICE_DROPPED, /* FUSE: the device's cache dropped, proved empty */
	SAFECP_READ_BACK_CACHED,         /* the cache could not be bypassed */
};
/* "direct", "dropped", "device-dropped", "cached"; NULL for another value. */
const char *safecp_read_back_name(enum safecp_read_back how);

enum safecp_check_event_kind {
	SAFECP_CHECK_EVENT_FILE = 1, /* a file's outcome, in the record's path order */
	SAFECP_CHECK_EVENT_END,      /* the last event: the result is in
				      * safecp_check_result() */
	SAFECP_CHECK_EVENT_OTHER,    /* a kind this header does not name */
};

struct safecp_check_event {
	enum safecp_check_event_kind kind;
	size_t index;              /* FILE: its place in the record, from 0 */
	const char *path;          /* FILE: as the record lists it, relative to
				    * DIR; valid until free */
	enum safecp_check_outcome outcome;
	const char *outcome_name;  /* safecp_check_outcome_name(outcome) */
	const char *algorithm;     /* the digest compared ("xxh128") */
	uint64_t size;             /* the size found (0 when not opened) */
	uint64_t listed_size;      /* the record's, or UINT64_MAX when it has none */
	int err;                   /* an errno value, or 0 */
	int read;                  /* it was read back, and how says how */
	enum safecp_read_back how;
};

/* The descriptor that is readable while an event waits (the check's own:
 * never close it); -1 before start. */
int safecp_check_fd(const struct safecp_check *c);
/* The next event: 1; 0 when none came in timeout_ms (0: do not wait, -1:
 * until one comes; none comes after END; before start, 0 at once); -EINTR
 * on a signal; -errno. */
int safecp_check_poll(struct safecp_check *c, int timeout_ms, struct safecp_check_event *ret);

struct safecp_check_progress {
	uint64_t files_total;   /* the files the record lists */
	uint64_t files_done;    /* whose outcome is final */
	uint64_t bytes_total;   /* the listed sizes, else those found */
	uint64_t bytes_done;    /* through the files done and the one being read */
	uint64_t bytes_read;    /* read back from the device */
	int sized;              /* bytes_total is complete (else an estimate) */
	const char *file;       /* the one being checked, relative to DIR, or
				 * NULL; valid until free */
	unsigned read_back;     /* bit (1u << enum safecp_read_back) per way seen */
};
/* 0, or -ENOENT before start. */
int safecp_check_progress(const struct safecp_check *c, struct safecp_check_progress *ret);
/* Files of outcome o so far (0 before start, or for an unknown value). */
uint64_t safecp_check_count(const struct safecp_check *c, enum safecp_check_outcome o);

/* The thread ended.  Its events are all queued by then: poll with
 * timeout 0 until END to have the last of them. */
int safecp_check_done(const struct safecp_check *c);
/* -ENOENT before start; -EBUSY while it runs; 0 every file matches; a
 * positive count of files that do not; -ECANCELED. */
int safecp_check_result(const struct safecp_check *c);

/* Stop at the next block read; returns at once (async-signal-safe). */
void safecp_check_cancel(struct safecp_check *c);
/* Cancel what runs, wait for its thread, free. */
void safecp_check_free(struct safecp_check *c);

#ifdef __cplusplus
}
#endif

#endif
