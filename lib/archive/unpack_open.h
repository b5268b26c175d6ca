/* unpack_open.h: an archive opened for reading with only the formats and
 * filters --unpack supports (unpack_list.h says which), shared by the
 * first pass (unpack_scan.c) and the feed that reads the data later.
 * Internal to lib/archive: the only part that includes <archive.h>. */
#ifndef SAFECP_UNPACK_OPEN_H
#define SAFECP_UNPACK_OPEN_H

#include <stddef.h>
#include <sys/stat.h>

struct archive;

struct unpack_source {
	struct archive *a;
	int fd;             /* the archive file's, or -1 (in memory) */
	struct stat st;     /* fstat of fd: a regular file */
};

/* Open path (a regular file: a FIFO could not be read twice) and start
 * libarchive on it.  Returns 0, -errno from open/fstat (-EINVAL: not a
 * regular file), -ENOTSUP (a filter this libarchive lacks), -ENOMEM, or
 * -EILSEQ when libarchive refuses to start (src->a holds its text). */
int unpack_source_open(const char *path, struct unpack_source *src);

/* The same over bytes in memory (which must outlive src). */
int unpack_source_open_memory(const void *buf, size_t len, struct unpack_source *src);

/* Free the reader and close the file (src zeroed; fine twice). */
void unpack_source_close(struct unpack_source *src);

#endif
