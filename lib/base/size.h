/* size.h: byte counts as users type and read them. */
#ifndef SAFECP_SIZE_H
#define SAFECP_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* Parse "4096", "8M", "8MiB", "1.5G", "512k", "2 GiB".  Suffixes are
 * binary (K = 1024) whether or not they carry the "i", as in cp/dd's
 * single letters; "kB"/"MB" with a B and no i are decimal, as dd does.
 * Returns 0, -EINVAL for junk, -ERANGE past UINT64_MAX. */
int size_parse(const char *s, uint64_t *ret);

/* "0 B", "1023 B", "1.0 KiB", "15.3 MiB", "1.00 GiB": three significant
 * digits, binary units.  buf must hold SIZE_FORMAT_MAX bytes. */
#define SIZE_FORMAT_MAX 16
const char *size_format(char *buf, size_t size, uint64_t bytes);

/* Round up/down to a multiple of align (any nonzero align).  Inline, a
 * mask for a power of two: the plan rounds every file of a million-file
 * tree to the cluster, and a division each was 40 ms of the walk's end. */
static inline uint64_t round_up_u64(uint64_t v, uint64_t align)
{
	uint64_t rem = (align & (align - 1)) == 0 ? v & (align - 1) : v % align;

	return rem ? v + (align - rem) : v;
}

static inline uint64_t round_down_u64(uint64_t v, uint64_t align)
{
	return v - ((align & (align - 1)) == 0 ? v & (align - 1) : v % align);
}

#endif
