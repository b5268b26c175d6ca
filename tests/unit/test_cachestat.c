/* test_cachestat.c: cachestat(2) on a file this test writes.
 *
 * Needs Linux 6.5+; on an older kernel (ENOSYS) the cases say so and
 * pass.  The file lives in the current directory (the build tree), not
 * in /tmp, which may be tmpfs: shmem never tags pages dirty. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dirty/cachestat.h"
#include "base/cleanup.h"
#include "test.h"

#define MIB (1024ULL * 1024)
#define TMPFS_MAGIC_ 0x01021994

static bool have_cachestat(void)
{
	struct file_cache fc;

	if (cachestat_fd(STDIN_FILENO, 0, 0, &fc) == -ENOSYS) {
		printf("# cachestat(2) not in this kernel (ENOSYS)\n");
		return false;
	}
	return true;
}

/* A 1 MiB file of written (so dirty) pages; its name in path. */
static int make_file(char *path, size_t size)
{
	static char buf[MIB];
	int fd;

	snprintf(path, size, "test_cachestat.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	memset(buf, 'x', sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		unlink(path);
		return -EIO;
	}
	return fd;
}

TEST(dirty_then_clean)
{
	char path[64];
	struct file_cache fc = { 0 };
	struct statfs sfs;
	_cleanup_close_ int fd = -1;

	if (!have_cachestat())
		return;
	fd = make_file(path, sizeof(path));
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_INT(cachestat_fd(fd, 0, 0, &fc), 0);
	CHECK_U64(fc.cached, MIB);
	CHECK_INT(fstatfs(fd, &sfs), 0);
	if (sfs.f_type != TMPFS_MAGIC_)
		CHECK_U64(fc.dirty + fc.writeback, MIB);
	CHECK_INT(cachestat_path(path, &fc), 0);
	CHECK_U64(fc.cached, MIB);

	/* a range: the first page only, and past EOF */
	CHECK_INT(cachestat_fd(fd, 0, 4096, &fc), 0);
	CHECK_U64(fc.cached, 4096);
	CHECK_INT(cachestat_fd(fd, MIB, 0, &fc), 0);
	CHECK_U64(fc.cached, 0);

	/* fsync waits for writeback: nothing dirty or in flight after it */
	CHECK_INT(fsync(fd), 0);
	CHECK_INT(cachestat_fd(fd, 0, 0, &fc), 0);
	CHECK_U64(fc.dirty, 0);
	CHECK_U64(fc.writeback, 0);
	CHECK_U64(fc.cached, MIB);
	unlink(path);
}

TEST(errors)
{
	struct file_cache fc;
	int fd;

	if (!have_cachestat())
		return;
	CHECK_INT(cachestat_fd(-1, 0, 0, &fc), -EBADF);
	fd = open("/dev/null", O_RDONLY);
	close(fd);
	CHECK_INT(cachestat_fd(fd, 0, 0, &fc), -EBADF);
	CHECK_INT(cachestat_path("no-such-file.cachestat", &fc), -ENOENT);
}

/* mm/filemap.c can_do_cachestat: a read-only open of a file the caller
 * neither owns nor may write is refused, and the error reaches us. */
TEST(eperm_for_others_files)
{
	char path[64];
	struct file_cache fc;
	int fd, status = 0;
	pid_t pid;

	if (!have_cachestat())
		return;
	if (geteuid() != 0) {
		printf("# skip eperm_for_others_files: needs root to switch to nobody\n");
		return;
	}
	fd = make_file(path, sizeof(path));
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK_INT(chmod(path, 0644), 0);
	pid = fork();
	if (pid == 0) {
		char full[4096];
		int r;

		if (!realpath(path, full) || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(100);
		r = cachestat_path(full, &fc);
		/* the build tree may not be searchable by nobody: then we
		 * learn nothing about cachestat */
		_exit(r == -EACCES ? 101 : r == -EPERM ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 101)
		printf("# skip eperm_for_others_files: nobody cannot reach '%s'\n", path);
	else
		CHECK_INT(WEXITSTATUS(status), 0);
	unlink(path);
}

int main(void)
{
	TEST_PLAN(3);
	RUN(dirty_then_clean);
	RUN(errors);
	RUN(eperm_for_others_files);
	return test_summary();
}
