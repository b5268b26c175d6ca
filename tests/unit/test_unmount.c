/* test_unmount.c: the mounts of a device, innermost first, and the disk
 * of a partition, on the fixture tree tests/fixtures/unmount-disks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device/blockdev.h"
#include "util/sysroot.h"
#include "test.h"
#include "unmount/unmount.h"

#define ROOT FIXTURES_DIR "/unmount-disks"

TEST(disk_of)
{
	unsigned maj = 0, min = 0;

	sysroot_set(ROOT);
	CHECK_INT(blockdev_disk_of(8, 17, &maj, &min), 0);
	CHECK_INT(maj, 8);
	CHECK_INT(min, 16);
	CHECK_INT(blockdev_disk_of(8, 16, &maj, &min), 0);
	CHECK_INT(min, 16);
	CHECK_INT(blockdev_disk_of(259, 0, &maj, &min), 0);
	CHECK_INT(maj, 7);
	CHECK_INT(min, 3);
	CHECK_INT(blockdev_disk_of(9, 9, &maj, &min), -ENOENT);
	sysroot_set(NULL);
}

TEST(mounts_of_whole_disk)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;

	sysroot_set(ROOT);
	CHECK_INT(unmount_mounts_of_device(8, 16, true, &m, &n), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		/* the mount inside another first; equal depths keep the
		 * reversed mountinfo order (later mounts first) */
		CHECK_STR(m[0].mountpoint, "/media/usb/inner");
		CHECK_STR(m[0].source, "/dev/sdb2");
		CHECK_INT(m[0].dev_minor, 18);
		CHECK_STR(m[1].mountpoint, "/mnt/bind");
		CHECK_STR(m[2].mountpoint, "/media/usb");
		CHECK_INT(m[2].mnt_id, 90);
		CHECK_INT(m[2].sb_major, 8);
		CHECK_INT(m[2].sb_minor, 17);
		CHECK_STR(m[2].fstype, "vfat");
	}
	unmount_mounts_free(m, n);
	/* without partitions the disk itself has nothing mounted */
	CHECK_INT(unmount_mounts_of_device(8, 16, false, &m, &n), 0);
	CHECK_INT(n, 0);
	unmount_mounts_free(m, n);
	sysroot_set(NULL);
}

TEST(mounts_of_partition)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;

	sysroot_set(ROOT);
	CHECK_INT(unmount_mounts_of_device(8, 17, false, &m, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(m[0].mountpoint, "/mnt/bind");
		CHECK_STR(m[1].mountpoint, "/media/usb");
	}
	unmount_mounts_free(m, n);
	CHECK_INT(unmount_mounts_of_device(7, 3, true, &m, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(m[0].mountpoint, "/run/loop");
	unmount_mounts_free(m, n);
	CHECK_INT(unmount_mounts_of_device(8, 0, true, &m, &n), 0);
	CHECK_INT(n, 0);
	unmount_mounts_free(m, n);
	unmount_mounts_free(NULL, 0);
	sysroot_set(NULL);
}

TEST(mount_at)
{
	struct unmount_mount m = { 0 };

	sysroot_set(ROOT);
	CHECK_INT(unmount_mount_at("/media/card", &m), 0);
	CHECK_STR(m.source, "/dev/sdc");
	CHECK_INT(m.dev_major, 8);
	CHECK_INT(m.dev_minor, 32);
	CHECK_INT(m.mnt_id, 92);
	unmount_mount_done(&m);
	CHECK(m.mountpoint == NULL);
	/* tmpfs: no block device */
	CHECK_INT(unmount_mount_at("/run/user", &m), 0);
	CHECK_INT(m.dev_major, 0);
	CHECK_INT(m.dev_minor, 0);
	unmount_mount_done(&m);
	CHECK_INT(unmount_mount_at("/media", &m), -ENOENT);
	unmount_mount_done(NULL);
	sysroot_set(NULL);
}

TEST(release_errors)
{
	/* no device node: the open's own error, not a guess */
	CHECK_INT(unmount_device_release("/dev/no-such-device-here", 0, false), -ENOENT);
	CHECK_INT(unmount_device_release("/dev/null", 0, false), 0);
}

int main(void)
{
	TEST_PLAN(5);
	RUN(disk_of);
	RUN(mounts_of_whole_disk);
	RUN(mounts_of_partition);
	RUN(mount_at);
	RUN(release_errors);
	return test_summary();
}
