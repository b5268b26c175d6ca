/* plan_names.h: the destination's name rules over a whole plan, checked
 * before the first byte (issue 7, item 11).
 *
 * On FAT, exFAT and NTFS (lib/name_rules.h) plan_names() finds every
 * destination name the filesystem cannot hold or would confuse: refused
 * characters, device names, trailing dots and spaces, names too long, and
 * names that differ only in case from a sibling in the plan or from a name
 * already in that destination directory (an existing name equal byte for
 * byte is the file being replaced or merged into, not a clash).  All of
 * them are returned, so they can be fixed in one go.
 *
 * With rename set nothing is refused: each such entry gets the
 * name_map() name, or a " (2)", " (3)"... variant of it where that is
 * taken, and its dst and every descendant's dst are rewritten.  Names are
 * given out per directory in plan order (strcmp order), those that need no
 * change first, so the result is deterministic and a rerun picks the same
 * names (a mapped name that exists byte for byte is replaced, as any
 * existing file is).  A renamed entry's destination is classified again
 * (plan_view.c's rules): that may refuse too. */
#ifndef SAFECP_PLAN_NAMES_H
#define SAFECP_PLAN_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "device/name_rules.h"
#include "copy/plan.h"

struct plan_rename {
	size_t entry;              /* its plan entry, whose dst is the new name */
	char *old_dst;             /* the destination it had */
	enum name_problem problem; /* why: NAME_OK when it only clashed */
	unsigned char ch;          /* NAME_BAD_CHAR: the first refused byte */
};

struct plan_names {
	struct plan_problem *problems; /* PLAN_NAME_*, and classification refusals */
	size_t n_problems;
	struct plan_rename *renames;
	size_t n_renames;
};

/* Check (and with rename, fix) every destination name of p for fs.
 * Reads the names of the destination directories that exist.  Returns
 * the number of problems (0: nothing refused) with *ret filled, or
 * -ENOMEM.  Release *ret with plan_names_done(). */
int plan_names_check(struct plan *p, enum name_fs fs, bool rename, struct plan_names *ret);
void plan_names_done(struct plan_names *r);

#endif
