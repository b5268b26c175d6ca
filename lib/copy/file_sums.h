/* file_sums.h: each file's checksums, from the one read of the source.
 *
 * A reader tap (reader.h) feeds every chunk of the first read to the
 * algorithms asked for, in the reader's thread; a file read whole,
 * without an error and without changing, gets its digest texts.  A
 * second read (a detached destination's) is checked chunk by chunk
 * against the first, so these texts are what every destination got.
 * The destinations' threads read them once their file is written. */
#ifndef SAFECP_FILE_SUMS_H
#define SAFECP_FILE_SUMS_H

#include <stddef.h>

#include "copy/plan.h"
#include "copy/reader.h"
#include "hash/checksum.h"

struct file_sums;

/* For the entries of tree (any destination's plan of the job). */
int file_sums_new(const struct plan *tree, checksum_set algs, struct file_sums **ret);
void file_sums_free(struct file_sums *s);

/* The tap for reader_opts.tap (it keeps a pointer to s). */
struct reader_tap file_sums_tap(struct file_sums *s);

/* Entry idx's digest text for alg, or NULL: not a file, not read (yet),
 * read with an error, or changed while read.  Any thread. */
const char *file_sums_text(const struct file_sums *s, size_t idx, enum checksum_alg alg);

#endif
