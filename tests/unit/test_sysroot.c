/* test_sysroot.c: the sysroot prefix and the small-file readers. */
#include <errno.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "util/parse.h"
#include "util/sysroot.h"
#include "test.h"

TEST(prefix_and_paths)
{
	char buf[64];

	CHECK_INT(sysroot_set("/x/y//"), 0);
	CHECK_STR(sysroot_get(), "/x/y");
	CHECK_INT(sysroot_path(buf, sizeof(buf), "/sys/block/%s/stat", "loop0"), 0);
	CHECK_STR(buf, "/x/y/sys/block/loop0/stat");
	CHECK_INT(sysroot_path(buf, 12, "/sys/block/%s", "loop0"), -ENAMETOOLONG);
	CHECK_INT(sysroot_set(NULL), 0);
	CHECK(sysroot_is_real());
}

TEST(read_fixture_files)
{
	char line[32];
	uint64_t v = 0;

	sysroot_set(FIXTURES_DIR "/sysroot-basic");
	CHECK_INT(sysroot_read_u64("/sys/block/loop0/queue/max_sectors_kb", &v), 0);
	CHECK_U64(v, 1280);
	CHECK_INT(sysroot_read_line("/sys/block/loop0/queue/write_cache", line, sizeof(line)), 0);
	CHECK_STR(line, "write back");
	CHECK_INT(sysroot_read_u64("/sys/block/loop0/queue/write_cache", &v), -EINVAL);
	CHECK_INT(sysroot_read_u64("/sys/block/nope", &v), -ENOENT);
	sysroot_set(NULL);
}

TEST(kv_tables)
{
	_cleanup_free_ char *meminfo = NULL;
	const char *vmstat = "nr_dirty 51200\nnr_dirty_threshold 1173194\n"
			     "nr_dirty_background_threshold 585881\n";
	uint64_t v = 0;

	sysroot_set(FIXTURES_DIR "/sysroot-basic");
	CHECK_INT(sysroot_read_file("/proc/meminfo", &meminfo), 0);
	sysroot_set(NULL);
	CHECK_INT(kv_table_lookup(meminfo, "Dirty", &v), 0);
	CHECK_U64(v, 204800ULL * 1024);
	CHECK_INT(kv_table_lookup(meminfo, "Writeback", &v), 0);
	CHECK_U64(v, 12288ULL * 1024);
	CHECK_INT(kv_table_lookup(meminfo, "WritebackTmp", &v), 0);
	CHECK_U64(v, 0);
	CHECK_INT(kv_table_lookup(meminfo, "Writeb", &v), -ENOENT);
	CHECK_INT(kv_table_lookup(vmstat, "nr_dirty", &v), 0);
	CHECK_U64(v, 51200);
	CHECK_INT(kv_table_lookup(vmstat, "nr_dirty_background_threshold", &v), 0);
	CHECK_U64(v, 585881);
	CHECK_INT(kv_table_lookup("BdiWriteBandwidth:   17316 kBps\n", "BdiWriteBandwidth", &v), 0);
	CHECK_U64(v, 17316ULL * 1024);
}

int main(void)
{
	TEST_PLAN(3);
	RUN(prefix_and_paths);
	RUN(read_fixture_files);
	RUN(kv_tables);
	return test_summary();
}
