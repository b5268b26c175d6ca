/* backup_name.c: see backup_name.h.  The numbered rule is cp's: each
 * replace reads the directory for the highest NAME.~N~, so a backup never
 * takes the name of an older one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "copy/backup_name.h"

unsigned long backup_number(const char *name, const char *entry)
{
	size_t l = strlen(name);
	unsigned long n = 0;
	const char *p;

	if (strncmp(entry, name, l) != 0 || strncmp(entry + l, ".~", 2) != 0)
		return 0;
	p = entry + l + 2;
	if (*p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (ULONG_MAX - 9) / 10)
			return 0; /* no number past ULONG_MAX: never the highest */
		n = n * 10 + (unsigned long)(*p - '0');
	}
	return strcmp(p, "~") == 0 ? n : 0;
}

/* The highest numbered backup of name in the directory, 0 for none. */
static int highest_number(int dirfd, const char *name, unsigned long *ret)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return -e;
	}
	*ret = 0;
	errno = 0;
	while ((de = readdir(d))) {
		unsigned long n = backup_number(name, de->d_name);

		if (n > *ret)
			*ret = n;
	}
	int e = errno;

	closedir(d);
	return -e;
}

int backup_name(int dirfd, const char *name, enum backup_mode how, const char *suffix,
		char buf[NAME_MAX + 1])
{
	unsigned long n = 0;
	int len, r;

	if (how != BACKUP_SIMPLE && (r = highest_number(dirfd, name, &n)) < 0)
		return r;
	if (how == BACKUP_SIMPLE || (how == BACKUP_EXISTING && n == 0))
		len = snprintf(buf, NAME_MAX + 1, "%s%s", name, suffix);
	else if (n == ULONG_MAX)
		return -EOVERFLOW;
	else
		len = snprintf(buf, NAME_MAX + 1, "%s.~%lu~", name, n + 1);
	return len < 0 || len > NAME_MAX ? -ENAMETOOLONG : 0;
}
