/* file_move.h: bytes of one file appended to another without passing
 * through user space.
 *
 * splice(2) takes the source's page-cache pages into a pipe by reference
 * (filemap_splice_read) and hands them to the destination's write
 * (iter_file_splice_write), which for an O_DIRECT file sends those very
 * pages to the device.  Neither side maps, pins or copies a page in user
 * space: a tenth of the CPU of a write() from a mapping of the source.
 *
 * A pipe holds at most its capacity (1 MiB for a user, pipe-max-size),
 * so a move is a loop of pipe-sized steps.  Where either side cannot
 * splice (EINVAL: no splice_read or splice_write), the rest of this move
 * and every later one with this mover is read into the mover's own
 * buffer, made then, and written from there. */
#ifndef SAFECP_FILE_MOVE_H
#define SAFECP_FILE_MOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_mover {
	int rd, wr;      /* the pipe, -1 until the first move */
	size_t capacity; /* its bytes */
	size_t want;     /* the capacity asked for */
	bool no_splice;  /* a side refused splice: read and write */
	void *buf;       /* for reading and writing, NULL until needed */
};

/* A mover whose pipe, made at the first move, holds up to want bytes
 * (or the most a pipe may hold). */
void file_mover_init(struct file_mover *m, size_t want);
void file_mover_done(struct file_mover *m);

/* Append len bytes of in, from in_off, to out at its file position
 * (read and written through the mover's buffer where splice cannot be
 * used).  0; -EFAULT when the source could not give len bytes
 * (it ended early or failed to read: the caller reads it to learn
 * which), as a write() from an unreadable mapping would; -errno when
 * writing out failed.  *moved: the bytes that reached out. */
int file_move(struct file_mover *m, int in, uint64_t in_off, int out, size_t len, size_t *moved);

#endif
