/* unpack_open.h: an archive opened for reading with only the formats and
 * filters --unpack supports (unpack_list.h says which), shared by the
 * first pass (unpack_scan.c) and the feed that reads the data later.
 * Internal to lib/archive: the only part that includes <archive.h>.
 *
 * The file is found by its path once: unpack_source_pin() holds it as an
 * O_PATH fd (no open of a device node a path may lead to, which has
 * effects of its own: a tape, a watchdog), and every pass reads it
 * through /proc/self/fd/N of that fd, so the data pass reads the inode
 * the first pass checked whatever the path names by then.
 *
 * gzip is decoded here with zlib, not by libarchive (3.6.2 reads past
 * a gzip member's trailer without checking its CRC-32 or length): a
 * member whose trailer disagrees with its bytes fails the read that
 * reaches it, and unpack_source_finish() reads to the end of the file so
 * that the first pass checks every member before the first byte is
 * written. */
#ifndef SAFECP_UNPACK_OPEN_H
#define SAFECP_UNPACK_OPEN_H

#include <stddef.h>
#include <sys/stat.h>

struct archive;
struct gz;

struct unpack_source {
	struct archive *a;
	int fd;             /* the archive file's, or -1 (in memory) */
	struct stat st;     /* fstat of fd: a regular file */
	struct gz *gz;      /* the gzip decoder libarchive reads through, or NULL */
};

/* path held as an O_PATH fd in *ret_fd, a regular file (a FIFO could not
 * be read twice).  0, -errno of open/fstat, or -EINVAL (not a regular
 * file). */
int unpack_source_pin(const char *path, int *ret_fd);

/* Open the file pinned as pin_fd for reading and start libarchive on it.
 * Returns 0, -errno from open/fstat (-EINVAL: not a regular file),
 * -ENOTSUP (a filter this libarchive lacks), -ENOMEM, or -EILSEQ when
 * libarchive refuses to start (src->a holds its text). */
int unpack_source_open(int pin_fd, struct unpack_source *src);

/* The same over bytes in memory (which must outlive src). */
int unpack_source_open_memory(const void *buf, size_t len, struct unpack_source *src);

/* After ARCHIVE_EOF: read what is left of a gzip stream (past the tar's
 * end blocks: padding and the trailer), so its last check is made.
 * 0, or -EBADMSG with the text in src->a (archive_error_string). */
int unpack_source_finish(struct unpack_source *src);

/* Free the reader and close the file (src zeroed; fine twice). */
void unpack_source_close(struct unpack_source *src);

#endif
