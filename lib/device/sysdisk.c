/* sysdisk.c: which disk holds "/", where swap is active, and what kind of
 * mount a mount is.
 *
 * "/" is the root of the mount tree (mount.c's walk); its block device is
 * found as for any mount (blockdev_of_mount: stat of the source, or
 * mountinfo's MAJ:MIN for a kernel-mounted "/dev/root").  A root on dm or
 * md (LVM, LUKS, RAID) stands on the disks of its slaves
 * (/sys/dev/block/MAJ:MIN/slaves, drivers/md/dm-table.c), which are then
 * root disks too: powering one off takes "/" down as surely.  Swap is read
 * from /proc/swaps (mm/swapfile.c swap_show: names with ' ', '\t', '\n'
 * and '\\' escaped as octal); a swap partition marks its disk, a swap file
 * the disk of the filesystem it lives on (real root only: the file must be
 * stat()ed). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "device/blockdev.h"
#include "base/cleanup.h"
#include "util/debug.h"
#include "device/mount.h"
#include "device/sysdisk.h"
#include "device/sysfs_disk.h"
#include "util/parse.h"
#include "util/sysroot.h"

#define SLAVE_DEPTH 8 /* dm on md on dm...: deeper is a loop */

/* The system's own directories, and the kernel's and init's API
 * filesystems (/dev, /proc, /sys and everything below them, /run, /tmp):
 * unmounting one of those breaks the running system, and none of them
 * is a stick.  /run/media/USER/... (udisks' sticks) stays allowed. */
bool sysdisk_is_system_dir(const char *mountpoint)
{
	static const char *const dirs[] = {
		"/usr", "/boot", "/boot/efi", "/efi", "/var", "/home", "/opt", "/srv",
		"/run", "/run/lock", "/run/shm", "/tmp", "/dev", "/proc", "/sys",
	};
	static const char *const below[] = { "/dev/", "/proc/", "/sys/" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (strcmp(mountpoint, dirs[i]) == 0)
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(below); i++)
		if (strncmp(mountpoint, below[i], strlen(below[i])) == 0)
			return true;
	return false;
}

static bool devt_in(const struct sysdisk_devt *v, size_t n, unsigned maj, unsigned min)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].major == maj && v[i].minor == min)
			return true;
	return false;
}

static void add_disks_of(unsigned maj, unsigned min, struct sysdisk_devt *out, size_t max,
			 size_t *n, int depth)
{
	_cleanup_closedir_ DIR *d = NULL;
	char dir[PATH_MAX];
	struct dirent *de;
	unsigned dmaj, dmin;

	if (depth > SLAVE_DEPTH || blockdev_disk_of(maj, min, &dmaj, &dmin) < 0)
		return;
	if (!devt_in(out, *n, dmaj, dmin) && *n < max)
		out[(*n)++] = (struct sysdisk_devt){ dmaj, dmin };
	if (sysroot_path(dir, sizeof(dir), "/sys/dev/block/%u:%u/slaves", dmaj, dmin) < 0 ||
	    !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		unsigned smaj, smin;

		if (de->d_name[0] != '.' && sysfs_devt_of_name(de->d_name, &smaj, &smin) == 0)
			add_disks_of(smaj, smin, out, max, n, depth + 1);
	}
}

int sysdisk_disks_of(unsigned major, unsigned minor, struct sysdisk_devt *out, size_t max)
{
	unsigned dmaj, dmin;
	size_t n = 0;
	int r;

	r = blockdev_disk_of(major, minor, &dmaj, &dmin);
	if (r < 0)
		return r;
	add_disks_of(major, minor, out, max, &n, 0);
	return (int)n;
}

static int load_root(struct sysdisk *s)
{
	struct mount_entry e = { 0 };
	unsigned maj, min;
	int r;

	r = mount_find_for_path("/", &e);
	if (r < 0)
		return r;
	snprintf(s->root_source, sizeof(s->root_source), "%s", e.source);
	if (strcmp(e.target, "/") == 0 && blockdev_of_mount(&e, &maj, &min)) {
		s->root_dev = (struct sysdisk_devt){ maj, min };
		r = sysdisk_disks_of(maj, min, s->root_disks, SYSDISK_MAX);
		s->n_root_disks = r > 0 ? (size_t)r : 0;
	}
	DEBUG(DEBUG_UNMOUNT, "root '%s' on %u:%u, %zu disks", s->root_source, s->root_dev.major,
	      s->root_dev.minor, s->n_root_disks);
	mount_entry_done(&e);
	return 0;
}

/* The device a swap area lives on: the partition itself, or for a swap
 * file the filesystem's device. */
static bool swap_device(const char *name, const char *type, unsigned *maj, unsigned *min)
{
	char kname[128];
	struct stat st;

	if (sysroot_is_real()) {
		if (stat(name, &st) < 0)
			return false;
		*maj = S_ISBLK(st.st_mode) ? major(st.st_rdev) : major(st.st_dev);
		*min = S_ISBLK(st.st_mode) ? minor(st.st_rdev) : minor(st.st_dev);
		return true;
	}
	return strcmp(type, "partition") == 0 &&
	       sysfs_name_of_node(name, kname, sizeof(kname)) == 0 &&
	       sysfs_devt_of_name(kname, maj, min) == 0;
}

static void parse_swaps(struct sysdisk *s, char *text)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);

	/* the first line is the header */
	while ((line = strtok_r(NULL, "\n", &save)) && s->n_swaps < SYSDISK_MAX) {
		char *f[3], *name, *type; /* Filename Type Size... */
		struct sysdisk_devt disks[SYSDISK_MAX];
		unsigned maj, min;
		int n;

		if (parse_fields(line, f, ARRAY_SIZE(f)) < 2)
			continue;
		name = f[0];
		type = f[1];
		/* swap_show() writes the name through seq_escape: "\040" for ' ' */
		parse_unescape_octal(name);
		if (!swap_device(name, type, &maj, &min))
			continue;
		n = sysdisk_disks_of(maj, min, disks, SYSDISK_MAX);
		for (int i = 0; i < n && s->n_swaps < SYSDISK_MAX; i++) {
			struct sysdisk_swap *w = &s->swaps[s->n_swaps++];

			snprintf(w->name, sizeof(w->name), "%.255s", name);
			w->disk = disks[i];
		}
	}
}

int sysdisk_load(struct sysdisk *ret)
{
	_cleanup_free_ char *swaps = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = load_root(ret);
	if (r < 0)
		return r;
	if (sysroot_read_file("/proc/swaps", &swaps) == 0)
		parse_swaps(ret, swaps);
	return 0;
}

bool sysdisk_holds_root(const struct sysdisk *s, unsigned disk_major, unsigned disk_minor)
{
	return devt_in(s->root_disks, s->n_root_disks, disk_major, disk_minor);
}

const struct sysdisk_swap *sysdisk_swap_on(const struct sysdisk *s, unsigned disk_major,
					   unsigned disk_minor)
{
	for (size_t i = 0; i < s->n_swaps; i++)
		if (s->swaps[i].disk.major == disk_major && s->swaps[i].disk.minor == disk_minor)
			return &s->swaps[i];
	return NULL;
}

const struct sysdisk_swap *sysdisk_swap_of_dev(const struct sysdisk *s, unsigned dev_major,
					       unsigned dev_minor)
{
	struct sysdisk_devt disks[SYSDISK_MAX];
	int n = dev_major || dev_minor ? sysdisk_disks_of(dev_major, dev_minor, disks, SYSDISK_MAX) : 0;

	for (int i = 0; i < n; i++) {
		const struct sysdisk_swap *w = sysdisk_swap_on(s, disks[i].major, disks[i].minor);

		if (w)
			return w;
	}
	return NULL;
}

enum sysdisk_kind sysdisk_classify(const struct sysdisk *s, const char *mountpoint,
				   unsigned dev_major, unsigned dev_minor)
{
	struct sysdisk_devt disks[SYSDISK_MAX];
	int n = 0;

	if (strcmp(mountpoint, "/") == 0)
		return SYSDISK_ROOT;
	if (sysdisk_is_system_dir(mountpoint))
		return SYSDISK_SYSTEM;
	if (dev_major || dev_minor)
		n = sysdisk_disks_of(dev_major, dev_minor, disks, SYSDISK_MAX);
	for (int i = 0; i < n; i++)
		if (sysdisk_holds_root(s, disks[i].major, disks[i].minor))
			return SYSDISK_ROOT_DISK;
	return sysdisk_swap_of_dev(s, dev_major, dev_minor) ? SYSDISK_SWAP : SYSDISK_NONE;
}
