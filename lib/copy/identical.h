/* identical.h: which destination files are already the source's copy, decided
 * before the first byte, so that a rerun copies only what is missing or
 * different.
 *
 * plan_skip_identical() looks at every regular file of a plan whose
 * destination exists as a regular file of the same size, to be replaced
 * or (-n) kept, and leaves it alone (skip_existing, with
 * plan_entry.identical saying why: it counts as identical, not kept) when:
 *   quick  its mtime is the source's as the destination filesystem stores
 *          it (identical_mtime(): within one step of fs_traits'
 *          mtime_step_ns);
 *   hash   the source's digest is the one the destination's record holds
 *          for it (struct recorded_sums: the ASC MHL history, mhl_record.h,
 *          or the checksum lists, sums_index.h), and the record does not
 *          say it failed; or,
 *          without a record, both copies read whole have the same xxh128.
 * quick with listed_only: a file of the same size and mtime that the
 * record does not list is judged as hash without a record does.
 * A file without a record entry, a record without a common algorithm, a
 * file that cannot be read or is no longer what the plan saw: copied as
 * before.  Nothing is trusted that was not matched.
 *
 * A record (the stick's own ASC MHL history or lists) says nothing of the
 * bytes on the stick now: they may have rotted or been changed with the
 * record kept.  So "both copies read" reads the destination back from the
 * device, past the page cache where it can (read_back.h), and with
 * read_back (--verify) every file judged identical on any basis is read
 * back so and its xxh128 compared with the source's: one that differs, or
 * cannot be read, is copied again (plan_entry.read_back_differs).  Only
 * such a file has plan_entry.identical_read_back set, and only it may be
 * called verified (manifest.h).
 *
 * Hash mode reads each candidate's source here and again when it is
 * copied (only files that differ are copied, so only they are read twice);
 * the record saves the destination read unless read_back asks for it.  An
 * identical file's times are left as they are.
 *
 * Paths are opened O_PATH first (the destination's without following a
 * symlink, as the plan's lstat saw it), then reopened only if they are
 * the regular file the plan saw (source_open_regular()): a device node or
 * FIFO swapped in under the name is never opened.  Test pause point
 * "identical" (test_hook.h), path: the destination, before it is opened. */
#ifndef SAFECP_IDENTICAL_H
#define SAFECP_IDENTICAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "copy/plan.h"
#include "hash/checksum.h"

enum identical_mode {
	IDENTICAL_QUICK = 1,
	IDENTICAL_HASH,
};

/* What a record says a file is.  ASC MHL's actions: original and
 * verified are RECORDED_GOOD, failed is RECORDED_FAILED; a checksum list
 * holds only good files. */
enum recorded_action {
	RECORDED_GOOD = 0,
	RECORDED_FAILED,
};

struct recorded_file {
	enum recorded_action action;
	struct checksum_result sums; /* the digests it records (sums.algs) */
};

/* The seam between the plan and a destination's record of what it holds.
 * A checksum list index (sums_index.h) implements it; so can a reader of
 * the newest ASC MHL generation (DEST/ascmhl), with basis
 * PLAN_IDENTICAL_MANIFEST.  lookup() fills *ret for REL, the file's path
 * relative to the plan's dest_dir (as the lists and manifests name it):
 * 1 when the record lists it, 0 when not, -errno (-ENOMEM stops the
 * plan; anything else: the file is copied). */
struct recorded_sums {
	int (*lookup)(const void *ctx, const char *rel, struct recorded_file *ret);
	const void *ctx;
	enum plan_identical basis; /* PLAN_IDENTICAL_MANIFEST or PLAN_IDENTICAL_LIST */
};

struct identical_options {
	enum identical_mode mode;
	uint32_t mtime_step_ns;   /* quick: the destination's (fs_traits.h); 0 is 1 */
	/* hash: NULL reads both copies.  quick with listed_only: the record
	 * asked whether a file is listed at all (NULL: none is) */
	const struct recorded_sums *recorded;
	/* quick: a file of the same size and mtime that `recorded` does not
	 * list is judged by reading both copies instead, so that its digest
	 * can go into the record written next (a copy that never got its
	 * record, cut short) */
	bool listed_only;
	/* nonzero: a source read for a judgement is hashed with these too,
	 * and a file judged by reading it (content, list) keeps its digests
	 * in plan_entry.judged_sums */
	checksum_set keep_algs;
	/* --verify: every file judged identical is read back from the
	 * destination's device and compared with the source (above) */
	bool read_back;
	/* how the destination is read back (read_back_file()): a FUSE
	 * filesystem, and then its block device node open, or -1 */
	bool fuse;
	int bdev_fd;
};

/* Is dst the mtime a filesystem that stores multiples of step_ns (FAT:
 * 2 s, exfat-fuse: 1 s, ...) keeps for src?  Equal, or on the step's grid
 * and less than a step away in either direction: the kernel's FAT and
 * exFAT drivers truncate, other writers round to nearest or up.  FAT keeps
 * local time; the kernel converts it both ways with one offset, so what
 * stat gives is compared as it is (after a change of the offset, an
 * hour's difference, the file is copied again). */
bool identical_mtime(const struct timespec *src, const struct timespec *dst, uint32_t step_ns);

/* -u (cp's --update): an existing file or symlink whose mtime is not older
 * than its source's, as the destination keeps times (the same within a
 * step of step_ns: identical_mtime(), or newer), is left alone (kept, as
 * -n keeps); the totals are counted again. */
void plan_keep_newer(struct plan *p, uint32_t step_ns);

/* Mark p's identical files (see the file comment) and recount its totals.
 * Returns 0, or -ENOMEM. */
int plan_skip_identical(struct plan *p, const struct identical_options *o);

#endif
