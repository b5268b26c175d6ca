/* check_input.h: the reference of a check (check.h) from the newest ASC MHL
 * generation of a directory, or from checksum lists (sums_list.h).
 *
 * Both are input someone else may have written.  The manifest comes through
 * mhl_history_read(), which refuses hostile documents; here the newest
 * manifest's bytes must also have the C4 ID the chain records for it, or the
 * manifest was changed after it was written.  A list must be a regular file
 * (opened without following a symlink as its last component: the user names
 * the prefix, not what an attacker links there) of lines sums_line_parse()
 * reads back; blank lines are skipped, any other line it cannot read refuses
 * the whole list (line number given), never a part used. */
#ifndef SAFECP_CHECK_INPUT_H
#define SAFECP_CHECK_INPUT_H

#include <stddef.h>

#include "copy/check.h"
#include "mhl/mhl_read.h"

/* Whether the newest manifest of H has the C4 ID its link in the chain says. */
bool check_mhl_c4_matches(const struct mhl_history *h);

/* Every file of the newest generation of H into L.  The formats it lists
 * that checksum.h has (all of ASC MHL's) count; a file with a "failed"
 * action in any format is marked failed.  0, -ENOMEM. */
int check_list_from_mhl(const struct mhl_history *h, struct check_list *l);
/* An older generation's entries, for the paths l does not have yet (a
 * rerun with -n or --skip-identical=quick lists only what it copied). */
int check_list_add_manifest(const struct mhl_manifest *m, struct check_list *l);

enum check_list_kind {
	CHECK_LIST_OK,
	CHECK_LIST_IO,          /* open or read failed: err */
	CHECK_LIST_NOT_REGULAR, /* a symlink, a directory, a device... */
	CHECK_LIST_BAD_LINE,    /* a line that is no line of ALG's list: line */
	CHECK_LIST_NO_MEMORY,
};

struct check_list_problem {
	enum check_list_kind kind;
	int err;       /* errno for CHECK_LIST_IO */
	size_t line;   /* 1-based, for CHECK_LIST_BAD_LINE */
};

/* The list of ALG at PATH into L.  ENOENT is an answer the caller may want
 * (the prefix has no list of that algorithm): CHECK_LIST_IO with err ENOENT.
 * *RET_FILES: how many lines it held. */
enum check_list_kind check_list_load_sums(const char *path, enum checksum_alg alg,
					  struct check_list *l, size_t *ret_files,
					  struct check_list_problem *why);

#endif
