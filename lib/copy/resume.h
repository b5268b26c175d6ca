/* resume.h: which large files of a copy are written as resumable
 * partials (dest_file.h), and from where each destination's copy of one
 * goes on, decided before the first byte.
 *
 * Per destination (resume_plan_build): every file the plan writes that
 * is larger than its digest chunk (partial_record.h) is written as a
 * partial.  Where the plan's stale scan found a partial of that name in
 * the file's directory (not locked by a running copy), it is looked at as
 * the untrusted input it is: its record read (bounded, this user's, one
 * link, not followed), of this file's name, of this source (size, mtime
 * to the ns, its own name, and its inode where the source's filesystem is
 * the same), in this copy's chunk size, and written by this machine
 * (partial_state.h); the partial itself this user's, one link, at least
 * as long as the record claims.  Anything else is discarded: it stays a
 * stale temporary, which the engine removes, and the file is copied
 * whole.
 *
 * Then, once for every destination (resume_check_sources): each source
 * with a partial somewhere is read up to the longest claim, and every
 * chunk's digest compared with each record; a destination goes on from
 * the end of the last chunk that matched.  A source read is cheap next to a stick write.
 * Without --verify the kept prefix itself is not read back from the
 * device: it is trusted as far as the digests recorded when it was
 * written match the source. */
#ifndef SAFECP_RESUME_H
#define SAFECP_RESUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "copy/partial_record.h"

struct plan;
struct target;

enum resume_outcome {
	RESUME_NEW = 0,          /* no partial of it: a new one is written */
	RESUME_FROM,             /* the kept partial goes on from `from` */
	RESUME_DISCARDED_RECORD, /* its record is unreadable or not in our form */
	RESUME_DISCARDED_SOURCE, /* the record is of another source (name, size,
				  * mtime, inode) or file */
	RESUME_DISCARDED_MACHINE, /* not written by this machine, or the partial is
				   * not the one its record was written for */
	RESUME_DISCARDED_PREFIX, /* its first chunk is not the source's */
	RESUME_DISCARDED_CHUNK,  /* its chunk size is not this copy's */
	RESUME_DISCARDED_PARTIAL, /* the partial is not a file of ours, or shorter
				   * than its record claims */
	RESUME_DISCARDED_READ_BACK, /* --verify: its first chunk read back from the
				     * device is not what was written (or could
				     * not be read) */
};

struct resume_file {
	size_t entry;
	struct partial_record rec; /* the record to write: its header (a new
				    * nonce, or the kept one's), and the
				    * digests of the chunks kept */
	uint64_t from;             /* bytes kept: 0, or a multiple of rec.chunk */
	uint64_t claimed;          /* what the kept partial's record claimed */
	uint64_t rewritten;        /* --verify: of what the source check kept, the
				    * bytes from the first chunk that read back
				    * different from the device on, written again */
	dev_t dev;                 /* the kept partial */
	ino_t ino;
	enum resume_outcome outcome;
	size_t stale[2];           /* its data and record in plan->stale, or SIZE_MAX */
};

/* One destination's. */
struct resume_plan {
	struct resume_file *v;     /* by entry */
	size_t n, cap;
	uint64_t bytes_resumed;    /* the sum of from */
	char *state_dir;           /* this machine's (partial_state_dir()) */
	char *fs_uuid;             /* the destination filesystem's, or NULL */
	bool stable_ino;           /* inode numbers survive a remount (not FUSE) */
};

/* rp for plan p on target t.  Nothing is resumable when no state
 * directory can be named (rp stays empty).  0 or -ENOMEM. */
int resume_plan_build(struct resume_plan *rp, const struct plan *p, const struct target *t,
		      bool fuse);

/* Read the sources of every kept partial of the n plans (the same tree)
 * once, and cut each resume_file's from to the chunks that match; a
 * partial none of whose chunks match is discarded.  0, or -errno when a
 * source cannot be read (those partials are then discarded too). */
int resume_check_sources(struct resume_plan *const *rps, size_t n, const struct plan *p);

/* --verify: each kept partial of rp (on t, whose filesystem is fuse
 * or not) read back from the device past the page cache as far as it is
 * kept, chunk by chunk against its record: it goes on from the first
 * chunk that differs (rewritten says how much of it is written again),
 * and one whose first chunk differs, or that cannot be read, is
 * discarded.  0 or -ENOMEM. */
int resume_read_back(struct resume_plan *rp, const struct plan *p, const struct target *t,
		     bool fuse);

/* The partials rp resumes stay: out of p's stale temporaries (which
 * the check has counted already).  0 or -ENOMEM. */
int resume_plan_keep(struct resume_plan *rp, struct plan *p);

/* Entry's file, or NULL when it is not written as a partial here. */
const struct resume_file *resume_plan_find(const struct resume_plan *rp, size_t entry);

void resume_plan_free(struct resume_plan *rp);

#endif
