/* stale_temps.c: see stale_temps.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "copy/stale_temps.h"

#define PREFIX ".safecp-"
#define SUFFIX ".tmp"

void stale_temp_name(char *buf, pid_t pid, unsigned long seq)
{
	snprintf(buf, STALE_TEMP_NAME_MAX, PREFIX "%ld-%lu" SUFFIX, (long)pid, seq);
}

/* A decimal number without sign or leading zero, ending at stop.
 * *end points past it. */
static bool number(const char *s, char stop, unsigned long long max,
		   unsigned long long *ret, const char **end)
{
	unsigned long long v = 0;
	const char *p = s;

	if (*p < '1' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (unsigned long long)(*p - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (*p != stop)
		return false;
	*ret = v;
	*end = p;
	return true;
}

bool stale_temp_parse(const char *name, pid_t *pid)
{
	unsigned long long p, seq;
	const char *s = name;

	if (strncmp(s, PREFIX, strlen(PREFIX)) != 0)
		return false;
	s += strlen(PREFIX);
	if (!number(s, '-', 0x7fffffff, &p, &s))
		return false;
	if (!number(s + 1, '.', (unsigned long)-1, &seq, &s))
		return false;
	if (strcmp(s, SUFFIX) != 0)
		return false;
	*pid = (pid_t)p;
	return true;
}

static bool alive(pid_t pid)
{
	/* EPERM: it exists, it is just not ours to signal */
	return pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH;
}

static bool mine(const struct stat *st)
{
	return st->st_uid == geteuid() && st->st_nlink == 1;
}

static int add(struct stale_temps *list, const char *dir_path, size_t dir, const char *name,
	       const struct stat *st)
{
	size_t dl = strlen(dir_path);
	const char *sep = dl && dir_path[dl - 1] == '/' ? "" : "/";
	struct stale_temp *grown;
	char *path;

	if (asprintf(&path, "%s%s%s", dir_path, sep, name) < 0)
		return -ENOMEM;
	grown = realloc(list->v, (list->n + 1) * sizeof(*grown));
	if (!grown) {
		free(path);
		return -ENOMEM;
	}
	list->v = grown;
	list->v[list->n++] = (struct stale_temp){ path, path + dl + strlen(sep), dir,
						  (uint64_t)st->st_blocks * 512 };
	list->bytes += (uint64_t)st->st_blocks * 512;
	return 0;
}

int stale_temps_find_at(int dfd, const char *dir_path, size_t dir,
			struct stale_temps *list)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_closedir_ DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	struct stat st;
	pid_t pid;
	int r;

	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	/* what we could not remove must not count as free space */
	if (faccessat(dirfd(d), ".", W_OK, AT_EACCESS) < 0)
		return 0;
	while ((errno = 0, de = readdir(d))) {
		if (!stale_temp_parse(de->d_name, &pid) || alive(pid))
			continue;
		/* ours to remove: made by this user (root must not remove
		 * another user's file that merely looks like ours), and a
		 * hard link would free nothing */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) || !mine(&st))
			continue;
		r = add(list, dir_path, dir, de->d_name, &st);
		if (r < 0)
			return r;
	}
	return -errno;
}

int stale_temps_find(const char *path, struct stale_temps *list)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : stale_temps_find_at(fd, path, 0, list);
}

int stale_temp_remove(int dfd, const struct stale_temp *t)
{
	struct stat st;

	if (fstatat(dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if ((!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) || !mine(&st))
		return -ENOENT; /* replaced by something that is not ours */
	return unlinkat(dfd, t->name, 0) < 0 ? -errno : 0;
}

void stale_temps_free(struct stale_temps *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->v[i].path);
	free(list->v);
	*list = (struct stale_temps){ 0 };
}
