/* manifest.h: this copy's ASC MHL generation, written into a
 * destination's ascmhl/ folder (lib/mhl renders the XML).
 *
 * ASC MHL's "verified" says the file at this place was hashed again and
 * matched the history; so it is written only for a file whose copy this
 * run read back from the device and found equal, never for a hash taken
 * from the source or from the stick's own record.
 *
 * The generation lists every file this destination published whose
 * checksums the first read computed (file_sums.h), with the ASC MHL
 * formats among them; a file the newest earlier generation lists with the
 * same hash is "verified", any other "original" (the bytes written are
 * the ones hashed; --verify reads them back before they are named).  A
 * file --skip-identical left alone is listed only when this run can say
 * what its copy holds: one the history vouched for
 * (PLAN_IDENTICAL_MANIFEST: its hashes computed from the source again and
 * equal to the newest generation listing it) with the history's hashes,
 * verified, when its copy was read back past the page cache
 * (plan_entry.identical_read_back, identical.h: --verify); one whose
 * source was read for the judgement (content, list, or quick's read back:
 * plan_entry.judged_sums) with those digests: original when the history
 * does not hold that hash for the path (judged_by: any generation it
 * trusts), verified when it does and the copy was read back past the
 * cache.  Any other (the stick's record compared, not its bytes) is not
 * listed: its entry in an earlier generation stands, as ASC MHL's history
 * keeps one "original" per path.  Process "transfer".
 *
 * Ignore patterns: the reference's defaults, the caller's, and of the
 * newest earlier generation's only those of the form this file writes
 * (an anchored checksum list name, "/PATH.ALG", no wildcard): a pattern
 * planted on the stick ("*") would otherwise hide every file of this
 * and every later generation from a verifier.
 * The manifest NNNN_<root>_<date>_<time>Z.mhl and then ascmhl_chain.xml
 * (the earlier links and this one, with the C4 ID of the manifest's
 * bytes) are each written with small_file.h: a pulled stick leaves the
 * old chain or the new one, never a truncated one.  The ascmhl folder is
 * made or opened from the destination directory's fd without following
 * a symlink. */
#ifndef SAFECP_MANIFEST_H
#define SAFECP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "copy/file_sums.h"
#include "copy/identical.h"
#include "copy/plan.h"
#include "mhl/mhl_read.h"

/* The ASC MHL formats among algs (c4, md5, sha1, xxh128, xxh3, xxh64). */
checksum_set manifest_formats(checksum_set algs);

struct manifest_input {
	const struct plan *plan;          /* this destination's */
	const struct file_sums *sums;
	bool (*published)(void *ctx, size_t idx); /* under its name here? */
	void *ctx;
	const struct mhl_history *prev;   /* NULL: the first generation */
	/* the history --skip-identical asked (mhl_record.h), or NULL: its
	 * entries of the files it vouched for go on, and it says whether a
	 * digest read for a judgement is one the history holds */
	const struct recorded_sums *judged_by;
	const char *root_name;            /* the destination directory's name */
	time_t now;
	bool keep_times;                  /* the copies carry the sources' mtimes */
	const char *tool_version;
	const char *const *ignores;       /* more ignore patterns (lists written here) */
	size_t n_ignores;
};

/* Where it failed. */
enum manifest_step {
	MANIFEST_STEP_NONE,
	MANIFEST_STEP_BUILD,   /* libxml2 or memory */
	MANIFEST_STEP_FOLDER,  /* ascmhl/ could not be made or opened */
	MANIFEST_STEP_WRITE,   /* the manifest file */
	MANIFEST_STEP_CHAIN,   /* ascmhl_chain.xml */
};

struct manifest_result {
	unsigned sequence;
	char file[128];       /* the manifest's name in ascmhl/ */
	size_t files;         /* listed */
	size_t unlisted;      /* names ASC MHL cannot hold (not UTF-8, controls) */
	enum manifest_step step;
};

/* 0, or -errno with res->step saying where. */
int manifest_write(int dest_dir_fd, const struct manifest_input *in, struct manifest_result *res);

#endif
