/* test_devices.c: devices_list() on captured trees: partitions folded
 * into their disk, the removable flag and USB transport, mounts attached
 * to the right disk, filesystems without a block device left out. */
#include <string.h>

#include "dirty/devices.h"
#include "util/sysroot.h"
#include "device/target.h"
#include "test.h"

static const struct device_entry *by_name(const struct device_entry *v, size_t n,
					  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

TEST(usb_fixture_lists_disks_with_their_mounts)
{
	struct device_entry *v = NULL;
	const struct device_entry *e;
	size_t n = 0;

	sysroot_set(FIXTURES_DIR "/dirtystat-usb");
	CHECK_INT(devices_list(&v, &n), 0);
	CHECK_INT(n, 3); /* sda, sdb, dm-0; not nfs, tmpfs, overlay, sshfs */

	e = by_name(v, n, "sdb");
	CHECK(e != NULL);
	if (e) {
		CHECK_STR(e->bdi, "8:16");
		CHECK_INT(e->major, 8);
		CHECK_INT(e->minor, 16);
		CHECK(e->removable);
		CHECK_INT(e->n_mountpoints, 1); /* mounted from sdb1 */
		if (e->n_mountpoints == 1)
			CHECK_STR(e->mountpoints[0], "/media/user/STICK");
		CHECK_STR(e->fstype, "vfat");
		CHECK_U64(e->size_bytes, 30031872ULL * 512);
	}
	e = by_name(v, n, "sda");
	CHECK(e != NULL);
	if (e) {
		CHECK(!e->removable);
		CHECK_INT(e->n_mountpoints, 1); /* "/" from sda2; sda1 is not mounted */
		if (e->n_mountpoints == 1)
			CHECK_STR(e->mountpoints[0], "/");
	}
	e = by_name(v, n, "dm-0");
	CHECK(e != NULL);
	if (e) {
		CHECK_STR(e->bdi, "253:0");
		CHECK_STR(e->fstype, "ext4");
	}
	/* sorted by name */
	CHECK_STR(v[0].name, "dm-0");
	CHECK_STR(v[2].name, "sdb");
	devices_list_free(v, n);
	sysroot_set(NULL);
}

TEST(entry_for_a_path_and_lookup)
{
	struct device_entry *v = NULL, e, copy;
	struct target *t = NULL;
	size_t n = 0;

	sysroot_set(FIXTURES_DIR "/dirtystat-usb");
	CHECK_INT(devices_list(&v, &n), 0);
	CHECK_INT(target_probe("/media/user/STICK", &t), 0);
	if (t) {
		const struct device_entry *found = devices_find(v, n, t);

		CHECK(found != NULL);
		if (found)
			CHECK_STR(found->name, "sdb");
		CHECK_INT(device_entry_from_target(t, &e), 0);
		CHECK_STR(e.name, "sdb");
		CHECK_STR(e.bdi, "8:16");
		CHECK(e.removable); /* USB transport */
		CHECK_INT(device_entry_copy(&e, &copy), 0);
		CHECK_STR(copy.mountpoints[0], "/media/user/STICK");
		CHECK(copy.mountpoints[0] != e.mountpoints[0]);
		device_entry_done(&copy);
		device_entry_done(&e);
		target_free(t);
	}
	/* NFS: no disk, its own bdi, not in the list */
	t = NULL;
	CHECK_INT(target_probe("/home", &t), 0);
	if (t) {
		CHECK(devices_find(v, n, t) == NULL);
		CHECK_INT(device_entry_from_target(t, &e), 0);
		CHECK(!e.has_block);
		CHECK_STR(e.name, "fileserver:/export/home");
		CHECK_STR(e.bdi, "0:52");
		device_entry_done(&e);
		target_free(t);
	}
	devices_list_free(v, n);
	device_entry_done(NULL);
	devices_list_free(NULL, 0);
	sysroot_set(NULL);
}

int main(void)
{
	TEST_PLAN(2);
	RUN(usb_fixture_lists_disks_with_their_mounts);
	RUN(entry_for_a_path_and_lookup);
	return test_summary();
}
