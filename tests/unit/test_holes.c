/* test_holes.c: the arithmetic of holes (--sparse): a data extent is
 * rounded out to the reader's alignment and never before where the read
 * is, nor past the file's end; a real sparse file's map is found by
 * holes_next_data() (where its filesystem has SEEK_DATA), and a file
 * whose filesystem has none is all data; --sparse=always's runs of zero
 * and data blocks, a short last piece counted as a block; the walk flags
 * a file with at least a block missing and keeps its allocated bytes
 * aside, and the tree's entry stays 80 bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "copy/holes.h"
#include "copy/source_tree.h"

#define K 1024ull
#define M (1024ull * 1024)

TEST(round_outwards_to_alignment)
{
	uint64_t d, e;

	/* an extent already aligned stays as it is */
	holes_round(4 * K, 12 * K, 0, 64 * K, 4 * K, &d, &e);
	CHECK_U64(d, 4 * K);
	CHECK_U64(e, 12 * K);
	/* 1 KiB blocks (a small ext4) round out to the reader's 4 KiB */
	holes_round(5 * K, 9 * K, 0, 64 * K, 4 * K, &d, &e);
	CHECK_U64(d, 4 * K);
	CHECK_U64(e, 12 * K);
	/* never before where the read is: its start was rounded already */
	holes_round(5 * K, 9 * K, 8 * K, 64 * K, 4 * K, &d, &e);
	CHECK_U64(d, 8 * K);
	CHECK_U64(e, 12 * K);
	/* never past the end, which need not be aligned */
	holes_round(60 * K, 63 * K + 7, 0, 63 * K + 7, 4 * K, &d, &e);
	CHECK_U64(d, 60 * K);
	CHECK_U64(e, 63 * K + 7);
	/* a larger alignment (a 64 KiB O_DIRECT device) */
	holes_round(100 * K, 130 * K, 0, 1 * M, 64 * K, &d, &e);
	CHECK_U64(d, 64 * K);
	CHECK_U64(e, 192 * K);
}

static int sparse_file(char *path, uint64_t size)
{
	static char block[8192];
	int fd = mkstemp(path);

	memset(block, 0xa5, sizeof(block));
	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, (off_t)size) < 0 ||
	    pwrite(fd, block, sizeof(block), 1 * M) != (ssize_t)sizeof(block) ||
	    pwrite(fd, block, 4096, 3 * M) != 4096 || fsync(fd) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST(map_of_a_sparse_file)
{
	char path[] = "/tmp/test_holes.XXXXXX";
	uint64_t size = 4 * M + 100, d, e;
	int fd = sparse_file(path, size);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	if (lseek(fd, 0, SEEK_DATA) != 1 * M) {
		test_skip_reason = "no SEEK_DATA map on /tmp";
		close(fd);
		return;
	}
	holes_next_data(fd, 0, size, 4096, &d, &e);
	CHECK_U64(d, 1 * M);
	CHECK_U64(e, 1 * M + 8192);
	holes_next_data(fd, e, size, 4096, &d, &e);
	CHECK_U64(d, 3 * M);
	CHECK_U64(e, 3 * M + 4096);
	/* only a hole is left: both at the end */
	holes_next_data(fd, e, size, 4096, &d, &e);
	CHECK_U64(d, size);
	CHECK_U64(e, size);
	/* from inside the data: from there */
	holes_next_data(fd, 1 * M + 4096, size, 4096, &d, &e);
	CHECK_U64(d, 1 * M + 4096);
	CHECK_U64(e, 1 * M + 8192);
	/* the plan's size shorter than the file: data past it is none of ours */
	holes_next_data(fd, 2 * M, 3 * M, 4096, &d, &e);
	CHECK_U64(d, 3 * M);
	CHECK_U64(e, 3 * M);
	close(fd);
}

TEST(no_seek_data_is_all_data)
{
	uint64_t d, e;
	int p[2];

	/* a pipe has no SEEK_DATA (ESPIPE): as a filesystem without it */
	CHECK_INT(pipe(p), 0);
	holes_next_data(p[0], 8192, 100000, 4096, &d, &e);
	CHECK_U64(d, 8192);
	CHECK_U64(e, 100000);
	close(p[0]);
	close(p[1]);
}

TEST(zero_runs_by_blocks)
{
	size_t len = 5 * HOLES_BLOCK + 100;
	char *b = calloc(1, len);

	CHECK(b != NULL);
	if (!b)
		return;
	/* blocks: 0 zero, 1 data (one byte at its end), 2 3 zero, 4 data, tail zero */
	b[2 * HOLES_BLOCK - 1] = 1;
	b[4 * HOLES_BLOCK] = 7;
	CHECK_U64(holes_zero_run(b, len, true), HOLES_BLOCK);
	CHECK_U64(holes_zero_run(b, len, false), 0);
	CHECK_U64(holes_zero_run(b + HOLES_BLOCK, len - HOLES_BLOCK, false), HOLES_BLOCK);
	CHECK_U64(holes_zero_run(b + 2 * HOLES_BLOCK, len - 2 * HOLES_BLOCK, true),
		  2 * HOLES_BLOCK);
	CHECK_U64(holes_zero_run(b + 4 * HOLES_BLOCK, len - 4 * HOLES_BLOCK, false), HOLES_BLOCK);
	/* the short tail of zeros is a block of its own */
	CHECK_U64(holes_zero_run(b + 5 * HOLES_BLOCK, 100, true), 100);
	b[5 * HOLES_BLOCK + 99] = 1;
	CHECK_U64(holes_zero_run(b + 5 * HOLES_BLOCK, 100, true), 0);
	CHECK_U64(holes_zero_run(b + 5 * HOLES_BLOCK, 100, false), 100);
	CHECK_U64(holes_zero_run(b, 0, true), 0);
	free(b);
}

TEST(walk_flags_sparse_files_aside)
{
	struct plan_options o = { 0 };
	struct source_tree *t = source_tree_new(&o);
	struct source_found f = { .type = PLAN_FILE, .parent = PLAN_TOP, .src = "a" };
	size_t i;

	CHECK_INT(sizeof(struct source_entry), 80);
	CHECK(t != NULL);
	if (!t)
		return;
	/* 0: dense; 1: 8 KiB of 1 MiB allocated; 2: one block short of 4 KiB
	 * missing (not worth a look); 3: a directory */
	f.st.st_mode = S_IFREG | 0644;
	for (int k = 0; k < 3; k++) {
		f.st.st_size = k == 0 ? 65536 : k == 1 ? (off_t)M : 8192;
		f.st.st_blocks = k == 0 ? 128 : k == 1 ? 16 : 9;
		CHECK_INT(source_tree_add(t, &f, &i), 0);
		CHECK_INT(source_tree_mark_holes(t, i, &f.st), 0);
	}
	f.type = PLAN_DIR;
	f.st.st_mode = S_IFDIR | 0755;
	f.st.st_blocks = 0;
	CHECK_INT(source_tree_add(t, &f, &i), 0);
	CHECK_INT(source_tree_mark_holes(t, i, &f.st), 0);
	CHECK(!(t->entries[0].flags & SOURCE_HOLES));
	CHECK(t->entries[1].flags & SOURCE_HOLES);
	CHECK(!(t->entries[2].flags & SOURCE_HOLES));
	CHECK(!(t->entries[3].flags & SOURCE_HOLES));
	CHECK_U64(t->n_holes, 1);
	CHECK_U64(source_data_bytes(t, 0), 65536);
	CHECK_U64(source_data_bytes(t, 1), 8192);
	CHECK_U64(source_data_bytes(t, 2), 8192);
	source_tree_unref(t);
}

int main(void)
{
	TEST_PLAN(5);
	RUN(round_outwards_to_alignment);
	RUN(map_of_a_sparse_file);
	RUN(no_seek_data_is_all_data);
	RUN(zero_runs_by_blocks);
	RUN(walk_flags_sparse_files_aside);
	return test_summary();
}
