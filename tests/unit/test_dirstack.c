/* test_dirstack.c: the open-directory stack the engine and the reader
 * reach every entry through: deep trees stay within a bounded number of
 * fds, a closed frame is reopened name by name, and a directory swapped
 * (or replaced by a symlink) while its fd was closed is refused. */
#include <stdio.h>
#include <string.h>

#include "copy/dirstack.h"
#include "plan_tree.h"

#define DEEP 100

static char names[DEEP][8];

static int open_fds(void)
{
	int n = 0;
	_cleanup_closedir_ DIR *d = opendir("/proc/self/fd");

	while (d && readdir(d))
		n++;
	return n;
}

/* Push DEEP nested directories d0/d1/... made below the current one. */
static void push_deep(struct dirstack *s)
{
	_cleanup_close_ int top = open(".", O_RDONLY | O_DIRECTORY);
	int parent = top;

	for (int i = 0; i < DEEP; i++) {
		int fd;

		snprintf(names[i], sizeof(names[i]), "d%d", i);
		CHECK(mkdirat(parent, names[i], 0755) == 0);
		fd = openat(parent, names[i], O_RDONLY | O_DIRECTORY);
		CHECK(fd >= 0);
		CHECK_INT(dirstack_push(s, (size_t)i, names[i], fd), 0);
		parent = dirstack_fd(s, (size_t)i);
	}
}

TEST(deep_tree_bounded_fds_and_reopened)
{
	struct dirstack s;
	int before = open_fds();
	struct stat st;
	int fd;

	tree_new();
	dirstack_init(&s, false);
	push_deep(&s);
	CHECK_U64(s.depth, DEEP);
	CHECK(open_fds() - before <= DIRSTACK_OPEN + 2);
	/* frame 5 was closed for depth: reopened from frame 0 by name */
	CHECK(s.f[5].fd < 0);
	fd = dirstack_fd(&s, 5);
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == s.f[5].ino);
	CHECK_INT(dirstack_fd(&s, DEEP + 7), -ENOENT);
	CHECK(dirstack_has(&s, 3) && !dirstack_has(&s, DEEP));
	dirstack_pop_to(&s, 9);
	CHECK_U64(dirstack_top(&s), 9);
	dirstack_free(&s);
	CHECK_INT(open_fds(), before);
	tree_done();
}

/* The attack the stack exists for: while a frame's fd is closed, a
 * local user swaps its directory for a symlink to elsewhere or for
 * another directory.  Reopening must refuse both. */
TEST(swapped_directory_refused)
{
	struct dirstack s;
	char path[256] = "";

	tree_new();
	mkdirs("elsewhere", NULL, NULL);
	dirstack_init(&s, false);
	push_deep(&s);
	for (int i = 0; i <= 3; i++) {
		strcat(path, names[i]);
		strcat(path, "/");
	}
	/* d0/d1/d2/d3 becomes a symlink: O_NOFOLLOW */
	strcat(path, "x");
	path[strlen(path) - 2] = '\0';
	CHECK(rename(path, "moved") == 0 && symlink("../../../../elsewhere", path) == 0);
	CHECK_INT(dirstack_fd(&s, 5), -ENOTDIR); /* O_DIRECTORY|O_NOFOLLOW on a link */
	/* a real directory in its place: another inode */
	CHECK(unlink(path) == 0 && mkdir(path, 0755) == 0);
	CHECK_INT(dirstack_fd(&s, 5), -ESTALE);
	CHECK(rmdir(path) == 0 && rename("moved", path) == 0);
	CHECK(dirstack_fd(&s, 5) >= 0);
	dirstack_free(&s);
	tree_done();
}

static size_t popped_idx[4];
static int popped_n;

static void on_pop(void *ctx, size_t idx, int fd)
{
	(void)ctx;
	if (popped_n < 4)
		popped_idx[popped_n++] = idx;
	if (fd >= 0)
		close(fd);
}

TEST(pop_gives_fds_deepest_first)
{
	struct dirstack s;

	tree_new();
	dirstack_init(&s, false);
	push_deep(&s);
	popped_n = 0;
	dirstack_pop(&s, on_pop, NULL);
	dirstack_pop(&s, on_pop, NULL);
	CHECK_INT(popped_n, 2);
	CHECK_U64(popped_idx[0], DEEP - 1);
	CHECK_U64(popped_idx[1], DEEP - 2);
	CHECK_U64(dirstack_top(&s), DEEP - 3);
	dirstack_free(&s);
	CHECK_U64(dirstack_top(&s), (size_t)-1);
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(3);
	RUN(deep_tree_bounded_fds_and_reopened);
	RUN(swapped_directory_refused);
	RUN(pop_gives_fds_deepest_first);
	return test_summary();
}
