/* sums_index.h: checksum lists read back (PREFIX.xxh128, PREFIX.sha256, ...),
 * as a lookup by the path each line names, relative to the directory the
 * list is checked from.
 *
 * It is one implementation of the record identical.h asks for
 * (struct recorded_sums, basis PLAN_IDENTICAL_LIST): a list holds only
 * files that were copied whole, so every file found is RECORDED_GOOD.  A
 * name two lines give different digests for (of one algorithm) is not
 * trusted: it is as if unlisted.  The index also gives a rerun the lines
 * of the files it leaves alone, so the lists it writes still name them. */
#ifndef SAFECP_SUMS_INDEX_H
#define SAFECP_SUMS_INDEX_H

#include <stddef.h>

#include "copy/identical.h"
#include "hash/checksum.h"

struct sums_index;

/* An empty index; NULL when out of memory. */
struct sums_index *sums_index_new(void);
void sums_index_free(struct sums_index *idx);

/* Read the list at path (in alg's format, sums_list.h) into idx.  Lines
 * that are none of the format's forms (blank ones too) are left out and
 * counted in *ret_bad (may be NULL).  0, or -errno (-ENOENT: no such
 * list; -EINVAL: not a regular file). */
int sums_index_add_list(struct sums_index *idx, enum checksum_alg alg, const char *path,
			size_t *ret_bad);

/* Files named, and the algorithms of the lists read. */
size_t sums_index_count(const struct sums_index *idx);
checksum_set sums_index_algs(const struct sums_index *idx);

/* rel's digest text for alg, or NULL (not listed, or not trusted). */
const char *sums_index_text(const struct sums_index *idx, const char *rel,
			    enum checksum_alg alg);

/* idx as identical.h's record (it keeps a pointer to idx). */
struct recorded_sums sums_index_recorded(const struct sums_index *idx);

#endif
