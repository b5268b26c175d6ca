/* unpack_open.c: libarchive set up for --unpack.  No _all: each format
 * and filter enabled is a parser a hostile archive can reach, so only
 * tar (ustar, pax, GNU and v7 are one reader), zip through its central
 * directory (the seekable reader: the sizes are known before any data,
 * and a zip whose local headers disagree with it fails) and the
 * filters gzip, bzip2, xz and zstd.  A filter this libarchive was built
 * without would run an external program (ARCHIVE_WARN): refused. */
#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "archive/unpack_open.h"

/* libarchive's read block: large enough that a stick's archive is read
 * in few system calls, small next to the ring */
#define READ_BLOCK (256u << 10)

static struct archive *reader_new(int *err)
{
	struct archive *a = archive_read_new();

	*err = -ENOMEM;
	if (!a)
		return NULL;
	if (archive_read_support_format_tar(a) != ARCHIVE_OK ||
	    archive_read_support_format_zip_seekable(a) != ARCHIVE_OK ||
	    archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_filter_bzip2(a) != ARCHIVE_OK ||
	    archive_read_support_filter_xz(a) != ARCHIVE_OK ||
	    archive_read_support_filter_zstd(a) != ARCHIVE_OK) {
		archive_read_free(a);
		*err = -ENOTSUP;
		return NULL;
	}
	*err = 0;
	return a;
}

int unpack_source_open(const char *path, struct unpack_source *src)
{
	int r;

	*src = (struct unpack_source){.fd = -1};
	src->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (src->fd < 0)
		return -errno;
	if (fstat(src->fd, &src->st) < 0) {
		r = -errno;
		unpack_source_close(src);
		return r;
	}
	if (!S_ISREG(src->st.st_mode)) {
		unpack_source_close(src);
		return -EINVAL;
	}
	src->a = reader_new(&r);
	if (!src->a) {
		unpack_source_close(src);
		return r;
	}
	if (archive_read_open_fd(src->a, src->fd, READ_BLOCK) != ARCHIVE_OK)
		return -EILSEQ;
	return 0;
}

int unpack_source_open_memory(const void *buf, size_t len, struct unpack_source *src)
{
	int r;

	*src = (struct unpack_source){.fd = -1};
	src->a = reader_new(&r);
	if (!src->a)
		return r;
	/* libarchive reads a NULL buffer of 0 bytes as an error: fine */
	if (archive_read_open_memory(src->a, buf, len) != ARCHIVE_OK)
		return -EILSEQ;
	return 0;
}

void unpack_source_close(struct unpack_source *src)
{
	if (src->a)
		archive_read_free(src->a);
	if (src->fd >= 0)
		close(src->fd);
	*src = (struct unpack_source){.fd = -1};
}
