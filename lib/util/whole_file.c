/* whole_file.c: read a bounded regular file whole (whole_file.h).
 *
 * The size comes from fstat() of the open file, not of the name, so the
 * check and the read are of one file; a read that ends early (the file
 * was cut meanwhile) stops there. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "util/whole_file.h"

int whole_file_read_at(int dirfd, const char *path, int flags, uint64_t max, char **ret,
		       size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
					O_NONBLOCK | flags);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max)
		return -EINVAL;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = got;
	return 0;
}
