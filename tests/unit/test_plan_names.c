/* test_plan_names.c: plan_names_check() over real plans on temporary
 * trees: every problem listed (not just the first), clashes among
 * siblings and with names already in the destination, exact existing
 * names being replaced, and --rename-invalid's rewriting of entries and
 * their descendants.  The trees are on a case-sensitive filesystem; the
 * family passed in decides the rules, as it does for a real stick. */
#include "copy/plan_names.h"
#include "plan_tree.h"

static void touch(const char *path)
{
	mkfile(path, 1);
}

static const struct plan_problem *problem_for(const struct plan_names *n, const char *src)
{
	for (size_t i = 0; i < n->n_problems; i++)
		if (n->problems[i].path && strcmp(n->problems[i].path, src) == 0)
			return &n->problems[i];
	return NULL;
}

static void mixed_tree(void)
{
	mkdirs("s", "d", "s/sub");
	mkdirs("s/Sub", NULL, NULL);
	touch("s/A.JPG");
	touch("s/a.jpg");
	touch("s/b:c.txt");
	touch("s/CON");
	touch("s/x.");
	touch("s/sub/f");
	touch("s/Sub/g");
}

TEST(every_problem_is_listed)
{
	struct plan_names n;
	const struct plan_problem *pr;
	struct run x;

	tree_new();
	mixed_tree();
	x = BUILD(&rec, "d", "s");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, false, &n), 5);
	CHECK_INT(n.n_renames, 0);
	pr = problem_for(&n, "s/CON");
	CHECK(pr && pr->kind == PLAN_NAME_RESERVED);
	pr = problem_for(&n, "s/a.jpg");
	CHECK(pr && pr->kind == PLAN_NAME_CLASH && pr->have == 0);
	CHECK_STR(pr ? pr->path2 : NULL, "d/s/A.JPG");
	pr = problem_for(&n, "s/b:c.txt");
	CHECK(pr && pr->kind == PLAN_NAME_INVALID && pr->need == NAME_BAD_CHAR && pr->have == ':');
	CHECK_STR(pr ? pr->path2 : NULL, "d/s/b:c.txt");
	pr = problem_for(&n, "s/sub");
	CHECK(pr && pr->kind == PLAN_NAME_CLASH);
	CHECK_STR(pr ? pr->path2 : NULL, "d/s/Sub");
	pr = problem_for(&n, "s/x.");
	CHECK(pr && pr->kind == PLAN_NAME_INVALID && pr->need == NAME_TRAILING);
	plan_names_done(&n);
	/* no rules on a POSIX filesystem: the same plan is fine */
	CHECK_INT(plan_names_check(x.p, NAME_FS_POSIX, false, &n), 0);
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

TEST(rename_rewrites_entries_and_descendants)
{
	struct plan_names n;
	const struct plan_entry *e;
	struct run x;

	tree_new();
	mixed_tree();
	x = BUILD(&rec, "d", "s");
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, true, &n), 0);
	CHECK_INT(n.n_renames, 5);
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/A.JPG"))), "d/s/A.JPG");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/CON"))), "d/s/CON_");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/a.jpg"))), "d/s/a (2).jpg");
	CHECK_STR(t_dst_name(x.p, find(x.p, "s/a.jpg")), "a (2).jpg");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/b:c.txt"))), "d/s/b_c.txt");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/x."))), "d/s/x");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/Sub/g"))), "d/s/Sub/g");
	e = find(x.p, "s/sub");
	CHECK_STR(t_dst(x.p, t_idx(x.p, e)), "d/s/sub (2)");
	CHECK_STR(t_dst_name(x.p, e), "sub (2)");
	CHECK_STR(source_name(e->source), "sub");
	e = find(x.p, "s/sub/f");
	CHECK_STR(t_dst(x.p, t_idx(x.p, e)), "d/s/sub (2)/f");
	CHECK_STR(t_dst_name(x.p, e), "f");
	CHECK_STR(t_src(e->source), "s/sub/f");
	CHECK_STR(source_name(e->source), "f");
	CHECK_INT(n.renames[0].problem, NAME_RESERVED); /* CON, in plan order */
	CHECK_STR(n.renames[0].old_dst, "d/s/CON");
	CHECK_INT(x.p->n_files, 7);
	plan_names_done(&n);
	/* the renamed plan passes the check */
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, false, &n), 0);
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

TEST(names_already_there)
{
	struct plan_names n;
	const struct plan_problem *pr;
	const struct plan_entry *e;
	struct run x;

	tree_new();
	mkdirs("s", "d", "d/s");
	touch("s/A.JPG");
	touch("s/b:c.txt");
	touch("s/same");
	touch("d/s/a.JPG");
	mkfile("d/s/b_c.txt", 8192);  /* a rerun: the mapped name is there */
	touch("d/s/same");
	x = BUILD(&rec, "d", "s");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_names_check(x.p, NAME_FS_NTFS, false, &n), 2);
	pr = problem_for(&n, "s/A.JPG");
	CHECK(pr && pr->kind == PLAN_NAME_CLASH && pr->have == 1);
	CHECK_STR(pr ? pr->path2 : NULL, "d/s/a.JPG");
	CHECK(problem_for(&n, "s/same") == NULL); /* replaced, not a clash */
	plan_names_done(&n);

	CHECK_INT(plan_names_check(x.p, NAME_FS_NTFS, true, &n), 0);
	CHECK_INT(n.n_renames, 2);
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/A.JPG"))), "d/s/A (2).JPG");
	CHECK(!find(x.p, "s/A.JPG")->dst_exists);
	e = find(x.p, "s/b:c.txt");
	CHECK_STR(t_dst(x.p, t_idx(x.p, e)), "d/s/b_c.txt");
	CHECK(e->dst_exists);         /* classified again: it replaces that file */
	CHECK(t_x(x.p, e)->dst_freed >= 8192);
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

TEST(top_level_names_against_dest)
{
	struct plan_names n;
	const struct plan_problem *pr;
	struct run x;

	tree_new();
	mkdirs("d", NULL, NULL);
	touch("IMG.JPG");
	touch("x:y");
	touch("d/img.jpg");
	x = BUILD(&plain, "d", "IMG.JPG", "x:y");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, false, &n), 2);
	pr = problem_for(&n, "IMG.JPG");
	CHECK(pr && pr->kind == PLAN_NAME_CLASH && pr->have == 1);
	CHECK_STR(pr ? pr->path2 : NULL, "d/img.jpg");
	plan_names_done(&n);
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, true, &n), 0);
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "IMG.JPG"))), "d/IMG (2).JPG");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "x:y"))), "d/x_y");
	plan_names_done(&n);
	run_done(&x);
	/* the copy's own name, given as DEST, is checked too */
	x = BUILD(&plain, "d/CON", "x:y");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_names_check(x.p, NAME_FS_FAT, false, &n), 1);
	CHECK_INT(n.problems[0].kind, PLAN_NAME_RESERVED);
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

TEST(valid_names_keep_theirs)
{
	struct plan_names n;
	struct run x;

	tree_new();
	mkdirs("s", "d", NULL);
	touch("s/a:b");
	touch("s/a_b");
	touch("s/A_B");
	x = BUILD(&rec, "d", "s");
	CHECK_INT(plan_names_check(x.p, NAME_FS_FAT, true, &n), 0);
	/* "A_B" needs no change and keeps its name; "a_b" clashes with it;
	 * the renamed ones then take numbers in strcmp order: "a:b" (mapped
	 * to "a_b") before "a_b" */
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/A_B"))), "d/s/A_B");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/a:b"))), "d/s/a_b (2)");
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "s/a_b"))), "d/s/a_b (3)");
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

TEST(renamed_directory_merges_on_rerun)
{
	struct plan_names n;
	const struct plan_entry *e;
	struct run x;

	tree_new();
	mkdirs("s", "s/p:q", "d");
	mkdirs("d/s", "d/s/p_q", NULL);
	touch("s/p:q/f");
	touch("d/s/p_q/f");
	x = BUILD(&rec, "d", "s");
	CHECK_INT(x.r, 0);
	CHECK(!find(x.p, "s/p:q/f")->dst_exists);
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, true, &n), 0);
	e = find(x.p, "s/p:q");
	CHECK_STR(t_dst(x.p, t_idx(x.p, e)), "d/s/p_q");
	CHECK(e->dst_exists);
	e = find(x.p, "s/p:q/f");
	CHECK_STR(t_dst(x.p, t_idx(x.p, e)), "d/s/p_q/f");
	CHECK(e->dst_exists);
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

TEST(renamed_onto_another_type_is_refused)
{
	struct plan_names n;
	struct run x;

	tree_new();
	mkdirs("s", "s/a:b", "d");
	mkdirs("d/s", NULL, NULL);
	touch("s/a:b/f");
	touch("d/s/a_b"); /* a file where the directory's new name would go */
	x = BUILD(&rec, "d", "s");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, true, &n), 1);
	CHECK_INT(n.problems[0].kind, PLAN_DIR_ONTO_NONDIR);
	CHECK_STR(n.problems[0].path2, "d/s/a_b");
	CHECK_INT(n.problems[0].err, ENOTDIR);
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

TEST(merged_dest_and_dot_are_not_names)
{
	struct plan_names n;
	struct run x;
	static const struct plan_options rec_T = { .recursive = true, .no_target_directory = true };

	tree_new();
	mkdirs("s", "D", NULL);
	touch("s/f");
	/* -rT into an existing DEST: its name is the user's, not checked */
	x = BUILD(&rec_T, "D", "s");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_names_check(x.p, NAME_FS_EXFAT, false, &n), 0);
	plan_names_done(&n);
	run_done(&x);
	tree_done();
}

int main(void)
{
	TEST_PLAN(8);
	RUN(every_problem_is_listed);
	RUN(top_level_names_against_dest);
	RUN(rename_rewrites_entries_and_descendants);
	RUN(names_already_there);
	RUN(valid_names_keep_theirs);
	RUN(renamed_directory_merges_on_rerun);
	RUN(renamed_onto_another_type_is_refused);
	RUN(merged_dest_and_dot_are_not_names);
	return test_summary();
}
