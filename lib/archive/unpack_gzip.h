/* unpack_gzip.h: a gzip stream decoded with every member's trailer
 * checked (RFC 1952: the CRC-32 and the length, mod 2^32, of the
 * member's bytes), for --unpack's archives; libarchive 3.6.2's own gzip
 * filter never looks at the trailer.  The only includer of <zlib.h>.
 *
 * Members follow one another (gzip's concatenation); after a member,
 * bytes that do not start another one are ignored, as gzip(1) and
 * libarchive do (tape padding). */
#ifndef SAFECP_UNPACK_GZIP_H
#define SAFECP_UNPACK_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct gz;

/* Do the n bytes at p start a gzip member? */
bool gz_magic(const void *p, size_t n);

/* A decoder of the file fd (read from its current offset), or, with fd
 * -1, of the len bytes at mem (which must outlive it).  0 or -ENOMEM. */
int gz_new(int fd, const void *mem, size_t len, struct gz **ret);

/* The next decoded bytes in *buf (valid until the next call): their
 * count, 0 at the end of the stream, or -errno: -EBADMSG for a damaged
 * stream (a trailer that disagrees, a stream cut short), with what is
 * wrong in *why (static text). */
ssize_t gz_read(struct gz *g, const void **buf, const char **why);

void gz_free(struct gz *g);

#endif
