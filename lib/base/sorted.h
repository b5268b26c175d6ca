/* sorted.h: an element found by its index in an array sorted by one. */
#ifndef SAFECP_SORTED_H
#define SAFECP_SORTED_H

#include <stddef.h>

/* The position in v (n elements of size bytes, sorted ascending by the
 * size_t at byte key_at of each) of the one whose key is key, or n when
 * none has it.  Binary search. */
size_t sorted_find(const void *v, size_t n, size_t size, size_t key_at, size_t key);

#endif
