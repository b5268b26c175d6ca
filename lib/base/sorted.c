/* sorted.c: see sorted.h. */
#include <string.h>

#include "base/sorted.h"

static size_t key_of(const void *v, size_t i, size_t size, size_t key_at)
{
	size_t k;

	memcpy(&k, (const char *)v + i * size + key_at, sizeof(k));
	return k;
}

size_t sorted_find(const void *v, size_t n, size_t size, size_t key_at, size_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_of(v, mid, size, key_at) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && key_of(v, lo, size, key_at) == key ? lo : n;
}
