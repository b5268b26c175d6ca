/* file_move.c: splice through a pipe, or read and write where a side
 * cannot splice. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/file_move.h"
#include "base/cleanup.h"

#define PIPE_MIN (64u << 10) /* a new pipe's default capacity */
#define PIPE_MAX (64u << 20)
/* where a side cannot splice, bytes go through a buffer of this, page
 * aligned, so that an O_DIRECT destination takes it; whole pieces are
 * multiples of any block size, and the last is the move's own tail */
#define FALLBACK_BYTES (1u << 20)

void file_mover_init(struct file_mover *m, size_t want)
{
	*m = (struct file_mover){ .rd = -1, .wr = -1, .want = MIN(MAX(want, PIPE_MIN), PIPE_MAX) };
}

static void close_pipe(struct file_mover *m)
{
	if (m->rd >= 0)
		close(m->rd);
	if (m->wr >= 0)
		close(m->wr);
	m->rd = m->wr = -1;
}

void file_mover_done(struct file_mover *m)
{
	close_pipe(m);
	free(m->buf);
	m->buf = NULL;
}

/* The largest capacity we may have: past pipe-max-size F_SETPIPE_SZ is
 * EPERM without CAP_SYS_RESOURCE, so halve until it is granted. */
static int open_pipe(struct file_mover *m)
{
	int p[2], got;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	m->rd = p[0];
	m->wr = p[1];
	for (size_t sz = m->want; sz > PIPE_MIN; sz /= 2) {
		if (fcntl(m->wr, F_SETPIPE_SZ, (int)sz) >= 0) {
			m->want = sz; /* the next pipe asks for what this one got */
			break;
		}
	}
	got = fcntl(m->wr, F_GETPIPE_SZ);
	if (got <= 0) {
		close_pipe(m);
		return -EINVAL;
	}
	m->capacity = (size_t)got;
	return 0;
}

/* The side cannot splice (no splice_read/splice_write, or a source opened
 * O_NONBLOCK whose pages are not cached) but may still read or write. */
static bool refused(int err)
{
	return err == EINVAL || err == ENOSYS || err == EOPNOTSUPP || err == EAGAIN;
}

/* One pipe's worth: 0; 1 when a side refused (the pipe is dropped, with
 * any bytes in it: they are still in the source); -EFAULT, -errno. */
static int step(struct file_mover *m, int in, uint64_t in_off, int out, size_t left,
		size_t *moved)
{
	off64_t o = (off64_t)in_off;
	ssize_t n, w;

	do
		n = splice(in, &o, m->wr, NULL, MIN(left, m->capacity), SPLICE_F_MOVE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return refused(errno) ? 1 : -EFAULT;
	if (n == 0)
		return -EFAULT; /* the source ended before its size */
	while (n > 0) {
		w = splice(m->rd, NULL, out, NULL, (size_t)n, SPLICE_F_MOVE);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w < 0 ? errno : EIO;

			close_pipe(m);
			return refused(err) ? 1 : -err;
		}
		n -= w;
		*moved += (size_t)w;
	}
	return 0;
}

/* Read the rest into the mover's own buffer and write it, a piece at a
 * time.  Its own: several destinations move the same chunk at once. */
static int read_write(struct file_mover *m, int in, uint64_t in_off, int out, size_t len,
		      size_t *moved)
{
	if (!m->buf && posix_memalign(&m->buf, (size_t)sysconf(_SC_PAGESIZE), FALLBACK_BYTES) != 0) {
		m->buf = NULL;
		return -ENOMEM;
	}
	while (len > 0) {
		size_t piece = MIN(len, (size_t)FALLBACK_BYTES), got = 0, put = 0;
		char *buf = m->buf;
		ssize_t n;

		while (got < piece) {
			n = pread(in, buf + got, piece - got, (off_t)(in_off + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return -EFAULT;
			got += (size_t)n;
		}
		while (put < piece) {
			n = write(out, buf + put, piece - put);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			put += (size_t)n;
			*moved += (size_t)n;
		}
		in_off += piece;
		len -= piece;
	}
	return 0;
}

int file_move(struct file_mover *m, int in, uint64_t in_off, int out, size_t len, size_t *moved)
{
	int r;

	*moved = 0;
	/* no pipe to be had (EMFILE): read and write, this time */
	if (!m->no_splice && m->rd < 0 && open_pipe(m) < 0)
		return read_write(m, in, in_off, out, len, moved);
	while (!m->no_splice && *moved < len) {
		r = step(m, in, in_off + *moved, out, len - *moved, moved);
		if (r < 0)
			return r;
		if (r == 1) {
			close_pipe(m);
			m->no_splice = true;
		}
	}
	if (*moved == len)
		return 0;
	return read_write(m, in, in_off + *moved, out, len - *moved, moved);
}
