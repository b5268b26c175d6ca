/* test_dest_file.c: a destination file before its name (dest_file.h):
 * written under a hidden temporary name of ours or unnamed, put under its
 * final name only as the replace rule allows (a name that appeared is
 * kept, and the one holding it named), and no temporary left behind,
 * whichever way it ends; a small file replaces a symlink, never follows
 * it. */
#include <stdio.h>
#include <string.h>

#include "plan_tree.h"
#include "copy/dest_file.h"
#include "copy/small_file.h"
#include "io/writer.h"

static const struct write_plan wp = {
	.strategy = STRATEGY_WINDOW, .window = 1 << 20, .window_min = 1 << 20,
	.window_max = 1 << 20, .chunk = 1 << 16, .mem_align = 4096, .ring_slots = 2,
};

/* The case's directory (tree_new's), where its files go. */
static int dir_fd = -1;

static void start(void)
{
	tree_new();
	dir_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		FAIL_AT("open: %m");
}

static void end(void)
{
	close(dir_fd);
	tree_done();
}

/* Our temporaries in the current directory. */
static size_t temporaries(void)
{
	DIR *d = opendir(".");
	struct dirent *de;
	size_t n = 0;
	pid_t pid;

	if (!d)
		FAIL_AT("opendir: %m");
	while ((de = readdir(d)))
		n += stale_temp_parse(de->d_name, &pid);
	closedir(d);
	return n;
}

/* The first bytes of path, as a string. */
static const char *content(const char *path)
{
	static char buf[64];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0)
		FAIL_AT("%s: %m", path);
}

/* A file with text in it, opened for name in the case's directory. */
static void open_with(struct dest_files *fs, struct dest_file *f, const char *name,
		      const char *text)
{
	struct dest_open how = { &wp, strlen(text), -1, NULL };

	CHECK_INT(dest_file_init(f, dir_fd, name), 0);
	CHECK_INT(dest_file_open(fs, f, &how), 0);
	if (!f->w) {
		FAIL_AT("no writer");
		exit(1);
	}
	CHECK_INT(writer_write(f->w, text, strlen(text)), 0);
	CHECK_INT(writer_finish_data(f->w), 0);
}

/* Named: as the engine does, its writer closed before the rename. */
static void open_named(struct dest_files *fs, struct dest_file *f, const char *name,
		       const char *text)
{
	pid_t pid = 0;

	dest_files_init(fs, false);
	open_with(fs, f, name, text);
	CHECK(!f->unnamed);
	CHECK(stale_temp_parse(f->tmp, &pid));
	CHECK_INT(pid, getpid());
	CHECK_INT(temporaries(), 1);
	CHECK_INT(writer_close(f->w), 0);
}

TEST(named_renamed_into_place)
{
	struct dest_files fs;
	struct dest_file f;

	start();
	open_named(&fs, &f, "a", "ours");
	CHECK_INT(dest_file_publish(&fs, &f, DEST_NEW), 0);
	CHECK_STR(f.tmp, "");
	CHECK_STR(content("a"), "ours");
	CHECK_INT(temporaries(), 0);
	dest_file_free(&f);
	end();
}

/* Someone made the name the plan saw free: kept, and found again. */
TEST(named_keeps_a_name_that_appeared)
{
	static const enum dest_replace keeping[] = { DEST_NEW, DEST_NO_CLOBBER };
	struct dest_files fs;
	struct dest_file f;

	for (size_t i = 0; i < ARRAY_SIZE(keeping); i++) {
		_cleanup_free_ char *holder = NULL;

		start();
		open_named(&fs, &f, "a", "ours");
		put("a", "theirs");
		CHECK_INT(dest_file_publish(&fs, &f, keeping[i]), -EEXIST);
		CHECK_STR(content("a"), "theirs");
		holder = dest_file_holder(&f);
		CHECK(holder != NULL);
		CHECK_STR(holder, "a");
		dest_file_remove(&f);
		CHECK_INT(temporaries(), 0);
		dest_file_free(&f);
		end();
	}
}

TEST(named_replaces_when_told)
{
	struct dest_files fs;
	struct dest_file f;

	start();
	put("a", "old");
	open_named(&fs, &f, "a", "new");
	CHECK_INT(dest_file_publish(&fs, &f, DEST_REPLACE), 0);
	CHECK_STR(content("a"), "new");
	CHECK_INT(temporaries(), 0);
	dest_file_free(&f);
	end();
}

/* O_TMPFILE: linked onto a free name, kept off a taken one, and renamed
 * over the old file when told, through a temporary name of ours. */
TEST(unnamed_linked_into_place)
{
	struct dest_files fs;
	struct dest_file f;

	start();
	dest_files_init(&fs, true);
	open_with(&fs, &f, "a", "one");
	if (!f.unnamed) {
		printf("# no O_TMPFILE in /tmp: the named path was taken\n");
		dest_file_remove(&f);
		dest_file_free(&f);
		end();
		return;
	}
	CHECK_INT(temporaries(), 0);
	CHECK_INT(dest_file_publish(&fs, &f, DEST_NEW), 0);
	CHECK_STR(content("a"), "one");
	dest_file_free(&f);

	open_with(&fs, &f, "a", "two");
	CHECK_INT(dest_file_publish(&fs, &f, DEST_NEW), -EEXIST);
	CHECK_STR(content("a"), "one");
	dest_file_remove(&f);
	dest_file_free(&f);

	open_with(&fs, &f, "a", "three");
	CHECK_INT(dest_file_publish(&fs, &f, DEST_REPLACE), 0);
	CHECK_STR(content("a"), "three");
	CHECK_INT(temporaries(), 0);
	dest_file_free(&f);
	end();
}

TEST(symlink_published)
{
	struct dest_files fs;
	struct dest_file f;
	char target[16] = "";

	start();
	dest_files_init(&fs, true);
	CHECK_INT(dest_file_init(&f, dir_fd, "l"), 0);
	CHECK_INT(dest_file_symlink(&fs, &f, "somewhere"), 0);
	CHECK_INT(temporaries(), 1);
	CHECK_INT(dest_file_publish(&fs, &f, DEST_NEW), 0);
	CHECK(readlink("l", target, sizeof(target) - 1) == 9);
	CHECK_STR(target, "somewhere");
	CHECK_INT(temporaries(), 0);
	dest_file_free(&f);
	end();
}

/* A list or manifest: a symlink at its name is replaced, its target
 * never written. */
TEST(small_file_replaces_a_symlink)
{
	struct stat st;

	start();
	put("victim", "untouched");
	CHECK(symlink("victim", "list") == 0);
	CHECK_INT(small_file_write(dir_fd, "list", "new", 3, 0644), 0);
	CHECK(lstat("list", &st) == 0 && S_ISREG(st.st_mode));
	CHECK_STR(content("list"), "new");
	CHECK_STR(content("victim"), "untouched");
	CHECK_INT(temporaries(), 0);
	end();
}

int main(void)
{
	TEST_PLAN(6);
	RUN(named_renamed_into_place);
	RUN(named_keeps_a_name_that_appeared);
	RUN(named_replaces_when_told);
	RUN(unnamed_linked_into_place);
	RUN(symlink_published);
	RUN(small_file_replaces_a_symlink);
	return test_summary();
}
