/* sums_list.h: one line of a checksum list, as the tools read it back with -c.
 *
 * The lists are PREFIX.<checksum_alg_name()>; the caller writes them (through
 * the safe writer) in the order it likes, one line per file, NAME relative to
 * the directory the list is checked from.
 *
 *   xxh128, xxh64   "HEX  NAME\n"             as xxhsum 0.8.1 -H2 / -H1 write it
 *   xxh3            "XXH3 (NAME) = HEX\n"     as xxhsum 0.8.1 -H3 writes it (its
 *                                             -c takes no other form of xxh3)
 *   md5, sha1,      "HEX  NAME\n", or         as coreutils 9.1 md5sum, sha1sum,
 *   sha256          "\HEX  ESCAPED\n"         sha256sum write it: when NAME holds
 *                                             '\', LF or CR, the line starts with
 *                                             '\' and those are written \\, \n, \r
 *
 * xxhsum 0.8.1 escapes nothing, so a name with LF, CR or '\' is not put in an
 * xxHash list (SUMS_LINE_UNLISTABLE): the caller leaves it out and says so. */
#ifndef SAFECP_SUMS_LIST_H
#define SAFECP_SUMS_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "hash/checksum.h"

/* Why a line was not made (positive returns of the functions below). */
enum sums_line_problem {
	SUMS_LINE_OK,
	SUMS_LINE_UNLISTABLE, /* the name holds LF, CR or '\': no xxHash list can hold it */
	SUMS_LINE_NO_FORMAT,  /* the algorithm has no list format (c4: no tool checks one) */
};

/* Whether NAME can be a line of ALG's list (a kind as above). */
enum sums_line_problem sums_line_check(enum checksum_alg alg, const char *name);

/* Writes ALG's line for NAME with DIGEST (checksum_result_text()) into BUF, NUL
 * terminated, its length (LF included, NUL not) in *RET_LEN. Returns 0; a
 * sums_line_problem kind, nothing written; -ENOBUFS when SIZE is too small,
 * with *RET_LEN the length needed (SIZE must exceed it by the NUL); -EINVAL for
 * an empty NAME or a DIGEST of the wrong length. */
int sums_line_format(enum checksum_alg alg, const char *digest, const char *name, char *buf,
		     size_t size, size_t *ret_len);

/* As sums_line_format(), into a malloc'd string (*RET_LINE, the caller frees
 * it); -ENOMEM when out of memory. */
int sums_line_alloc(enum checksum_alg alg, const char *digest, const char *name,
		    char **ret_line);

/* Reads one line of ALG's list back (LEN bytes at LINE; a final LF is dropped),
 * as the tool that checks the list reads it: for xxh128 and xxh64 "HEX  NAME" or
 * "HEX *NAME"; for xxh3 "XXH3 (NAME) = HEX" (NAME is all between "XXH3 (" and
 * the ") = HEX" that ends the line, so it may hold ") = " itself); for
 * md5, sha1 and sha256 those forms or the escaped one (a leading '\', with \\,
 * \n, \r in NAME), and one CR before the LF dropped, as coreutils does. HEX in
 * either case. Fills DIGEST with the lowercase text and *RET_NAME with a
 * malloc'd NAME (the caller frees it). Returns 0; -EINVAL when the line is none
 * of those (blank lines too: the caller skips what it does not want); -ENOMEM. */
int sums_line_parse(enum checksum_alg alg, const char *line, size_t len,
		    char digest[CHECKSUM_TEXT_MAX], char **ret_name);

#endif
