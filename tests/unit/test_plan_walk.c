/* test_plan_walk.c: the tree walk on real temporary trees: order, symlinks
 * as links or followed, loops, special files, unreadable directories,
 * trees deeper than the walk keeps fds for and past PATH_MAX, 100k files.
 * Cases that need another uid (EACCES: root reads everything) drop to
 * nobody in a child process when run as root. */
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "plan_tree.h"

/* Directories come before their contents, siblings in strcmp order. */
TEST(tree_order)
{
	const char *want[] = { "src", "src/B", "src/a", "src/b", "src/b/x", "src/c",
			       "src/c/a", "src/c/a/deep", "src/c/z", "src/e" };
	struct run x;

	tree_new();
	mkdirs("src", "src/c", "src/c/a");
	mkdirs("src/b", NULL, NULL);
	mkfile("src/e", 1);
	mkfile("src/c/z", 1);
	mkfile("src/a", 1);
	mkfile("src/B", 1);
	mkfile("src/b/x", 1);
	mkfile("src/c/a/deep", 1);
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_entries, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want) && i < x.p->n_entries; i++)
		CHECK_STR(t_rel(x.p->entries[i].source), want[i]);
	CHECK_STR(t_dst(x.p, t_idx(x.p, find(x.p, "src/c/a/deep"))), "out/c/a/deep");
	CHECK_STR(t_src(find(x.p, "src/c/a/deep")->source), "src/c/a/deep");
	CHECK_INT(x.p->tree->n_dirs, 4);
	CHECK_INT(x.p->n_files, 6);
	run_done(&x);
	tree_done();
}

TEST(symlinks_as_links_or_followed)
{
	const struct plan_entry *e;
	struct run x;

	tree_new();
	mkdirs("src", "other", NULL);
	mkfile("other/inside", 7);
	mkfile("src/f", 3);
	CHECK_INT(symlink("f", "src/lf"), 0);
	CHECK_INT(symlink("../other", "src/ldir"), 0);
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	e = find(x.p, "src/lf");
	CHECK(e && e->source->type == PLAN_SYMLINK && strcmp(source_link(e->source), "f") == 0);
	e = find(x.p, "src/ldir");
	CHECK(e && e->source->type == PLAN_SYMLINK && strcmp(source_link(e->source), "../other") == 0);
	CHECK(find(x.p, "src/ldir/inside") == NULL);
	CHECK_INT(x.p->n_symlinks, 2);
	run_done(&x);
	x = BUILD(&rec_L, "out", "src");
	CHECK_INT(x.r, 0);
	e = find(x.p, "src/lf");
	CHECK(e && e->source->type == PLAN_FILE && e->source->size == 3 && !source_link(e->source));
	CHECK(find(x.p, "src/ldir") && find(x.p, "src/ldir")->source->type == PLAN_DIR);
	CHECK(find(x.p, "src/ldir/inside") != NULL);
	CHECK_INT(x.p->n_symlinks, 0);
	run_done(&x);
	x = BUILD(&plain, "copy", "src/lf"); /* without -r, sources are followed */
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->entries[0].source->type, PLAN_FILE);
	run_done(&x);
	tree_done();
}

TEST(dangling_symlinks)
{
	struct run x;

	tree_new();
	mkdirs("src", NULL, NULL);
	CHECK_INT(symlink("nowhere", "src/dang"), 0);
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	CHECK(find(x.p, "src/dang") && find(x.p, "src/dang")->source->type == PLAN_SYMLINK);
	run_done(&x);
	x = BUILD(&rec_L, "out", "src");
	CHECK_REFUSED(x, PLAN_SOURCE_MISSING);
	CHECK_STR(x.pr.path, "src/dang");
	CHECK_INT(x.pr.err, ENOENT);
	run_done(&x);
	x = BUILD(&plain, "out", "src/dang");
	CHECK_REFUSED(x, PLAN_SOURCE_MISSING);
	run_done(&x);
	tree_done();
}

TEST(loop_with_follow_is_refused)
{
	struct run x;

	tree_new();
	mkdirs("src", "src/sub", NULL);
	CHECK_INT(symlink("..", "src/sub/up"), 0);
	x = BUILD(&rec_L, "out", "src");
	CHECK_REFUSED(x, PLAN_LOOP);
	CHECK_STR(x.pr.path, "src/sub/up");
	CHECK_STR(x.pr.path2, "src");
	run_done(&x);
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(find(x.p, "src/sub/up")->source->type, PLAN_SYMLINK);
	run_done(&x);
	tree_done();
}

TEST(special_files_are_skipped)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	bool root = geteuid() == 0;
	struct run x;

	tree_new();
	mkdirs("src", NULL, NULL);
	mkfile("src/f", 1);
	CHECK_INT(mkfifo("src/fifo", 0644), 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "src/sock");
	CHECK_INT(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(s);
	if (root)
		CHECK_INT(mknod("src/null", S_IFCHR | 0644, makedev(1, 3)), 0);
	else
		printf("# not root: the device node case is not run (mknod needs root)\n");
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(find(x.p, "src/fifo")->source->type, PLAN_SKIP);
	CHECK_INT(find(x.p, "src/sock")->source->type, PLAN_SKIP);
	if (root)
		CHECK_INT(find(x.p, "src/null")->source->type, PLAN_SKIP);
	CHECK_INT(x.p->tree->n_skipped, root ? 3 : 2);
	CHECK_INT(x.p->n_files, 1);
	run_done(&x);
	x = BUILD(&plain, "out", "src/fifo");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->entries[0].source->type, PLAN_SKIP);
	run_done(&x);
	tree_done();
}

/* Root reads every directory: drop to nobody in a child to see EACCES. */
static int as_user(int (*fn)(void))
{
	pid_t pid;
	int st;

	if (geteuid() != 0)
		return fn();
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(98);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int plan_locked_dir(void)
{
	struct run x = BUILD(&rec, "out", "src");
	int k = x.pr.kind == PLAN_SOURCE_UNREADABLE && x.pr.err == EACCES &&
		strcmp(x.pr.path, "src/locked") == 0 ? 0 : 10 + (int)x.pr.kind;

	run_done(&x);
	return k;
}

static int plan_readonly_dest(void)
{
	struct plan_options T = { .recursive = true, .no_target_directory = true };
	struct run x = BUILD(&plain, "ro", "src2/f");
	int k = x.pr.kind == PLAN_DEST_UNWRITABLE && x.pr.err == EACCES &&
		strcmp(x.pr.path2, "ro") == 0 ? 0 : 10 + (int)x.pr.kind;

	run_done(&x);
	/* merging into a writable directory under a read-only one (-rT src
	 * /media/stick as a user) must not need the parent writable */
	x = BUILD(&T, "ro/stick", "src2");
	if (k == 0 && (x.r < 0 || strcmp(x.p->dest_root, "ro/stick") != 0))
		k = 40 + (int)x.pr.kind;
	run_done(&x);
	return k;
}

TEST(unreadable_source_and_unwritable_dest)
{
	tree_new();
	CHECK_INT(chmod(".", 0777), 0); /* nobody may write "out" here */
	mkdirs("src", "src/locked", "ro");
	mkdirs("ro/stick", "src2", NULL);
	mkfile("src2/f", 1);
	mkfile("src/f", 1);
	mkfile("src/locked/f", 1);
	CHECK_INT(chmod("src/locked", 0), 0);
	CHECK_INT(chmod("ro/stick", 0777), 0);
	CHECK_INT(chmod("ro", 0555), 0);
	CHECK_INT(as_user(plan_locked_dir), 0);
	CHECK_INT(as_user(plan_readonly_dest), 0);
	tree_done();
}

/* Deeper than the walk keeps fds open (32): frames are reopened by path. */
TEST(deep_tree_and_long_names)
{
	char path[8192] = "src", name[256];
	const char *prev = NULL;
	struct run x;

	tree_new();
	mkdirs("src", NULL, NULL);
	for (int i = 0; i < 100; i++) {
		strcat(path, "/d");
		if (mkdir(path, 0755) < 0)
			FAIL_AT("mkdir depth %d: %m", i);
		if (i % 10 == 0) {
			char f[8300];

			snprintf(f, sizeof(f), "%s/f%d", path, i);
			mkfile(f, 1);
		}
	}
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->tree->n_dirs, 101);
	CHECK_INT(x.p->n_files, 10);
	/* each directory is the previous one plus "/d": pre-order, no gaps */
	for (size_t i = 0; x.p && i < x.p->n_entries; i++) {
		const char *rel = t_rel(x.p->entries[i].source);

		if (x.p->entries[i].source->type != PLAN_DIR)
			continue;
		if (prev && (strncmp(rel, prev, strlen(prev)) != 0 ||
			     strcmp(rel + strlen(prev), "/d") != 0))
			FAIL_AT("directory %s after %s", rel, prev);
		prev = rel;
	}
	CHECK(find(x.p, "src/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/f40") != NULL);
	run_done(&x);

	/* components of 200 bytes: past PATH_MAX after about 20 levels */
	memset(name, 'n', 200);
	name[200] = '\0';
	if (chdir("src") < 0)
		FAIL_AT("chdir: %m");
	for (int i = 0; i < 25; i++)
		if (mkdir(name, 0755) < 0 || chdir(name) < 0)
			FAIL_AT("deep mkdir %d: %m", i);
	if (chdir(tmp_root) < 0)
		FAIL_AT("chdir: %m");
	x = BUILD(&rec, "out", "src");
	CHECK_REFUSED(x, PLAN_NAME_TOO_LONG);
	CHECK_INT(x.pr.err, ENAMETOOLONG);
	run_done(&x);
	tree_done();
}

/* On tmpfs when there is one: creating 100k inodes on a busy ext4 took
 * 12 s here, on tmpfs under 1 s, and the walk is what is tested. */
TEST(hundred_thousand_files)
{
	enum { DIRS = 100, PER = 1000 };
	struct stat shm;
	char p[64];
	struct run x;

	tree_new_in(stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode) ? "/dev/shm" : "/tmp");
	mkdirs("src", NULL, NULL);
	for (int d = 0; d < DIRS; d++) {
		snprintf(p, sizeof(p), "src/%03d", d);
		mkdir(p, 0755);
		for (int f = 0; f < PER; f++) {
			int fd;

			snprintf(p, sizeof(p), "src/%03d/%04d", d, f);
			fd = open(p, O_WRONLY | O_CREAT, 0644);
			if (fd < 0) {
				FAIL_AT("create %s: %m", p);
				break;
			}
			close(fd);
		}
	}
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_files, DIRS * PER);
	CHECK_INT(x.p->tree->n_dirs, DIRS + 1);
	CHECK_STR(t_rel(x.p->entries[x.p->n_entries - 1].source), "src/099/0999");
	CHECK_STR(t_rel(x.p->entries[2].source), "src/000/0000");
	run_done(&x);
	tree_done();
}


/* What the engine and the reader walk by: every entry names its parent
 * directory entry and its names in it, and a directory knows where its
 * subtree ends; "cp -r . DEST" puts the top in DEST itself ("."). */
TEST(parents_names_and_subtrees)
{
	static const struct plan_options rec_T = { .recursive = true, .no_target_directory = true };
	const struct plan_entry *d, *f, *top;
	struct run x;

	tree_new();
	mkdirs("src", "src/d", "dst");
	mkfile("src/d/f", 1);
	mkfile("src/z", 1);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	top = find(x.p, "src");
	d = find(x.p, "src/d");
	f = find(x.p, "src/d/f");
	CHECK(top && d && f);
	if (!top || !d || !f)
		goto out;
	CHECK_U64(t_parent(x.p, top), PLAN_TOP);
	CHECK(source_name(top->source) == NULL);
	CHECK_STR(t_dst_name(x.p, top), "src");
	CHECK_U64(t_parent(x.p, d), (size_t)(top - x.p->entries));
	CHECK_U64(t_parent(x.p, f), (size_t)(d - x.p->entries));
	CHECK_STR(source_name(f->source), "f");
	CHECK_STR(t_dst_name(x.p, f), "f");
	CHECK_U64(top->source->end, x.p->n_entries);
	CHECK_U64(d->source->end, (size_t)(f - x.p->entries) + 1);
	CHECK_U64(f->source->end, (size_t)(f - x.p->entries) + 1);
	CHECK_STR(x.p->dest_dir, "dst");
	CHECK_U64(x.p->dest_root_entry, PLAN_TOP);
	run_done(&x);
	CHECK(chdir("src") == 0);
	x = BUILD(&rec, "../dst", ".");
	CHECK_INT(x.r, 0);
	CHECK(x.p && x.p->n_entries > 0 && strcmp(plan_dst_name(x.p, 0), ".") == 0);
	CHECK(chdir("..") == 0);
	run_done(&x);
	/* -rT into an existing directory: the root is that entry, the names
	 * live in its parent */
	mkdirs("dst/src", NULL, NULL);
	x = BUILD(&rec_T, "dst/src", "src");
	CHECK_INT(x.r, 0);
	CHECK(x.p && strcmp(x.p->dest_dir, "dst") == 0 && x.p->dest_root_entry == 0);
out:
	run_done(&x);
	tree_done();
}

/* A second destination's plan on the first's tree is the plan a walk
 * would have made: same entries, its own destination classification
 * (an existing directory and file in b, nothing in a); the tree is
 * shared, not copied, and outlives the plan that walked it. */
TEST(beside_is_the_walk)
{
	const char *src[] = { "src", "one" };
	struct plan *walked = NULL, *beside = NULL;
	struct plan_problem pr = { 0 };
	struct run a;

	tree_new();
	mkdirs("src", "src/d", "src/e");
	mkdirs("a", "b", "b/src");
	mkdirs("b/src/d", NULL, NULL);
	mkfile("src/d/f", 10);
	mkfile("src/e/g", 20);
	mkfile("src/z", 30);
	mkfile("one", 5);
	mkfile("b/src/d/f", 3);
	a = build_opts(&rec, "a", 2, src);
	CHECK_INT(a.r, 0);
	CHECK_INT(plan_build(src, 2, "b", &rec, &walked, &pr), 0);
	CHECK_INT(plan_build_beside(a.p, src, 2, "b", &rec, &beside, &pr), 0);
	if (!a.p || !walked || !beside)
		goto out;
	CHECK_U64(beside->n_entries, walked->n_entries);
	for (size_t i = 0; i < walked->n_entries && i < beside->n_entries; i++) {
		const struct plan_entry *w = &walked->entries[i], *x = &beside->entries[i];

		CHECK_STR(t_src(x->source), t_src(w->source));
		CHECK_STR(t_dst(beside, i), t_dst(walked, i));
		CHECK_STR(t_dst_name(beside, x), t_dst_name(walked, w));
		CHECK_INT(x->source->type, w->source->type);
		CHECK_U64(t_parent(beside, x), t_parent(walked, w));
		CHECK_U64(x->source->end, w->source->end);
		CHECK_INT(x->dst_exists, w->dst_exists);
	}
	CHECK(find(beside, "src/d/f") && find(beside, "src/d/f")->dst_exists);
	CHECK(find(a.p, "src/d/f") && !find(a.p, "src/d/f")->dst_exists);
	CHECK(plan_same_source(a.p, beside));
	CHECK(beside->tree == a.p->tree && beside->entries[0].source == &a.p->tree->entries[0]);
	CHECK(!plan_same_source(a.p, walked)); /* another walk, another tree */
	CHECK_U64(beside->total_bytes, walked->total_bytes);
	plan_free(beside);
	beside = NULL;
	/* an operand file that changed since the walk: the same tree, but
	 * not the same source */
	mkfile("one", 6);
	CHECK_INT(plan_build_beside(a.p, src, 2, "b", &rec, &beside, &pr), 0);
	CHECK(beside && beside->sources_changed && !plan_same_source(a.p, beside));
	/* the last plan frees the tree: beside's still reads */
	plan_free(a.p);
	a.p = NULL;
	CHECK(beside && strcmp(t_src(find(beside, "src/e/g")->source), "src/e/g") == 0);
	plan_free(beside);
	beside = NULL;
	/* a source replaced since the tree was walked is refused */
	CHECK(rename("src", "src.old") == 0);
	mkdirs("src", NULL, NULL);
	CHECK(plan_build_beside(walked, src, 2, "b", &rec, &beside, &pr) < 0);
	CHECK_INT(pr.kind, PLAN_SOURCE_CHANGED);
out:
	plan_free(walked);
	plan_free(beside);
	plan_problem_done(&pr);
	run_done(&a);
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* a crashing case still shows its name */
	TEST_PLAN(10);
	RUN(beside_is_the_walk);
	RUN(tree_order);
	RUN(symlinks_as_links_or_followed);
	RUN(dangling_symlinks);
	RUN(loop_with_follow_is_refused);
	RUN(special_files_are_skipped);
	RUN(unreadable_source_and_unwritable_dest);
	RUN(deep_tree_and_long_names);
	RUN(hundred_thousand_files);
	RUN(parents_names_and_subtrees);
	return test_summary();
}
