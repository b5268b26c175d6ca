/* test_plan_space.c: plan_check() and its arithmetic on made-up
 * filesystems, a FAT32 among them that this kernel cannot mount: cluster
 * rounding, directory entries, the 4 GiB - 1 limit, the free-space and
 * inode boundaries, replaced files; and fs_space_read() on a real one. */
#include <sys/statvfs.h>

#include "plan_tree.h"

static struct fs_space fat32(uint64_t avail)
{
	return (struct fs_space){ .avail_bytes = avail, .avail_inodes = UINT64_MAX,
				  .cluster = 32 * KIB, .max_file_size = 0xffffffffULL,
				  .dirents = FS_DIRENTS_FAT };
}

static struct fs_space fs_like(enum fs_kind kind, uint64_t cluster)
{
	return (struct fs_space){ .avail_bytes = UINT64_MAX / 2, .avail_inodes = UINT64_MAX,
				  .cluster = cluster, .max_file_size = INT64_MAX,
				  .dirents = fs_traits_lookup(kind, NULL, NULL)->dirents };
}

TEST(cluster_rounding_fat32_exfat_ext4)
{
	struct fs_space fat = fat32(100 * GIB), exfat = fs_like(FS_EXFAT, 32 * KIB);
	struct fs_space ext4 = fs_like(FS_EXT4, 4096);
	char p[32];
	struct run x;

	tree_new();
	mkdirs("src", NULL, NULL);
	for (int i = 0; i < 1000; i++) {
		snprintf(p, sizeof(p), "src/f%03d", i); /* names of 4 bytes */
		mkfile(p, 1);
	}
	x = BUILD(&rec, "out", "src");
	CHECK_INT(x.r, 0);
	CHECK_U64(x.p->total_bytes, 1000);
	/* 1000 clusters of data, 1 for the new directory "out", and the
	 * entries: vfat 2 x 32 bytes per short long-name (1001 of them, 64064
	 * bytes -> 2 clusters); exfat 3 x 32 (96096 bytes -> 3 clusters) */
	CHECK_U64(plan_space_needed(x.p, &fat), (1000 + 1 + 2) * 32 * KIB);
	CHECK_U64(plan_space_needed(x.p, &exfat), (1000 + 1 + 3) * 32 * KIB);
	CHECK_U64(plan_space_needed(x.p, &ext4), (1000 + 1) * 4096);
	CHECK_U64(plan_inodes_needed(x.p), 1001);
	CHECK_INT(plan_check(x.p, &fat, plan_space_needed(x.p, &fat), NULL), PLAN_OK);
	run_done(&x);
	tree_done();
}

TEST(fat32_file_size_limit)
{
	struct fs_space fat = fat32(100 * GIB), exfat = fs_like(FS_EXFAT, 32 * KIB);
	struct fs_space ext4 = fs_like(FS_EXT4, 4096);
	struct plan_problem pr = { 0 };
	struct run x;

	tree_new();
	mkdirs("d", NULL, NULL);
	mkfile("small", 10);
	mkfile("edge", 0);
	mkfile("big", 0);
	CHECK_INT(truncate("edge", 4 * GIB - 1), 0); /* sparse: no 4 GiB written */
	CHECK_INT(truncate("big", 4 * GIB), 0);
	x = BUILD(&plain, "d", "small", "edge");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_check(x.p, &fat, plan_space_needed(x.p, &fat), &pr), PLAN_OK);
	run_done(&x);
	x = BUILD(&plain, "d", "small", "edge", "big");
	CHECK_INT(x.r, 0);
	CHECK_INT(plan_check(x.p, &fat, plan_space_needed(x.p, &fat), &pr), PLAN_FILE_TOO_BIG);
	CHECK_INT(pr.kind, PLAN_FILE_TOO_BIG);
	CHECK_STR(pr.path, "big");
	CHECK_STR(pr.path2, "d/big");
	CHECK_U64(pr.need, 4 * GIB);
	CHECK_U64(pr.have, 4 * GIB - 1);
	plan_problem_done(&pr);
	CHECK_INT(plan_check(x.p, &exfat, plan_space_needed(x.p, &exfat), &pr), PLAN_OK);
	CHECK_INT(plan_check(x.p, &ext4, plan_space_needed(x.p, &ext4), &pr), PLAN_OK);
	run_done(&x);
	tree_done();
}

TEST(no_space_at_the_boundary)
{
	struct plan_problem pr = { 0 };
	struct fs_space fat;
	uint64_t need;
	struct run x;

	tree_new();
	mkdirs("src", "d", NULL);
	mkfile("src/a", 100 * KIB);
	mkfile("src/b", 1);
	x = BUILD(&rec, "d", "src");
	CHECK_INT(x.r, 0);
	fat = fat32(0);
	need = plan_space_needed(x.p, &fat);
	/* a: 4 clusters, b: 1, new dir d/src: 1, entries: 1 cluster */
	CHECK_U64(need, (4 + 1 + 1 + 1) * 32 * KIB);
	fat.avail_bytes = need;
	CHECK_INT(plan_check(x.p, &fat, plan_space_needed(x.p, &fat), &pr), PLAN_OK);
	fat.avail_bytes = need - 1;
	CHECK_INT(plan_check(x.p, &fat, plan_space_needed(x.p, &fat), &pr), PLAN_NO_SPACE);
	CHECK_STR(pr.path2, "d");
	CHECK_U64(pr.need, need);
	CHECK_U64(pr.have, need - 1);
	plan_problem_done(&pr);
	fat.avail_bytes = need;
	fat.avail_inodes = 2;  /* a, b and the directory need three */
	CHECK_INT(plan_check(x.p, &fat, plan_space_needed(x.p, &fat), &pr), PLAN_NO_INODES);
	CHECK_U64(pr.need, 3);
	plan_problem_done(&pr);
	run_done(&x);
	tree_done();
}

/* Replacing files in one batch: every new copy exists before any old
 * one goes, so the credit for what they free shows only across batches
 * (space_across_batches). */
TEST(space_with_replaced_files)
{
	struct plan_options T = { .recursive = true, .no_target_directory = true };
	struct fs_space ext4 = fs_like(FS_EXT4, 4096);
	const struct plan_entry *f1, *f2;
	struct run x;

	tree_new();
	mkdirs("src", "dst", NULL);
	mkfile("src/f1", 100 * KIB);
	mkfile("src/f2", 12 * KIB);
	x = BUILD(&T, "fresh", "src");
	CHECK_INT(x.r, 0);
	CHECK_U64(plan_space_needed(x.p, &ext4), 100 * KIB + 12 * KIB + 4096);
	CHECK_U64(plan_inodes_needed(x.p), 3);
	run_done(&x);

	mkfile("dst/f1", 48 * KIB);
	mkfile("dst/f2", 40 * KIB);
	x = BUILD(&T, "dst", "src");
	CHECK_INT(x.r, 0);
	f1 = find(x.p, "src/f1");
	f2 = find(x.p, "src/f2");
	CHECK(f1 && f2);
	if (f1 && f2) {
		CHECK_U64(t_x(x.p, f1)->dst_freed, 48 * KIB);
		CHECK_U64(t_x(x.p, f2)->dst_freed, 40 * KIB);
	}
	/* growth: f1 52 KiB, f2 none; overlap: 48 + 12 KiB, one batch */
	CHECK_U64(plan_space_needed(x.p, &ext4), 52 * KIB + 60 * KIB);
	CHECK_U64(plan_inodes_needed(x.p), 2); /* both temporaries at once */
	run_done(&x);

	x = BUILD(&rec_T_n, "dst", "src");
	CHECK_INT(x.r, 0);
	CHECK_U64(plan_space_needed(x.p, &ext4), 0); /* -n: everything kept */
	CHECK_U64(plan_inodes_needed(x.p), 0);
	run_done(&x);
	tree_done();
}

/* A made-up plan of n replaced files: sizes that would take minutes to
 * write are only numbers here. */
static struct source_entry fake_sources[4000];
static struct plan_entry fake_entries[4000];
static struct plan_existing fake_existing[4000];
static struct source_tree fake_tree = { .entries = fake_sources };

static struct plan fake_plan(size_t n, uint64_t size, uint64_t freed)
{
	for (size_t i = 0; i < n; i++) {
		/* a top entry "s", shown as "f", named "f" at the destination */
		fake_sources[i] = (struct source_entry){
			.type = PLAN_FILE, .strings = "s\0f\0f", .size = size,
		};
		fake_entries[i] = (struct plan_entry){
			.source = &fake_sources[i], .dst_exists = true, .existing = (uint32_t)i,
		};
		fake_existing[i] = (struct plan_existing){ .dst_old_size = freed, .dst_freed = freed };
	}
	fake_tree.n_entries = n;
	return (struct plan){ .entries = fake_entries, .n_entries = n, .tree = &fake_tree,
			      .existing = fake_existing, .n_existing = n,
			      .dest_root = (char *)"d" };
}

TEST(space_across_batches)
{
	struct fs_space ext4 = fs_like(FS_EXT4, 4096);
	struct plan p;

	/* larger than any window: each commits alone, one overlaps at a time */
	p = fake_plan(3, 200ULL << 20, 200ULL << 20);
	CHECK_U64(plan_space_needed(&p, &ext4), 200ULL << 20);
	p = fake_plan(3, 200ULL << 20, 0); /* hard-linked or new: all of it */
	CHECK_U64(plan_space_needed(&p, &ext4), 600ULL << 20);
	/* 30 MiB files batch while the bytes before the last are under
	 * 256 MiB: 8 x 30 = 240, so 9 files, 270 MiB, exist twice at worst */
	p = fake_plan(10, 30ULL << 20, 30ULL << 20);
	CHECK_U64(plan_space_needed(&p, &ext4), 270ULL << 20);
	/* small files: at most 1000 to a batch */
	p = fake_plan(2000, 4096, 4096);
	CHECK_U64(plan_space_needed(&p, &ext4), 1000 * 4096);
	CHECK_U64(plan_inodes_needed(&p), 1000);
	/* growth adds up across batches; the overlap is what shrinking files free */
	p = fake_plan(2000, 8192, 4096);
	CHECK_U64(plan_space_needed(&p, &ext4), 2000 * 4096 + 1000 * 4096);
	fake_entries[5].skip_existing = true; /* -n: kept, in no batch */
	CHECK_U64(plan_space_needed(&p, &ext4), 1999 * 4096 + 1000 * 4096);
	/* a big file after small ones does not join their batch */
	p = fake_plan(11, 4096, 4096);
	fake_sources[10].size = 100 << 20;
	fake_existing[10].dst_freed = 100 << 20;
	CHECK_U64(plan_space_needed(&p, &ext4), 100 << 20);
	/* merged directories between the files are no batch members */
	p = fake_plan(4000, 4096, 4096);
	for (size_t i = 0; i < 4000; i += 2) {
		fake_sources[i].type = PLAN_DIR;
		fake_existing[i].dst_freed = 0;
	}
	CHECK_U64(plan_space_needed(&p, &ext4), 1000 * 4096);
}

/* blkid: for fuseblk, the type blkid found behind it */
static const struct fs_traits *traits(enum fs_kind kind, const char *blkid)
{
	return fs_traits_lookup(kind, fs_kind_name(kind), blkid);
}

TEST(fs_space_read_here)
{
	struct fs_space fs;
	struct statvfs sv;

	tree_new();
	CHECK_INT(statvfs(".", &sv), 0);
	CHECK_INT(fs_space_read(".", traits(FS_EXT4, NULL), &fs), 0);
	CHECK_U64(fs.cluster, sv.f_frsize);
	CHECK(fs.avail_bytes > 0);
	CHECK(fs.avail_bytes <= (uint64_t)sv.f_blocks * sv.f_frsize);
	CHECK(fs.stores_modes && fs.stores_symlinks);
	CHECK_U64(fs.max_file_size, INT64_MAX);
	CHECK_INT(fs.dirents, FS_DIRENTS_NONE);
	CHECK_INT(fs_space_read(".", traits(FS_VFAT, NULL), &fs), 0);
	CHECK_U64(fs.max_file_size, 0xffffffffULL);
	CHECK(!fs.stores_modes && !fs.stores_symlinks);
	CHECK_INT(fs.dirents, FS_DIRENTS_FAT);
	CHECK_INT(fs_space_read(".", traits(FS_EXFAT, NULL), &fs), 0);
	CHECK_U64(fs.max_file_size, INT64_MAX);
	CHECK(!fs.stores_modes && !fs.stores_symlinks);
	CHECK_INT(fs.dirents, FS_DIRENTS_EXFAT);
	/* fusefat on a block device has FAT's limit; the other daemons not */
	CHECK_INT(fs_space_read(".", traits(FS_FUSEBLK, "vfat"), &fs), 0);
	CHECK_U64(fs.max_file_size, 0xffffffffULL);
	CHECK(!fs.stores_modes && !fs.stores_symlinks);
	CHECK_INT(fs_space_read(".", traits(FS_FUSEBLK, "exfat"), &fs), 0);
	CHECK_U64(fs.max_file_size, INT64_MAX);
	CHECK(!fs.stores_modes && !fs.stores_symlinks);
	CHECK_INT(fs.dirents, FS_DIRENTS_NONE);
	CHECK_INT(fs_space_read(".", traits(FS_FUSEBLK, NULL), &fs), 0);
	CHECK_U64(fs.max_file_size, INT64_MAX);
	CHECK_INT(fs_space_read("/dev/shm", traits(FS_NOBLOCK, NULL), &fs), 0); /* glibc: 32 bits */
	CHECK_U64(fs.max_file_size, INT64_MAX);
	CHECK_INT(fs_space_read("nothere", traits(FS_EXT4, NULL), &fs), -ENOENT);
	tree_done();
}


int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* a crashing case still shows its name */
	TEST_PLAN(6);
	RUN(cluster_rounding_fat32_exfat_ext4);
	RUN(fat32_file_size_limit);
	RUN(no_space_at_the_boundary);
	RUN(space_with_replaced_files);
	RUN(space_across_batches);
	RUN(fs_space_read_here);
	return test_summary();
}
