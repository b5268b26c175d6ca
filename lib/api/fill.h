/* fill.h: a public structure the caller passes with its size (sizeof in
 * the caller's header): what both the library and the caller know is
 * copied, zeros past ours, nothing past the caller's.  For every
 * "filled up to size bytes" of include/safecp/.  Not public. */
#ifndef SAFECP_API_FILL_H
#define SAFECP_API_FILL_H

#include <errno.h>
#include <string.h>

static inline int api_fill(void *ret, size_t size, const void *ours, size_t our_size)
{
	if (!ret)
		return -EINVAL;
	memset(ret, 0, size);
	memcpy(ret, ours, size < our_size ? size : our_size);
	return 0;
}

#endif
