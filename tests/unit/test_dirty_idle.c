/* test_dirty_idle.c: lib/dirty/dirty_idle, the rule that ends a copy with
 * "the device is idle", on readings. */
#include <stdint.h>

#include "dirty/dirty_idle.h"
#include "test.h"

#define MIB (1024 * 1024)

/* A reading without debugfs: the system's writeback, the disk's sector
 * counter and inflight. */
static struct idle_reading est(double t, uint64_t writeback, uint64_t sectors, unsigned rd,
			       unsigned wr)
{
	return (struct idle_reading){ .t = t, .pending = writeback, .has_block_stat = true,
				      .sectors_written = sectors, .inflight_reads = rd,
				      .inflight_writes = wr };
}

/* Adds readings 0.1 s apart from t0; the index of the first that says
 * idle, or -1. */
static int first_idle(struct idle_watch *w, const struct idle_reading *r, int n)
{
	for (int i = 0; i < n; i++)
		if (idle_watch_add(w, &r[i]))
			return i;
	return -1;
}

TEST(quiet_readings_over_the_window_are_idle)
{
	struct idle_watch w;
	struct idle_reading r[6];

	for (int i = 0; i < 6; i++)
		r[i] = est(10 + 0.1 * i, 0, 5000, 0, 0);
	idle_watch_init(&w, 0);
	/* 10.0 .. 10.3: four readings, 0.3 s */
	CHECK_INT(first_idle(&w, r, 6), 3);
}

TEST(fast_readings_wait_for_the_window)
{
	struct idle_watch w;
	struct idle_reading r[8];

	for (int i = 0; i < 8; i++)
		r[i] = est(10 + 0.05 * i, 0, 5000, 0, 0);
	idle_watch_init(&w, 0);
	/* four readings are there at 10.15, the 0.3 s at 10.30 */
	CHECK_INT(first_idle(&w, r, 8), 6);
}

TEST(writeback_on_the_system_is_not_idle)
{
	struct idle_watch w;
	struct idle_reading r[8];

	for (int i = 0; i < 8; i++)
		r[i] = est(10 + 0.1 * i, i == 2 ? 4096 : 0, 5000, 0, 0);
	idle_watch_init(&w, 0);
	/* one page under writeback at 10.2: the run starts again at 10.3 */
	CHECK_INT(first_idle(&w, r, 8), 6);
	idle_watch_init(&w, 0);
	for (int i = 0; i < 8; i++)
		r[i] = est(10 + 0.1 * i, 64 * MIB, 5000, 0, 0);
	CHECK_INT(first_idle(&w, r, 8), -1);
}

TEST(a_moving_sector_counter_is_not_idle)
{
	struct idle_watch w;
	struct idle_reading r[10];

	/* no page under writeback, nothing in flight when looked at, yet
	 * writes complete between readings (direct I/O, journal) */
	for (int i = 0; i < 10; i++)
		r[i] = est(10 + 0.1 * i, 0, 5000 + 8 * (uint64_t)(i < 5 ? i : 5), 0, 0);
	idle_watch_init(&w, 0);
	/* it moves up to 10.5; still from 10.5: idle at 10.8 */
	CHECK_INT(first_idle(&w, r, 10), 8);
}

TEST(requests_in_flight_are_not_idle)
{
	struct idle_watch w;
	struct idle_reading r[8];

	for (int i = 0; i < 8; i++)
		r[i] = est(10 + 0.1 * i, 0, 5000, 0, 1);
	idle_watch_init(&w, 0);
	CHECK_INT(first_idle(&w, r, 8), -1);
	/* a read in flight: the light is on, "0 0" is the rule */
	for (int i = 0; i < 8; i++)
		r[i] = est(10 + 0.1 * i, 0, 5000, i == 1, 0);
	idle_watch_init(&w, 0);
	CHECK_INT(first_idle(&w, r, 8), 5);
}

TEST(without_the_disk_counters_never_idle)
{
	struct idle_watch w;
	struct idle_reading r[8];

	for (int i = 0; i < 8; i++) {
		r[i] = est(10 + 0.1 * i, 0, 0, 0, 0);
		r[i].has_block_stat = false;
	}
	idle_watch_init(&w, 0);
	CHECK_INT(first_idle(&w, r, 8), -1);
}

TEST(a_clock_going_back_starts_again)
{
	struct idle_watch w;
	struct idle_reading r[] = { est(10, 0, 1, 0, 0), est(10.1, 0, 1, 0, 0),
				    est(9.0, 0, 1, 0, 0), est(9.1, 0, 1, 0, 0),
				    est(9.2, 0, 1, 0, 0), est(9.3, 0, 1, 0, 0) };

	idle_watch_init(&w, 0);
	CHECK_INT(first_idle(&w, r, 6), 5);
}

TEST(with_debugfs_one_reading_decides)
{
	struct idle_watch w;
	struct idle_reading r = { .t = 10, .exact = true, .pending = 64 * 1024,
				  .has_block_stat = true, .sectors_written = 1,
				  .inflight_reads = 1 };

	/* 64 kB of percpu drift within the slack; a read in flight is no write */
	idle_watch_init(&w, 256 * 1024);
	CHECK(idle_watch_add(&w, &r));
	r.pending = 300 * 1024;
	CHECK(!idle_watch_add(&w, &r));
	r.pending = 0;
	r.inflight_writes = 1;
	CHECK(!idle_watch_add(&w, &r));
}

TEST(reading_from_the_estimate_leaves_dirty_out)
{
	struct dirty_device d = { .source = DIRTY_SOURCE_ESTIMATE, .dirty = 900 * MIB,
				  .writeback = 0, .has_block_stat = true,
				  .sectors_written = 77, .inflight_writes = 2 };
	struct idle_reading r;

	/* other filesystems' dirty data is not this device's writeback */
	idle_reading_from(&d, 3.5, &r);
	CHECK(!r.exact);
	CHECK_U64(r.pending, 0);
	CHECK_U64(r.sectors_written, 77);
	CHECK_INT(r.inflight_writes, 2);
	CHECK(r.t == 3.5);
	d.writeback = 4096;
	idle_reading_from(&d, 3.5, &r);
	CHECK_U64(r.pending, 4096);
	/* debugfs: the bdi's own dirty and writeback both count */
	d.source = DIRTY_SOURCE_DEBUGFS;
	d.dirty = 8192;
	idle_reading_from(&d, 3.5, &r);
	CHECK(r.exact);
	CHECK_U64(r.pending, 8192 + 4096);
}

int main(void)
{
	TEST_PLAN(9);
	RUN(quiet_readings_over_the_window_are_idle);
	RUN(fast_readings_wait_for_the_window);
	RUN(writeback_on_the_system_is_not_idle);
	RUN(a_moving_sector_counter_is_not_idle);
	RUN(requests_in_flight_are_not_idle);
	RUN(without_the_disk_counters_never_idle);
	RUN(a_clock_going_back_starts_again);
	RUN(with_debugfs_one_reading_decides);
	RUN(reading_from_the_estimate_leaves_dirty_out);
	return test_summary();
}
