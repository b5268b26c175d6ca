/* holes.c: see holes.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/size.h"
#include "copy/holes.h"
#include "copy/reader_chunk.h"

void holes_round(uint64_t d, uint64_t h, uint64_t off, uint64_t size, uint64_t align,
		 uint64_t *data, uint64_t *end)
{
	*data = MAX(off, round_down_u64(d, align));
	*end = MIN(round_up_u64(h, align), size);
}

void holes_next_data(int fd, uint64_t off, uint64_t size, uint64_t align, uint64_t *data,
		     uint64_t *end)
{
	off_t d = lseek(fd, (off_t)off, SEEK_DATA), h;

	if (d < 0 && errno != ENXIO) {
		*data = off; /* no SEEK_DATA here: read it all */
		*end = size;
		return;
	}
	/* ENXIO: nothing but a hole from off; data past size: the file grew,
	 * which the read's end check finds */
	if (d < 0 || (uint64_t)d >= size) {
		*data = *end = size;
		return;
	}
	h = lseek(fd, d, SEEK_HOLE);
	holes_round((uint64_t)d, h < 0 ? size : (uint64_t)h, off, size, align, data, end);
}

size_t holes_zero_run(const char *p, size_t len, bool zero)
{
	size_t at = 0;

	while (at < len) {
		size_t n = MIN(len - at, (size_t)HOLES_BLOCK);

		/* the zero page is READER_ZEROS >= HOLES_BLOCK bytes */
		if ((memcmp(p + at, reader_zeros(), n) == 0) != zero)
			break;
		at += n;
	}
	return at;
}
