/* dirty_device.c: per-device dirty accounting (doc/kernel.md 4.1-4.3).
 *
 * Per sample and device we read at most three small files: debugfs
 * bdi/<bdi>/stats (dirty and writeback pages charged to the bdi, root
 * only), and the disk's stat and inflight.  debugfs is mounted once per
 * process when we may and it is not.  Without debugfs the dirty figure
 * falls back to the system-wide upper bound described in dirty.h.
 *
 * The bdi counters are percpu_counter_read_positive() values
 * (include/linux/backing-dev.h wb_stat), so each may be off by up to
 * nr_cpu_ids * WB_STAT_BATCH pages; an idle bdi can show 64 kB of
 * writeback that is not there. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "util/debug.h"
#include "dirty/dirty.h"
#include "util/parse.h"
#include "util/sysroot.h"

#define DEBUGFS_DIR "/sys/kernel/debug"

const char *dirty_source_name(enum dirty_source s)
{
	return s == DIRTY_SOURCE_DEBUGFS ? "debugfs" : "estimate";
}

uint64_t dirty_device_pending(const struct dirty_device *d)
{
	return d->dirty + d->writeback;
}

/* Only the real root counts: a sysroot tree has debugfs or it has not. */
static bool debugfs_mounted(void)
{
	_cleanup_free_ char *mounts = NULL;

	if (sysroot_read_file("/proc/self/mounts", &mounts) < 0)
		return false;
	for (char *save = NULL, *line = strtok_r(mounts, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[4]; /* source target fstype options... */

		if (parse_fields(line, f, ARRAY_SIZE(f)) >= 3 && strcmp(f[1], DEBUGFS_DIR) == 0 &&
		    strcmp(f[2], "debugfs") == 0)
			return true;
	}
	return false;
}

static void debugfs_mount_once(void)
{
	if (debugfs_mounted())
		return;
	/* the options systemd's sys-kernel-debug.mount uses */
	if (mount("debugfs", DEBUGFS_DIR, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		DEBUG(DEBUG_DIRTY, "cannot mount debugfs on '%s': %m", DEBUGFS_DIR);
	else
		DEBUG(DEBUG_DIRTY, "mounted debugfs on '%s'", DEBUGFS_DIR);
}

static void debugfs_ensure(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (!sysroot_is_real() || geteuid() != 0)
		return;
	pthread_once(&once, debugfs_mount_once);
}

/* A name that goes into a path must stay one path component. */
static bool valid_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int parse_bdi_stats(const char *text, struct dirty_device *d)
{
	static const struct {
		const char *key;
		size_t offset;
		bool required;
	} keys[] = {
		{ "BdiReclaimable", offsetof(struct dirty_device, dirty), true },
		{ "BdiWriteback", offsetof(struct dirty_device, writeback), true },
		{ "BdiDirtyThresh", offsetof(struct dirty_device, bdi_thresh), false },
		{ "BdiDirtied", offsetof(struct dirty_device, dirtied), false },
		{ "BdiWritten", offsetof(struct dirty_device, written), false },
		{ "BdiWriteBandwidth", offsetof(struct dirty_device, bandwidth), false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		uint64_t *v = (uint64_t *)((char *)d + keys[i].offset);
		int r = kv_table_lookup(text, keys[i].key, v);

		if (r == -ENOENT && !keys[i].required)
			*v = 0;
		else if (r < 0)
			return r;
	}
	d->source = DIRTY_SOURCE_DEBUGFS;
	return 0;
}

/* Errors that mean "no debugfs here", not "something broke": not mounted
 * (ENOENT), not root (EACCES: the mount point is 0700), lockdown (EPERM),
 * no such bdi registered with debugfs. */
static bool no_debugfs(int r)
{
	return r == -ENOENT || r == -EACCES || r == -EPERM || r == -ENOTDIR || r == -ENODEV;
}

static int read_bdi_stats(const char *bdi, struct dirty_device *d)
{
	_cleanup_free_ char *text = NULL;
	char path[128];
	int r;

	if (!valid_name(bdi))
		return -EINVAL;
	debugfs_ensure();
	r = snprintf(path, sizeof(path), DEBUGFS_DIR "/bdi/%s/stats", bdi);
	if (r < 0 || (size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	r = sysroot_read_file(path, &text);
	if (r < 0)
		return r;
	return parse_bdi_stats(text, d);
}

static int fill_estimate(const struct dirty_system *sys, struct dirty_device *d)
{
	struct dirty_system own;

	if (!sys) {
		int r = dirty_system_read(&own);

		if (r < 0)
			return r;
		sys = &own;
	}
	d->source = DIRTY_SOURCE_ESTIMATE;
	d->dirty = sys->dirty;
	d->writeback = sys->writeback + sys->writeback_tmp;
	return 0;
}

int dirty_block_stat_parse(const char *text, struct dirty_device *d)
{
	uint64_t f[17];
	const char *p = text;
	unsigned n = 0;

	for (;;) {
		uint64_t v;

		p += strspn(p, " \t\n");
		if (!*p)
			break;
		if (parse_u64(p, &v, &p) < 0)
			return -EINVAL;
		if (n < ARRAY_SIZE(f))
			f[n] = v;
		n++;
	}
	/* 11 fields before 4.18, discards (15) in 4.18, flushes (17) since 4.19 */
	if (n != 11 && n != 15 && n < 17)
		return -EINVAL;
	d->has_block_stat = true;
	d->sectors_written = f[6];
	d->has_flushes = n >= 17;
	d->flushes = n >= 17 ? f[15] : 0;
	return 0;
}

int dirty_inflight_parse(const char *text, unsigned *ret_reads, unsigned *ret_writes)
{
	unsigned r, w;
	const char *p;

	/* "       0        0\n": two right-aligned counts */
	if (parse_uint(parse_skip_blanks(text), &r, &p) < 0 ||
	    parse_uint(parse_skip_blanks(p), &w, &p) < 0)
		return -EINVAL;
	*ret_reads = r;
	*ret_writes = w;
	return 0;
}

/* /sys/block holds whole disks only; partitions are in /sys/class/block. */
static int read_block(const char *disk, struct dirty_device *d)
{
	static const char *const dirs[] = { "/sys/block", "/sys/class/block" };
	_cleanup_free_ char *stat = NULL, *inflight = NULL;
	const char *dir = NULL;
	char path[160];
	int r = -ENOENT;

	if (!valid_name(disk))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(dirs) && !dir; i++) {
		snprintf(path, sizeof(path), "%s/%s/stat", dirs[i], disk);
		r = sysroot_read_file(path, &stat);
		if (r != -ENOENT)
			dir = dirs[i];
	}
	if (r < 0)
		return r;
	r = dirty_block_stat_parse(stat, d);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s/inflight", dir, disk);
	r = sysroot_read_file(path, &inflight);
	if (r == -ENOENT)
		return 0; /* before 2.6.32; counts stay 0 */
	if (r < 0)
		return r;
	return dirty_inflight_parse(inflight, &d->inflight_reads, &d->inflight_writes);
}

int dirty_device_read_with(const char *bdi, const char *disk,
			   const struct dirty_system *sys, struct dirty_device *ret)
{
	struct dirty_device d = { 0 };
	int r = -ENOENT;

	if (bdi && *bdi) {
		r = read_bdi_stats(bdi, &d);
		if (r < 0 && !no_debugfs(r))
			return r;
		if (r < 0)
			DEBUG(DEBUG_DIRTY, "bdi '%s': no debugfs stats (%s), estimating", bdi,
			      strerror(-r));
	}
	if (r < 0) {
		r = fill_estimate(sys, &d);
		if (r < 0)
			return r;
	}
	if (disk && *disk) {
		r = read_block(disk, &d);
		if (r < 0)
			return r;
	}
	*ret = d;
	return 0;
}

int dirty_device_read(const char *bdi, const char *disk, struct dirty_device *ret)
{
	return dirty_device_read_with(bdi, disk, NULL, ret);
}

int dirty_cpu_list_nr_ids(const char *list, unsigned *ret)
{
	uint64_t highest = 0;
	bool any = false;
	const char *p = list;

	/* "0-3,8-11": nr_cpu_ids is the highest possible id + 1 */
	while (*p && *p != '\n') {
		uint64_t v;

		if (parse_u64(p, &v, &p) < 0)
			return -EINVAL;
		highest = MAX(highest, v);
		any = true;
		if (*p == '-' || *p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	if (!any || highest >= 1u << 20)
		return -EINVAL;
	*ret = (unsigned)highest + 1;
	return 0;
}

static unsigned ilog2_u(unsigned v)
{
	unsigned r = 0;

	while (v >>= 1)
		r++;
	return r;
}

uint64_t dirty_percpu_error_for(unsigned nr_cpu_ids, uint64_t page_size)
{
	uint64_t batch;

	if (nr_cpu_ids == 0)
		nr_cpu_ids = 1;
	batch = 8 * (1 + ilog2_u(nr_cpu_ids)); /* WB_STAT_BATCH */
	return (uint64_t)nr_cpu_ids * batch * page_size;
}

uint64_t dirty_percpu_error(void)
{
	char list[256];
	unsigned nr = 0;
	long ps = sysconf(_SC_PAGESIZE);

	if (sysroot_read_line("/sys/devices/system/cpu/possible", list, sizeof(list)) < 0 ||
	    dirty_cpu_list_nr_ids(list, &nr) < 0) {
		long conf = sysconf(_SC_NPROCESSORS_CONF);

		nr = conf > 0 ? (unsigned)conf : 1;
	}
	return dirty_percpu_error_for(nr, ps > 0 ? (uint64_t)ps : 4096);
}
