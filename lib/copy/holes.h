/* holes.h: where a file's data lies and where its zeros could be holes
 * (--sparse).  The reader asks where the next data is (holes_next_data,
 * SEEK_DATA and SEEK_HOLE rounded out to its alignment); a destination
 * with --sparse=always asks how long a run of zero blocks or of data is
 * (holes_zero_run).  Pure but for the two lseeks, so the arithmetic is
 * unit tested (tests/unit/test_holes.c). */
#ifndef SAFECP_HOLES_H
#define SAFECP_HOLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --sparse=always: the least run of zeros that becomes a hole, and the
 * grid runs are found on (file offsets): a block of the filesystems that
 * keep holes (ext4, xfs, btrfs: 4 KiB; a larger one allocates what it
 * must) */
#define HOLES_BLOCK 4096u

/* The data extent [d, h) of a file of size bytes, looked for from off
 * (a multiple of align), rounded out to align: [*data, *end), *data at
 * least off, *end at most size.  The edges of the holes around it are
 * then written as the zeros they are, and every boundary but the file's
 * end is a multiple of align, where an O_DIRECT write may start. */
void holes_round(uint64_t d, uint64_t h, uint64_t off, uint64_t size, uint64_t align,
		 uint64_t *data, uint64_t *end);

/* The next data of fd at or after off (a multiple of align), below size:
 * [*data, *end) as holes_round() rounds it; *data == *end == size when
 * only a hole is left.  Where the filesystem has no SEEK_DATA (or it
 * fails), all of it is data: [off, size). */
void holes_next_data(int fd, uint64_t off, uint64_t size, uint64_t align, uint64_t *data,
		     uint64_t *end);

/* The length of the run at p (len bytes, p at a multiple of HOLES_BLOCK
 * in the file) of whole blocks that are all zeros (zero) or not all
 * zeros (!zero); a last, shorter piece counts as a block. */
size_t holes_zero_run(const char *p, size_t len, bool zero);

#endif
