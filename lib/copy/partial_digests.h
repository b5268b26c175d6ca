/* partial_digests.h: the digests a resumable partial's record lists
 * (partial_record.h), taken from the one read of the source.
 *
 * A reader tap (reader_chunk.h) hashes each chunk of a large file, in
 * the reader's thread, under the reader's SIGBUS guard for a mapped
 * chunk; every destination's thread reads the digest of chunk k once it
 * has written past it.  The reader publishes a chunk only after the tap
 * has seen it, so a destination that took the chunk ending digest
 * chunk k finds digest k stored.  A second read (a detached
 * destination's) is checked against the first chunk by chunk, so these
 * digests are what every destination wrote. */
#ifndef SAFECP_PARTIAL_DIGESTS_H
#define SAFECP_PARTIAL_DIGESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "copy/reader_chunk.h"

struct partial_digests;

int partial_digests_new(struct partial_digests **ret);
void partial_digests_free(struct partial_digests *d);

/* Hash entry idx (a file of size bytes) in chunks of chunk bytes, its
 * read starting at from (a multiple of chunk).  Entries are added in
 * plan order, before the reader starts.  0 or -ENOMEM. */
int partial_digests_want(struct partial_digests *d, size_t idx, uint64_t size, uint64_t chunk,
			 uint64_t from);

/* The tap for reader_opts.tap (it keeps a pointer to d). */
struct reader_tap partial_digests_tap(struct partial_digests *d);

/* Digest of entry idx's chunk k (bytes [k * chunk, (k + 1) * chunk)):
 * true with *ret once the reader has read past it, false when it was
 * not asked for, not read (yet) or read with an error.  Any thread. */
bool partial_digests_get(const struct partial_digests *d, size_t idx, uint64_t k,
			 uint64_t *ret);

#endif
