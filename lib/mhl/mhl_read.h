/* mhl_read.h: a destination's ASC MHL history read back: its chain and its newest
 * generation, as a lookup by relative path (for checking a copy and for skipping files
 * a manifest already proves identical).
 *
 * The ascmhl folder is on a stick someone else may have written: the reader trusts
 * nothing in it. Files are opened below the folder without following symlinks, must be
 * regular and at most MHL_READ_MAX_BYTES; a document with a DOCTYPE (where entities and
 * external subsets are declared) is refused before libxml2 parses it, and libxml2 runs
 * without network access, DTD loading, entity substitution, XInclude or its "huge"
 * limits. Every value is checked against the schema's form: paths with mhl_path_valid()
 * (no absolute path, no ".."), hash strings with mhl_hash_valid(), dates, sizes, the
 * chain's file names. A document that breaks one of these is refused as a whole, with a
 * kind and the line, never partly used.
 *
 * The chain's C4 IDs are returned, not checked: the caller has the hash functions and
 * compares mhl_history_c4() with the C4 ID of mhl_history_bytes(). */
#ifndef SAFECP_MHL_READ_H
#define SAFECP_MHL_READ_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mhl/mhl_format.h"
#include "mhl/mhl_problem.h"

/* One file of a generation. hash[f] is NULL when format f is not listed; hex is
 * lower-cased. The schema makes action optional: has_action[f] says it was there. */
struct mhl_entry {
	const char *path;
	uint64_t size;
	bool has_size;
	struct timespec mtime; /* whole seconds as written; the date's offset applied */
	bool has_mtime;
	const char *hash[MHL_FORMAT_COUNT];
	enum mhl_action action[MHL_FORMAT_COUNT];
	bool has_action[MHL_FORMAT_COUNT];
};

struct mhl_manifest;

/* Parse one generation from memory. name: what the problem names as its file. */
enum mhl_read_kind mhl_manifest_parse(const char *buf, size_t len, const char *name,
				      struct mhl_manifest **ret, struct mhl_read_problem *why);
void mhl_manifest_free(struct mhl_manifest *m);
/* The entry for a relative path, NULL when the generation does not list it. */
const struct mhl_entry *mhl_manifest_find(const struct mhl_manifest *m, const char *path);
/* Entries in path order (strcmp), for walking all of them. */
size_t mhl_manifest_count(const struct mhl_manifest *m);
const struct mhl_entry *mhl_manifest_entry(const struct mhl_manifest *m, size_t i);
/* Its <ignore> patterns (a rerun keeps them, as the reference does). */
size_t mhl_manifest_ignores(const struct mhl_manifest *m, const char *const **ret);
/* Directory entries (<directoryhash>) are skipped: not counted, not found. */

/* One link of ascmhl_chain.xml. */
struct mhl_link {
	unsigned sequence;
	const char *path;
	char c4[MHL_HASH_MAX + 1];
};

struct mhl_chain;
enum mhl_read_kind mhl_chain_parse(const char *buf, size_t len, struct mhl_chain **ret,
				   struct mhl_read_problem *why);
void mhl_chain_free(struct mhl_chain *c);
/* Links sorted by sequence number; the last is the newest generation. */
size_t mhl_chain_count(const struct mhl_chain *c);
const struct mhl_link *mhl_chain_link(const struct mhl_chain *c, size_t i);

/* DEST/ascmhl: the chain and its newest generation's manifest. */
struct mhl_history;
enum mhl_read_kind mhl_history_read(const char *dest, struct mhl_history **ret,
				    struct mhl_read_problem *why);
void mhl_history_free(struct mhl_history *h);
const struct mhl_chain *mhl_history_chain(const struct mhl_history *h);
/* The newest generation, its link in the chain, and the manifest file's bytes (for
 * checking the link's C4 ID). */
const struct mhl_manifest *mhl_history_newest(const struct mhl_history *h);
const struct mhl_link *mhl_history_newest_link(const struct mhl_history *h);
const void *mhl_history_bytes(const struct mhl_history *h, size_t *ret_len);
/* The next generation's sequence number (newest + 1). */
unsigned mhl_history_next_sequence(const struct mhl_history *h);

#endif
