/* chunk_hash.h: a fast 64-bit digest of a chunk (XXH3, libxxhash), to
 * tell that a second read of the source gave the bytes of the first, and
 * what a resumable partial holds (copy/partial_record.h).  Not a checksum
 * for manifests: those are checksum.h's.  A stream fed a chunk's bytes in
 * any pieces gives the digest chunk_hash() gives the whole. */
#ifndef SAFECP_CHUNK_HASH_H
#define SAFECP_CHUNK_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t chunk_hash(const void *buf, size_t len);

struct chunk_hash_stream;

/* NULL when out of memory. */
struct chunk_hash_stream *chunk_hash_stream_new(void);
void chunk_hash_stream_reset(struct chunk_hash_stream *s);
void chunk_hash_stream_add(struct chunk_hash_stream *s, const void *buf, size_t len);
/* The digest of what was added since the reset (the stream goes on). */
uint64_t chunk_hash_stream_digest(const struct chunk_hash_stream *s);
void chunk_hash_stream_free(struct chunk_hash_stream *s);

#endif
