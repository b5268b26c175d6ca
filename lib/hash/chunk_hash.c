/* chunk_hash.c: see chunk_hash.h. */
#include <xxhash.h>

#include "hash/chunk_hash.h"

/* A stream is an XXH3_state_t under our name: the struct is never
 * defined, only its pointer cast. */

uint64_t chunk_hash(const void *buf, size_t len)
{
	return (uint64_t)XXH3_64bits(buf, len);
}

struct chunk_hash_stream *chunk_hash_stream_new(void)
{
	XXH3_state_t *st = XXH3_createState();

	if (st)
		XXH3_64bits_reset(st);
	return (struct chunk_hash_stream *)st;
}

void chunk_hash_stream_reset(struct chunk_hash_stream *s)
{
	XXH3_64bits_reset((XXH3_state_t *)s);
}

void chunk_hash_stream_add(struct chunk_hash_stream *s, const void *buf, size_t len)
{
	XXH3_64bits_update((XXH3_state_t *)s, buf, len);
}

uint64_t chunk_hash_stream_digest(const struct chunk_hash_stream *s)
{
	return (uint64_t)XXH3_64bits_digest((const XXH3_state_t *)s);
}

void chunk_hash_stream_free(struct chunk_hash_stream *s)
{
	XXH3_freeState((XXH3_state_t *)s);
}
