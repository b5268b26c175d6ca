/* test_pack_feed.c: the pack feed's own logic (lib/copy/pack_feed.c,
 * pack_plan.c): the names entries get, re-chunking libarchive's output
 * into whole chunks (but the last) of exactly what was asked, the bound
 * never below the archive, a source that changes failing the archive
 * with its entry named, and cancel inside a long read. */
#include <stdio.h>
#include <string.h>

#include "plan_tree.h"
#include "copy/pack.h"

/* not a multiple of libarchive's 64 KiB blocks: each chunk is cut from them */
#define CHUNK (21 * 4096)

static uint8_t chunk[CHUNK];

struct drained {
	uint8_t *all;
	size_t len;
	unsigned chunks;
	bool short_inside, end;
	ssize_t err;
	bool changed;
};

/* Every chunk of the feed's one entry, as the reader would take them. */
static struct drained drain(struct pack_feed *pf, atomic_bool *cancel)
{
	const struct source_feed *f = pack_feed_source(pf);
	struct drained d = { 0 };
	bool end = false;

	CHECK_INT(f->ops->open(f->ctx, 0, cancel), 0);
	while (!end) {
		ssize_t n = f->ops->read(f->ctx, chunk, CHUNK, &end);

		if (n < 0) {
			d.err = n;
			break;
		}
		d.short_inside |= !end && n != CHUNK;
		d.all = realloc(d.all, d.len + (size_t)n + 1);
		memcpy(d.all + d.len, chunk, (size_t)n);
		d.len += (size_t)n;
		d.chunks++;
	}
	d.end = end;
	f->ops->close(f->ctx, &d.changed);
	return d;
}

/* Bytes no compressor shrinks much (an LCG's high bits), so the
 * compressed formats also come out in several chunks. */
static void fill_pattern(uint8_t *buf, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
}

static void write_pattern(const char *path, size_t n, uint8_t seed)
{
	uint8_t *buf = malloc(n);
	FILE *fp = fopen(path, "w");

	fill_pattern(buf, n, seed);
	if (fp && fwrite(buf, 1, n, fp) != n)
		FAIL_AT("write %s", path);
	if (fp)
		fclose(fp);
	free(buf);
}

static bool holds_pattern(const struct drained *d, size_t n, uint8_t seed)
{
	uint8_t *want = malloc(n);
	bool found;

	fill_pattern(want, n, seed);
	found = memmem(d->all, d->len, want, n) != NULL;
	free(want);
	return found;
}

static size_t idx_named(const struct source_tree *t, const char *name)
{
	char buf[PATH_MAX];

	for (size_t i = 0; i < t->n_entries; i++) {
		const char *n = pack_entry_name(t, i, buf);

		if (n && strcmp(n, name) == 0)
			return i;
	}
	return SIZE_MAX;
}

TEST(names_as_cp_r_names_the_copies)
{
	const char *one[] = { "src" }, *dot[] = { "." }, *slash[] = { "src/" };
	struct source_tree *t;

	tree_new();
	mkdirs("src", "src/d", NULL);
	mkfile("src/d/f", 1);
	CHECK_INT(pack_tree_build(one, 1, false, &t, NULL), 0);
	CHECK(idx_named(t, "src") == 0 && idx_named(t, "src/d/f") != SIZE_MAX);
	pack_tree_free(t);
	CHECK_INT(pack_tree_build(slash, 1, false, &t, NULL), 0);
	CHECK(idx_named(t, "src") == 0 && idx_named(t, "src/d") != SIZE_MAX);
	pack_tree_free(t);
	/* ".": the contents, without "./" and without an entry of its own */
	CHECK_INT(chdir("src"), 0);
	CHECK_INT(pack_tree_build(dot, 1, false, &t, NULL), 0);
	CHECK(pack_entry_name(t, 0, (char[PATH_MAX]){ 0 }) == NULL);
	CHECK(idx_named(t, "d/f") != SIZE_MAX && idx_named(t, "./d/f") == SIZE_MAX);
	pack_tree_free(t);
	tree_done();
}

/* Two sources one name in the archive: refused before anything. */
TEST(two_sources_one_name_refused)
{
	const char *two[] = { "a/x", "b/x" };
	struct plan_problem pr;
	struct source_tree *t = NULL;

	tree_new();
	mkdirs("a", "b", NULL);
	mkfile("a/x", 1);
	mkfile("b/x", 2);
	CHECK(pack_tree_build(two, 2, false, &t, &pr) < 0);
	CHECK_INT(pr.kind, PLAN_DEST_CLASH);
	CHECK_STR(pr.path2, "x");
	plan_problem_done(&pr);
	tree_done();
}

static void whole_chunks(enum pack_format fmt)
{
	const char *src[] = { "src" };
	struct source_tree *t;
	struct pack_feed *pf;
	struct drained d;

	tree_new();
	mkdirs("src", "src/sub", NULL);
	mkfile("src/empty", 0);
	write_pattern("src/sub/big", 700001, 7);
	write_pattern("src/one", 1, 9);
	CHECK_INT(symlink("sub/big", "src/link"), 0);
	CHECK_INT(pack_tree_build(src, 1, false, &t, NULL), 0);
	CHECK_INT(pack_feed_new(t, fmt, &pf), 0);
	d = drain(pf, NULL);
	CHECK(d.end && !d.err && !d.changed && !d.short_inside);
	CHECK(d.chunks >= 2);
	CHECK(d.len <= pack_tree_bound(t, fmt));
	CHECK_U64(pack_feed_packed(pf), 700002);
	if (fmt == PACK_TAR) {
		/* pax: ustar headers, 512-byte records, no padding past the end */
		CHECK(d.len % 512 == 0 && d.len % 10240 != 0);
		CHECK(memcmp(d.all + 257, "ustar", 5) == 0);
		CHECK(holds_pattern(&d, 700001, 7));
		CHECK(memmem(d.all, d.len, "sub/big", 7) != NULL);
	}
	if (fmt == PACK_ZIP)
		CHECK(memcmp(d.all, "PK\3\4", 4) == 0);
	free(d.all);
	pack_feed_free(pf);
	pack_tree_free(t);
	tree_done();
}

TEST(tar_in_whole_chunks_within_the_bound)
{
	whole_chunks(PACK_TAR);
}

TEST(zip_in_whole_chunks_within_the_bound)
{
	whole_chunks(PACK_ZIP);
}

TEST(compressed_within_the_bound)
{
	whole_chunks(PACK_TAR_ZST);
	whole_chunks(PACK_TAR_XZ);
	whole_chunks(PACK_TAR_GZ);
}

/* A file that grew or was rewritten since the walk: the archive ends
 * flagged changed, with that file named. */
TEST(changed_source_fails_the_archive)
{
	const char *src[] = { "src" };
	struct source_tree *t;
	struct pack_feed *pf;
	struct drained d;
	size_t entry = 0;
	int err = -1;

	tree_new();
	mkdirs("src", NULL, NULL);
	write_pattern("src/a", 5000, 1);
	write_pattern("src/b", 200000, 2);
	CHECK_INT(pack_tree_build(src, 1, false, &t, NULL), 0);
	write_pattern("src/b", 200001, 3);
	CHECK_INT(pack_feed_new(t, PACK_TAR, &pf), 0);
	d = drain(pf, NULL);
	CHECK(d.end && d.changed && !d.err);
	CHECK(pack_feed_problem(pf, &entry, &err));
	CHECK_INT(err, 0);
	CHECK_STR(pack_entry_name(t, entry, (char[PATH_MAX]){ 0 }), "src/b");
	free(d.all);
	pack_feed_free(pf);
	pack_tree_free(t);
	tree_done();
}

/* One read can take a whole file that compresses to little: it watches
 * the job's cancel flag. */
TEST(cancel_inside_a_read)
{
	const char *src[] = { "big" };
	atomic_bool cancel = true;
	struct source_tree *t;
	struct pack_feed *pf;
	struct drained d;

	tree_new();
	mkfile("big", 8 << 20); /* 'x' bytes: compress to almost nothing */
	CHECK_INT(pack_tree_build(src, 1, false, &t, NULL), 0);
	CHECK_INT(pack_feed_new(t, PACK_TAR_ZST, &pf), 0);
	d = drain(pf, &cancel);
	CHECK_INT(d.err, -ECANCELED);
	CHECK(pack_feed_packed(pf) < 8 << 20);
	free(d.all);
	pack_feed_free(pf);
	pack_tree_free(t);
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(7);
	RUN(names_as_cp_r_names_the_copies);
	RUN(two_sources_one_name_refused);
	RUN(tar_in_whole_chunks_within_the_bound);
	RUN(zip_in_whole_chunks_within_the_bound);
	RUN(compressed_within_the_bound);
	RUN(changed_source_fails_the_archive);
	RUN(cancel_inside_a_read);
	return test_summary();
}
