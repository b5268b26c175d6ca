/* test_dirty.c: dirty accounting on the captured dirty-* trees.
 *
 * The trees were captured from a 200 MiB cp to a 20 MiB/s loop stick
 * (tests/fixtures/dirty-idle/README), so expected values are what the
 * kernel wrote in those files; the threshold test checks that our
 * arithmetic reproduces the kernel's own nr_dirty_threshold. */
#include <errno.h>
#include <time.h>

#include "dirty/dirty.h"
#include "util/sysroot.h"
#include "test.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024)
#define PAGE 4096ULL

static void use(const char *tree)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, tree);
	sysroot_set(path);
}

TEST(system_parse)
{
	struct dirty_system s;

	use("dirty-idle");
	CHECK_INT(dirty_system_read(&s), 0);
	CHECK_U64(s.dirty, 103060 * KIB);
	CHECK_U64(s.writeback, 0);
	CHECK_U64(s.writeback_tmp, 0);
	CHECK_U64(s.mem_free, 23899188 * KIB);
	CHECK_U64(s.file_lru, (109984 + 242764) * KIB);
	CHECK_U64(s.page_size, PAGE);
	CHECK_U64(s.thresh, 1206175 * PAGE);
	CHECK_U64(s.bg_thresh, 602351 * PAGE);
	CHECK_U64(s.dirty_ratio, 20);
	CHECK_U64(s.dirty_background_ratio, 10);
	CHECK_U64(s.dirty_bytes, 0);
	CHECK_U64(s.dirty_background_bytes, 0);
	CHECK_U64(s.dirty_expire_cs, 3000);
	CHECK_U64(s.dirty_writeback_cs, 500);
	/* freerun ceiling in pages: (1206175 + 602351) / 2 */
	CHECK_U64(dirty_freerun_ceiling(&s), 904263 * PAGE);

	use("dirty-writeback");
	CHECK_INT(dirty_system_read(&s), 0);
	CHECK_U64(s.writeback, 147456 * KIB);
	use("no-such-tree");
	CHECK_INT(dirty_system_read(&s), -ENOENT);
	sysroot_set(NULL);
}

/* zoneinfo of the capture machine, by hand (calculate_totalreserve_pages):
 * DMA min(4555 + 81, managed 3840) = 3840, DMA32 1536 + 16741 = 18277,
 * Normal 0 + 8516 = 8516, Movable min(0 + 32, managed 0) = 0, Device 0. */
TEST(reserve_from_zoneinfo)
{
	uint64_t reserve = 0;

	use("dirty-idle");
	CHECK_INT(dirty_reserve_read(&reserve), 0);
	CHECK_U64(reserve, (3840 + 18277 + 8516) * PAGE);
	/* the same zones with DMA32's watermarks boosted by 1000 pages: the
	 * boost is transient and not part of totalreserve_pages */
	use("dirty-nodebugfs");
	CHECK_INT(dirty_reserve_read(&reserve), 0);
	CHECK_U64(reserve, (3840 + 18277 + 8516) * PAGE);
	use("dirty-idle/proc"); /* no zoneinfo below it */
	CHECK_INT(dirty_reserve_read(&reserve), -ENOENT);
	sysroot_set(NULL);
}

/* The kernel computed nr_dirty_threshold at the moment /proc/vmstat was
 * read, from the MemFree that meminfo showed a moment earlier; an idle or
 * busy machine, the result must be the kernel's to the page. */
TEST(thresholds_reproduce_kernel)
{
	static const char *const trees[] = { "dirty-idle", "dirty-cp", "dirty-writeback",
					     "dirty-synced" };

	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct dirty_system s;
		uint64_t reserve = 0, thresh = 0, bg = 0;

		use(trees[i]);
		CHECK_INT(dirty_system_read(&s), 0);
		CHECK_INT(dirty_reserve_read(&reserve), 0);
		dirty_thresholds_compute(&s, reserve, &thresh, &bg);
		CHECK_U64(thresh, s.thresh);
		CHECK_U64(bg, s.bg_thresh);
		/* without the reserve the estimate is high by ratio * reserve */
		dirty_thresholds_compute(&s, 0, &thresh, &bg);
		CHECK(thresh > s.thresh);
	}
	sysroot_set(NULL);
}

TEST(threshold_knob_rules)
{
	struct dirty_system s = {
		.mem_free = 1000 * PAGE, .file_lru = 0, .page_size = PAGE,
		.dirty_ratio = 20, .dirty_background_ratio = 10,
	};
	uint64_t thresh, bg;

	/* ratio scaled per page first: 20% -> 819/4096; dirtyable 1001 pages */
	dirty_thresholds_compute(&s, 0, &thresh, &bg);
	CHECK_U64(thresh, 200 * PAGE); /* 819 * 1001 / 4096 = 200.15 */
	CHECK_U64(bg, 99 * PAGE);      /* 409 * 1001 / 4096 = 99.96 */

	/* reserve above MemFree leaves only the file LRU (+1) */
	s.file_lru = 4095 * PAGE;
	dirty_thresholds_compute(&s, 5000 * PAGE, &thresh, &bg);
	CHECK_U64(thresh, 819 * PAGE);

	/* the bytes knob wins over the ratio, rounded up to a page */
	s.dirty_bytes = 16 * MIB + 1;
	dirty_thresholds_compute(&s, 0, &thresh, &bg);
	CHECK_U64(thresh, 4097 * PAGE);

	/* a background limit at or above the limit becomes half of it */
	s.dirty_background_bytes = 32 * MIB;
	dirty_thresholds_compute(&s, 0, &thresh, &bg);
	CHECK_U64(bg, 2048 * PAGE);
	s.dirty_bytes = 0;
	s.dirty_background_bytes = 0;
	s.dirty_background_ratio = 20;
	dirty_thresholds_compute(&s, 0, &thresh, &bg);
	CHECK_U64(bg, thresh / PAGE / 2 * PAGE);

	s.thresh = 201 * PAGE;
	s.bg_thresh = 100 * PAGE;
	CHECK_U64(dirty_freerun_ceiling(&s), 150 * PAGE);
}

TEST(bdi_stats_debugfs)
{
	struct dirty_device d;

	use("dirty-cp");
	CHECK_INT(dirty_device_read("7:1", "loop1", &d), 0);
	CHECK_INT(d.source, DIRTY_SOURCE_DEBUGFS);
	CHECK_STR(dirty_source_name(d.source), "debugfs");
	CHECK_U64(d.dirty, 204856 * KIB);
	CHECK_U64(d.writeback, 0);
	CHECK_U64(d.bdi_thresh, 1958292 * KIB);
	CHECK_U64(d.dirtied, 415524 * KIB);
	CHECK_U64(d.written, 210696 * KIB);
	CHECK_U64(d.bandwidth, 64540 * KIB);
	/* BdiDirtied and BdiWritten are kB (not pages): what was dirtied and
	 * not yet written is what is dirty or under writeback, within the
	 * percpu error of the two counters */
	CHECK(d.dirtied - d.written <= dirty_device_pending(&d) + 2 * dirty_percpu_error());
	CHECK(dirty_device_pending(&d) <= d.dirtied - d.written + 2 * dirty_percpu_error());
	CHECK(d.has_block_stat);
	CHECK(d.has_flushes);
	CHECK_U64(d.sectors_written, 1240083);
	CHECK_U64(d.flushes, 76);
	CHECK_INT(d.inflight_reads, 0);
	CHECK_INT(d.inflight_writes, 0);

	use("dirty-writeback");
	CHECK_INT(dirty_device_read("7:1", "loop1", &d), 0);
	CHECK_U64(d.dirty, 0);
	CHECK_U64(d.writeback, 147456 * KIB);
	CHECK_U64(dirty_device_pending(&d), 147456 * KIB);

	use("dirty-idle");
	CHECK_INT(dirty_device_read("7:1", NULL, &d), 0);
	CHECK_U64(d.bandwidth, 0); /* no active writeback */
	CHECK(dirty_device_pending(&d) <= dirty_percpu_error()); /* 44 kB of drift */
	CHECK(!d.has_block_stat);

	use("dirty-synced");
	CHECK_INT(dirty_device_read("7:1", "loop1", &d), 0);
	CHECK_U64(dirty_device_pending(&d), 0);
	sysroot_set(NULL);
}

TEST(block_stat_formats)
{
	struct dirty_device d = { 0 };

	CHECK_INT(dirty_block_stat_parse("   33267     6226  2140658    10751    11530     7015"
					 "   764112     9177        0     4500    20206     4646"
					 "       11   116584      216     1670       61\n", &d), 0);
	CHECK_U64(d.sectors_written, 764112);
	CHECK(d.has_flushes);
	CHECK_U64(d.flushes, 1670);

	d = (struct dirty_device){ 0 };
	CHECK_INT(dirty_block_stat_parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n", &d), 0);
	CHECK_U64(d.sectors_written, 7);
	CHECK(!d.has_flushes);
	CHECK_U64(d.flushes, 0);
	CHECK_INT(dirty_block_stat_parse("1 2 3 4 5 6 77 8 9 10 11", &d), 0);
	CHECK_U64(d.sectors_written, 77);
	CHECK(d.has_block_stat);

	CHECK_INT(dirty_block_stat_parse("1 2 3 4 5 6 7 8 9 10 11 12 13", &d), -EINVAL);
	CHECK_INT(dirty_block_stat_parse("1 2 3 4 5 6 7 8 9 10 x", &d), -EINVAL);
	CHECK_INT(dirty_block_stat_parse("", &d), -EINVAL);

	/* the same formats as files, and a partition under /sys/class/block */
	use("dirty-nodebugfs");
	CHECK_INT(dirty_device_read(NULL, "sdb", &d), 0);
	CHECK_U64(d.sectors_written, 2101234);
	CHECK(!d.has_flushes);
	CHECK_INT(d.inflight_writes, 3);
	CHECK_INT(dirty_device_read(NULL, "sdc", &d), 0);
	CHECK_U64(d.sectors_written, 409600);
	CHECK_INT(d.inflight_writes, 0); /* no inflight file */
	CHECK_INT(dirty_device_read(NULL, "loop1p1", &d), 0);
	CHECK_U64(d.sectors_written, 81920);
	CHECK_INT(d.inflight_writes, 1);
	sysroot_set(NULL);
}

TEST(estimate_without_debugfs)
{
	struct dirty_device est, exact;
	struct dirty_system sys, fake = { .dirty = 5, .writeback = 7, .writeback_tmp = 11 };

	use("dirty-cp");
	CHECK_INT(dirty_device_read("7:1", "loop1", &exact), 0);
	use("dirty-nodebugfs");
	CHECK_INT(dirty_system_read(&sys), 0);
	CHECK_INT(dirty_device_read("7:1", "loop1", &est), 0);
	CHECK_INT(est.source, DIRTY_SOURCE_ESTIMATE);
	CHECK_STR(dirty_source_name(est.source), "estimate");
	CHECK_U64(est.dirty, sys.dirty);
	CHECK_U64(est.writeback, sys.writeback + sys.writeback_tmp);
	CHECK_U64(est.bandwidth, 0);
	/* an upper bound of what debugfs said at the same moment */
	CHECK(est.dirty >= exact.dirty);
	CHECK(dirty_device_pending(&est) >= dirty_device_pending(&exact));
	/* the block layer is still exact */
	CHECK_U64(est.sectors_written, exact.sectors_written);

	/* no bdi name: the estimate too; a given system is not re-read */
	CHECK_INT(dirty_device_read_with(NULL, "loop1", &fake, &est), 0);
	CHECK_INT(est.source, DIRTY_SOURCE_ESTIMATE);
	CHECK_U64(est.dirty, 5);
	CHECK_U64(est.writeback, 18);
	sysroot_set(NULL);
}

TEST(device_errors)
{
	struct dirty_device d;

	use("dirty-cp");
	CHECK_INT(dirty_device_read("7:1", "loop9", &d), -ENOENT);
	CHECK_INT(dirty_device_read("7:1", "../loop1", &d), -EINVAL);
	CHECK_INT(dirty_device_read("7:1/..", "loop1", &d), -EINVAL);
	CHECK_INT(dirty_device_read("7:1", "..", &d), -EINVAL);
	sysroot_set(NULL);
}

TEST(percpu_error)
{
	unsigned n = 0;

	/* nr_cpu_ids * 8 * (1 + ilog2(nr_cpu_ids)) pages (doc/kernel.md 4.1) */
	CHECK_U64(dirty_percpu_error_for(2, PAGE), 32 * PAGE);   /* 128 KiB */
	CHECK_U64(dirty_percpu_error_for(8, PAGE), 256 * PAGE);  /* 1 MiB */
	CHECK_U64(dirty_percpu_error_for(64, PAGE), 3584 * PAGE); /* 14 MiB */
	CHECK_U64(dirty_percpu_error_for(1, PAGE), 8 * PAGE);
	CHECK_U64(dirty_percpu_error_for(6, PAGE), 6 * 24 * PAGE); /* ilog2(6) = 2 */

	CHECK_INT(dirty_cpu_list_nr_ids("0-1\n", &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(dirty_cpu_list_nr_ids("0", &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(dirty_cpu_list_nr_ids("0-3,8-11", &n), 0);
	CHECK_INT(n, 12);
	CHECK_INT(dirty_cpu_list_nr_ids("", &n), -EINVAL);
	CHECK_INT(dirty_cpu_list_nr_ids("0-x", &n), -EINVAL);

	use("dirty-idle"); /* possible: 0-1 */
	CHECK_U64(dirty_percpu_error(), 128 * KIB);
	use("dirty-nodebugfs"); /* possible: 0-63 */
	CHECK_U64(dirty_percpu_error(), 14 * MIB);
	sysroot_set(NULL);
}

static struct dirty_sample dev_sample(double t, uint64_t sectors, uint64_t written)
{
	struct dirty_sample s = { .t_mono = t, .have_dev = true };

	s.dev.source = DIRTY_SOURCE_DEBUGFS;
	s.dev.has_block_stat = true;
	s.dev.sectors_written = sectors;
	s.dev.written = written;
	s.dev.bandwidth = 17316 * KIB;
	return s;
}

TEST(rate_arithmetic)
{
	struct dirty_sample a = dev_sample(100.0, 1000, 0), b = dev_sample(101.0, 1000 + 40960, 0);

	CHECK(dirty_write_rate(&a, &b) == 20.0 * MIB);
	b.t_mono = 100.5;
	CHECK(dirty_write_rate(&a, &b) == 40.0 * MIB);
	/* zero or negative time delta: the kernel's bandwidth estimate */
	b.t_mono = 100.0;
	CHECK(dirty_write_rate(&a, &b) == 17316.0 * KIB);
	b.t_mono = 99.0;
	CHECK(dirty_write_rate(&a, &b) == 17316.0 * KIB);
	/* counter went backwards (device re-created, 32-bit wrap): 0 */
	b = dev_sample(101.0, 10, 0);
	CHECK(dirty_write_rate(&a, &b) == 0.0);
	a = dev_sample(100.0, UINT64_MAX - 5, 0);
	CHECK(dirty_write_rate(&a, &b) == 0.0);

	/* no block stat: BdiWritten, if both came from debugfs */
	a = dev_sample(10.0, 0, 100 * MIB);
	b = dev_sample(12.0, 0, 140 * MIB);
	a.dev.has_block_stat = b.dev.has_block_stat = false;
	CHECK(dirty_write_rate(&a, &b) == 20.0 * MIB);
	b.dev.written = 1 * MIB;
	CHECK(dirty_write_rate(&a, &b) == 0.0);
	b.dev.source = DIRTY_SOURCE_ESTIMATE;
	b.dev.written = 140 * MIB;
	CHECK(dirty_write_rate(&a, &b) == 0.0);
	/* no device at all */
	a.have_dev = false;
	CHECK(dirty_write_rate(&a, &b) == 0.0);
}

/* From the captured cp to sync: the device must have written the 200 MiB
 * that were dirty, and the sector counter (x512) and BdiWritten (kB) must
 * tell the same story to within the fs metadata written alongside. */
TEST(rate_on_fixtures)
{
	struct dirty_sample cp = { .have_dev = true }, synced = { .have_dev = true };
	double bytes;

	use("dirty-cp");
	CHECK_INT(dirty_device_read("7:1", "loop1", &cp.dev), 0);
	use("dirty-synced");
	CHECK_INT(dirty_device_read("7:1", "loop1", &synced.dev), 0);
	cp.t_mono = 3.474;
	synced.t_mono = 14.522;
	bytes = dirty_write_rate(&cp, &synced) * (synced.t_mono - cp.t_mono);
	CHECK(bytes >= 200.0 * MIB);
	CHECK(bytes <= (double)(synced.dev.written - cp.dev.written) + 1.0 * MIB);
	CHECK(bytes >= (double)(synced.dev.written - cp.dev.written) - 1.0 * MIB);
	sysroot_set(NULL);
}

TEST(eta)
{
	struct dirty_sample s = { .have_dev = true };

	s.dev.writeback = 147456 * KIB;
	CHECK(dirty_eta(&s, 20.0 * MIB) == 7.2);
	s.dev.dirty = 53248 * KIB;
	CHECK(dirty_eta(&s, 20.0 * MIB) == 9.8);
	CHECK(dirty_eta(&s, 0.0) == -1.0);
	s.dev.dirty = s.dev.writeback = 0;
	CHECK(dirty_eta(&s, 0.0) == 0.0);
	CHECK(dirty_eta(&s, 20.0 * MIB) == 0.0);
	/* without a device: the system's dirty + writeback */
	s.have_dev = false;
	s.sys.dirty = 10 * MIB;
	s.sys.writeback = 30 * MIB;
	CHECK(dirty_eta(&s, 20.0 * MIB) == 2.0);
}

TEST(sample_take)
{
	struct dirty_sample s;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	use("dirty-writeback");
	CHECK_INT(dirty_sample_take("7:1", "loop1", &s), 0);
	CHECK(s.have_dev);
	CHECK_U64(s.dev.writeback, 147456 * KIB);
	CHECK_U64(s.sys.writeback, 147456 * KIB);
	CHECK(s.t_mono > 0);
	CHECK(s.t_real >= (double)now.tv_sec && s.t_real < (double)now.tv_sec + 60);
	CHECK_INT(dirty_sample_take(NULL, "", &s), 0);
	CHECK(!s.have_dev);
	CHECK_INT(dirty_sample_take("7:1", "loop9", &s), -ENOENT);
	sysroot_set(NULL);
}

/* /sys/block/DISK/inflight, as dirty_device and unmount's power-off read it */
TEST(inflight_parse)
{
	unsigned r = 7, w = 7;

	CHECK_INT(dirty_inflight_parse("       0        3\n", &r, &w), 0);
	CHECK_INT(r, 0);
	CHECK_INT(w, 3);
	CHECK_INT(dirty_inflight_parse("2 1", &r, &w), 0);
	CHECK_INT(r, 2);
	CHECK_INT(w, 1);
	CHECK_INT(dirty_inflight_parse("-1 0", &r, &w), -EINVAL); /* sscanf took it as 4294967295 */
	CHECK_INT(dirty_inflight_parse("0 -1", &r, &w), -EINVAL);
	CHECK_INT(dirty_inflight_parse("5", &r, &w), -EINVAL);
	CHECK_INT(dirty_inflight_parse("", &r, &w), -EINVAL);
	CHECK_INT(dirty_inflight_parse("0 4294967296", &r, &w), -EINVAL);
	CHECK_INT(r, 2);
	CHECK_INT(w, 1);
}

int main(void)
{
	TEST_PLAN(14);
	RUN(system_parse);
	RUN(reserve_from_zoneinfo);
	RUN(thresholds_reproduce_kernel);
	RUN(threshold_knob_rules);
	RUN(bdi_stats_debugfs);
	RUN(block_stat_formats);
	RUN(estimate_without_debugfs);
	RUN(device_errors);
	RUN(percpu_error);
	RUN(rate_arithmetic);
	RUN(rate_on_fixtures);
	RUN(eta);
	RUN(sample_take);
	RUN(inflight_parse);
	return test_summary();
}
