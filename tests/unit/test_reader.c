/* test_reader.c: the reader reads only what the plan saw.  A tree is
 * planned, then changed the way a local user who owns it could change it
 * before or while it is read; every file must still yield its chunks in
 * plan order, ending with one flagged last, and a file that is not the
 * plan's, or changed, must be flagged and never block. */
#include <stdio.h>
#include <string.h>

#include "plan_tree.h"
#include "copy/reader.h"

#define CHUNK (64 * 1024)

static const struct write_plan wp = { .chunk = CHUNK, .mem_align = 4096, .ring_slots = 3 };

struct outcome {
	uint64_t bytes;
	int chunks, err;
	bool changed, last;
};

/* Take the chunks of every file of the plan; out[i] for entry i. */
static void read_all(const struct plan *p, struct outcome *out)
{
	struct reader *r;
	struct reader_chunk c;

	memset(out, 0, p->n_entries * sizeof(*out));
	CHECK_INT(reader_start(&p, 1, &wp, NULL, &r), 0);
	while (reader_next(reader_cursor(r, 0), &c) == 0) {
		struct outcome *o = &out[c.entry];

		o->bytes += c.len;
		o->chunks++;
		o->err = c.err;
		o->changed = c.changed;
		o->last = c.last;
		reader_release(reader_cursor(r, 0), &c);
	}
	reader_free(r);
}

static size_t idx_of(const struct plan *p, const char *rel)
{
	const struct plan_entry *e = find(p, rel);

	return e ? (size_t)(e - p->entries) : 0;
}

TEST(unchanged_files_read_whole)
{
	struct outcome out[8];
	struct run x;

	tree_new();
	mkdirs("src", "src/d", "dst");
	mkfile("src/empty", 0);
	mkfile("src/d/exact", 2 * CHUNK);
	mkfile("src/d/odd", 3 * CHUNK + 5);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	read_all(x.p, out);
	CHECK_U64(out[idx_of(x.p, "src/empty")].bytes, 0);
	CHECK(out[idx_of(x.p, "src/empty")].last && !out[idx_of(x.p, "src/empty")].changed);
	CHECK_U64(out[idx_of(x.p, "src/d/exact")].bytes, 2 * CHUNK);
	CHECK_INT(out[idx_of(x.p, "src/d/exact")].chunks, 2);
	CHECK_U64(out[idx_of(x.p, "src/d/odd")].bytes, 3 * CHUNK + 5);
	CHECK(!out[idx_of(x.p, "src/d/odd")].changed && !out[idx_of(x.p, "src/d/odd")].err);
	run_done(&x);
	tree_done();
}

TEST(changed_after_the_plan_is_flagged)
{
	struct outcome out[16];
	struct run x;

	tree_new();
	mkdirs("src", "dst", NULL);
	mkfile("src/grown", 3 * CHUNK);
	mkfile("src/shrunk", 3 * CHUNK);
	mkfile("src/touched", 100);
	mkfile("src/to-link", 100);
	mkfile("src/to-fifo", 100);
	mkfile("src/secret", 100);
	mkfile("src/same", 100);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	mkfile("src/grown", 3 * CHUNK + 1);
	CHECK(truncate("src/shrunk", CHUNK) == 0);
	CHECK(utimensat(AT_FDCWD, "src/touched", (struct timespec[]){ { 0, UTIME_OMIT }, { 1, 0 } }, 0) == 0);
	CHECK(unlink("src/to-link") == 0 && symlink("secret", "src/to-link") == 0);
	CHECK(unlink("src/to-fifo") == 0 && mkfifo("src/to-fifo", 0644) == 0);
	read_all(x.p, out);
	CHECK(out[idx_of(x.p, "src/grown")].changed);
	CHECK(out[idx_of(x.p, "src/grown")].bytes <= 3 * CHUNK);
	CHECK(out[idx_of(x.p, "src/shrunk")].changed);
	CHECK(out[idx_of(x.p, "src/touched")].changed);
	CHECK(out[idx_of(x.p, "src/to-link")].changed);
	CHECK_U64(out[idx_of(x.p, "src/to-link")].bytes, 0);
	/* opened without blocking, then refused: no writer ever comes */
	CHECK(out[idx_of(x.p, "src/to-fifo")].changed);
	CHECK(!out[idx_of(x.p, "src/same")].changed);
	CHECK(out[idx_of(x.p, "src/same")].last);
	run_done(&x);
	tree_done();
}

/* A directory swapped for a symlink to elsewhere after the plan: the
 * files below it are not read from there. */
TEST(swapped_directory_not_followed)
{
	struct outcome out[8];
	struct run x;

	tree_new();
	mkdirs("src", "src/d", "dst");
	mkdirs("elsewhere", NULL, NULL);
	mkfile("src/d/f", 100);
	mkfile("elsewhere/f", 100);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	CHECK(rename("src/d", "moved") == 0 && symlink("../elsewhere", "src/d") == 0);
	read_all(x.p, out);
	CHECK(out[idx_of(x.p, "src/d/f")].err < 0);
	CHECK_U64(out[idx_of(x.p, "src/d/f")].bytes, 0);
	run_done(&x);
	tree_done();
}

TEST(skipped_files_end_at_once)
{
	struct reader *r;
	struct reader_chunk c;
	size_t a, b;
	int n_a = 0;
	struct run x;

	tree_new();
	mkdirs("src", "dst", NULL);
	mkfile("src/a", 20 * CHUNK);
	mkfile("src/b", 10);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	a = idx_of(x.p, "src/a");
	b = idx_of(x.p, "src/b");
	CHECK_INT(reader_start((const struct plan *const *)&x.p, 1, &wp, NULL, &r), 0);
	reader_skip(reader_cursor(r, 0), a, a + 1);
	while (reader_next(reader_cursor(r, 0), &c) == 0) {
		if (c.entry == a) {
			n_a++;
			if (c.last)
				CHECK_INT(c.err, -ECANCELED);
		} else {
			CHECK_U64(c.entry, b);
			CHECK_U64(c.len, 10);
		}
		reader_release(reader_cursor(r, 0), &c);
	}
	reader_free(r);
	/* at most the ring's worth was read ahead before the skip was seen */
	CHECK(n_a >= 1 && n_a <= 4);
	run_done(&x);
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(4);
	RUN(unchanged_files_read_whole);
	RUN(changed_after_the_plan_is_flagged);
	RUN(swapped_directory_not_followed);
	RUN(skipped_files_end_at_once);
	return test_summary();
}
