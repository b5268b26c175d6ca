/* unpack_gzip.c: gzip decoded with zlib (unpack_gzip.h).  inflate() in
 * gzip mode (windowBits 16 + 15) checks each member's trailer itself
 * and fails with Z_DATA_ERROR ("incorrect data check", "incorrect
 * length check"); after Z_STREAM_END it is reset for a next member. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "archive/unpack_gzip.h"

#define GZ_BLOCK (256u << 10)

struct gz {
	z_stream z;
	int fd;                 /* -1: memory */
	const unsigned char *mem;
	size_t mem_len;
	bool in_member;         /* a member started and not yet ended */
	bool eof;               /* no more input */
	bool ended;             /* the stream is over (after a member) */
	int err;                /* a failure found after bytes still to give */
	const char *why;
	unsigned char in[GZ_BLOCK];
	unsigned char out[GZ_BLOCK];
};

bool gz_magic(const void *p, size_t n)
{
	const unsigned char *b = p;

	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

int gz_new(int fd, const void *mem, size_t len, struct gz **ret)
{
	struct gz *g = calloc(1, sizeof(*g));

	*ret = NULL;
	if (!g)
		return -ENOMEM;
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	g->fd = fd;
	if (fd < 0) { /* all of it is input at once */
		g->z.next_in = (unsigned char *)(uintptr_t)mem;
		g->z.avail_in = (uInt)len;
		g->eof = true;
		if (len > UINT_MAX) {
			inflateEnd(&g->z);
			free(g);
			return -EFBIG;
		}
	}
	*ret = g;
	return 0;
}

/* More input: 0 (maybe eof), or -errno. */
static int refill(struct gz *g)
{
	ssize_t n;

	if (g->eof)
		return 0;
	/* one byte short of the buffer: next_member() may put one back */
	do
		n = read(g->fd, g->in, sizeof(g->in) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	g->eof = n == 0;
	g->z.next_in = g->in;
	g->z.avail_in = (uInt)n;
	return 0;
}

/* Between members: start another one if the input holds one. */
static int next_member(struct gz *g)
{
	int r;

	if (g->z.avail_in < 2 && !g->eof) {
		/* keep the byte we have: a member may start at its end */
		unsigned char first = g->z.avail_in ? g->z.next_in[0] : 0;
		bool have = g->z.avail_in != 0;

		r = refill(g);
		if (r < 0)
			return r;
		if (have) { /* put it back in front (the buffer is ours here) */
			memmove(g->in + 1, g->z.next_in, g->z.avail_in);
			g->in[0] = first;
			g->z.next_in = g->in;
			g->z.avail_in++;
		}
	}
	if (!gz_magic(g->z.next_in, g->z.avail_in)) {
		g->ended = true;
		return 0;
	}
	if (inflateReset(&g->z) != Z_OK)
		return -EBADMSG;
	g->in_member = true;
	return 0;
}

ssize_t gz_read(struct gz *g, const void **buf, const char **why)
{
	*why = NULL;
	*buf = g->out;
	if (g->err) {
		*why = g->why;
		return g->err;
	}
	while (!g->ended) {
		int r;
		size_t got;

		if (!g->in_member) {
			r = g->z.total_in || g->z.total_out ? next_member(g) : 0;
			if (r < 0)
				return r;
			g->in_member = !g->ended;
			continue;
		}
		if (!g->z.avail_in) {
			r = refill(g);
			if (r < 0)
				return r;
			if (!g->z.avail_in) {
				g->why = *why = "the gzip stream ends before its trailer";
				return g->err = -EBADMSG;
			}
		}
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		r = inflate(&g->z, Z_NO_FLUSH);
		got = sizeof(g->out) - g->z.avail_out;
		if (r == Z_STREAM_END) {
			g->in_member = false;
		} else if (r != Z_OK && !(r == Z_BUF_ERROR && !g->z.avail_in)) {
			/* the bytes before it first: what they are is for the
			 * reader to find; the next call fails */
			g->why = g->z.msg ? g->z.msg : "the gzip stream is damaged";
			g->err = r == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
			if (!got) {
				*why = g->why;
				return g->err;
			}
		}
		if (got)
			return (ssize_t)got;
	}
	return 0;
}

void gz_free(struct gz *g)
{
	if (!g)
		return;
	inflateEnd(&g->z);
	free(g);
}
