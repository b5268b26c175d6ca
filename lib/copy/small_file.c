/* small_file.c: see small_file.h. */
#include <errno.h>
#include <unistd.h>

#include "copy/dest_file.h"
#include "copy/small_file.h"

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int small_file_write(int dirfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	struct dest_files fs;
	struct dest_file f;
	int fd, r;

	dest_files_init(&fs, false);
	r = dest_file_init(&f, dirfd, name);
	fd = r < 0 ? r : dest_file_create(&fs, &f, mode);
	if (fd < 0) {
		dest_file_free(&f);
		return fd;
	}
	r = write_all(fd, buf, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0)
		r = dest_file_publish(&fs, &f, DEST_REPLACE);
	/* the stale scan takes what stays */
	dest_file_remove(&f);
	dest_file_free(&f);
	if (r < 0)
		return r;
	return fsync(dirfd) < 0 ? -errno : 0;
}
