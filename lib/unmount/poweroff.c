/* poweroff.c: plan and carry out the power-off of a disk.
 *
 * Plan.  From /sys/dev/block/MAJ:MIN to the disk's directory under
 * /sys/devices, and from its place in that tree to the way to detach it:
 *   - a loop device has a loop/ directory: LOOP_CLR_FD;
 *   - below a usb_device (the ancestor with idVendor, busnum and devnum;
 *     udisks looks for the same): its remove attribute, which unbinds
 *     usb-storage/uas and disables the port (drivers/usb/core/sysfs.c
 *     remove_store); every disk below that usb_device goes with it;
 *   - below an mmc_host: a card in a built-in reader, detached by unbinding
 *     it from its driver; refused without force, because nothing but a
 *     re-insert (or a rebind) brings it back;
 *   - any other SCSI disk: device/delete (scsi_sysfs.c sdev_store_delete),
 *     planned but always refused: a SATA, SAS, FireWire (sbp2) or
 *     Thunderbolt disk is not unplugged by hand, and deleting it leaves a
 *     fixed disk gone until a rescan.
 * This asks "how do we detach it", not "which bus is it on"; the bus
 * (target.c's transport guess, plus Thunderbolt) only names a refusal.
 *
 * Run.  The order of doc/kernel.md 7: O_EXCL + fsync of every block device,
 * SG_IO SYNCHRONIZE CACHE(10) then START STOP UNIT (stop) on the disk,
 * ignoring failures, inflight 0 0, detach, wait for it to disappear. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/loop.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "device/blockdev.h"
#include "dirty/dirty.h"
#include "base/clock.h"
#include "base/cleanup.h"
#include "util/debug.h"
#include "base/grow.h"
#include "unmount/poweroff.h"
#include "device/sysfs_disk.h"
#include "device/sysfs_usb.h"
#include "util/parse.h"
#include "util/sysroot.h"
#include "unmount/unmount.h"

#define WAIT_INFLIGHT_MS 5000
#define WAIT_GONE_MS 10000
#define SCSI_TIMEOUT_MS 60000

const char *poweroff_method_name(enum poweroff_method m)
{
	static const char *const names[] = {
		[POWEROFF_NONE] = "none", [POWEROFF_LOOP] = "loop", [POWEROFF_USB] = "usb",
		[POWEROFF_SCSI] = "scsi", [POWEROFF_MMC] = "mmc",
		[POWEROFF_UDISKS_LOOP] = "udisks-loop", [POWEROFF_UDISKS_DRIVE] = "udisks-drive",
	};

	return (unsigned)m < ARRAY_SIZE(names) ? names[m] : "none";
}

/* sysroot-relative realpath of a sysroot-relative path. */
static int rel_realpath(const char *rel, char *out, size_t size)
{
	char full[PATH_MAX], resolved[PATH_MAX];
	const char *root = sysroot_get();
	size_t rlen = strlen(root);
	int r;

	r = sysroot_path(full, sizeof(full), "%s", rel);
	if (r < 0)
		return r;
	if (!realpath(full, resolved))
		return -errno;
	if (strncmp(resolved, root, rlen) != 0 || strlen(resolved + rlen) >= size)
		return -EINVAL;
	snprintf(out, size, "%s", resolved + rlen);
	return 0;
}

static bool rel_exists(const char *fmt_dir, const char *name)
{
	char full[PATH_MAX];

	return sysroot_path(full, sizeof(full), "%s/%s", fmt_dir, name) == 0 &&
	       access(full, F_OK) == 0;
}

static int read_devno(const char *dir, unsigned *maj, unsigned *min)
{
	char rel[PATH_MAX + 8], line[32];
	int r;

	snprintf(rel, sizeof(rel), "%s/dev", dir);
	r = sysroot_read_line(rel, line, sizeof(line));
	if (r < 0)
		return r;
	return parse_devnum(line, maj, min, NULL) < 0 ? -EINVAL : 0;
}

static int add_dev(struct poweroff_plan *p, const char *dir, bool is_disk)
{
	struct poweroff_dev *d;
	const char *name = strrchr(dir, '/');
	int r;

	if (GROW(p->devs, p->cap_devs, p->n_devs + 1, 4) < 0)
		return -ENOMEM;
	d = &p->devs[p->n_devs];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name ? name + 1 : dir);
	snprintf(d->devnode, sizeof(d->devnode), "/dev/%s", d->name);
	d->is_disk = is_disk;
	r = read_devno(dir, &d->major, &d->minor);
	if (r < 0)
		return r;
	p->n_devs++;
	return 0;
}

/* The held check: a dm/md device stacked on dir. */
static void check_holders(struct poweroff_plan *p, const char *dir, const char *devnode)
{
	char full[PATH_MAX];
	DIR *d;
	struct dirent *de;

	if (p->refusal != POWEROFF_OK ||
	    sysroot_path(full, sizeof(full), "%s/holders", dir) < 0 || !(d = opendir(full)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		p->refusal = POWEROFF_HELD;
		snprintf(p->blocker, sizeof(p->blocker), "%s", devnode);
		snprintf(p->blocker_where, sizeof(p->blocker_where), "%s", de->d_name);
		break;
	}
	closedir(d);
}

/* The disk at disk_dir and its partitions (subdirectories with a
 * partition attribute). */
static int add_disk(struct poweroff_plan *p, const char *disk_dir)
{
	char full[PATH_MAX], sub[PATH_MAX + 256];
	DIR *d;
	struct dirent *de;
	int r;

	r = add_dev(p, disk_dir, true);
	if (r < 0)
		return r;
	check_holders(p, disk_dir, p->devs[p->n_devs - 1].devnode);
	r = sysroot_path(full, sizeof(full), "%s", disk_dir);
	if (r < 0 || !(d = opendir(full)))
		return r < 0 ? r : -errno;
	while (r >= 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", disk_dir, de->d_name);
		if (!rel_exists(sub, "partition"))
			continue;
		r = add_dev(p, sub, false);
		if (r >= 0)
			check_holders(p, sub, p->devs[p->n_devs - 1].devnode);
	}
	closedir(d);
	return r;
}

/* Other disks below the same usb_device (multi-slot card readers). */
static int add_usb_siblings(struct poweroff_plan *p, const char *usb_dir, const char *disk_dir)
{
	char full[PATH_MAX], rel[PATH_MAX], dir[PATH_MAX];
	size_t ulen = strlen(usb_dir);
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (sysroot_path(full, sizeof(full), "/sys/block") < 0 || !(d = opendir(full)))
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "/sys/block/%.200s", de->d_name);
		if (rel_realpath(rel, dir, sizeof(dir)) < 0 || strcmp(dir, disk_dir) == 0)
			continue;
		if (strncmp(dir, usb_dir, ulen) == 0 && dir[ulen] == '/')
			r = add_disk(p, dir);
	}
	closedir(d);
	return r;
}

static int plan_mmc(struct poweroff_plan *p, const char *disk_dir)
{
	char rel[PATH_MAX + 16], card[PATH_MAX], driver[PATH_MAX];
	int r;

	snprintf(rel, sizeof(rel), "%s/device", disk_dir);
	r = rel_realpath(rel, card, sizeof(card));
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "%s/device/driver", disk_dir);
	r = rel_realpath(rel, driver, sizeof(driver));
	if (r < 0)
		return r;
	p->method = POWEROFF_MMC;
	snprintf(p->detach_path, sizeof(p->detach_path), "%.4000s/unbind", driver);
	snprintf(p->detach_value, sizeof(p->detach_value), "%s", basename(card));
	return 0;
}

static int plan_method(struct poweroff_plan *p, const char *disk_dir)
{
	char usb[PATH_MAX], rel[PATH_MAX + 16], dev[PATH_MAX];

	if (rel_exists(disk_dir, "loop")) {
		p->method = POWEROFF_LOOP;
		return 0;
	}
	sysfs_usb_device(disk_dir, usb, sizeof(usb));
	if (usb[0]) {
		p->method = POWEROFF_USB;
		snprintf(p->detach_path, sizeof(p->detach_path), "%.4000s/remove", usb);
		snprintf(p->detach_value, sizeof(p->detach_value), "1");
		return add_usb_siblings(p, usb, disk_dir);
	}
	if (strstr(disk_dir, "/mmc_host/"))
		return plan_mmc(p, disk_dir);
	snprintf(rel, sizeof(rel), "%s/device", disk_dir);
	if (rel_exists(disk_dir, "device/delete") && rel_realpath(rel, dev, sizeof(dev)) == 0) {
		p->method = POWEROFF_SCSI;
		snprintf(p->detach_path, sizeof(p->detach_path), "%.4000s/delete", dev);
		snprintf(p->detach_value, sizeof(p->detach_value), "1");
	}
	return 0;
}

/* A PCI device behind an external-facing (Thunderbolt, USB4) port: the
 * kernel marks it removable (drivers/pci/probe.c pci_set_removable). */
static bool behind_removable_pci(const char *disk_dir)
{
	char cur[PATH_MAX], rel[PATH_MAX + 16], line[32];
	char *slash;

	snprintf(cur, sizeof(cur), "%s", disk_dir);
	while ((slash = strrchr(cur, '/')) && slash != cur) {
		*slash = '\0';
		snprintf(rel, sizeof(rel), "%s/removable", cur);
		if (strchr(strrchr(cur, '/') ? strrchr(cur, '/') : cur, '.') &&
		    sysroot_read_line(rel, line, sizeof(line)) == 0 && strcmp(line, "removable") == 0)
			return true;
	}
	return false;
}

static enum transport plan_transport(const struct poweroff_plan *p, const char *disk_dir)
{
	if (p->method == POWEROFF_LOOP)
		return TRANSPORT_LOOP;
	if (p->method == POWEROFF_USB)
		return TRANSPORT_USB;
	if (p->method == POWEROFF_MMC)
		return TRANSPORT_MMC;
	if (behind_removable_pci(disk_dir))
		return TRANSPORT_THUNDERBOLT;
	return transport_from_sysfs_path(disk_dir);
}

/* Mounted: any filesystem on any disk of the plan (partitions included). */
static int check_mounted(struct poweroff_plan *p)
{
	for (size_t i = 0; i < p->n_devs && p->refusal == POWEROFF_OK; i++) {
		struct unmount_mount *m = NULL;
		size_t n = 0;
		int r;

		if (!p->devs[i].is_disk)
			continue;
		r = unmount_mounts_of_device(p->devs[i].major, p->devs[i].minor, true, &m, &n);
		if (r < 0)
			return r;
		if (n > 0) {
			p->refusal = POWEROFF_MOUNTED;
			snprintf(p->blocker, sizeof(p->blocker), "%s", m[0].source);
			snprintf(p->blocker_where, sizeof(p->blocker_where), "%s", m[0].mountpoint);
		}
		unmount_mounts_free(m, n);
	}
	return 0;
}

static int plan_fill(unsigned major, unsigned minor, unsigned flags, struct poweroff_plan *p)
{
	char rel[64], disk_dir[PATH_MAX];
	unsigned dmaj, dmin;
	int r;

	r = blockdev_disk_of(major, minor, &dmaj, &dmin);
	if (r < 0)
		return r;
	snprintf(rel, sizeof(rel), "/sys/dev/block/%u:%u", dmaj, dmin);
	r = rel_realpath(rel, disk_dir, sizeof(disk_dir));
	if (r < 0)
		return r;
	r = add_disk(p, disk_dir);
	if (r < 0)
		return r;
	snprintf(p->disk, sizeof(p->disk), "%s", p->devs[0].name);
	snprintf(p->devnode, sizeof(p->devnode), "%s", p->devs[0].devnode);
	p->major = dmaj;
	p->minor = dmin;
	r = plan_method(p, disk_dir);
	if (r < 0)
		return r;
	p->transport = plan_transport(p, disk_dir);
	/* the bus decides first: no point freeing a disk we will not detach */
	if (p->method == POWEROFF_SCSI || p->method == POWEROFF_NONE) {
		p->refusal = p->method == POWEROFF_SCSI ? POWEROFF_FIXED_DISK : POWEROFF_NO_METHOD;
		p->blocker[0] = p->blocker_where[0] = '\0';
		return 0;
	}
	if (!(flags & POWEROFF_IGNORE_MOUNTS)) {
		r = check_mounted(p);
		if (r < 0)
			return r;
	}
	if (p->refusal == POWEROFF_OK && p->method == POWEROFF_MMC && !(flags & POWEROFF_FORCE))
		p->refusal = POWEROFF_INTERNAL_READER;
	return 0;
}

int poweroff_plan_make(unsigned major, unsigned minor, unsigned flags, struct poweroff_plan *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	r = plan_fill(major, minor, flags, ret);
	if (r < 0) {
		poweroff_plan_done(ret);
		return r;
	}
	DEBUG(DEBUG_UNMOUNT, "poweroff plan %s: method %s, %zu devices, refusal %d (%s %s)",
	      ret->disk, poweroff_method_name(ret->method), ret->n_devs, ret->refusal,
	      ret->blocker, ret->blocker_where);
	return 0;
}

void poweroff_plan_done(struct poweroff_plan *p)
{
	if (!p)
		return;
	free(p->devs);
	p->devs = NULL;
	p->n_devs = p->cap_devs = 0;
}

int poweroff_detach_sysfs(const struct poweroff_plan *p)
{
	char full[PATH_MAX];
	_cleanup_close_ int fd = -1;
	size_t len = strlen(p->detach_value);
	int r;

	r = sysroot_path(full, sizeof(full), "%s", p->detach_path);
	if (r < 0)
		return r;
	fd = open(full, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, p->detach_value, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	r = close(TAKE_FD(fd));
	return r < 0 ? -errno : 0;
}

/* A SCSI command without data.  0 for status GOOD, else -EIO; -errno when
 * the ioctl itself fails (ENOTTY: not a SCSI device). */
static int scsi_command(int fd, unsigned char *cdb, unsigned char len)
{
	unsigned char sense[32];
	struct sg_io_hdr io = {
		.interface_id = 'S',
		.dxfer_direction = SG_DXFER_NONE,
		.cmd_len = len,
		.cmdp = cdb,
		.mx_sb_len = sizeof(sense),
		.sbp = sense,
		.timeout = SCSI_TIMEOUT_MS,
	};

	if (ioctl(fd, SG_IO, &io) < 0)
		return -errno;
	return io.status || io.host_status || io.driver_status ? -EIO : 0;
}

/* SYNCHRONIZE CACHE(10) for the whole medium, then START STOP UNIT with
 * START=0, LOEJ=0: write the cache out, then stop. */
static void scsi_flush_and_stop(int fd, struct poweroff_result *res)
{
	unsigned char sync_cache[10] = { 0x35 };
	unsigned char stop[6] = { 0x1b };

	res->sync_cache = scsi_command(fd, sync_cache, sizeof(sync_cache));
	res->stop_unit = scsi_command(fd, stop, sizeof(stop));
}

static bool inflight_zero(const char *disk)
{
	char rel[128], line[64];
	unsigned rd, wr;

	snprintf(rel, sizeof(rel), "/sys/block/%s/inflight", disk);
	if (sysroot_read_line(rel, line, sizeof(line)) < 0 ||
	    dirty_inflight_parse(line, &rd, &wr) < 0)
		return true; /* gone already */
	return rd == 0 && wr == 0;
}

static bool wait_until(bool (*cond)(const char *), const char *arg, int max_ms)
{
	for (int waited = 0; !cond(arg); waited += 50) {
		if (waited >= max_ms)
			return false;
		clock_sleep_ms(50);
	}
	return true;
}

static int loop_backing(const char *disk, char *buf, size_t size)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "/sys/block/%s/loop/backing_file", disk);
	return sysroot_read_line(rel, buf, size);
}

/* Detached when the backing file is gone, or is another one: the free
 * loop number may be taken by the next losetup at once. */
static bool wait_loop_detached(const char *disk, const char *backing, int max_ms)
{
	char now[PATH_MAX];

	for (int waited = 0;; waited += 50) {
		if (loop_backing(disk, now, sizeof(now)) < 0 || strcmp(now, backing) != 0)
			return true;
		if (waited >= max_ms)
			return false;
		clock_sleep_ms(50);
	}
}

static bool disk_gone(const char *disk)
{
	return !rel_exists("/sys/block", disk);
}

static int flush_one(const struct poweroff_dev *d, struct poweroff_result *res, int *ret_fd)
{
	_cleanup_close_ int fd = -1;

	fd = open(d->devnode, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		int r = -errno;

		snprintf(res->failed_dev, sizeof(res->failed_dev), "%s", d->devnode);
		return r;
	}
	if (ret_fd)
		*ret_fd = TAKE_FD(fd);
	return 0;
}

/* O_EXCL + fsync every partition and sibling, then the disk, whose fd is
 * kept for SG_IO and LOOP_CLR_FD.  The disk comes last: while we hold it
 * exclusively no partition of it can be claimed (bd_may_claim). */
static int flush_devices(const struct poweroff_plan *p, struct poweroff_result *res, int *ret_fd)
{
	int r;

	for (size_t i = 1; i < p->n_devs; i++) {
		r = flush_one(&p->devs[i], res, NULL);
		if (r < 0)
			return r;
	}
	return flush_one(&p->devs[0], res, ret_fd);
}

static int detach(const struct poweroff_plan *p, int *disk_fd)
{
	int r = 0;

	if (p->method == POWEROFF_LOOP) {
		char backing[PATH_MAX] = "";

		loop_backing(p->disk, backing, sizeof(backing));
		/* With us the only opener the loop device is torn down when
		 * we close it (loop_clr_fd sets autoclear, lo_release acts). */
		if (ioctl(*disk_fd, LOOP_CLR_FD, 0) < 0)
			r = -errno;
		close(TAKE_FD(*disk_fd));
		if (r < 0)
			return r;
		return wait_loop_detached(p->disk, backing, WAIT_GONE_MS) ? 0 : -ETIMEDOUT;
	}
	close(TAKE_FD(*disk_fd));
	r = poweroff_detach_sysfs(p);
	if (r < 0)
		return r;
	return wait_until(disk_gone, p->disk, WAIT_GONE_MS) ? 0 : -ETIMEDOUT;
}

int poweroff_run(const struct poweroff_plan *p, struct poweroff_result *ret)
{
	_cleanup_close_ int fd = -1;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!sysroot_is_real() || p->refusal != POWEROFF_OK || p->n_devs == 0)
		return -EINVAL;
	ret->failed_step = POWEROFF_STEP_FLUSH;
	r = flush_devices(p, ret, &fd);
	if (r < 0)
		return r;
	scsi_flush_and_stop(fd, ret);
	DEBUG(DEBUG_UNMOUNT, "poweroff %s: SYNCHRONIZE CACHE %d, START STOP UNIT %d",
	      p->disk, ret->sync_cache, ret->stop_unit);
	/* blk-throttle holds bios that are not requests yet (doc/kernel.md
	 * 4.3), so 0 0 can come early; the fsyncs above already waited. */
	ret->inflight_drained = wait_until(inflight_zero, p->disk, WAIT_INFLIGHT_MS);
	snprintf(ret->failed_dev, sizeof(ret->failed_dev), "%s", p->devnode);
	ret->failed_step = POWEROFF_STEP_DETACH;
	r = detach(p, &fd);
	if (r == -ETIMEDOUT)
		ret->failed_step = POWEROFF_STEP_GONE;
	return r;
}
