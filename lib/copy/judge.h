/* judge.h: --skip-identical for one destination, before the first byte:
 * which record judges its files, then the judging itself (identical.h).
 *
 * hash asks, in this order: the newest generation of the destination's
 * ASC MHL history, used only when the chain's C4 ID vouches for its bytes
 * (mhl_record.h); then the checksum lists a run before wrote, where they
 * count for this destination; then both copies read.  quick compares
 * size and mtime within the filesystem's step; with manifests asked, a
 * file no generation lists is read instead, so the next one lists it.
 * A history that cannot be used is a note, not a refusal: the next
 * record decides.  The files judged identical whose copy read back
 * different are marked in the plan (plan_entry.read_back_differs). */
#ifndef SAFECP_JUDGE_H
#define SAFECP_JUDGE_H

#include <stdbool.h>

#include "copy/identical.h"
#include "copy/mhl_record.h"
#include "copy/plan.h"
#include "copy/sums_index.h"
#include "device/target.h"

struct judge_options {
	enum identical_mode mode;     /* 0: nothing is judged */
	checksum_set manifest_algs;   /* manifests asked: the formats they list (a
				       * source read for a judgement is hashed so
				       * too); 0: none asked */
	bool verify;                  /* read every identical file back */
	/* the lists of a run before (NULL: none), counted only when they
	 * are on this destination's filesystem or there is one destination */
	const struct sums_index *old_lists;
	bool old_lists_count;
};

enum judge_note_kind {
	JUDGE_NOTE_NONE = 0,
	JUDGE_HISTORY_NOT_VOUCHED,   /* why.file: the newest generation is not the
				      * one the chain records (another C4 ID) */
	JUDGE_HISTORY_UNREADABLE,    /* why: which file, line, and how */
};

struct judge_result {
	/* the history judged by, kept: manifests ask it again and carry
	 * what it vouched for (NULL: none); judge_result_done() frees it */
	struct mhl_record *mhl;
	struct recorded_sums mhl_recorded;
	enum judge_note_kind note;
	struct mhl_read_problem why;
};

/* Judge p's files against what destination t holds.  0 (notes in *ret),
 * or -errno. */
int judge_dest(struct plan *p, const struct target *t, const struct judge_options *o,
	       struct judge_result *ret);
void judge_result_done(struct judge_result *r);

#endif
