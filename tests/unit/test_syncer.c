/* test_syncer.c: the progress arithmetic of lib/syncer (exact and
 * estimated), and one real round on a tmpfs, which needs no root. */
#include <errno.h>
#include <stdlib.h>

#include "unmount/syncer.h"
#include "test.h"

#define MIB (1024 * 1024ULL)

TEST(exact_figures)
{
	const struct syncer_reading start = { .pending = 200 * MIB, .sectors = 1000 };
	struct syncer_reading now = { .t_real = 5.5, .pending = 150 * MIB,
				      .sectors = 1000 + 50 * MIB / 512, .inflight = 3 };
	struct syncer_figures f;

	syncer_compute(&start, &now, false, 256 << 10, &f);
	CHECK_U64(f.bytes_left, 150 * MIB);
	CHECK_U64(f.bytes_written, 50 * MIB);
	CHECK(!f.synced);
	CHECK(!f.clean);
	CHECK(!f.estimate);
	CHECK(f.t_real == 5.5);

	/* syncfs returned but a request is still in flight: not done */
	now.pending = 64 << 10;
	syncer_compute(&start, &now, true, 256 << 10, &f);
	CHECK(!f.clean);
	CHECK_U64(f.bytes_left, 64 << 10);

	/* within the percpu error and idle: clean, and left says 0 */
	now.inflight = 0;
	syncer_compute(&start, &now, true, 256 << 10, &f);
	CHECK(f.clean);
	CHECK_U64(f.bytes_left, 0);

	/* above the error: not clean even though syncfs returned */
	now.pending = 300 << 10;
	syncer_compute(&start, &now, true, 256 << 10, &f);
	CHECK(!f.clean);

	/* pending alone is never enough before syncfs returns */
	now.pending = 0;
	syncer_compute(&start, &now, false, 256 << 10, &f);
	CHECK(!f.clean);
}

TEST(counter_backwards)
{
	const struct syncer_reading start = { .sectors = 5000 };
	const struct syncer_reading now = { .sectors = 10, .pending = MIB };
	struct syncer_figures f;

	syncer_compute(&start, &now, false, 0, &f);
	CHECK_U64(f.bytes_written, 0);
	CHECK_U64(f.bytes_left, MIB);
}

TEST(bdi_lags_the_device)
{
	/* xfs: 132 MB completed by the device while its pages are still
	 * counted under writeback (ioend completion pending) */
	const struct syncer_reading start = { .pending = 200 * MIB, .sectors = 0 };
	struct syncer_reading now = { .pending = 160 * MIB, .sectors = 126 * MIB / 512 };
	struct syncer_figures f;

	syncer_compute(&start, &now, false, 256 << 10, &f);
	CHECK_U64(f.bytes_left, 74 * MIB);
	CHECK_U64(f.bytes_written, 126 * MIB);
	/* the device wrote more than was pending (metadata, a new writer):
	 * the bdi figure is all there is */
	now.sectors = 210 * MIB / 512;
	now.pending = 3 * MIB;
	syncer_compute(&start, &now, false, 256 << 10, &f);
	CHECK_U64(f.bytes_left, 3 * MIB);
	/* clean goes by the bdi itself, never by the bound */
	now.sectors = 198 * MIB / 512;
	now.pending = 4 * MIB;
	syncer_compute(&start, &now, true, 256 << 10, &f);
	CHECK_U64(f.bytes_left, 2 * MIB);
	CHECK(!f.clean);
}

TEST(estimate_figures)
{
	/* doc/kernel.md 4.5: D0 = system Dirty+Writeback at the start */
	const struct syncer_reading start = { .sys_pending = 300 * MIB, .estimate = true };
	struct syncer_reading now = { .sectors = 100 * MIB / 512, .estimate = true,
				      .pending = 999 * MIB /* system-wide: ignored */ };
	struct syncer_figures f;

	syncer_compute(&start, &now, false, 0, &f);
	CHECK(f.estimate);
	CHECK_U64(f.bytes_written, 100 * MIB);
	CHECK_U64(f.bytes_left, 200 * MIB);
	CHECK(!f.clean);

	/* written past the bound: left stays at 0, not negative */
	now.sectors = 400 * MIB / 512;
	syncer_compute(&start, &now, false, 0, &f);
	CHECK_U64(f.bytes_left, 0);
	CHECK(!f.clean);

	/* syncfs returned: authoritative */
	now.sectors = 120 * MIB / 512;
	syncer_compute(&start, &now, true, 0, &f);
	CHECK(f.clean);
	CHECK_U64(f.bytes_left, 0);
}

/* A whole round on /dev/shm: tmpfs has no bdi to read, syncfs returns at
 * once, so the first poll after it sees a clean state. */
TEST(round_on_tmpfs)
{
	char *mounts[] = { (char *)"/dev/shm" };
	struct syncer *s = NULL;
	struct syncer_figures f = { 0 };
	int polls = 0, r;

	r = syncer_start(mounts, 1, NULL, 0, &s);
	CHECK_INT(r, 0);
	if (r < 0)
		return;
	do {
		r = syncer_poll(s, 100, &f);
	} while (r == 0 && !f.synced && ++polls < 50);
	CHECK_INT(r, 0);
	CHECK(f.synced);
	CHECK(f.clean);
	CHECK_INT(f.error, 0);
	CHECK_INT(f.round, 1);
	CHECK_INT(syncer_again(s), 0);
	do {
		r = syncer_poll(s, 100, &f);
	} while (r == 0 && !f.synced && ++polls < 100);
	CHECK_INT(f.round, 2);
	CHECK(f.clean);
	syncer_free(s);
	syncer_free(NULL);
}

TEST(start_errors)
{
	char *mounts[] = { (char *)"/no/such/mount/point" };
	struct syncer *s = NULL;

	CHECK_INT(syncer_start(mounts, 1, NULL, 0, &s), -ENOENT);
	CHECK(s == NULL);
}

int main(void)
{
	TEST_PLAN(6);
	RUN(exact_figures);
	RUN(counter_backwards);
	RUN(bdi_lags_the_device);
	RUN(estimate_figures);
	RUN(round_on_tmpfs);
	RUN(start_errors);
	return test_summary();
}
