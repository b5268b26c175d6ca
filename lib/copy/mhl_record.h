/* mhl_record.h: a destination's ASC MHL history (DIR/ascmhl) as the record
 * identical.h asks for (struct recorded_sums, basis PLAN_IDENTICAL_MANIFEST):
 * a path is looked up in the newest generation that lists it.
 *
 * A generation is used only when its bytes have the C4 ID the chain records
 * for it, so a manifest replaced or damaged on the stick is not trusted: the
 * newest one not matching refuses the history, an older one ends the search
 * there.  Each entry carries its hashes and its action: a file any of
 * whose hashes the generation marks failed is RECORDED_FAILED, never
 * skipped.  Parsing is mhl_read.h's (libxml2); this file only maps. */
#ifndef SAFECP_MHL_RECORD_H
#define SAFECP_MHL_RECORD_H

#include "copy/identical.h"
#include "mhl/mhl_read.h"

enum mhl_record_kind {
	MHL_RECORD_OK = 0,
	MHL_RECORD_NONE,       /* no history there (no ascmhl folder or chain file) */
	MHL_RECORD_UNREADABLE, /* the history is refused: *why says which file and how */
	MHL_RECORD_C4_MISMATCH,/* the newest generation is not the one the chain records */
	MHL_RECORD_NO_MEMORY,
};

struct mhl_record;

/* Read dir's history.  MHL_RECORD_OK with *ret set; any other kind with *ret
 * NULL (why, which may be NULL, filled for MHL_RECORD_UNREADABLE, and
 * why->file naming the generation for MHL_RECORD_C4_MISMATCH). */
enum mhl_record_kind mhl_record_open(const char *dir, struct mhl_record **ret,
				     struct mhl_read_problem *why);
void mhl_record_free(struct mhl_record *r);

/* Does h's newest manifest have the C4 ID its chain records for it? */
bool mhl_record_newest_ok(const struct mhl_history *h);

/* The older generations whose bytes match the chain, newest first (the
 * search stops at the first that does not). */
size_t mhl_record_older_count(const struct mhl_record *r);
const struct mhl_manifest *mhl_record_older(const struct mhl_record *r, size_t i);

/* r as identical.h's record (it keeps a pointer to r). */
struct recorded_sums mhl_record_recorded(const struct mhl_record *r);

#endif
