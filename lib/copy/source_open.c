/* source_open.c: opening a source file as the tree saw it (source_open.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "copy/dirstack.h"
#include "copy/source_open.h"
#include "copy/hook_paths.h"

ssize_t source_pread_least(int fd, void *buf, size_t len, size_t need, uint64_t off)
{
	size_t got = 0;

	while (got < len && (got < need || got == 0)) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

ssize_t source_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	return source_pread_least(fd, buf, len, len, off);
}

bool source_unchanged(int fd, const struct source_entry *seen)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == seen->dev &&
	       st.st_ino == seen->ino && (uint64_t)st.st_size == seen->size &&
	       source_time_is(&st.st_mtim, seen->mtime, seen->mtime_ns) &&
	       source_time_is(&st.st_ctim, seen->ctime, seen->ctime_ns);
}

/* A readable fd of the regular file the O_PATH fd names: through /proc,
 * so it is that inode whatever its name leads to by now.  (Without /proc
 * safecp does not get this far: the target is found in mountinfo.) */
static int reopen_for_reading(int path_fd)
{
	char proc[48];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path_fd);
	return open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

int source_open_regular(int dfd, const char *path, bool follow, struct stat *ret_st)
{
	int fd = openat(dfd, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)), rfd;

	if (fd < 0)
		return -errno;
	if (fstat(fd, ret_st) < 0 || !S_ISREG(ret_st->st_mode)) {
		close(fd);
		return -ESTALE;
	}
	rfd = reopen_for_reading(fd);
	if (rfd < 0)
		rfd = -errno;
	close(fd);
	return rfd;
}

static bool is_entry(const struct stat *st, const struct source_entry *e)
{
	return S_ISREG(st->st_mode) && st->st_dev == e->dev && st->st_ino == e->ino;
}

int source_open(const struct source_tree *t, const struct source_entry *e, int dfd,
		int *ret_fd)
{
	bool follow = source_follows(t, e);
	struct stat st;
	int fd;

	test_hook_source("source-open", e);
	/* O_PATH first: opening a device node a symlink leads to (-L, or an
	 * operand) has effects of its own (a tty, a tape, a watchdog) */
	fd = openat(dfd, source_open_name(e), O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !is_entry(&st, e)) {
		close(fd);
		return 1;
	}
	/* the /proc link opens that very inode: nothing to check again */
	*ret_fd = reopen_for_reading(fd);
	close(fd);
	return *ret_fd < 0 ? -errno : 0;
}

/* The fd of e's parent directory (AT_FDCWD for an operand), or -errno. */
static int parent_fd(const struct source_tree *t, struct dirstack *dirs,
		     const struct source_entry *e)
{
	size_t parent = source_parent(e, source_index(t, e));

	return parent == PLAN_TOP ? AT_FDCWD : dirstack_fd(dirs, parent);
}

int source_open_in(const struct source_tree *t, struct dirstack *dirs,
		   const struct source_entry *e, int *ret_fd)
{
	int dfd = parent_fd(t, dirs, e);

	if (dfd < 0 && dfd != AT_FDCWD)
		return dfd;
	return source_open(t, e, dfd, ret_fd);
}

int source_enter_dir(const struct source_tree *t, struct dirstack *dirs, size_t idx)
{
	const struct source_entry *e = &t->entries[idx];
	int dfd, fd;

	dirstack_pop_to(dirs, source_parent(e, idx));
	dfd = parent_fd(t, dirs, e);
	if (dfd < 0 && dfd != AT_FDCWD)
		return dfd;
	fd = dirstack_open_checked(dfd, source_open_name(e),
				   source_follows(t, e), e->dev, e->ino);
	return fd < 0 ? fd : dirstack_push(dirs, idx, source_name(e), fd);
}

int source_open_meta(const struct source_tree *t, const struct source_entry *e)
{
	bool operand = !e->up || (e->flags & SOURCE_OPERAND);
	bool follow = (e->flags & SOURCE_ON_PATH) ||
		      (operand ? t->follow_symlinks || !t->recursive : t->follow_symlinks);
	char path[PATH_MAX];
	struct stat st;
	int fd, r = source_path(e, path, sizeof(path));

	if (r < 0)
		return r;
	fd = open(path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || plan_type_of(st.st_mode) != e->type || st.st_dev != e->dev ||
	    st.st_ino != e->ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
