/* fuzz_sysfs.c: sysfs as lib/sysfs_disk.c and lib/devices.c read it.  On a copy of
 * tests/fixtures/dirtystat-usb (a USB stick sdb with partition sdb1) the input's
 * NUL-separated parts are, in order: the target of the /sys/dev/block/8:17 link, then
 * the contents of sdb1/dev, sdb1/size, sdb/dev, sdb/size, sdb/removable,
 * sdb/queue/max_sectors_kb, sdb/queue/write_cache, the USB device's model and
 * /proc/self/mountinfo, then three strings given straight to
 * transport_from_sysfs_path, sysfs_name_of_node and sysfs_devt_of_name.
 * Everything must fail cleanly or give NUL-terminated names. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>

#include "dirty/devices.h"
#include "fuzz_util.h"
#include "device/sysfs_disk.h"
#include "device/target.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SDB "/sys/block/sdb"
#define LINK "/sys/dev/block/8:17"

static const char *const files[] = {
	SDB "/sdb1/dev",
	SDB "/sdb1/size",
	SDB "/dev",
	SDB "/size",
	SDB "/removable",
	SDB "/queue/max_sectors_kb",
	SDB "/queue/write_cache",
	SDB "/device/model",
	"/proc/self/mountinfo",
};
#define N_FILES (sizeof(files) / sizeof(files[0]))

static char *originals[N_FILES], link_original[PATH_MAX];

static void set_link(const char *target)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s%s", fuzz_root, LINK);
	unlink(full);
	if (symlink(target, full) < 0 && errno != ENOENT)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char full[PATH_MAX];
	ssize_t n;

	fuzz_sysroot_init("dirtystat-usb");
	for (size_t i = 0; i < N_FILES; i++)
		(void)sysroot_read_file(files[i], &originals[i]);
	snprintf(full, sizeof(full), "%s%s", fuzz_root, LINK);
	n = readlink(full, link_original, sizeof(link_original) - 1);
	if (n < 0)
		abort();
	link_original[n] = '\0';
	return 0;
}

static void check_target(const struct target *t)
{
	assert(memchr(t->devname, 0, sizeof(t->devname)));
	assert(memchr(t->diskname, 0, sizeof(t->diskname)));
	assert(memchr(t->bdi, 0, sizeof(t->bdi)));
	assert(memchr(t->sysfs_path, 0, sizeof(t->sysfs_path)));
	(void)transport_name(t->disk.transport);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part;
	size_t len, i = 0;
	char *s, buf[256];
	struct target *t;
	struct device_entry *list = NULL;
	size_t n = 0;
	unsigned maj, min;

	if (fuzz_next_part(&data, &size, &part, &len)) {
		s = fuzz_strndup(part, len);
		set_link(*s ? s : link_original);
		free(s);
	} else {
		set_link(link_original);
	}
	for (; i < N_FILES && fuzz_next_part(&data, &size, &part, &len); i++)
		fuzz_write(files[i], part, len);
	for (size_t j = i; j < N_FILES; j++)
		fuzz_write(files[j], originals[j] ? originals[j] : "", originals[j] ? strlen(originals[j]) : 0);

	t = calloc(1, sizeof(*t));
	if (!t)
		abort();
	if (sysfs_fill_device(t, 8, 17) == 0)
		check_target(t);
	if (devices_list(&list, &n) == 0) {
		for (size_t k = 0; k < n; k++) {
			assert(memchr(list[k].name, 0, sizeof(list[k].name)));
			for (size_t m = 0; m < list[k].n_mountpoints; m++)
				(void)strlen(list[k].mountpoints[m]);
		}
		if (t->has_block)
			(void)devices_find(list, n, t);
		devices_list_free(list, n);
	}
	target_free(t);

	for (int k = 0; k < 3 && fuzz_next_part(&data, &size, &part, &len); k++) {
		s = fuzz_strndup(part, len);
		if (k == 0)
			(void)transport_from_sysfs_path(s);
		else if (k == 1 && sysfs_name_of_node(s, buf, sizeof(buf)) == 0)
			assert(memchr(buf, 0, sizeof(buf)));
		else if (k == 2)
			(void)sysfs_devt_of_name(s, &maj, &min);
		free(s);
	}
	return 0;
}
