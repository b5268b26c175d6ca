/* test_verify.c: --verify's module on files in a temporary directory: a
 * file's digest against what reads back (the same, different, short), the
 * counters a destination's verify keeps, and the recheck at the end: a
 * file of an earlier commit that changed since is withdrawn from its
 * name, the last commit's files are read again only after that, a name
 * someone else replaced is left alone, and a cancel stops it. */
#include <stdatomic.h>

#include "copy/verify.h"
#include "plan_tree.h"

#define N_FILES 3
static const char *names[N_FILES] = { "a", "b", "c" };

/* A plan of N_FILES files at the top of the destination directory: all
 * the verify module reads of it are the names. */
struct fake {
	struct source_entry src[N_FILES];
	struct plan_entry e[N_FILES];
	struct plan_name nm[N_FILES];
	struct plan p;
	_Atomic uint64_t bytes, files, mismatched;
	_Atomic bool cached;
	atomic_bool cancel;
	struct verify *v;
	struct verify_file f[N_FILES];
	int dir_fd;
};

static void put(const char *name, const char *content)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, content, strlen(content)) == (ssize_t)strlen(content));
	CHECK(fd >= 0 && fsync(fd) == 0);
	if (fd >= 0)
		close(fd);
}

/* Overwrite name's bytes in place: the same inode, other data. */
static void scribble(const char *name, const char *content)
{
	int fd = open(name, O_WRONLY);

	CHECK(fd >= 0 && pwrite(fd, content, strlen(content), 0) == (ssize_t)strlen(content));
	if (fd >= 0)
		close(fd);
}

static void fake_new(struct fake *x)
{
	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < N_FILES; i++) {
		x->src[i] = (struct source_entry){ .type = PLAN_FILE, .end = (uint32_t)i + 1,
						   .strings = names[i] };
		x->e[i] = (struct plan_entry){ .source = &x->src[i], .dst_named = true };
		x->nm[i] = (struct plan_name){ .idx = i, .dst = (char *)names[i], .name = names[i] };
	}
	x->p.entries = x->e;
	x->p.n_entries = N_FILES;
	x->p.names = x->nm;
	x->p.n_names = N_FILES;
	x->dir_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(x->dir_fd >= 0);
	CHECK_INT(verify_new(&(struct verify_setup){
			      .plan = &x->p, .bdev_fd = -1, .cancel = &x->cancel,
			      .buf_size = 4096,
			      .counts = { &x->bytes, &x->files, &x->mismatched, &x->cached } },
		      &x->v),
		  0);
}

static void fake_done(struct fake *x)
{
	for (size_t i = 0; i < N_FILES; i++)
		verify_file_free(&x->f[i]);
	verify_free(x->v);
	close(x->dir_fd);
}

/* Entry i written as `wrote` (its digest), the file holding `has`, then
 * read back: verify_written's answer. */
static int written(struct fake *x, size_t i, const char *wrote, const char *has)
{
	bool note;
	int fd, r;

	put(names[i], has);
	CHECK_INT(verify_file_start(&x->f[i]), 0);
	verify_file_add(&x->f[i], wrote, strlen(wrote));
	fd = open(names[i], O_RDONLY);
	CHECK(fd >= 0);
	r = verify_written(x->v, &x->f[i], i, fd, strlen(wrote), &note);
	close(fd);
	return r;
}

TEST(compare_same_different_short)
{
	struct verify_file f = { 0 };
	struct read_back rb;
	enum readback_how how;
	int fd;

	tree_new();
	put("f", "hello");
	fd = open("f", O_RDONLY);
	CHECK_INT(read_back_init(&rb, 4096), 0);
	CHECK_INT(verify_file_start(&f), 0);
	verify_file_add(&f, "hel", 3);
	verify_file_add(&f, "lo", 2);
	CHECK_INT(verify_file_compare(&f, &rb, fd, 5, false, -1, &how, NULL), 0);
	CHECK_INT(strlen(f.digest), 32); /* xxh128's text */
	CHECK_INT(verify_file_start(&f), 0);
	CHECK(f.digest[0] == '\0');
	verify_file_add(&f, "hellO", 5);
	CHECK_INT(verify_file_compare(&f, &rb, fd, 5, false, -1, &how, NULL), 1);
	CHECK(f.digest[0] == '\0');
	CHECK_INT(verify_file_start(&f), 0);
	verify_file_add(&f, "hello!", 6);
	CHECK_INT(verify_file_compare(&f, &rb, fd, 6, false, -1, &how, NULL), -ENODATA);
	verify_file_free(&f);
	verify_file_free(&f); /* twice: nothing left to free */
	read_back_done(&rb);
	close(fd);
	tree_done();
}

TEST(written_counts)
{
	struct fake x;
	struct verify_file none = { 0 };
	bool note = true;

	tree_new();
	fake_new(&x);
	CHECK_INT(written(&x, 0, "same", "same"), 0);
	CHECK_U64(x.files, 1);
	CHECK_U64(x.bytes, 4);
	CHECK(x.f[0].digest[0] && x.f[0].ino != 0);
	CHECK_INT(written(&x, 1, "written", "WRITTEN"), -EBADMSG);
	CHECK_U64(x.files, 1);
	CHECK_U64(x.mismatched, 1);
	CHECK(x.f[1].digest[0] == '\0');
	/* nothing digested (a symlink), or no --verify: nothing to compare */
	CHECK_INT(verify_written(x.v, &none, 2, x.dir_fd, 0, &note), 0);
	CHECK(!note);
	CHECK_INT(verify_written(NULL, &x.f[0], 0, x.dir_fd, 4, &note), 0);
	CHECK_U64(x.files, 1);
	fake_done(&x);
	tree_done();
}

/* a and b named in the first commit, c in the second (the last). */
static void name_all(struct fake *x)
{
	for (size_t i = 0; i < N_FILES; i++) {
		CHECK_INT(written(x, i, "data", "data"), 0);
		if (i == 2)
			verify_committed(x->v);
		verify_named(x->v, &x->f[i], i, 4);
	}
	verify_committed(x->v);
}

TEST(recheck_withdraws_what_changed)
{
	struct fake x;
	struct verify_bad bad;

	tree_new();
	fake_new(&x);
	name_all(&x);
	CHECK(verify_recheck_due(x.v));
	scribble("b", "DATA");
	scribble("c", "dAta");
	CHECK_INT(verify_recheck_next(x.v, x.dir_fd, x.dir_fd, &bad), 1);
	CHECK_INT(bad.entry, 1);
	CHECK_INT(bad.err, -EBADMSG);
	CHECK(bad.withdrawn);
	CHECK(access("b", F_OK) < 0 && errno == ENOENT);
	CHECK_U64(x.files, 2);
	CHECK_U64(x.mismatched, 1);
	/* the stick lied once: the last commit's files are read again too */
	CHECK_INT(verify_recheck_next(x.v, x.dir_fd, x.dir_fd, &bad), 1);
	CHECK_INT(bad.entry, 2);
	CHECK(access("c", F_OK) < 0);
	CHECK_U64(x.files, 1);
	CHECK_INT(verify_recheck_next(x.v, x.dir_fd, x.dir_fd, &bad), 0);
	CHECK_INT(verify_recheck_next(x.v, x.dir_fd, x.dir_fd, &bad), 0);
	CHECK(access("a", F_OK) == 0);
	fake_done(&x);
	tree_done();
}

TEST(recheck_leaves_last_commit_and_others_files)
{
	struct fake x;
	struct verify_bad bad;

	tree_new();
	fake_new(&x);
	name_all(&x);
	/* someone else's file at a's name now: not ours to judge */
	put("a.new", "other");
	CHECK(rename("a.new", "a") == 0);
	/* the last commit's files were read after all the data */
	scribble("c", "dAta");
	CHECK_INT(verify_recheck_next(x.v, x.dir_fd, x.dir_fd, &bad), 0);
	CHECK(access("a", F_OK) == 0 && access("c", F_OK) == 0);
	CHECK_U64(x.files, 3);
	CHECK_U64(x.mismatched, 0);
	fake_done(&x);
	tree_done();
}

TEST(recheck_nothing_or_cancelled)
{
	struct fake x;
	struct verify_bad bad;

	tree_new();
	fake_new(&x);
	CHECK(!verify_recheck_due(NULL));
	CHECK_INT(verify_recheck_next(NULL, x.dir_fd, x.dir_fd, &bad), 0);
	/* a file that read back different is never named, so not remembered */
	CHECK_INT(written(&x, 0, "data", "DATA"), -EBADMSG);
	verify_named(x.v, &x.f[0], 0, 4);
	verify_committed(x.v);
	CHECK(!verify_recheck_due(x.v));
	name_all(&x);
	CHECK(verify_recheck_due(x.v));
	atomic_store(&x.cancel, true);
	CHECK_INT(verify_recheck_next(x.v, x.dir_fd, x.dir_fd, &bad), -ECANCELED);
	fake_done(&x);
	tree_done();
}

int main(void)
{
	TEST_PLAN(5);
	RUN(compare_same_different_short);
	RUN(written_counts);
	RUN(recheck_withdraws_what_changed);
	RUN(recheck_leaves_last_commit_and_others_files);
	RUN(recheck_nothing_or_cancelled);
	return test_summary();
}
