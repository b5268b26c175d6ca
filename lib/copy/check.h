/* check.h: an existing copy read back from its device and compared with what
 * a manifest (ASC MHL) or checksum lists say it holds.
 *
 * The reference is a check_list: per relative path the digest of one
 * algorithm, the cheapest the reference has (the enum order of checksum.h:
 * xxh128 first, c4 last; one matching digest is enough), its size when the
 * reference gives one, and whether the manifest already recorded the file as
 * failed (it counts as differing, unread).  check_input.c fills one from a
 * manifest or from list files.
 *
 * The job reads every listed file on a thread of its own.  DIR may be on a
 * stick someone else wrote: each file is opened with openat2(2) beneath the
 * directory (RESOLVE_BENEATH: no absolute path, no ".." out of it), with no
 * symlink followed anywhere on the path (RESOLVE_NO_SYMLINKS,
 * RESOLVE_NO_MAGICLINKS), O_NONBLOCK and O_NOCTTY so that a fifo or a
 * terminal planted there cannot block or take us over, and it must be a
 * regular file.  It is then read as read_back.h reads a verified copy: from
 * the device, not the page cache (O_DIRECT, or its pages dropped and proved
 * gone, or on FUSE the block device's cache dropped and proved, which needs
 * the device node: root); what could not bypass the cache is counted, not
 * hidden.
 *
 * The caller polls the counters and reads each file's outcome once
 * files_done has passed it, or polls the job's queue, which wakes it once
 * per outcome that became final and once at the end (its fd can go into a
 * poll loop); the job never calls back. */
#ifndef SAFECP_CHECK_H
#define SAFECP_CHECK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "copy/read_back.h"
#include "device/target.h"
#include "hash/checksum.h"

/* One file the reference lists. */
struct check_entry {
	char *path;              /* relative to DIR */
	uint64_t size;           /* when has_size */
	bool has_size;
	bool failed_before;      /* the manifest's newest action for it is "failed" */
	enum checksum_alg alg;   /* the cheapest algorithm the reference has for it */
	char digest[CHECKSUM_TEXT_MAX];
};

struct check_list {
	struct check_entry *entries; /* sorted by path (strcmp) after check_list_finish() */
	size_t n, cap;
};

void check_list_init(struct check_list *l);
void check_list_free(struct check_list *l);
/* One digest of PATH (several calls for one path merge: the cheapest
 * algorithm is kept, a size or a failed mark from any of them counts).
 * SIZE: UINT64_MAX when the reference gives none.  0, -EINVAL (a digest of
 * the wrong length), -ENOMEM. */
int check_list_add(struct check_list *l, const char *path, enum checksum_alg alg,
		   const char *digest, uint64_t size, bool failed);
/* Sorts and merges what was added; call once, before check_job_start(). */
void check_list_finish(struct check_list *l);

/* What a file turned out to be.  Every kind but CHECK_MATCH is a problem;
 * CHECK_UNREADABLE is the one that says nothing about the content. */
enum check_result {
	CHECK_MATCH,
	CHECK_DIFFERS,        /* read whole, the digest is another */
	CHECK_SIZE_DIFFERS,   /* not the listed size (not read) */
	CHECK_FAILED_BEFORE,  /* the manifest says it failed (not read) */
	CHECK_MISSING,        /* no such file (ENOENT, ENOTDIR on its path) */
	CHECK_SYMLINK,        /* a symlink on its path: not followed (ELOOP) */
	CHECK_OUTSIDE,        /* the path leads out of DIR (EXDEV): not opened */
	CHECK_NOT_REGULAR,    /* a directory, a fifo, a device...: not read */
	CHECK_UNREADABLE,     /* open or read failed: err */
	CHECK_RESULT_COUNT,
};

/* "match", "differs", "size-differs", "failed-before", "missing", "symlink",
 * "outside", "not-regular", "unreadable": format words for JSON and traces. */
const char *check_result_name(enum check_result r);

struct check_outcome {
	enum check_result result;
	int err;                /* errno, for CHECK_UNREADABLE */
	uint64_t size;          /* the size found (0 when not opened) */
	enum readback_how how;  /* how it was read, when it was */
	bool read;              /* it was read back (how is valid) */
};

/* Written by the job, read by the caller at any time. */
struct check_stats {
	_Atomic uint64_t files_total;
	_Atomic uint64_t bytes_total;  /* listed sizes, else the sizes found first */
	_Atomic uint64_t bytes_done;   /* through the files done and the one being read */
	_Atomic uint64_t bytes_read;   /* read back from the device */
	_Atomic uint64_t files_done;   /* outcomes [0, files_done) are final */
	_Atomic uint64_t count[CHECK_RESULT_COUNT];
	_Atomic size_t current;        /* the entry being checked */
	_Atomic unsigned hows;         /* bit (1u << enum readback_how) per way seen */
	_Atomic bool sized;            /* bytes_total is complete */
};

struct check_job;

/* Checks every entry of L (finished, outliving the job) beneath DIR, whose
 * facts T gives (target_probe(DIR); the FUSE device cache is dropped through
 * T's device node).  0 with the running job in *ret, or -errno (DIR cannot
 * be opened, no memory, no thread). */
int check_job_start(const char *dir, const struct target *t, const struct check_list *l,
		    struct check_job **ret);
const struct check_stats *check_job_stats(const struct check_job *j);
/* Entry i's outcome, final once files_done > i. */
const struct check_outcome *check_job_outcome(const struct check_job *j, size_t i);
/* What check_job_poll() returns: entry index's outcome became final, or
 * the job ended (end: every outcome it reached was returned before). */
struct check_event {
	bool end;
	size_t index;
};

/* Readable while an event waits (the job's own: never close it). */
int check_job_fd(const struct check_job *j);
/* The next event, in entry order, END last and once: 1; 0 when none came
 * in timeout_ms (0: do not wait, -1: until one comes); -EINTR. */
int check_job_poll(struct check_job *j, int timeout_ms, struct check_event *ret);

/* Whether the thread has ended; then *result (may be NULL) is 0, or
 * -ECANCELED after check_job_cancel(). */
bool check_job_done(const struct check_job *j, int *result);
/* Stops at the next block read; the files not reached keep no outcome. */
void check_job_cancel(struct check_job *j);
/* Cancels a running job, waits for its thread, frees.  NULL is fine. */
void check_job_free(struct check_job *j);

#endif
