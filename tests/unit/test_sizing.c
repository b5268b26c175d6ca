/* test_sizing.c: the strategy choice table, window and chunk sizing,
 * alignment, and window adaptation. */
#include <errno.h>
#include <stdlib.h>

#include "io/sizing.h"
#include "test.h"

#define MiB (1024ULL * 1024ULL)

static struct target disk(enum fs_kind kind, uint32_t max_sectors_kb, uint32_t opt_io)
{
	struct target t = { .kind = kind, .has_block = kind != FS_NOBLOCK };

	t.disk.max_sectors_kb = max_sectors_kb;
	t.disk.optimal_io_size = opt_io;
	return t;
}

static const struct dio_caps dio_ok = { true, 512, 512 };
static const struct dio_caps dio_unknown = { false, 0, 0 };
static const struct dio_caps dio_refused = { true, 0, 0 }; /* ext4 data=journal */

TEST(choice_table)
{
	struct write_plan p;
	struct target t;

	t = disk(FS_EXT4, 240, 0);
	CHECK_INT(sizing_plan(&t, &dio_ok, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_DIRECT);
	t = disk(FS_XFS, 240, 0);
	CHECK_INT(sizing_plan(&t, &dio_ok, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_DIRECT);
	t = disk(FS_EXT4, 240, 0);
	CHECK_INT(sizing_plan(&t, &dio_refused, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_WINDOW);
	t = disk(FS_BTRFS, 240, 0);
	CHECK_INT(sizing_plan(&t, &dio_unknown, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_WINDOW);
	t = disk(FS_VFAT, 240, 0);
	CHECK_INT(sizing_plan(&t, &dio_unknown, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_WINDOW);
	t = disk(FS_FUSEBLK, 240, 0);
	CHECK_INT(sizing_plan(&t, &dio_unknown, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_SYNC_WINDOW);
	CHECK(p.fuse_direct);
	t = disk(FS_FUSE, 0, 0);
	CHECK_INT(sizing_plan(&t, &dio_unknown, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_SYNC_WINDOW);
	CHECK(!p.fuse_direct); /* a daemon of unknown kind: buffered */
	t = disk(FS_NOBLOCK, 0, 0);
	CHECK_INT(sizing_plan(&t, &dio_unknown, STRATEGY_AUTO, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_WINDOW);
	CHECK(!p.fuse_direct);
	CHECK(p.reason != SIZING_NONE);
}

TEST(requested_strategies)
{
	struct write_plan p;
	struct target t = disk(FS_EXT4, 240, 0);

	CHECK_INT(sizing_plan(&t, &dio_refused, STRATEGY_DIRECT, 0, &p), -EINVAL);
	CHECK(p.reason != SIZING_NONE);
	CHECK_INT(sizing_plan(&t, &dio_unknown, STRATEGY_DIRECT, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_DIRECT);
	CHECK_U64(p.offset_align, 4096); /* unknown alignment: a safe guess of a page */
	CHECK_INT(sizing_plan(&t, &dio_ok, STRATEGY_WINDOW, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_WINDOW);
	CHECK_U64(p.offset_align, 0);
	CHECK_INT(sizing_plan(&t, &dio_ok, STRATEGY_SYNC_WINDOW, 0, &p), 0);
	CHECK_INT(p.strategy, STRATEGY_SYNC_WINDOW);
	CHECK(!p.fuse_direct); /* O_DIRECT only into a FUSE daemon */
	t = disk(FS_FUSEBLK, 240, 0);
	CHECK_INT(sizing_plan(&t, &dio_ok, STRATEGY_WINDOW, 0, &p), 0);
	CHECK(!p.fuse_direct); /* --strategy=window: buffered, as asked */
}

TEST(usb2_stick_sizes)
{
	/* usb-storage BOT: max_sectors 240 = 120 KiB requests; here 240 KiB */
	struct write_plan p;
	struct target t = disk(FS_VFAT, 240, 0);

	sizing_plan(&t, &dio_unknown, STRATEGY_AUTO, 0, &p);
	CHECK_U64(p.chunk, 5 * 240 * 1024ULL);        /* ~1 MiB of whole requests */
	CHECK_U64(p.window % p.chunk, 0);
	CHECK(p.window >= 8 * MiB && p.window < 9 * MiB);
	CHECK_U64(p.window_min, p.window);
	CHECK(p.window_max <= 64 * MiB && p.window_max > 63 * MiB);
	CHECK(p.ring_slots * p.chunk <= 16 * MiB + p.chunk);
	CHECK(p.ring_slots >= 3);
	t.disk.max_sectors_kb = 120;
	sizing_plan(&t, &dio_unknown, STRATEGY_AUTO, 0, &p);
	CHECK_U64(p.chunk % (120 * 1024), 0);
}

TEST(direct_chunks_aligned)
{
	struct write_plan p;
	struct target t = disk(FS_EXT4, 240, 0);
	struct dio_caps big = { true, 4096, 4096 };

	sizing_plan(&t, &dio_ok, STRATEGY_AUTO, 0, &p);
	CHECK_U64(p.chunk % (240 * 1024), 0);  /* whole requests */
	CHECK_U64(p.chunk % 512, 0);
	CHECK(p.chunk >= 4 * MiB && p.chunk < 4 * MiB + 240 * 1024);
	CHECK_U64(p.offset_align, 512);
	CHECK_U64(p.mem_align, 4096);
	CHECK_U64(p.window % p.chunk, 0);
	sizing_plan(&t, &big, STRATEGY_AUTO, 0, &p);
	CHECK_U64(p.chunk % 4096, 0);
	CHECK_U64(p.chunk % (240 * 1024), 0);
	/* a fast disk: 4 MiB requests are the unit themselves */
	t = disk(FS_XFS, 4096, 0);
	sizing_plan(&t, &dio_ok, STRATEGY_AUTO, 0, &p);
	CHECK_U64(p.chunk, 4 * MiB);
	CHECK_U64(p.window, 32 * MiB); /* 8 requests deep */
	CHECK(p.ring_slots * p.chunk <= 16 * MiB);
}

TEST(optimal_io_and_unknown_limits)
{
	struct write_plan p;
	struct target t = disk(FS_EXT4, 0, 0); /* no queue facts: 1280 KiB default */

	sizing_plan(&t, &dio_unknown, STRATEGY_WINDOW, 0, &p);
	CHECK_U64(p.chunk, 1280 * 1024ULL);
	CHECK_U64(p.window, 10 * MiB); /* 8 x 1280 KiB */
	t = disk(FS_EXT4, 1280, 16 * MiB); /* RAID-like optimal I/O */
	sizing_plan(&t, &dio_unknown, STRATEGY_WINDOW, 0, &p);
	CHECK_U64(p.chunk, 16 * MiB);
	CHECK_U64(p.window, 64 * MiB);
	sizing_plan(NULL, NULL, STRATEGY_AUTO, 0, &p);
	CHECK_INT(p.strategy, STRATEGY_WINDOW);
}

TEST(window_override)
{
	struct write_plan p;
	struct target t = disk(FS_EXT4, 240, 0);

	sizing_plan(&t, &dio_unknown, STRATEGY_WINDOW, 32 * MiB, &p);
	CHECK(p.window >= 32 * MiB && p.window < 32 * MiB + p.chunk);
	CHECK_U64(p.window % p.chunk, 0);
	CHECK_U64(p.window_min, p.window); /* fixed: no adaptation */
	CHECK_U64(p.window_max, p.window);
	sizing_plan(&t, &dio_unknown, STRATEGY_WINDOW, 1000, &p);
	CHECK_U64(p.window, p.chunk); /* never below one chunk */
	sizing_plan(&t, &dio_unknown, STRATEGY_WINDOW, 1ULL << 30, &p);
	CHECK(p.window <= 64 * MiB && p.window > 63 * MiB); /* never above 64 MiB */
}

TEST(adaptation)
{
	struct write_plan p;
	struct target t = disk(FS_EXT4, 240, 0);
	uint64_t w;

	sizing_plan(&t, &dio_unknown, STRATEGY_WINDOW, 0, &p);
	w = p.window;
	/* 8 MiB in 0.4 s at 20 MiB/s: inside 0.25-1 s, unchanged */
	CHECK_U64(sizing_adapt_window(&p, w, w, 0.4), w);
	/* a fast device: 8 MiB in 0.02 s (400 MiB/s) grows to the cap */
	CHECK_U64(sizing_adapt_window(&p, w, w, 0.02), p.window_max);
	/* 100 MiB/s: half a second is ~50 MiB, in whole chunks */
	w = sizing_adapt_window(&p, w, 8 * MiB, 0.08);
	CHECK(w >= 50 * MiB && w <= 51 * MiB);
	CHECK_U64(w % p.chunk, 0);
	/* a slow stick (2 MiB/s) shrinks, but not below the minimum */
	CHECK_U64(sizing_adapt_window(&p, w, w, 25.0), p.window_min);
	CHECK_U64(sizing_adapt_window(&p, w, 0, 1.0), w);
	CHECK_U64(sizing_adapt_window(&p, w, w, 0), w);
	/* 8 MiB "waited for" in 0.1 ms is a wait that saw no device */
	CHECK_U64(sizing_adapt_window(&p, p.window, p.window, 0.0001), p.window);
}

TEST(names)
{
	enum write_strategy s;

	CHECK_STR(strategy_name(STRATEGY_SYNC_WINDOW), "sync-window");
	CHECK_INT(strategy_from_name("direct", &s), 0);
	CHECK_INT(s, STRATEGY_DIRECT);
	CHECK_INT(strategy_from_name("fast", &s), -EINVAL);
	CHECK_INT(strategy_from_name(NULL, &s), -EINVAL);
}

/* Several destinations: one chunk every writer takes, aligned for all,
 * and each destination's share of ring. */
TEST(reader_plan_for_several)
{
	struct write_plan a = { .chunk = 1 << 20, .mem_align = 512, .ring_slots = 16 };
	struct write_plan b = { .chunk = 4 << 20, .mem_align = 4096, .ring_slots = 4 };
	struct write_plan odd = { .chunk = 3 << 20, .mem_align = 512, .ring_slots = 4 };
	struct write_plan huge = { .chunk = 62 << 20, .mem_align = 512, .ring_slots = 3 };
	const struct write_plan *ab[] = { &a, &b }, *one[] = { &a }, *bad[] = { &odd, &huge };
	struct write_plan r;

	CHECK_INT(sizing_reader_plan(ab, 2, &r), 0);
	CHECK_U64(r.chunk, 4 << 20);
	CHECK_INT(r.mem_align, 4096);
	CHECK_INT(r.ring_slots, 8); /* 16 MiB + 16 MiB in 4 MiB chunks */
	CHECK_INT(sizing_reader_plan(one, 1, &r), 0);
	CHECK_U64(r.chunk, 1 << 20);
	CHECK_INT(r.ring_slots, 16);
	/* 3 MiB and 62 MiB have no common multiple worth a buffer */
	CHECK_INT(sizing_reader_plan(bad, 2, &r), -EINVAL);
	CHECK_INT(sizing_reader_plan(ab, 0, &r), -EINVAL);
}

int main(void)
{
	TEST_PLAN(9);
	RUN(reader_plan_for_several);
	RUN(choice_table);
	RUN(requested_strategies);
	RUN(usb2_stick_sizes);
	RUN(direct_chunks_aligned);
	RUN(optimal_io_and_unknown_limits);
	RUN(window_override);
	RUN(adaptation);
	RUN(names);
	return test_summary();
}
