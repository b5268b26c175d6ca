/* test_plan.c: plan_build()'s argument semantics on real temporary trees:
 * where DEST points (-t, -T, trailing slashes, several sources), and every
 * refusal GNU cp would make (same file, into itself, type clashes, missing
 * source or destination).  The expectations are what GNU cp 9.1 does on
 * this machine, compared case by case when they were written. */
#include "plan_tree.h"

TEST(file_to_file_and_into_dir)
{
	struct run x;

	tree_new();
	mkfile("a", 3);
	mkfile("b", 5);
	mkdirs("d", NULL, NULL);
	x = BUILD(&plain, "copy", "a");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_entries, 1);
	CHECK_INT(x.p->entries[0].source->type, PLAN_FILE);
	CHECK_STR(t_src(x.p->entries[0].source), "a");
	CHECK_STR(t_dst(x.p, 0), "copy");
	CHECK_STR(t_rel(x.p->entries[0].source), "a");
	CHECK(!x.p->entries[0].dst_exists);
	CHECK_STR(x.p->dest_root, ".");
	CHECK_U64(x.p->total_bytes, 3);
	run_done(&x);

	x = BUILD(&plain, "d/", "a", "b");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_entries, 2);
	CHECK_STR(t_dst(x.p, 0), "d/a");
	CHECK_STR(t_dst(x.p, 1), "d/b");
	CHECK_STR(x.p->dest_root, "d");
	CHECK_INT(x.p->n_files, 2);
	CHECK_U64(x.p->total_bytes, 8);
	run_done(&x);
	tree_done();
}

TEST(several_sources_need_a_directory)
{
	struct run x;

	tree_new();
	mkfile("a", 1);
	mkfile("b", 1);
	x = BUILD(&plain, "b", "a", "b");
	CHECK_REFUSED(x, PLAN_DEST_NOT_DIR);
	CHECK_STR(x.pr.path2, "b");
	CHECK_INT(x.pr.err, ENOTDIR);
	run_done(&x);
	x = BUILD(&plain, "nothere", "a", "b");
	CHECK_REFUSED(x, PLAN_DEST_MISSING);
	CHECK_STR(x.pr.path2, "nothere");
	CHECK_INT(x.pr.err, ENOENT);
	run_done(&x);
	tree_done();
}

TEST(target_directory_option)
{
	struct plan_options t = { .target_directory = true };
	struct run x;

	tree_new();
	mkfile("a", 1);
	mkdirs("d", NULL, NULL);
	x = BUILD(&t, "d", "a");
	CHECK_INT(x.r, 0);
	CHECK_STR(t_dst(x.p, 0), "d/a");
	run_done(&x);
	x = BUILD(&t, "nothere", "a");
	CHECK_REFUSED(x, PLAN_DEST_MISSING);
	CHECK_INT(x.pr.err, ENOENT);
	run_done(&x);
	x = BUILD(&t, "a", "a");
	CHECK_REFUSED(x, PLAN_DEST_NOT_DIR);
	run_done(&x);
	/* usage errors the command must catch: no problem filled */
	t.no_target_directory = true;
	x = BUILD(&t, "d", "a");
	CHECK_INT(x.r, -EINVAL);
	CHECK_INT(x.pr.kind, PLAN_OK);
	run_done(&x);
	tree_done();
}

TEST(no_target_directory_copies_contents)
{
	struct plan_options T = { .recursive = true, .no_target_directory = true };
	const struct plan_entry *e;
	struct run x;

	tree_new();
	mkdirs("src", "dst", "d");
	mkfile("src/f", 2);
	mkfile("a", 1);
	x = BUILD(&T, "dst", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_entries, 2);
	CHECK_STR(t_dst(x.p, 0), "dst");
	CHECK(x.p->entries[0].dst_exists); /* merged into, not created */
	e = find(x.p, "src/f");
	CHECK(e && strcmp(t_dst(x.p, t_idx(x.p, e)), "dst/f") == 0);
	CHECK_STR(x.p->dest_root, "dst"); /* what receives the new names */
	run_done(&x);
	x = BUILD(&T, "d", "a");   /* a file onto directory d, not into it */
	CHECK_REFUSED(x, PLAN_NONDIR_ONTO_DIR);
	CHECK_STR(x.pr.path2, "d");
	run_done(&x);
	T.no_target_directory = true;
	x = BUILD(&T, "d", "a", "src");
	CHECK_INT(x.r, -EINVAL);
	run_done(&x);
	tree_done();
}

TEST(trailing_slashes)
{
	struct run x;

	tree_new();
	mkdirs("src", "d", NULL);
	mkfile("src/f", 1);
	mkfile("a", 1);
	CHECK_INT(symlink("src", "lsrc"), 0);
	x = BUILD(&rec, "d", "src/");  /* the directory itself, named src */
	CHECK_INT(x.r, 0);
	CHECK_STR(t_dst(x.p, 0), "d/src");
	CHECK_STR(t_rel(x.p->entries[0].source), "src");
	CHECK(find(x.p, "src/f") && strcmp(t_dst(x.p, t_idx(x.p, find(x.p, "src/f"))), "d/src/f") == 0);
	run_done(&x);
	x = BUILD(&rec, "new/", "src/"); /* DEST/ is created for a directory */
	CHECK_INT(x.r, 0);
	CHECK_STR(t_dst(x.p, 0), "new");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "src/f"))), "new/f");
	run_done(&x);
	x = BUILD(&rec, "d", "lsrc/"); /* the slash resolves the link: a directory */
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->entries[0].source->type, PLAN_DIR);
	CHECK_STR(t_dst(x.p, 0), "d/lsrc");
	CHECK(find(x.p, "lsrc/f") != NULL);
	run_done(&x);
	x = BUILD(&rec, "d", "lsrc");  /* without it, -r copies the link */
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_entries, 1);
	CHECK_INT(x.p->entries[0].source->type, PLAN_SYMLINK);
	run_done(&x);
	x = BUILD(&plain, "nod/", "a");
	CHECK_REFUSED(x, PLAN_DEST_NOT_DIR);
	run_done(&x);
	x = BUILD(&plain, "x", "a/");
	CHECK_REFUSED(x, PLAN_SOURCE_MISSING);
	CHECK_INT(x.pr.err, ENOTDIR);
	run_done(&x);
	x = BUILD(&plain, "a/", "src/f"); /* an existing file with a slash */
	CHECK_REFUSED(x, PLAN_DEST_NOT_DIR);
	run_done(&x);
	tree_done();
}

TEST(dot_source_merges_contents)
{
	struct run x;

	tree_new();
	mkdirs("src", "d", NULL);
	mkfile("src/f", 1);
	if (chdir("src") == 0) {
		x = BUILD(&rec, "../d", ".");
		CHECK_INT(x.r, 0);
		CHECK_STR(t_dst(x.p, 0), "../d");
		CHECK(x.p->entries[0].dst_exists);
		CHECK(find(x.p, "./f") && strcmp(t_dst(x.p, t_idx(x.p, find(x.p, "./f"))), "../d/f") == 0);
		run_done(&x);
	}
	tree_done();
}

TEST(no_clobber_and_replace)
{
	struct plan_options n = { .recursive = true, .no_clobber = true };
	const struct plan_entry *e;
	struct stat old;
	struct run x;

	tree_new();
	mkdirs("src", "src/sub", "d");
	mkdirs("d/src", "d/src/sub", "d/src/isdir");
	mkfile("src/f", 10);
	mkfile("src/new", 4);
	mkfile("src/isdir", 4);
	mkfile("d/src/f", 8192);
	CHECK_INT(stat("d/src/f", &old), 0);
	x = BUILD(&n, "d", "src");
	CHECK_INT(x.r, 0);
	e = find(x.p, "src/f");
	CHECK(e && e->dst_exists && e->skip_existing);
	CHECK(find(x.p, "src/isdir")->skip_existing); /* GNU cp -n keeps it silently */
	CHECK(!find(x.p, "src/new")->skip_existing);
	CHECK(find(x.p, "src/sub")->dst_exists && !find(x.p, "src/sub")->skip_existing);
	CHECK_INT(x.p->n_existing_kept, 2);
	CHECK_INT(x.p->n_files, 1);
	CHECK_U64(x.p->total_bytes, 4);
	run_done(&x);
	x = BUILD(&rec, "d", "src");  /* without -n: f replaced, isdir refused */
	CHECK_REFUSED(x, PLAN_NONDIR_ONTO_DIR);
	CHECK_STR(x.pr.path, "src/isdir");
	CHECK_STR(x.pr.path2, "d/src/isdir");
	run_done(&x);
	CHECK_INT(rmdir("d/src/isdir"), 0);
	x = BUILD(&rec, "d", "src");
	CHECK_INT(x.r, 0);
	e = find(x.p, "src/f");
	CHECK(e && e->dst_exists && !e->skip_existing);
	CHECK_U64(t_x(x.p, e)->dst_old_size, 8192);
	CHECK_U64(t_x(x.p, e)->dst_freed, (uint64_t)old.st_blocks * 512);
	CHECK(t_x(x.p, e)->dst_freed >= 8192);
	run_done(&x);
	CHECK_INT(link("d/src/f", "d/second-link"), 0);
	x = BUILD(&rec, "d", "src");   /* a hard-linked file frees nothing */
	CHECK_INT(x.r, 0);
	CHECK_U64(t_x(x.p, find(x.p, "src/f"))->dst_freed, 0);
	run_done(&x);
	tree_done();
}

TEST(same_file)
{
	struct plan_options T = { .recursive = true, .no_target_directory = true };
	struct run x;

	tree_new();
	mkfile("a", 1);
	mkdirs("src", "d", "d/src");
	mkfile("src/x", 1);
	CHECK_INT(link("a", "hard"), 0);
	CHECK_INT(symlink("a", "la"), 0);
	CHECK_INT(link("src/x", "d/src/x"), 0);
	x = BUILD(&plain, "a", "a");
	CHECK_REFUSED(x, PLAN_SAME_FILE);
	CHECK_STR(x.pr.path, "a");
	CHECK_STR(x.pr.path2, "a");
	run_done(&x);
	x = BUILD(&plain, "hard", "a");
	CHECK_REFUSED(x, PLAN_SAME_FILE);
	run_done(&x);
	x = BUILD(&plain, "la", "a");  /* destination symlink to the source */
	CHECK_REFUSED(x, PLAN_SAME_FILE);
	run_done(&x);
	x = BUILD(&plain, "a", "la");  /* source followed to the destination */
	CHECK_REFUSED(x, PLAN_SAME_FILE);
	run_done(&x);
	x = BUILD(&rec, "a", "la");    /* the link itself onto what it names */
	CHECK_REFUSED(x, PLAN_SAME_FILE);
	run_done(&x);
	x = BUILD(&T, "src", "src");
	CHECK_REFUSED(x, PLAN_SAME_FILE);
	run_done(&x);
	x = BUILD(&rec, "d", "src");   /* inside the tree, through a hard link */
	CHECK_REFUSED(x, PLAN_SAME_FILE);
	CHECK_STR(x.pr.path, "src/x");
	CHECK_STR(x.pr.path2, "d/src/x");
	run_done(&x);
	tree_done();
}

TEST(into_itself)
{
	struct run x;

	tree_new();
	mkdirs("a", "a/b", "a/bc");
	mkdirs("a/b/sub", NULL, NULL);
	mkfile("a/b/f", 1);
	CHECK_INT(symlink("a/b/sub", "lsub"), 0);
	x = BUILD(&rec, "a/b", "a/b");
	CHECK_REFUSED(x, PLAN_INTO_ITSELF);
	CHECK_STR(x.pr.path, "a/b");
	CHECK_STR(x.pr.path2, "a/b/b");
	run_done(&x);
	x = BUILD(&rec, "a/b/sub", "a/b");
	CHECK_REFUSED(x, PLAN_INTO_ITSELF);
	run_done(&x);
	x = BUILD(&rec, "lsub", "a/b"); /* through a symlinked destination */
	CHECK_REFUSED(x, PLAN_INTO_ITSELF);
	run_done(&x);
	x = BUILD(&rec, "a/bc", "a/b"); /* a/b into a/bc: /a/bc/b is not in /a/b */
	CHECK_INT(x.r, 0);
	CHECK_STR(t_dst(x.p, 0), "a/bc/b");
	run_done(&x);
	x = BUILD(&rec, "a/b/../bc", "a/b");
	CHECK_INT(x.r, 0);
	run_done(&x);
	x = BUILD(&rec, "a/b", "a/bc");  /* nor /a/b/bc in /a/bc */
	CHECK_INT(x.r, 0);
	run_done(&x);
	x = BUILD(&rec, "a/b/sub/..", "a/b"); /* ".." is named for what it is */
	CHECK_REFUSED(x, PLAN_INTO_ITSELF);
	run_done(&x);
	tree_done();
}

TEST(source_and_destination_errors)
{
	struct run x;

	tree_new();
	mkdirs("src", "d", "d/src");
	mkfile("a", 1);
	mkfile("d/a", 1);
	if (rmdir("d/src") < 0 || symlink("../elsewhere", "d/src") < 0)
		FAIL_AT("setup: %m");
	x = BUILD(&plain, "d", "nope");
	CHECK_REFUSED(x, PLAN_SOURCE_MISSING);
	CHECK_STR(x.pr.path, "nope");
	CHECK_INT(x.pr.err, ENOENT);
	run_done(&x);
	x = BUILD(&plain, "d", "src");
	CHECK_REFUSED(x, PLAN_OMIT_DIRECTORY);
	CHECK_STR(x.pr.path, "src");
	run_done(&x);
	x = BUILD(&plain, "nothere/x", "a");
	CHECK_REFUSED(x, PLAN_DEST_MISSING);
	CHECK_STR(x.pr.path2, "nothere");
	CHECK_INT(x.pr.err, ENOENT);
	run_done(&x);
	x = BUILD(&plain, "a/x", "src/../a");
	CHECK_REFUSED(x, PLAN_DEST_MISSING);
	CHECK_INT(x.pr.err, ENOTDIR);
	run_done(&x);
	x = BUILD(&rec, "d", "src"); /* d/src is a symlink: a non-directory */
	CHECK_REFUSED(x, PLAN_DIR_ONTO_NONDIR);
	CHECK_STR(x.pr.path2, "d/src");
	run_done(&x);
	CHECK_INT(unlink("d/src"), 0);
	mkfile("d/src", 1);
	x = BUILD(&rec_n, "d", "src");
	CHECK_REFUSED(x, PLAN_DIR_ONTO_NONDIR); /* even with -n, as GNU cp */
	run_done(&x);
	tree_done();
}

TEST(two_sources_one_name)
{
	struct run x;

	tree_new();
	mkdirs("d1", "d2", "d");
	mkfile("d1/x", 1);
	mkfile("d2/x", 1);
	mkfile("d1/y", 1);
	x = BUILD(&plain, "d", "d1/x", "d1/y", "d2/x");
	CHECK_REFUSED(x, PLAN_DEST_CLASH);
	CHECK_STR(x.pr.path, "d2/x");
	CHECK_STR(x.pr.path2, "d/x");
	run_done(&x);
	/* one file named twice is said as such, not as two sources */
	x = BUILD(&plain, "d", "d1/y", "d1/y");
	CHECK_REFUSED(x, PLAN_SOURCE_TWICE);
	CHECK_STR(x.pr.path, "d1/y");
	run_done(&x);
	tree_done();
}

TEST(problem_kind_names)
{
	for (int i = PLAN_OK; i <= PLAN_DEST_DANGLING; i++) {
		CHECK(strcmp(plan_problem_kind_name(i), "unknown") != 0);
		for (int j = PLAN_OK; j < i; j++)
			CHECK(strcmp(plan_problem_kind_name(i), plan_problem_kind_name(j)) != 0);
	}
	CHECK_STR(plan_problem_kind_name(PLAN_DEST_DANGLING + 1), "unknown");
	CHECK_STR(plan_problem_kind_name(PLAN_NO_SPACE), "no-space");
}


int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* a crashing case still shows its name */
	TEST_PLAN(12);
	RUN(file_to_file_and_into_dir);
	RUN(several_sources_need_a_directory);
	RUN(target_directory_option);
	RUN(no_target_directory_copies_contents);
	RUN(trailing_slashes);
	RUN(dot_source_merges_contents);
	RUN(no_clobber_and_replace);
	RUN(same_file);
	RUN(into_itself);
	RUN(source_and_destination_errors);
	RUN(two_sources_one_name);
	RUN(problem_kind_names);
	return test_summary();
}
