/* grow.h: the one way an array grows in lib/ and cmd/.
 *
 * An array is a pointer, a count the caller keeps and a capacity; room
 * for `need` elements doubles the capacity from `first` (overflow
 * checked), so n appends cost O(n) copies in all. */
#ifndef SAFECP_GROW_H
#define SAFECP_GROW_H

#include <stddef.h>

/* *(T **)items holds *cap elements of elem bytes: make it hold at least
 * need.  0, or -ENOMEM with the array and *cap as they were. */
int grow_array(void *items, size_t *cap, size_t need, size_t elem, size_t first);

/* GROW(arr, cap, need, first): grow_array for a T *arr and its size_t cap. */
#define GROW(arr, cap, need, first) grow_array(&(arr), &(cap), (need), sizeof(*(arr)), (first))

#endif
