/* unpack_open.c: libarchive set up for --unpack.  No _all: each format
 * and filter enabled is a parser a hostile archive can reach, so only
 * tar (ustar, pax, GNU and v7 are one reader), zip through its central
 * directory (the seekable reader: the sizes are known before any data,
 * and a zip whose local headers disagree with it fails) and the
 * filters bzip2, xz and zstd; gzip is ours (unpack_gzip.h), fed to
 * libarchive through a read callback.  A filter this libarchive was
 * built without would run an external program (ARCHIVE_WARN): refused. */
#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "archive/unpack_gzip.h"
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

int unpack_source_pin(const char *path, int *ret_fd)
{
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC);

	*ret_fd = -1;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int r = errno;

		r = fstat(fd, &st) < 0 ? -r : -EINVAL;
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* libarchive's read callback over our gzip decoder */
static la_ssize_t gz_callback(struct archive *a, void *ctx, const void **buf)
{
	const char *why;
	ssize_t n = gz_read(ctx, buf, &why);

	if (n < 0)
		archive_set_error(a, -(int)n, "%s", why ? why : strerror(-(int)n));
	return n < 0 ? -1 : n;
}

static int start(struct unpack_source *src, const void *mem, size_t len)
{
	unsigned char head[2];
	bool gzip;
	int r;

	src->a = reader_new(&r);
	if (!src->a)
		return r;
	gzip = src->fd >= 0 ? pread(src->fd, head, 2, 0) == 2 && gz_magic(head, 2)
			    : gz_magic(mem, len);
	if (gzip) {
		r = gz_new(src->fd, mem, len, &src->gz);
		if (r < 0)
			return r;
		r = archive_read_open(src->a, src->gz, NULL, gz_callback, NULL);
	} else if (src->fd >= 0) {
		r = archive_read_open_fd(src->a, src->fd, READ_BLOCK);
	} else {
		/* libarchive reads a NULL buffer of 0 bytes as an error: fine */
		r = archive_read_open_memory(src->a, mem, len);
	}
	return r == ARCHIVE_OK ? 0 : -EILSEQ;
}

int unpack_source_open(int pin_fd, struct unpack_source *src)
{
	char proc[48];
	int r;

	*src = (struct unpack_source){.fd = -1};
	/* the /proc link opens the very inode pinned, whatever its path
	 * names now */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pin_fd);
	src->fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
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
	r = start(src, NULL, 0);
	if (r < 0 && r != -EILSEQ)
		unpack_source_close(src);
	return r;
}

int unpack_source_open_memory(const void *buf, size_t len, struct unpack_source *src)
{
	*src = (struct unpack_source){.fd = -1};
	return start(src, buf, len);
}

int unpack_source_finish(struct unpack_source *src)
{
	const void *b;
	const char *why;
	ssize_t n;

	if (!src->gz)
		return 0;
	while ((n = gz_read(src->gz, &b, &why)) > 0)
		;
	if (n < 0)
		archive_set_error(src->a, -(int)n, "%s", why ? why : strerror(-(int)n));
	return n < 0 ? -EBADMSG : 0;
}

void unpack_source_close(struct unpack_source *src)
{
	if (src->a)
		archive_read_free(src->a);
	gz_free(src->gz);
	if (src->fd >= 0)
		close(src->fd);
	*src = (struct unpack_source){.fd = -1};
}
