/* test_identical.c: --skip-identical's decisions without a device: the mtime
 * comparison on each filesystem's step (FAT's 2 s, its truncation and a
 * writer's rounding up, the local-time offset changing), checksum lists
 * read back (sums_index), and plan_skip_identical() on temporary trees:
 * quick, hash by a list (a file not listed, or listed with another digest,
 * is copied), by the ASC MHL history (written with lib/mhl: a failed entry
 * is copied, a generation the chain does not vouch for is not used), by
 * reading both copies. */
#include <stdio.h>
#include <sys/time.h>

#include "copy/identical.h"
#include "copy/mhl_record.h"
#include "copy/sums_index.h"
#include "mhl/mhl_write.h"
#include "device/fs_traits.h"
#include "plan_tree.h"
#include "test.h"

#define SEC 1000000000U
#define MSEC 1000000U


static struct timespec ts(long long s, long ns)
{
	return (struct timespec){ .tv_sec = (time_t)s, .tv_nsec = ns };
}

static bool same(long long ss, long sns, long long ds, long dns, uint32_t step)
{
	struct timespec a = ts(ss, sns), b = ts(ds, dns);

	return identical_mtime(&a, &b, step);
}

TEST(mtime_exact_on_fine_filesystems)
{
	CHECK(same(1700000000, 123456789, 1700000000, 123456789, 1));
	CHECK(!same(1700000000, 123456789, 1700000000, 123456788, 1));
	CHECK(!same(1700000001, 0, 1700000000, 0, 1));
	CHECK(same(1700000000, 5, 1700000000, 5, 0)); /* 0 counts as 1 */
	CHECK(!same(1700000000, 5, 1700000000, 6, 0));
	/* ntfs-3g, ntfs3: 100 ns */
	CHECK(same(1700000000, 123456789, 1700000000, 123456700, 100));
	CHECK(!same(1700000000, 123456789, 1700000000, 123456600, 100));
	CHECK(!same(1700000000, 123456789, 1700000000, 123456750, 100)); /* off the grid */
}

TEST(mtime_fat_two_seconds)
{
	uint32_t fat = 2 * SEC;

	/* the kernel's FAT driver truncates to the even second below */
	CHECK(same(1700000001, 999999999, 1700000000, 0, fat));
	CHECK(same(1700000000, 1, 1700000000, 0, fat));
	CHECK(same(1700000000, 0, 1700000000, 0, fat));
	/* a writer that rounds up (Windows) stores the even second above */
	CHECK(same(1700000001, 500000000, 1700000002, 0, fat));
	/* two seconds or more apart: a changed file */
	CHECK(!same(1700000002, 0, 1700000000, 0, fat));
	CHECK(!same(1700000003, 0, 1700000000, 0, fat));
	CHECK(!same(1699999998, 0, 1700000000, 0, fat));
	/* FAT holds no odd seconds and no fraction: not a FAT time */
	CHECK(!same(1700000001, 500000000, 1700000001, 0, fat));
	CHECK(!same(1700000000, 600000000, 1700000000, 500000000, fat));
	/* before 1970 (negative seconds) the grid still holds */
	CHECK(same(-3, 0, -4, 0, fat));
	CHECK(!same(-3, 0, -6, 0, fat));
	/* FAT keeps local time: with another offset (a DST change, tz=) the
	 * kernel gives a whole hour off, and the file is copied again */
	CHECK(!same(1700000000, 0, 1700000000 + 3600, 0, fat));
	CHECK(!same(1700000001, 0, 1700000000 - 3600, 0, fat));
}

TEST(mtime_exfat_steps)
{
	/* exfat-fuse: whole seconds (libexfat takes a time_t) */
	CHECK(same(1700000000, 999999999, 1700000000, 0, SEC));
	CHECK(!same(1700000001, 0, 1700000000, 0, SEC));
	CHECK(!same(1700000000, 999999999, 1700000000, 5, SEC));
	/* in-kernel exFAT: 10 ms */
	CHECK(same(1700000000, 123456789, 1700000000, 120000000, 10 * MSEC));
	CHECK(!same(1700000000, 133456789, 1700000000, 120000000, 10 * MSEC));
	CHECK(same(1700000000, 995000000, 1700000001, 0, 10 * MSEC)); /* rounded up */
}

TEST(mtime_steps_of_the_table)
{
	const struct fs_traits *vfat = fs_traits_lookup(FS_VFAT, "vfat", NULL);
	const struct fs_traits *ff = fs_traits_lookup(FS_FUSE, "fuse.fusefat", NULL);
	const struct fs_traits *ext4 = fs_traits_lookup(FS_EXT4, "ext4", NULL);
	struct timespec src = ts(1700000001, 700000000), fat = ts(1700000000, 0);

	CHECK(identical_mtime(&src, &fat, vfat->mtime_step_ns));
	CHECK(identical_mtime(&src, &fat, ff->mtime_step_ns));
	CHECK(!identical_mtime(&src, &fat, ext4->mtime_step_ns));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		FAIL_AT("write %s", path);
}

#define D1 "00112233445566778899aabbccddeeff"
#define D2 "ffeeddccbbaa99887766554433221100"

TEST(sums_index_reads_lists)
{
	struct sums_index *idx = sums_index_new();
	struct recorded_sums rec_s;
	struct recorded_file f;
	size_t bad = 99;

	tree_new();
	write_text("l.xxh128", D1 "  a b.jpg\n" D2 "  dir/it's \"q\".mov\n\nnot a line\n"
		   D1 "  twice\n" D2 "  twice\n");
	write_text("l.sha256", "\\" "0000000000000000000000000000000000000000000000000000000000000000"
		   "  back\\\\slash\n");
	CHECK(idx != NULL);
	CHECK_INT(sums_index_add_list(idx, CHECKSUM_XXH128, "l.xxh128", &bad), 0);
	CHECK_INT(bad, 2); /* the blank line and "not a line" */
	CHECK_INT(sums_index_add_list(idx, CHECKSUM_SHA256, "l.sha256", &bad), 0);
	CHECK_INT(bad, 0);
	CHECK_INT(sums_index_add_list(idx, CHECKSUM_MD5, "l.md5", NULL), -ENOENT);
	CHECK_INT(sums_index_add_list(idx, CHECKSUM_MD5, ".", NULL), -EINVAL);
	CHECK_INT(sums_index_count(idx), 4);
	CHECK_INT(sums_index_algs(idx), CHECKSUM_BIT(CHECKSUM_XXH128) | CHECKSUM_BIT(CHECKSUM_SHA256));
	CHECK_STR(sums_index_text(idx, "a b.jpg", CHECKSUM_XXH128), D1);
	CHECK_STR(sums_index_text(idx, "dir/it's \"q\".mov", CHECKSUM_XXH128), D2);
	CHECK(sums_index_text(idx, "a b.jpg", CHECKSUM_SHA256) == NULL);
	CHECK(sums_index_text(idx, "back\\slash", CHECKSUM_SHA256) != NULL);
	CHECK(sums_index_text(idx, "missing", CHECKSUM_XXH128) == NULL);
	/* two digests for one name: trusted by neither */
	CHECK(sums_index_text(idx, "twice", CHECKSUM_XXH128) == NULL);
	rec_s = sums_index_recorded(idx);
	CHECK_INT(rec_s.basis, PLAN_IDENTICAL_LIST);
	CHECK_INT(rec_s.lookup(rec_s.ctx, "twice", &f), 0);
	CHECK_INT(rec_s.lookup(rec_s.ctx, "a b.jpg", &f), 1);
	CHECK_INT(f.action, RECORDED_GOOD);
	CHECK_STR(f.sums.text[CHECKSUM_XXH128], D1);
	sums_index_free(idx);
	tree_done();
}

/* src/NAME and d/src/NAME with the given bytes and the same mtime. */
static void pair(const char *name, const char *src_text, const char *dst_text)
{
	char s[256], d[256];
	struct timespec t[2] = { ts(1700000000, 0), ts(1700000000, 0) };

	snprintf(s, sizeof(s), "src/%s", name);
	snprintf(d, sizeof(d), "d/src/%s", name);
	write_text(s, src_text);
	write_text(d, dst_text);
	if (utimensat(AT_FDCWD, s, t, 0) < 0 || utimensat(AT_FDCWD, d, t, 0) < 0)
		FAIL_AT("utimensat %s", name);
}

static enum plan_identical judged(const struct plan *p, const char *rel)
{
	const struct plan_entry *e = find(p, rel);

	if (!e) {
		FAIL_AT("no entry %s", rel);
		return PLAN_IDENTICAL_NO;
	}
	/* without -n, left alone exactly when identical */
	CHECK(e->source->type != PLAN_FILE || t_parent(p, e) == PLAN_TOP ||
	      find(p, "src")->dst_exists == false || p->opts.no_clobber ||
	      e->skip_existing == (e->identical != PLAN_IDENTICAL_NO));
	return e->identical;
}

static void quick_tree(void)
{
	struct timespec later[2] = { ts(1700000100, 0), ts(1700000100, 0) };

	mkdirs("src", "d", "d/src");
	pair("same", "abc", "abc");
	pair("same size other bytes", "abc", "xyz");
	pair("other size", "abc", "abcd");
	pair("touched", "abc", "abc");
	if (utimensat(AT_FDCWD, "src/touched", later, 0) < 0)
		FAIL_AT("utimensat");
	write_text("src/new", "n");
	mkdirs("src/a dir", "d/src/a dir", NULL);
	write_text("src/not regular", "abc");
	if (mkfifo("d/src/not regular", 0644) < 0)
		FAIL_AT("mkfifo");
	/* a symlink of the file's size and mtime ("xyz": 3 bytes) is no copy
	 * (it leads to a file: one that leads nowhere is refused) */
	write_text("src/a link", "abc");
	write_text("d/src/xyz", "q");
	if (symlink("xyz", "d/src/a link") < 0 ||
	    utimensat(AT_FDCWD, "src/a link", (struct timespec[2]){ ts(1700000000, 0), ts(1700000000, 0) }, 0) < 0 ||
	    utimensat(AT_FDCWD, "d/src/a link", (struct timespec[2]){ ts(1700000000, 0), ts(1700000000, 0) },
		      AT_SYMLINK_NOFOLLOW) < 0)
		FAIL_AT("symlink");
}

TEST(plan_quick)
{
	struct identical_options o = { .mode = IDENTICAL_QUICK, .mtime_step_ns = 1 };
	struct run x;

	tree_new();
	quick_tree();
	x = BUILD(&rec, "d", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_files, 7);
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_QUICK);
	CHECK_INT(judged(x.p, "src/same size other bytes"), PLAN_IDENTICAL_QUICK);
	CHECK_INT(judged(x.p, "src/other size"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/touched"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/new"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/not regular"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/a link"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/a dir"), PLAN_IDENTICAL_NO);
	CHECK_INT(x.p->n_identical, 2);
	CHECK_U64(x.p->identical_bytes, 6);
	CHECK_INT(x.p->n_files, 5);
	CHECK_U64(x.p->total_bytes, 3 + 3 + 1 + 3 + 3);
	CHECK_INT(x.p->n_existing_kept, 0);
	CHECK_U64(t_x(x.p, find(x.p, "src/same"))->dst_freed, 0);
	run_done(&x);
	tree_done();
}

TEST(plan_quick_overrides_no_clobber)
{
	struct plan_options n = { .recursive = true, .no_clobber = true };
	struct identical_options o = { .mode = IDENTICAL_QUICK, .mtime_step_ns = 1 };
	struct run x;

	tree_new();
	quick_tree();
	x = BUILD(&n, "d", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	/* identical overrides -n: counted as identical; the others stay kept */
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_QUICK);
	CHECK(find(x.p, "src/same")->skip_existing);
	CHECK_INT(judged(x.p, "src/touched"), PLAN_IDENTICAL_NO);
	CHECK(find(x.p, "src/touched")->skip_existing);
	CHECK_INT(x.p->n_identical, 2);
	CHECK_INT(x.p->n_existing_kept, 4); /* touched, other size, not regular, a link */
	CHECK_INT(x.p->n_files, 1); /* new */
	run_done(&x);
	tree_done();
}

TEST(plan_hash_reads_both_copies)
{
	struct identical_options o = { .mode = IDENTICAL_HASH };
	struct run x;

	tree_new();
	quick_tree();
	x = BUILD(&rec, "d", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_CONTENT);
	CHECK_INT(judged(x.p, "src/same size other bytes"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/touched"), PLAN_IDENTICAL_CONTENT); /* content, not times */
	CHECK_INT(judged(x.p, "src/other size"), PLAN_IDENTICAL_NO);
	CHECK_INT(x.p->n_identical, 2);
	run_done(&x);
	tree_done();
}

/* A record that lists "src/same" (good), "src/failed" (failed) and
 * nothing else. */
static int fake_lookup(const void *ctx, const char *rel, struct recorded_file *ret)
{
	const char *digest = ctx;

	if (strcmp(rel, "src/same") != 0 && strcmp(rel, "src/failed") != 0)
		return 0;
	*ret = (struct recorded_file){ .action = strcmp(rel, "src/failed") == 0 ? RECORDED_FAILED
										: RECORDED_GOOD };
	ret->sums.algs = CHECKSUM_BIT(CHECKSUM_XXH128);
	snprintf(ret->sums.text[CHECKSUM_XXH128], CHECKSUM_TEXT_MAX, "%s", digest);
	return 1;
}

static void xxh128_of(const char *text, char out[CHECKSUM_TEXT_MAX])
{
	struct checksum_state *s = checksum_new(CHECKSUM_BIT(CHECKSUM_XXH128));
	struct checksum_result r;

	checksum_update(s, text, strlen(text));
	checksum_final(s, &r);
	checksum_free(s);
	snprintf(out, CHECKSUM_TEXT_MAX, "%s", r.text[CHECKSUM_XXH128]);
}

TEST(plan_hash_by_record)
{
	char abc[CHECKSUM_TEXT_MAX];
	struct recorded_sums record = { fake_lookup, abc, PLAN_IDENTICAL_MANIFEST };
	struct identical_options o = { .mode = IDENTICAL_HASH, .recorded = &record };
	struct run x;

	xxh128_of("abc", abc);
	tree_new();
	quick_tree();
	pair("failed", "abc", "abc");
	x = BUILD(&rec, "d", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_MANIFEST);
	/* the record decides, not the destination's bytes: it is not read */
	CHECK_INT(judged(x.p, "src/failed"), PLAN_IDENTICAL_NO);   /* listed as failed */
	CHECK_INT(judged(x.p, "src/touched"), PLAN_IDENTICAL_NO);  /* not listed */
	CHECK_INT(x.p->n_identical, 1);
	run_done(&x);
	/* a record whose digest is not the source's: copied */
	snprintf(abc, sizeof(abc), "%s", D1);
	x = BUILD(&rec, "d", "src");
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_NO);
	run_done(&x);
	tree_done();
}

/* quick with listed_only: what the record lists is judged by its times;
 * anything else by reading both copies, its digests kept when asked. */
TEST(plan_quick_reads_what_no_record_lists)
{
	char abc[CHECKSUM_TEXT_MAX];
	struct recorded_sums record = { fake_lookup, abc, PLAN_IDENTICAL_MANIFEST };
	struct identical_options o = { .mode = IDENTICAL_QUICK, .mtime_step_ns = 1,
				       .recorded = &record, .listed_only = true,
				       .keep_algs = CHECKSUM_BIT(CHECKSUM_XXH128) |
						    CHECKSUM_BIT(CHECKSUM_MD5) };
	const struct plan_entry *e;
	struct run x;

	xxh128_of("abc", abc);
	tree_new();
	quick_tree();
	pair("unlisted", "abc", "abc");
	x = BUILD(&rec, "d", "src");
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_QUICK); /* listed: not read */
	CHECK(t_x(x.p, find(x.p, "src/same"))->judged_sums == NULL);
	e = find(x.p, "src/unlisted");
	CHECK_INT(judged(x.p, "src/unlisted"), PLAN_IDENTICAL_CONTENT);
	CHECK(t_x(x.p, e)->judged_sums != NULL);
	if (t_x(x.p, e)->judged_sums) {
		CHECK_INT(t_x(x.p, e)->judged_sums->algs, (int)o.keep_algs);
		CHECK_STR(t_x(x.p, e)->judged_sums->text[CHECKSUM_XXH128], abc);
		CHECK_STR(t_x(x.p, e)->judged_sums->text[CHECKSUM_MD5], "900150983cd24fb0d6963f7d28e17f72");
	}
	/* quick alone would take it: read, its bytes differ */
	CHECK_INT(judged(x.p, "src/same size other bytes"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/touched"), PLAN_IDENTICAL_NO);
	CHECK_INT(x.p->n_identical, 2);
	run_done(&x);
	/* no record at all: every file is read; without keep_algs nothing kept */
	o.recorded = NULL;
	o.keep_algs = 0;
	x = BUILD(&rec, "d", "src");
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_CONTENT);
	CHECK(t_x(x.p, find(x.p, "src/same"))->judged_sums == NULL);
	run_done(&x);
	tree_done();
}

TEST(plan_hash_by_list)
{
	char abc[CHECKSUM_TEXT_MAX], line[256];
	struct sums_index *idx = sums_index_new();
	struct recorded_sums record;
	struct identical_options o = { .mode = IDENTICAL_HASH };
	struct run x;

	xxh128_of("abc", abc);
	tree_new();
	quick_tree();
	/* names relative to the destination directory, one with spaces */
	snprintf(line, sizeof(line), "%s  src/same\n%s  src/same size other bytes\n", abc, abc);
	write_text("list.xxh128", line);
	CHECK_INT(sums_index_add_list(idx, CHECKSUM_XXH128, "list.xxh128", NULL), 0);
	record = sums_index_recorded(idx);
	o.recorded = &record;
	x = BUILD(&rec, "d", "src");
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_LIST);
	/* the list says abc; the source now holds abc: the list vouches for
	 * the destination copy (a file the list names is one written whole) */
	CHECK_INT(judged(x.p, "src/same size other bytes"), PLAN_IDENTICAL_LIST);
	CHECK_INT(judged(x.p, "src/touched"), PLAN_IDENTICAL_NO); /* not listed */
	run_done(&x);
	/* asked to keep them: the list's algorithms and the ones asked for */
	o.keep_algs = CHECKSUM_BIT(CHECKSUM_SHA1);
	x = BUILD(&rec, "d", "src");
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK(t_x(x.p, find(x.p, "src/same"))->judged_sums != NULL);
	if (t_x(x.p, find(x.p, "src/same"))->judged_sums) {
		CHECK_STR(t_x(x.p, find(x.p, "src/same"))->judged_sums->text[CHECKSUM_XXH128], abc);
		CHECK_STR(t_x(x.p, find(x.p, "src/same"))->judged_sums->text[CHECKSUM_SHA1],
			  "a9993e364706816aba3e25717850c26c9cd0d89d");
	}
	CHECK(t_x(x.p, find(x.p, "src/touched"))->judged_sums == NULL);
	run_done(&x);
	sums_index_free(idx);
	tree_done();
}

static void write_bytes(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		FAIL_AT("write %s", path);
}

static void c4_of(const char *buf, size_t len, char out[CHECKSUM_TEXT_MAX])
{
	struct checksum_state *s = checksum_new(CHECKSUM_BIT(CHECKSUM_C4));
	struct checksum_result r;

	checksum_update(s, buf, len);
	checksum_final(s, &r);
	checksum_free(s);
	snprintf(out, CHECKSUM_TEXT_MAX, "%s", r.text[CHECKSUM_C4]);
}

/* d/ascmhl with one generation: src/same (xxh128 of "abc", verified),
 * src/failed (xxh128 of "abc", failed); tamper: the chain's C4 ID is
 * another's. */
static void write_history(const char *abc, bool tamper)
{
	const struct mhl_creator who = { 1700000000, "host", "safecp", "test" };
	struct mhl_hash good = { MHL_XXH128, abc, MHL_VERIFIED, 1700000000 };
	struct mhl_hash bad = { MHL_XXH128, abc, MHL_FAILED, 1700000000 };
	const struct mhl_file files[] = {
		{ "src/same", 3, 1700000000, &good, 1 },
		{ "src/failed", 3, 1700000000, &bad, 1 },
	};
	struct mhl_generation *g = NULL;
	char name[128], path[256], c4[CHECKSUM_TEXT_MAX], *xml = NULL, *chain = NULL;
	size_t len = 0, clen = 0;

	CHECK_INT(mhl_generation_new(&who, &g), 0);
	for (size_t i = 0; i < 2; i++)
		CHECK_INT(mhl_generation_add_file(g, &files[i]), 0);
	CHECK_INT(mhl_generation_render(g, &xml, &len), 0);
	CHECK_INT(mhl_generation_file_name(1, "d", 1700000000, name, sizeof(name)), 0);
	mkdir("d/ascmhl", 0755); /* the second time it is there */
	snprintf(path, sizeof(path), "d/ascmhl/%s", name);
	write_bytes(path, xml, len);
	c4_of(tamper ? "other" : xml, tamper ? 5 : len, c4);
	CHECK_INT(mhl_chain_render(&(struct mhl_chain_link){ 1, name, c4 }, 1, &chain, &clen), 0);
	write_bytes("d/ascmhl/ascmhl_chain.xml", chain, clen);
	free(xml);
	free(chain);
	mhl_generation_free(g);
}

TEST(plan_hash_by_manifest)
{
	char abc[CHECKSUM_TEXT_MAX];
	struct mhl_record *m = NULL;
	struct mhl_read_problem why;
	struct recorded_sums record;
	struct identical_options o = { .mode = IDENTICAL_HASH };
	struct recorded_file f;
	struct run x;

	xxh128_of("abc", abc);
	tree_new();
	CHECK_INT(mhl_record_open(".", &m, &why), MHL_RECORD_NONE);
	quick_tree();
	pair("failed", "abc", "abc");
	write_history(abc, false);
	CHECK_INT(mhl_record_open("d", &m, &why), MHL_RECORD_OK);
	record = mhl_record_recorded(m);
	CHECK_INT(record.basis, PLAN_IDENTICAL_MANIFEST);
	CHECK_INT(record.lookup(record.ctx, "src/same", &f), 1);
	CHECK_INT(f.action, RECORDED_GOOD);
	CHECK_INT(f.sums.algs, CHECKSUM_BIT(CHECKSUM_XXH128));
	CHECK_STR(f.sums.text[CHECKSUM_XXH128], abc);
	CHECK_INT(record.lookup(record.ctx, "src/failed", &f), 1);
	CHECK_INT(f.action, RECORDED_FAILED);
	CHECK_INT(record.lookup(record.ctx, "src/touched", &f), 0);
	o.recorded = &record;
	x = BUILD(&rec, "d", "src");
	CHECK_INT(plan_skip_identical(x.p, &o), 0);
	CHECK_INT(judged(x.p, "src/same"), PLAN_IDENTICAL_MANIFEST);
	CHECK_INT(judged(x.p, "src/failed"), PLAN_IDENTICAL_NO);
	CHECK_INT(judged(x.p, "src/touched"), PLAN_IDENTICAL_NO);
	run_done(&x);
	mhl_record_free(m);
	/* a generation whose bytes are not the chain's: not trusted */
	write_history(abc, true);
	CHECK_INT(mhl_record_open("d", &m, &why), MHL_RECORD_C4_MISMATCH);
	CHECK(m == NULL);
	CHECK(strstr(why.file, ".mhl") != NULL);
	/* a chain that is not XML: refused, with the file named */
	write_bytes("d/ascmhl/ascmhl_chain.xml", "<ascmhl", 7);
	CHECK_INT(mhl_record_open("d", &m, &why), MHL_RECORD_UNREADABLE);
	CHECK_STR(why.file, "ascmhl_chain.xml");
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(12);
	RUN(mtime_exact_on_fine_filesystems);
	RUN(mtime_fat_two_seconds);
	RUN(mtime_exfat_steps);
	RUN(mtime_steps_of_the_table);
	RUN(sums_index_reads_lists);
	RUN(plan_quick);
	RUN(plan_quick_overrides_no_clobber);
	RUN(plan_hash_reads_both_copies);
	RUN(plan_hash_by_record);
	RUN(plan_quick_reads_what_no_record_lists);
	RUN(plan_hash_by_list);
	RUN(plan_hash_by_manifest);
	return test_summary();
}
