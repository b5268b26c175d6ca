/* sizing.c: strategy choice and window/chunk arithmetic for safecp.
 *
 * The table (doc/kernel.md 2.4; which filesystem is which is
 * device/fs_traits.c's write column):
 *   FUSE, fuseblk   -> sync-window: the daemon dirties the underlying
 *                      device's cache, so neither sync_file_range nor
 *                      O_DIRECT on the file bounds anything; only
 *                      fdatasync (FUSE_FSYNC) reaches the device.
 *   statx says DIO works (ext4 ordered, xfs, f2fs) -> direct: no page
 *                      cache copy, nothing dirty, each completed write is
 *                      on the device.  Checked at run time by the writer.
 *   everything else (btrfs with checksums, vfat, exfat, unknown)
 *                   -> window: O_DIRECT there silently falls back to a
 *                      synchronous buffered path, so write-behind windows
 *                      are both bounded and pipelined.
 *
 * Sizes (doc/kernel.md 1.4): the unit is the largest request the block layer
 * builds, max(max_sectors_kb, optimal_io_size).  A window is several
 * requests deep: max(8 MiB, 8 units) rounded to whole chunks, at most
 * 64 MiB.  Direct chunks are ~4 MiB of whole units so each O_DIRECT
 * write keeps the queue busy; window-mode chunks are ~1 MiB, which only
 * sizes the reader's buffers. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>

#include "device/fs_traits.h"
#include "base/cleanup.h"
#include "base/size.h"
#include "io/sizing.h"

#define MiB (1024ULL * 1024ULL)
#define WINDOW_MIN (8 * MiB)
#define WINDOW_MAX (64 * MiB)
#define RING_BYTES (16 * MiB)
#define DEFAULT_MAX_SECTORS_KB 1280 /* BLK_DEF_MAX_SECTORS_CAP when unknown */

static const char *const strategy_names[] = {
	[STRATEGY_AUTO] = "auto",
	[STRATEGY_WINDOW] = "window",
	[STRATEGY_DIRECT] = "direct",
	[STRATEGY_SYNC_WINDOW] = "sync-window",
};

const char *strategy_name(enum write_strategy s)
{
	if ((unsigned)s >= ARRAY_SIZE(strategy_names))
		return "unknown";
	return strategy_names[s];
}

int strategy_from_name(const char *name, enum write_strategy *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(strategy_names); i++)
		if (name && strcmp(name, strategy_names[i]) == 0) {
			*ret = (enum write_strategy)i;
			return 0;
		}
	return -EINVAL;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static uint64_t lcm_u64(uint64_t a, uint64_t b)
{
	return a / gcd_u64(a, b) * b;
}

/* The request unit: whole requests of the largest size the queue builds,
 * page aligned, and a multiple of the DIO offset alignment. */
static uint64_t request_unit(const struct target *t, uint32_t offset_align)
{
	uint64_t m = (t && t->disk.max_sectors_kb ? t->disk.max_sectors_kb
						  : DEFAULT_MAX_SECTORS_KB) * 1024ULL;
	uint64_t o = t ? t->disk.optimal_io_size : 0;
	uint64_t unit = round_up_u64(MAX(MAX(m, o), 4096), 4096);

	return offset_align ? lcm_u64(unit, offset_align) : unit;
}

static bool dio_supported(const struct dio_caps *dio)
{
	return dio && dio->known && dio->offset_align && dio->mem_align;
}

static bool dio_refused(const struct dio_caps *dio)
{
	return dio && dio->known && (!dio->offset_align || !dio->mem_align);
}

static enum write_strategy choose(const struct target *t, const struct dio_caps *dio,
				  enum sizing_reason *reason)
{
	if (fs_traits_of(t)->write == FS_WRITE_SYNC_WINDOW) {
		*reason = fs_traits_of(t)->fsync_noop ? SIZING_FUSE_NOOP_FSYNC : SIZING_FUSE_DAEMON;
		return STRATEGY_SYNC_WINDOW;
	}
	if (dio_supported(dio)) {
		*reason = SIZING_DIO_SUPPORTED;
		return STRATEGY_DIRECT;
	}
	*reason = dio_refused(dio) ? SIZING_DIO_REFUSED : SIZING_DIO_WOULD_FALL_BACK;
	return STRATEGY_WINDOW;
}

static int check_requested(const struct target *t, const struct dio_caps *dio,
			   enum write_strategy s, enum sizing_reason *reason)
{
	switch (s) {
	case STRATEGY_DIRECT:
		if (dio_refused(dio)) {
			*reason = SIZING_ASKED_DIO_REFUSED;
			return -EINVAL;
		}
		*reason = dio_supported(dio) ? SIZING_ASKED_DIO_OK : SIZING_ASKED_DIO_UNKNOWN;
		return 0;
	case STRATEGY_WINDOW:
		*reason = fs_traits_of(t)->fuse ? SIZING_ASKED_WINDOW_FUSE : SIZING_ASKED;
		return 0;
	case STRATEGY_SYNC_WINDOW:
		*reason = SIZING_ASKED;
		return 0;
	default:
		return -EINVAL;
	}
}

static void size_plan(const struct target *t, const struct dio_caps *dio,
		      uint64_t window_override, struct write_plan *p)
{
	bool direct = p->strategy == STRATEGY_DIRECT;
	uint32_t offset_align = direct && dio_supported(dio) ? dio->offset_align : 0;
	uint64_t unit = request_unit(t, offset_align);
	uint64_t chunk_target = direct ? 4 * MiB : 1 * MiB;
	uint64_t w;

	p->offset_align = direct ? (offset_align ? offset_align : 4096) : 0;
	p->mem_align = MAX(4096, dio_supported(dio) ? dio->mem_align : 0);
	p->chunk = unit >= chunk_target ? unit : round_up_u64(chunk_target, unit);

	if (window_override) {
		/* the batch and space arithmetic assume at most 64 MiB */
		w = round_up_u64(MAX(window_override, p->chunk), p->chunk);
		if (w > WINDOW_MAX)
			w = MAX(round_down_u64(WINDOW_MAX, p->chunk), p->chunk);
		p->window = p->window_min = p->window_max = w;
	} else {
		w = MAX(WINDOW_MIN, 8 * unit);
		p->window_min = round_up_u64(WINDOW_MIN, p->chunk);
		p->window_max = MAX(round_down_u64(WINDOW_MAX, p->chunk), p->window_min);
		p->window = MIN(round_up_u64(w, p->chunk), p->window_max);
	}
	p->ring_slots = (unsigned)MAX(3, RING_BYTES / p->chunk);
}

int sizing_plan(const struct target *t, const struct dio_caps *dio,
		enum write_strategy requested, uint64_t window_override,
		struct write_plan *ret)
{
	struct write_plan p = { 0 };
	int r = 0;

	if (requested == STRATEGY_AUTO)
		p.strategy = choose(t, dio, &p.reason);
	else {
		r = check_requested(t, dio, requested, &p.reason);
		p.strategy = requested;
	}
	size_plan(t, dio, window_override, &p);
	p.sync_device = fs_traits_of(t)->fsync_noop;
	p.fuse_direct = p.strategy == STRATEGY_SYNC_WINDOW && fs_traits_of(t)->fuse &&
			fs_traits_of(t)->on_block;
	*ret = p;
	return r;
}

uint64_t sizing_adapt_window(const struct write_plan *p, uint64_t current,
			     uint64_t bytes, double seconds)
{
	uint64_t want;

	/* a wait that returned at once saw no device (sync_file_range on
	 * FUSE, or pages written before we asked): no evidence of a rate */
	if (seconds < 0.002 || bytes == 0)
		return current;
	/* inside the band: leave it, so the window does not oscillate */
	if (seconds >= 0.25 && seconds <= 1.0)
		return current;
	/* aim at half a second of the measured rate */
	want = (uint64_t)((double)bytes / seconds * 0.5);
	want = round_up_u64(MAX(want, p->chunk), p->chunk);
	return MIN(MAX(want, p->window_min), p->window_max);
}

int dio_caps_read(int fd, struct dio_caps *ret)
{
	struct statx stx;

	memset(ret, 0, sizeof(*ret));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) < 0)
		return -errno;
	if (stx.stx_mask & STATX_DIOALIGN) {
		ret->known = true;
		ret->mem_align = stx.stx_dio_mem_align;
		ret->offset_align = stx.stx_dio_offset_align;
	}
	return 0;
}

int dio_caps_probe_dir(const char *dir, struct dio_caps *ret)
{
	_cleanup_close_ int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	memset(ret, 0, sizeof(*ret));
	if (fd < 0)
		return errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL ? 0 : -errno;
	return dio_caps_read(fd, ret);
}

/* An existing regular file in dir, opened O_PATH; -1 when there is none. */
static int open_any_file(const char *dir)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int fd = -1;

	if (dfd < 0 || !(d = fdopendir(dfd)))
		return -1;
	dfd = -1; /* now closedir's */
	while (fd < 0 && (de = readdir(d))) {
		struct stat st;

		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			fd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	closedir(d);
	return fd;
}

void dio_caps_of_dest(const char *dir, bool create_nothing, struct dio_caps *ret)
{
	_cleanup_close_ int fd = create_nothing ? open_any_file(dir) : -1;

	*ret = (struct dio_caps){ 0 };
	if (fd >= 0 && dio_caps_read(fd, ret) == 0 && ret->known)
		return;
	if (dio_caps_probe_dir(dir, ret) < 0)
		*ret = (struct dio_caps){ 0 };
}

/* Aligned to the largest buffer alignment, a multiple of each chunk
 * size (their least common multiple; powers of two in practice, so the
 * largest), and a ring that holds each destination's share, so a job of
 * N destinations buffers what N single copies would. */
int sizing_reader_plan(const struct write_plan *const *plans, size_t n, struct write_plan *ret)
{
	uint64_t chunk = 0, ring = 0;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < n; i++) {
		const struct write_plan *w = plans[i];
		uint64_t c = w->chunk ? w->chunk : 1;

		chunk = chunk ? lcm_u64(chunk, c) : c;
		ret->mem_align = MAX(ret->mem_align, w->mem_align);
		ring += (uint64_t)(w->ring_slots ? w->ring_slots : 3) * c;
	}
	if (n == 0 || chunk > (64u << 20))
		return -EINVAL; /* not powers of two: no common chunk worth having */
	ret->chunk = chunk;
	ret->ring_slots = (unsigned)MAX(3 * n, ring / chunk);
	return 0;
}
