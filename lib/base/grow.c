/* grow.c: see grow.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

int grow_array(void *items, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : (first ? first : 1);
	void *old, *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&old, items, sizeof(old));
	p = realloc(old, n * elem);
	if (!p)
		return -ENOMEM;
	memcpy(items, &p, sizeof(p));
	*cap = n;
	return 0;
}
