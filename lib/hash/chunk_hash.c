/* chunk_hash.c: the one place libxxhash is used (see chunk_hash.h). */
#include <xxhash.h>

#include "hash/chunk_hash.h"

uint64_t chunk_hash(const void *buf, size_t len)
{
	return (uint64_t)XXH3_64bits(buf, len);
}
