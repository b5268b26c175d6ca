/* sysroot.c: the root prefix for /proc and /sys, and small-file reading.
 *
 * sysfs attributes are a page at most and /proc tables a few KiB, so
 * reading whole files into memory keeps every parser a string function
 * that unit tests can call on fixture text. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/grow.h"
#include "util/parse.h"
#include "util/sysroot.h"

static char *root_prefix;
static bool root_initialised;

int sysroot_set(const char *prefix)
{
	char *copy = NULL;

	if (prefix && *prefix) {
		size_t len;

		/* absolute and canonical, so that realpath() results inside
		 * the tree start with it (a relative tests/fixtures/x too) */
		copy = realpath(prefix, NULL);
		if (!copy)
			copy = strdup(prefix);
		if (!copy)
			return -ENOMEM;
		len = strlen(copy);
		/* "fixtures/x/" and "fixtures/x" must name the same root */
		while (len > 1 && copy[len - 1] == '/')
			copy[--len] = '\0';
	}
	free(root_prefix);
	root_prefix = copy;
	root_initialised = true;
	return 0;
}

const char *sysroot_get(void)
{
	if (!root_initialised)
		/* a test seam: secure_getenv() ignores it in a setuid or
		 * file-capability process, where the caller is not trusted */
		sysroot_set(secure_getenv("SAFECP_SYSROOT"));
	return root_prefix ? root_prefix : "";
}

bool sysroot_is_real(void)
{
	return sysroot_get()[0] == '\0';
}

int sysroot_path(char *buf, size_t size, const char *fmt, ...)
{
	const char *root = sysroot_get();
	size_t rlen = strlen(root);
	va_list ap;
	int n;

	if (rlen >= size)
		return -ENAMETOOLONG;
	memcpy(buf, root, rlen);
	va_start(ap, fmt);
	n = vsnprintf(buf + rlen, size - rlen, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - rlen)
		return -ENAMETOOLONG;
	return 0;
}

int sysroot_read_file(const char *path, char **ret)
{
	char full[4096];
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 4096;
	int r;

	r = sysroot_path(full, sizeof(full), "%s", path);
	if (r < 0)
		return r;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (cap - len < 2 && GROW(buf, cap, cap + 1, 4096) < 0)
			return -ENOMEM;
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

int sysroot_read_line(const char *path, char *buf, size_t size)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	r = sysroot_read_file(path, &text);
	if (r < 0)
		return r;
	len = strcspn(text, "\n");
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return 0;
}

int sysroot_read_u64(const char *path, uint64_t *ret)
{
	char line[64];
	int r;

	r = sysroot_read_line(path, line, sizeof(line));
	if (r < 0)
		return r;
	/* a sign, junk or a number past 2^64 - 1 is no count: -EINVAL */
	return parse_u64(parse_skip_blanks(line), ret, NULL) < 0 ? -EINVAL : 0;
}
