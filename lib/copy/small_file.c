/* small_file.c: see small_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <unistd.h>

#include "copy/small_file.h"
#include "copy/stale_temps.h"

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

/* A new temporary in dirfd, its name in tmp; the fd or -errno.  The
 * number starts at random, so names planted in advance cannot stop us. */
static int create_temp(int dirfd, char tmp[STALE_TEMP_NAME_MAX], mode_t mode)
{
	unsigned int seq = 0;

	for (int tries = 0; tries < 16; tries++) {
		int fd;

		if (getrandom(&seq, sizeof(seq), GRND_NONBLOCK) < 0)
			seq += 7919;
		stale_temp_name(tmp, getpid(), seq & 0xffffff);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

int small_file_write(int dirfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	char tmp[STALE_TEMP_NAME_MAX];
	int fd = create_temp(dirfd, tmp, mode), r;

	if (fd < 0)
		return fd;
	r = write_all(fd, buf, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlinkat(dirfd, tmp, 0); /* the stale scan takes what stays */
		return r;
	}
	return fsync(dirfd) < 0 ? -errno : 0;
}
