/* test_check.c: the reference of a check merged path by path, checksum lists
 * read back (and refused when a line is not theirs, or the list is a
 * symlink), and the job's path safety on a tree of traps: a symlink as the
 * file, a symlinked directory on the path, "..", an absolute path, a fifo, a
 * directory, a missing file, one below a file; plus a match, a changed byte,
 * a size that differs and a file the manifest marked failed. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "copy/check.h"
#include "copy/check_input.h"

static char tmp[] = "/tmp/test_check.XXXXXX";

static void put(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	f = fopen(path, "w");
	if (!f || fputs(content, f) < 0 || fclose(f) != 0)
		FAIL_AT("cannot write %s: %m", path);
}

static void digest_of(enum checksum_alg alg, const char *s, char out[CHECKSUM_TEXT_MAX])
{
	struct checksum_state *st = checksum_new(CHECKSUM_BIT(alg));
	struct checksum_result res;

	checksum_update(st, s, strlen(s));
	checksum_final(st, &res);
	memcpy(out, checksum_result_text(&res, alg), CHECKSUM_TEXT_MAX);
	checksum_free(st);
}

TEST(list_merges_by_path_cheapest_first)
{
	struct check_list l;
	char sha[CHECKSUM_TEXT_MAX], xxh[CHECKSUM_TEXT_MAX];

	digest_of(CHECKSUM_SHA256, "x", sha);
	digest_of(CHECKSUM_XXH128, "x", xxh);
	check_list_init(&l);
	CHECK_INT(check_list_add(&l, "b", CHECKSUM_SHA256, sha, UINT64_MAX, false), 0);
	CHECK_INT(check_list_add(&l, "a", CHECKSUM_SHA256, sha, 1, false), 0);
	CHECK_INT(check_list_add(&l, "b", CHECKSUM_XXH128, xxh, 1, true), 0);
	CHECK_INT(check_list_add(&l, "c", CHECKSUM_XXH128, sha, 1, false), -EINVAL);
	check_list_finish(&l);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.entries[0].path, "a");
	CHECK_STR(l.entries[1].path, "b");
	CHECK_INT(l.entries[1].alg, CHECKSUM_XXH128);
	CHECK_STR(l.entries[1].digest, xxh);
	CHECK(l.entries[1].has_size && l.entries[1].failed_before);
	check_list_free(&l);
}

TEST(sums_list_read_back_and_refused)
{
	struct check_list l;
	struct check_list_problem why;
	char d[CHECKSUM_TEXT_MAX], line[256], path[512];
	size_t n = 0;

	digest_of(CHECKSUM_SHA256, "hello", d);
	snprintf(line, sizeof(line), "%s  it's a \"b\" é\n\n%s  c\n", d, d);
	put("list.sha256", line);
	snprintf(path, sizeof(path), "%s/list.sha256", tmp);
	check_list_init(&l);
	CHECK_INT(check_list_load_sums(path, CHECKSUM_SHA256, &l, &n, &why), CHECK_LIST_OK);
	CHECK_INT(n, 2);
	check_list_finish(&l);
	CHECK_STR(l.entries[1].path, "it's a \"b\" é");
	check_list_free(&l);

	put("bad.sha256", "0123  short\n");
	snprintf(path, sizeof(path), "%s/bad.sha256", tmp);
	check_list_init(&l);
	CHECK_INT(check_list_load_sums(path, CHECKSUM_SHA256, &l, &n, &why), CHECK_LIST_BAD_LINE);
	CHECK_INT(why.line, 1);
	check_list_free(&l);

	snprintf(path, sizeof(path), "%s/link.sha256", tmp);
	CHECK_INT(symlink("list.sha256", path), 0);
	check_list_init(&l);
	CHECK_INT(check_list_load_sums(path, CHECKSUM_SHA256, &l, &n, &why),
		  CHECK_LIST_NOT_REGULAR);
	snprintf(path, sizeof(path), "%s/none.sha256", tmp);
	CHECK_INT(check_list_load_sums(path, CHECKSUM_SHA256, &l, &n, &why), CHECK_LIST_IO);
	CHECK_INT(why.err, ENOENT);
	check_list_free(&l);
}

/* name, what the reference says it holds, what the check must find */
static const struct {
	const char *path;
	const char *content; /* its digest in the reference */
	uint64_t size;
	bool failed;
	enum check_result want;
} cases[] = {
	{ "t/a", "hello", 5, false, CHECK_MATCH },
	{ "t/sub/b", "world", UINT64_MAX, false, CHECK_MATCH },
	{ "t/changed", "hello", 5, false, CHECK_DIFFERS },
	{ "t/short", "hello", 5, false, CHECK_SIZE_DIFFERS },
	{ "t/failed", "hello", 5, true, CHECK_FAILED_BEFORE },
	{ "t/nope", "hello", 5, false, CHECK_MISSING },
	{ "t/a/below", "hello", 5, false, CHECK_MISSING },
	{ "t/link", "hello", 5, false, CHECK_SYMLINK },
	{ "t/linkdir/b", "world", 5, false, CHECK_SYMLINK },
	{ "t/../secret", "secret", 6, false, CHECK_OUTSIDE },
	{ "t/sub/../../secret", "secret", 6, false, CHECK_OUTSIDE },
	{ "/etc/hostname", "x", 1, false, CHECK_OUTSIDE },
	{ "t/fifo", "x", 1, false, CHECK_NOT_REGULAR },
	{ "t/sub", "x", 1, false, CHECK_NOT_REGULAR },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static void make_traps(void)
{
	char path[512];

	put("secret", "secret");
	snprintf(path, sizeof(path), "%s/t", tmp);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/t/sub", tmp);
	mkdir(path, 0700);
	put("t/a", "hello");
	put("t/sub/b", "world");
	put("t/changed", "hellO");
	put("t/short", "hell");
	put("t/failed", "hello");
	snprintf(path, sizeof(path), "%s/t/link", tmp);
	CHECK_INT(symlink("a", path), 0);
	snprintf(path, sizeof(path), "%s/t/linkdir", tmp);
	CHECK_INT(symlink("sub", path), 0);
	snprintf(path, sizeof(path), "%s/t/fifo", tmp);
	CHECK_INT(mkfifo(path, 0600), 0);
}

TEST(job_path_safety_and_results)
{
	struct check_list l;
	struct check_job *j = NULL;
	char dir[512];
	int result = 1;

	make_traps();
	check_list_init(&l);
	for (size_t i = 0; i < N_CASES; i++) {
		char d[CHECKSUM_TEXT_MAX];

		digest_of(CHECKSUM_XXH64, cases[i].content, d);
		CHECK_INT(check_list_add(&l, cases[i].path, CHECKSUM_XXH64, d, cases[i].size,
					 cases[i].failed), 0);
	}
	check_list_finish(&l);
	snprintf(dir, sizeof(dir), "%s/t", tmp);
	/* the paths are relative to t: strip the "t/" the table writes for make_traps */
	for (size_t i = 0; i < l.n; i++)
		if (strncmp(l.entries[i].path, "t/", 2) == 0)
			memmove(l.entries[i].path, l.entries[i].path + 2,
				strlen(l.entries[i].path) - 1);
	CHECK_INT(check_job_start(dir, NULL, &l, &j), 0);
	while (j && !check_job_done(j, &result))
		usleep(1000);
	CHECK_INT(result, 0);
	CHECK_U64(atomic_load(&check_job_stats(j)->files_done), N_CASES);
	for (size_t i = 0; j && i < l.n; i++) {
		const struct check_outcome *o = check_job_outcome(j, i);

		for (size_t c = 0; c < N_CASES; c++) {
			const char *p = cases[c].path;

			if (strcmp(strncmp(p, "t/", 2) == 0 ? p + 2 : p, l.entries[i].path) != 0)
				continue;
			if (o->result != cases[c].want)
				FAIL_AT("%s: %s, expected %s", p, check_result_name(o->result),
					check_result_name(cases[c].want));
		}
	}
	CHECK_U64(atomic_load(&check_job_stats(j)->count[CHECK_MATCH]), 2);
	check_job_free(j);
	check_list_free(&l);
}

TEST(missing_directory_is_an_error)
{
	struct check_list l;
	struct check_job *j = NULL;

	check_list_init(&l);
	CHECK_INT(check_job_start("/nonexistent/check", NULL, &l, &j), -ENOENT);
	check_list_free(&l);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	TEST_PLAN(4);
	RUN(list_merges_by_path_cheapest_first);
	RUN(sums_list_read_back_and_refused);
	RUN(job_path_safety_and_results);
	RUN(missing_directory_is_an_error);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
	}
	return test_summary();
}
