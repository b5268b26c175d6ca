/* test_stale_temps.c: the temporary names (written, parsed, and the
 * near misses that must not be taken for ours), finding a dead copy's
 * temporaries while a live one's stay, and the plan that gathers them
 * from the directories it writes into and counts them as free space. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "plan_tree.h"
#include "copy/dest_file.h"

/* A PID that was just used and is not running now. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		FAIL_AT("fork: %m");
	return pid;
}

TEST(name_round_trip)
{
	char name[STALE_TEMP_NAME_MAX];
	pid_t pid = 0;

	stale_temp_name(name, 4194304, 18446744073709551615UL);
	CHECK_STR(name, ".safecp-4194304-18446744073709551615.tmp");
	CHECK(stale_temp_parse(name, &pid));
	CHECK_INT(pid, 4194304);
	stale_temp_name(name, 7, 1);
	CHECK_STR(name, ".safecp-7-1.tmp");
	CHECK(stale_temp_parse(name, &pid));
	CHECK_INT(pid, 7);
}

TEST(names_that_are_not_ours)
{
	static const char *const not_ours[] = {
		"safecp-7-1.tmp",     ".safecp-7-1.tmp~",   ".safecp-7-1.tmpx",
		".safecp-7-1",        ".safecp-7.tmp",      ".safecp--1.tmp",
		".safecp-0-1.tmp",    ".safecp-07-1.tmp",   ".safecp-7-01.tmp",
		".safecp-7-0.tmp",    ".safecp-+7-1.tmp",   ".safecp--7-1.tmp",
		".safecp-7-1-2.tmp",  ".safecp-7x-1.tmp",   ".safecp-2147483648-1.tmp",
		".safecp-7-18446744073709551616.tmp", ".safecp-7- 1.tmp", ".SAFECP-7-1.tmp",
		"", ".safecp-", ".safecp-7-",
	};
	pid_t pid = -1;

	for (size_t i = 0; i < ARRAY_SIZE(not_ours); i++)
		if (stale_temp_parse(not_ours[i], &pid))
			FAIL_AT("'%s' taken for a temporary name", not_ours[i]);
	CHECK_INT(pid, -1);
	CHECK(stale_temp_parse(".safecp-2147483647-1.tmp", &pid));
}

TEST(find_keeps_live_pids_and_other_files)
{
	struct stale_temps list = { 0 };
	char dead[STALE_TEMP_NAME_MAX], mine[STALE_TEMP_NAME_MAX], init[STALE_TEMP_NAME_MAX];
	char path[PATH_MAX];

	tree_new();
	mkdirs("d", "d/.safecp-99-1.tmp", NULL); /* a directory: never ours */
	stale_temp_name(dead, dead_pid(), 3);
	stale_temp_name(mine, getpid(), 1);
	stale_temp_name(init, 1, 1);            /* PID 1 always runs */
	snprintf(path, sizeof(path), "d/%s", dead);
	mkfile(path, 5000);
	snprintf(path, sizeof(path), "d/%s", mine);
	mkfile(path, 10);
	snprintf(path, sizeof(path), "d/%s", init);
	mkfile(path, 10);
	mkfile("d/.safecp-1-1.tmp.bak", 10);
	CHECK_INT(stale_temps_find("d", &list), 0);
	CHECK_U64(list.n, 1);
	snprintf(path, sizeof(path), "d/%s", dead);
	CHECK_STR(list.v[0].path, path);
	CHECK(list.v[0].bytes >= 5000);
	CHECK_U64(list.bytes, list.v[0].bytes);
	/* appends; a trailing slash makes no double slash */
	CHECK_INT(stale_temps_find("d/", &list), 0);
	CHECK_U64(list.n, 2);
	CHECK_STR(list.v[1].path, path);
	CHECK_U64(list.bytes, 2 * list.v[0].bytes);
	CHECK_INT(stale_temps_find("missing", &list), -ENOENT);
	CHECK_U64(list.n, 2);
	stale_temps_free(&list);
	CHECK_U64(list.n, 0);
	tree_done();
}

/* Its temporaries cannot be removed, so they must not count as free. */
TEST(unwritable_directory_gives_none)
{
	struct stale_temps list = { 0 };
	char path[PATH_MAX], name[STALE_TEMP_NAME_MAX];
	int status = -1;
	pid_t child;

	tree_new();
	mkdirs("d", NULL, NULL);
	stale_temp_name(name, dead_pid(), 1);
	snprintf(path, sizeof(path), "d/%s", name);
	mkfile(path, 10);
	CHECK(chmod("d", 0555) == 0 && chmod(tmp_root, 0755) == 0);
	child = fork();
	if (child == 0) {
		/* root may write anywhere: look as nobody */
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(2);
		_exit(stale_temps_find("d", &list) == 0 && list.n == 0 ? 0 : 1);
	}
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	CHECK_INT(status, 0);
	CHECK(chmod("d", 0755) == 0);
	CHECK_INT(stale_temps_find("d", &list), 0);
	CHECK_U64(list.n, 1);
	stale_temps_free(&list);
	tree_done();
}

/* dest_root and merged directories are looked at; a directory the copy
 * does not write into is not, nor is one it creates. */
TEST(plan_gathers_from_where_it_writes)
{
	static const struct plan_options rec_T = { .recursive = true, .no_target_directory = true };
	static const char *const where[] = { "dst", "dst/src", "dst/src/sub", "dst/other" };
	char name[STALE_TEMP_NAME_MAX], path[PATH_MAX];
	pid_t pid = dead_pid();
	struct run x;

	tree_new();
	mkdirs("src", "src/sub", "dst");
	mkdirs("dst/src", "dst/src/sub", "dst/other");
	mkfile("src/sub/f", 10);
	stale_temp_name(name, pid, 1);
	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		snprintf(path, sizeof(path), "%s/%s", where[i], name);
		mkfile(path, 4096);
	}
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	CHECK_U64(x.p->stale.n, 3);
	snprintf(path, sizeof(path), "dst/%s", name);
	CHECK_STR(x.p->stale.v[0].path, path);
	snprintf(path, sizeof(path), "dst/src/%s", name);
	CHECK_STR(x.p->stale.v[1].path, path);
	snprintf(path, sizeof(path), "dst/src/sub/%s", name);
	CHECK_STR(x.p->stale.v[2].path, path);
	run_done(&x);
	/* -T merges src into dst itself: dst is looked at once */
	x = BUILD(&rec_T, "dst/src", "src");
	CHECK_INT(x.r, 0);
	CHECK_U64(x.p->stale.n, 2);
	run_done(&x);
	tree_done();
}

TEST(stale_space_counts_as_free)
{
	struct fs_space fs = { .avail_inodes = UINT64_MAX, .cluster = 4096,
			       .max_file_size = INT64_MAX, .dirents = FS_DIRENTS_EXFAT };
	struct plan_problem pr = { 0 };
	char name[STALE_TEMP_NAME_MAX], path[PATH_MAX];
	uint64_t need;
	struct run x;

	tree_new();
	mkdirs("dst", NULL, NULL);
	mkfile("big", 1 << 20);
	stale_temp_name(name, dead_pid(), 1);
	snprintf(path, sizeof(path), "dst/%s", name);
	mkfile(path, 1 << 20);
	x = BUILD(&rec, "dst", "big");
	CHECK_INT(x.r, 0);
	CHECK_U64(x.p->stale.n, 1);
	need = plan_space_needed(x.p, &fs);
	fs.avail_bytes = need - x.p->stale.bytes;
	CHECK_INT(plan_check(x.p, &fs, plan_space_needed(x.p, &fs), &pr), PLAN_OK);
	fs.avail_bytes--;
	CHECK_INT(plan_check(x.p, &fs, plan_space_needed(x.p, &fs), &pr), PLAN_NO_SPACE);
	CHECK_U64(pr.have, need - 1);
	plan_problem_done(&pr);
	fs.avail_bytes = need;
	fs.avail_inodes = 0; /* one new name, one stale inode freed */
	CHECK_INT(plan_check(x.p, &fs, plan_space_needed(x.p, &fs), &pr), PLAN_OK);
	run_done(&x);
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(6);
	RUN(name_round_trip);
	RUN(names_that_are_not_ours);
	RUN(find_keeps_live_pids_and_other_files);
	RUN(unwritable_directory_gives_none);
	RUN(plan_gathers_from_where_it_writes);
	RUN(stale_space_counts_as_free);
	return test_summary();
}
