/* chunk_hash.h: a fast 64-bit digest of a chunk (XXH3, libxxhash), to
 * tell that a second read of the source gave the bytes of the first.
 * Not a checksum for manifests: those come with the verify work. */
#ifndef SAFECP_CHUNK_HASH_H
#define SAFECP_CHUNK_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t chunk_hash(const void *buf, size_t len);

#endif
