/* checksum.h: the checksums of a file, several algorithms fed the same bytes
 * in one pass, each finished as the text the standard tools print.
 *
 * xxh128, xxh3 (64-bit) and xxh64 come from libxxhash, md5, sha1, sha256 and
 * the SHA-512 under c4 from nettle; no digest code of our own. The text is
 * lowercase hex in the byte order xxhsum -H2/-H3/-H1, md5sum, sha1sum and
 * sha256sum print, and for c4 the C4 ID of ASC MHL ("c4" and the base58 of
 * the SHA-512 digest, 90 characters).
 *
 * The names ("xxh128", "sha256", ...) are format identifiers, shared by the
 * list file suffixes and ASC MHL's hash elements, not words for users. */
#ifndef SAFECP_CHECKSUM_H
#define SAFECP_CHECKSUM_H

#include <stdbool.h>
#include <stddef.h>

enum checksum_alg {
	CHECKSUM_XXH128,
	CHECKSUM_XXH3,
	CHECKSUM_XXH64,
	CHECKSUM_MD5,
	CHECKSUM_SHA1,
	CHECKSUM_SHA256,
	CHECKSUM_C4,
	CHECKSUM_ALG_COUNT,
};

/* A set of algorithms: bit (1u << alg) per member. */
typedef unsigned checksum_set;
#define CHECKSUM_BIT(alg) (1u << (alg))
#define CHECKSUM_SET_ALL ((1u << CHECKSUM_ALG_COUNT) - 1)
/* The hash formats of the ASC MHL schema (it has no sha256). */
#define CHECKSUM_SET_ASC_MHL \
	(CHECKSUM_BIT(CHECKSUM_XXH128) | CHECKSUM_BIT(CHECKSUM_XXH3) | \
	 CHECKSUM_BIT(CHECKSUM_XXH64) | CHECKSUM_BIT(CHECKSUM_MD5) | \
	 CHECKSUM_BIT(CHECKSUM_SHA1) | CHECKSUM_BIT(CHECKSUM_C4))
/* The algorithms a checksum list can hold (sums_list.h): no tool checks c4. */
#define CHECKSUM_SET_LISTS (CHECKSUM_SET_ALL & ~CHECKSUM_BIT(CHECKSUM_C4))

/* The longest digest text, c4's 90 characters, and its NUL. */
#define CHECKSUM_TEXT_MAX 91

/* The algorithm named NAME (exact, lowercase), or -1. */
int checksum_alg_from_name(const char *name);
/* "xxh128", "xxh3", "xxh64", "md5", "sha1", "sha256", "c4"; NULL out of range. */
const char *checksum_alg_name(enum checksum_alg alg);
/* Characters of ALG's digest text: 32, 16, 16, 32, 40, 64, 90; 0 out of range. */
size_t checksum_text_len(enum checksum_alg alg);

/* What is wrong with a comma list of algorithm names. */
enum checksum_list_problem {
	CHECKSUM_LIST_OK,
	CHECKSUM_LIST_EMPTY,       /* an empty name: "", ",sha1", "md5,,sha1", "md5," */
	CHECKSUM_LIST_UNKNOWN,     /* a name no algorithm has */
	CHECKSUM_LIST_NOT_ALLOWED, /* an algorithm's name, outside the set allowed here */
};
struct checksum_list_error {
	enum checksum_list_problem kind;
	size_t pos; /* offset of the bad name in the list */
	size_t len; /* its length (0 for an empty one) */
};
/* Parses LIST ("xxh128,sha256") into *RET_SET; names must be in ALLOWED. A
 * name given twice counts once. Returns 0, or -EINVAL with *RET_ERR telling
 * which name is wrong and how (RET_ERR may be NULL). */
int checksum_list_parse(const char *list, checksum_set allowed, checksum_set *ret_set,
			struct checksum_list_error *ret_err);

/* The running digests of one file. Use from one thread at a time. */
struct checksum_state;

/* A state for the algorithms in SET (not empty), ready for a file's first
 * bytes; NULL when out of memory or SET is empty or out of range. */
struct checksum_state *checksum_new(checksum_set set);
void checksum_free(struct checksum_state *s);
checksum_set checksum_algs(const struct checksum_state *s);
/* Feeds LEN bytes to every algorithm of the set. Pieces of any size, in
 * order; the digests equal those of the bytes fed in one piece. */
void checksum_update(struct checksum_state *s, const void *buf, size_t len);
/* Restarts for a new file, dropping what was fed. */
void checksum_reset(struct checksum_state *s);

/* The digest texts of one file: text[alg] for each alg of the set, "" else. */
struct checksum_result {
	checksum_set algs;
	char text[CHECKSUM_ALG_COUNT][CHECKSUM_TEXT_MAX];
};
/* Finishes the file: every digest of the set into *RET, then restarts the
 * state for the next file as checksum_reset() does. */
void checksum_final(struct checksum_state *s, struct checksum_result *ret);
/* One algorithm over one buffer, its text into out: 0 or -ENOMEM. */
int checksum_text_of(enum checksum_alg alg, const void *buf, size_t len,
		     char out[CHECKSUM_TEXT_MAX]);
/* RES's text for ALG, or NULL when ALG is not in its set. */
const char *checksum_result_text(const struct checksum_result *res, enum checksum_alg alg);
/* Whether A and B agree on every algorithm they both have (and have one). */
bool checksum_result_match(const struct checksum_result *a, const struct checksum_result *b);

#endif
