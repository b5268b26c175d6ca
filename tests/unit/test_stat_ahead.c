/* test_stat_ahead.c: lib/copy/stat_ahead, the walk's stats on two cores:
 * every name's stat, both halves, through hand-offs that spin and ones
 * that sleep. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/stat_ahead.h"
#include "test.h"

#define NAMES 300

static char dir[] = "/tmp/test_stat_ahead.XXXXXX";
static char *names[NAMES];

/* NAMES names, file i of i bytes; every seventh name is never made. */
static int make_dir(void)
{
	char path[256];

	if (!mkdtemp(dir))
		return -1;
	for (int i = 0; i < NAMES; i++) {
		if (asprintf(&names[i], "n%03d", i) < 0)
			return -1;
		if (i % 7 == 3)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

		if (fd < 0 || ftruncate(fd, i) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static void remove_dir(void)
{
	char path[256];

	for (int i = 0; i < NAMES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
		free(names[i]);
	}
	rmdir(dir);
}

/* A helper on every machine with two CPUs: its tests must not pass alone. */
static bool no_helper(struct stat_ahead *s)
{
	cpu_set_t set;

	if (s)
		return false;
	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < 2);
	test_skip_reason = "one CPU: stat_ahead works alone here";
	return true;
}

/* names[from, from + n) through s, each result against the name's own. */
static void check_window(struct stat_ahead *s, int dfd, size_t from, size_t n)
{
	struct stat st[NAMES];
	int err[NAMES];

	memset(st, 0xa5, sizeof(st)); /* nothing left from a run before */
	memset(err, 0x5a, sizeof(err));
	stat_ahead_run(s, dfd, names + from, n, AT_SYMLINK_NOFOLLOW, st, err);
	for (size_t i = 0; i < n; i++) {
		size_t k = from + i;

		if (k % 7 == 3) {
			CHECK_INT(err[i], ENOENT);
			continue;
		}
		CHECK_INT(err[i], 0);
		CHECK(S_ISREG(st[i].st_mode));
		CHECK_U64(st[i].st_size, k);
	}
}

/* The directory's fd and a helper in *s, or -1 (the case skipped or failed). */
static int open_with_helper(struct stat_ahead **s)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	CHECK(dfd >= 0);
	CHECK_INT(stat_ahead_new(s), 0);
	if (dfd < 0 || no_helper(*s)) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	return dfd;
}

TEST(every_name_in_both_halves)
{
	struct stat_ahead *s;
	int dfd = open_with_helper(&s);

	if (dfd < 0)
		return;
	check_window(s, dfd, 0, NAMES);
	check_window(s, dfd, 10, 33); /* just big enough to share */
	check_window(s, dfd, 0, 5);   /* alone */
	stat_ahead_free(s);
	close(dfd);
}

TEST(hand_offs_that_spin_and_that_sleep)
{
	struct stat_ahead *s;
	int dfd = open_with_helper(&s);

	if (dfd < 0)
		return;
	for (size_t round = 0; round < 400; round++) {
		check_window(s, dfd, round % 200, 40 + round % 60);
		if (round % 4 == 0)
			usleep(2000); /* the helper has gone to sleep by then */
	}
	stat_ahead_free(s);
	close(dfd);
}

TEST(without_a_helper)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	CHECK(dfd >= 0);
	check_window(NULL, dfd, 0, NAMES);
	stat_ahead_free(NULL);
	close(dfd);
}

TEST(a_helper_never_used_is_freed)
{
	struct stat_ahead *s;

	CHECK_INT(stat_ahead_new(&s), 0);
	stat_ahead_free(s);
}

int main(void)
{
	TEST_PLAN(4);
	if (make_dir() < 0) {
		printf("Bail out! cannot make %s: %s\n", dir, strerror(errno));
		return 1;
	}
	RUN(every_name_in_both_halves);
	RUN(hand_offs_that_spin_and_that_sleep);
	RUN(without_a_helper);
	RUN(a_helper_never_used_is_freed);
	remove_dir();
	return test_summary();
}
