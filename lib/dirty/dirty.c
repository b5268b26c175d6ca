/* dirty.c: system-wide dirty accounting, the threshold arithmetic that
 * explains it, and samples with the rates between them.
 *
 * The per-device half lives in dirty_device.c.  Each sample reads
 * /proc/meminfo and /proc/vmstat once, as whole files, and looks its keys
 * up in the text; it is polled every 50-500 ms during a copy.
 *
 * Threshold arithmetic (doc/kernel.md 4.4, mm/page-writeback.c
 * global_dirtyable_memory and domain_dirty_limits): the kernel works in
 * pages with unsigned long, scaling the percent knobs to per-PAGE_SIZE
 * first (20% of 4096 is 819, so 20% is really 19.995%).  We repeat that
 * integer arithmetic exactly so that, given the same MemFree and
 * totalreserve_pages, the result equals /proc/vmstat's to the page. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/clock.h"
#include "util/debug.h"
#include "dirty/dirty.h"
#include "util/parse.h"
#include "util/sysroot.h"

static uint64_t page_size_get(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

/* Keys that must be there vs. keys that may be missing (older kernels,
 * other configs) and then read as 0. */
static int lookup(const char *text, const char *key, bool required, uint64_t *ret)
{
	int r = kv_table_lookup(text, key, ret);

	if (r == -ENOENT && !required) {
		*ret = 0;
		return 0;
	}
	return r;
}

static int parse_meminfo(const char *text, struct dirty_system *s)
{
	uint64_t active_file = 0, inactive_file = 0;
	int r;

	if ((r = lookup(text, "Dirty", true, &s->dirty)) < 0 ||
	    (r = lookup(text, "Writeback", true, &s->writeback)) < 0 ||
	    (r = lookup(text, "WritebackTmp", false, &s->writeback_tmp)) < 0 ||
	    (r = lookup(text, "MemFree", false, &s->mem_free)) < 0 ||
	    (r = lookup(text, "Active(file)", false, &active_file)) < 0 ||
	    (r = lookup(text, "Inactive(file)", false, &inactive_file)) < 0)
		return r;
	s->file_lru = active_file + inactive_file;
	return 0;
}

static int parse_vmstat(const char *text, struct dirty_system *s)
{
	uint64_t thresh, bg;
	int r;

	if ((r = lookup(text, "nr_dirty_threshold", false, &thresh)) < 0 ||
	    (r = lookup(text, "nr_dirty_background_threshold", false, &bg)) < 0)
		return r;
	s->thresh = thresh * s->page_size;
	s->bg_thresh = bg * s->page_size;
	return 0;
}

static int read_knobs(struct dirty_system *s)
{
	static const struct {
		const char *name;
		size_t offset;
	} knobs[] = {
		{ "dirty_ratio", offsetof(struct dirty_system, dirty_ratio) },
		{ "dirty_background_ratio", offsetof(struct dirty_system, dirty_background_ratio) },
		{ "dirty_bytes", offsetof(struct dirty_system, dirty_bytes) },
		{ "dirty_background_bytes", offsetof(struct dirty_system, dirty_background_bytes) },
		{ "dirty_expire_centisecs", offsetof(struct dirty_system, dirty_expire_cs) },
		{ "dirty_writeback_centisecs", offsetof(struct dirty_system, dirty_writeback_cs) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
		char path[64];
		uint64_t *field = (uint64_t *)((char *)s + knobs[i].offset);
		int r;

		snprintf(path, sizeof(path), "/proc/sys/vm/%s", knobs[i].name);
		r = sysroot_read_u64(path, field);
		if (r == -ENOENT)
			*field = 0; /* a container may hide /proc/sys */
		else if (r < 0)
			return r;
	}
	return 0;
}

int dirty_system_read(struct dirty_system *ret)
{
	_cleanup_free_ char *meminfo = NULL, *vmstat = NULL;
	struct dirty_system s = { .page_size = page_size_get() };
	int r;

	r = sysroot_read_file("/proc/meminfo", &meminfo);
	if (r < 0)
		return r;
	r = parse_meminfo(meminfo, &s);
	if (r < 0)
		return r;
	r = sysroot_read_file("/proc/vmstat", &vmstat);
	if (r < 0)
		return r;
	r = parse_vmstat(vmstat, &s);
	if (r < 0)
		return r;
	r = read_knobs(&s);
	if (r < 0)
		return r;
	*ret = s;
	return 0;
}

/* One zone of /proc/zoneinfo, as calculate_totalreserve_pages() sees it. */
struct zone_reserve {
	uint64_t high, boost, managed, max_protection;
};

static uint64_t zone_reserve_pages(const struct zone_reserve *z)
{
	/* zoneinfo's "high" is high_wmark_pages() now, boost included;
	 * totalreserve was summed when the boost was 0 */
	uint64_t high = z->high - MIN(z->boost, z->high);

	return MIN(z->max_protection + high, z->managed);
}

/* "        protection: (0, 3019, 4555, 4555, 4555)": lowmem_reserve[] is 0
 * for the zone itself and below, so the largest entry is the largest
 * reserve against allocations from higher zones. */
static uint64_t max_protection(const char *p)
{
	uint64_t best = 0;

	p = strchr(p, '(');
	while (p && *p && *p != ')') {
		uint64_t v;

		if (parse_u64(parse_skip_blanks(p + 1), &v, &p) < 0)
			break;
		best = MAX(best, v);
	}
	return best;
}

/* Field lines are "<spaces>name<spaces>value"; pageset lines say
 * "high:" with a colon and must not be taken for the watermark.  A value
 * that is no number counts as 0, as the zone's fields start. */
static void field(const char *line, const char *name, uint64_t *ret)
{
	size_t n = strlen(name);
	const char *end;

	line += strspn(line, " ");
	if (strncmp(line, name, n) != 0 || line[n] != ' ')
		return;
	if (parse_u64(parse_skip_blanks(line + n), ret, &end) < 0)
		*ret = 0;
}

static int parse_zoneinfo(const char *text, uint64_t *ret_pages)
{
	struct zone_reserve z = { 0 };
	uint64_t total = 0;
	bool in_zone = false;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');

		if (strncmp(line, "Node ", 5) == 0) {
			if (in_zone)
				total += zone_reserve_pages(&z);
			memset(&z, 0, sizeof(z));
			in_zone = true;
		} else if (strncmp(line + strspn(line, " "), "protection:", 11) == 0) {
			z.max_protection = max_protection(line);
		} else {
			field(line, "high", &z.high);
			field(line, "boost", &z.boost);
			field(line, "managed", &z.managed);
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!in_zone)
		return -EINVAL;
	*ret_pages = total + zone_reserve_pages(&z);
	return 0;
}

int dirty_reserve_read(uint64_t *ret)
{
	_cleanup_free_ char *text = NULL;
	uint64_t pages;
	int r;

	r = sysroot_read_file("/proc/zoneinfo", &text);
	if (r < 0)
		return r;
	r = parse_zoneinfo(text, &pages);
	if (r < 0)
		return r;
	*ret = pages * page_size_get();
	return 0;
}

/* One limit in pages: the bytes knob wins over the ratio. */
static uint64_t limit_pages(uint64_t bytes, uint64_t ratio, uint64_t dirtyable, uint64_t ps)
{
	if (bytes)
		return (bytes + ps - 1) / ps;
	return (ratio * ps / 100) * dirtyable / ps;
}

void dirty_thresholds_compute(const struct dirty_system *s, uint64_t reserve,
			      uint64_t *ret_thresh, uint64_t *ret_bg_thresh)
{
	uint64_t ps = s->page_size ? s->page_size : page_size_get();
	uint64_t free_pages = s->mem_free / ps, reserve_pages = reserve / ps;
	uint64_t dirtyable, thresh, bg;

	dirtyable = free_pages - MIN(free_pages, reserve_pages) + s->file_lru / ps + 1;
	thresh = limit_pages(s->dirty_bytes, s->dirty_ratio, dirtyable, ps);
	bg = limit_pages(s->dirty_background_bytes, s->dirty_background_ratio, dirtyable, ps);
	if (bg >= thresh)
		bg = thresh / 2;
	/* the limits are kept in 32 bits of pages (domain_dirty_limits) */
	if (thresh > UINT32_MAX)
		thresh = UINT32_MAX;
	if (bg >= thresh)
		bg = thresh / 2;
	*ret_thresh = thresh * ps;
	*ret_bg_thresh = bg * ps;
}

uint64_t dirty_freerun_ceiling(const struct dirty_system *s)
{
	uint64_t ps = s->page_size ? s->page_size : 1;

	return (s->thresh / ps + s->bg_thresh / ps) / 2 * ps;
}

int dirty_sample_take(const char *bdi, const char *disk, struct dirty_sample *ret)
{
	struct dirty_sample s = { 0 };
	int r;

	s.t_mono = clock_monotonic();
	s.t_real = clock_realtime();
	r = dirty_system_read(&s.sys);
	if (r < 0)
		return r;
	if ((bdi && *bdi) || (disk && *disk)) {
		r = dirty_device_read_with(bdi, disk, &s.sys, &s.dev);
		if (r < 0)
			return r;
		s.have_dev = true;
	}
	*ret = s;
	return 0;
}

/* Bytes a cumulative counter advanced, or 0 when it went backwards: the
 * device was re-created, or a 32-bit counter wrapped.  One lost sample
 * beats a rate of 2^64 bytes/s. */
static uint64_t counter_delta(uint64_t older, uint64_t newer)
{
	return newer >= older ? newer - older : 0;
}

double dirty_write_rate(const struct dirty_sample *older, const struct dirty_sample *newer)
{
	double dt = newer->t_mono - older->t_mono;
	uint64_t bytes;

	if (!older->have_dev || !newer->have_dev)
		return 0;
	if (!(dt > 0))
		return (double)newer->dev.bandwidth;
	if (older->dev.has_block_stat && newer->dev.has_block_stat)
		bytes = counter_delta(older->dev.sectors_written, newer->dev.sectors_written) * 512;
	else if (older->dev.source == DIRTY_SOURCE_DEBUGFS &&
		 newer->dev.source == DIRTY_SOURCE_DEBUGFS)
		bytes = counter_delta(older->dev.written, newer->dev.written);
	else
		return 0;
	return (double)bytes / dt;
}

double dirty_eta(const struct dirty_sample *newer, double rate)
{
	uint64_t pending;

	if (newer->have_dev)
		pending = dirty_device_pending(&newer->dev);
	else
		pending = newer->sys.dirty + newer->sys.writeback;
	if (pending == 0)
		return 0;
	if (!(rate > 0))
		return -1;
	return (double)pending / rate;
}
