/* test_sysdisk.c: which disk holds "/", where swap is, and the kind of each
 * mount, on tests/fixtures/unmount-system (see its make.sh) and on
 * tests/fixtures/unmount-disks (a whole-disk root, no /proc/swaps). */
#include <errno.h>
#include <string.h>

#include "device/sysdisk.h"
#include "util/sysroot.h"
#include "test.h"

#define SYS FIXTURES_DIR "/unmount-system"

TEST(root_and_swap_facts)
{
	struct sysdisk sd;

	sysroot_set(SYS);
	CHECK_INT(sysdisk_load(&sd), 0);
	CHECK_STR(sd.root_source, "/dev/vda2");
	CHECK_INT(sd.root_dev.major, 254);
	CHECK_INT(sd.root_dev.minor, 2);
	CHECK_INT(sd.n_root_disks, 1);
	CHECK(sysdisk_holds_root(&sd, 254, 0));
	CHECK(!sysdisk_holds_root(&sd, 254, 2)); /* a partition is not the disk */
	CHECK(!sysdisk_holds_root(&sd, 8, 0));
	CHECK_INT(sd.n_swaps, 2);
	CHECK(sysdisk_swap_on(&sd, 254, 0) != NULL);
	CHECK(sysdisk_swap_on(&sd, 8, 0) && strcmp(sysdisk_swap_on(&sd, 8, 0)->name, "/dev/sda2") == 0);
	CHECK(sysdisk_swap_on(&sd, 8, 32) == NULL);
	CHECK(sysdisk_swap_of_dev(&sd, 8, 3) != NULL); /* sda3: its disk has swap */
	CHECK(sysdisk_swap_of_dev(&sd, 8, 33) == NULL);
	sysroot_set(NULL);
}

TEST(kinds_of_mounts)
{
	struct sysdisk sd;

	sysroot_set(SYS);
	CHECK_INT(sysdisk_load(&sd), 0);
	CHECK_INT(sysdisk_classify(&sd, "/", 254, 2), SYSDISK_ROOT);
	CHECK_INT(sysdisk_classify(&sd, "/", 0, 0), SYSDISK_ROOT);
	CHECK_INT(sysdisk_classify(&sd, "/boot", 254, 1), SYSDISK_SYSTEM);
	CHECK_INT(sysdisk_classify(&sd, "/srv", 8, 1), SYSDISK_SYSTEM);
	CHECK_INT(sysdisk_classify(&sd, "/home", 0, 0), SYSDISK_SYSTEM); /* NFS, tmpfs too */
	CHECK_INT(sysdisk_classify(&sd, "/mnt/rootbind", 254, 2), SYSDISK_ROOT_DISK);
	CHECK_INT(sysdisk_classify(&sd, "/mnt/data", 8, 3), SYSDISK_SWAP);
	CHECK_INT(sysdisk_classify(&sd, "/media/stick1", 8, 33), SYSDISK_NONE);
	CHECK_INT(sysdisk_classify(&sd, "/media/fw", 8, 17), SYSDISK_NONE);
	CHECK_INT(sysdisk_classify(&sd, "/media/loop", 7, 0), SYSDISK_NONE);
	CHECK_INT(sysdisk_classify(&sd, "/tmp", 0, 0), SYSDISK_SYSTEM); /* an API filesystem */
	CHECK_INT(sysdisk_classify(&sd, "/mnt/scratch", 0, 0), SYSDISK_NONE);
	sysroot_set(NULL);
}

TEST(system_dirs)
{
	static const char *const yes[] = { "/usr", "/boot", "/boot/efi", "/efi", "/var", "/home",
					   "/opt", "/srv", "/dev", "/dev/shm", "/dev/pts", "/proc",
					   "/proc/sys/fs/binfmt_misc", "/sys", "/sys/fs/cgroup",
					   "/run", "/run/lock", "/tmp" };
	static const char *const no[] = { "/media/usb", "/mnt", "/usr2", "/boot/x", "/var/lib/x",
					  "/homes", "", "/run/media/ann/STICK", "/devices",
					  "/tmp2", "/system" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(sysdisk_is_system_dir(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!sysdisk_is_system_dir(no[i]));
}

TEST(whole_disk_root_without_swaps)
{
	struct sysdisk sd;
	struct sysdisk_devt d[SYSDISK_MAX];

	sysroot_set(FIXTURES_DIR "/unmount-disks");
	CHECK_INT(sysdisk_load(&sd), 0);
	CHECK_STR(sd.root_source, "/dev/vda");
	CHECK(sysdisk_holds_root(&sd, 254, 0));
	CHECK_INT(sd.n_swaps, 0);
	CHECK_INT(sysdisk_disks_of(8, 18, d, SYSDISK_MAX), 1);
	CHECK_INT(d[0].major, 8);
	CHECK_INT(d[0].minor, 16);
	CHECK_INT(sysdisk_disks_of(9, 9, d, SYSDISK_MAX), -ENOENT);
	sysroot_set("/nonexistent/safecp-root");
	CHECK(sysdisk_load(&sd) < 0);
	sysroot_set(NULL);
}

/* dm-0 stands on sda1 and sdb1: it is on the disks sda and sdb too */
TEST(slaves_are_followed)
{
	struct sysdisk_devt d[SYSDISK_MAX];

	sysroot_set(SYS);
	CHECK_INT(sysdisk_disks_of(253, 0, d, SYSDISK_MAX), 3);
	CHECK(d[0].major == 253 && d[0].minor == 0);
	CHECK((d[1].major == 8 && d[1].minor == 0) || (d[2].major == 8 && d[2].minor == 0));
	CHECK((d[1].major == 8 && d[1].minor == 16) || (d[2].major == 8 && d[2].minor == 16));
	CHECK_INT(sysdisk_disks_of(253, 0, d, 1), 1);
	sysroot_set(NULL);
}

/* "/" on dm-0 over sda1 and sdb1: both disks hold it */
TEST(root_on_device_mapper)
{
	struct sysdisk sd;

	sysroot_set(FIXTURES_DIR "/unmount-dmroot");
	CHECK_INT(sysdisk_load(&sd), 0);
	CHECK_STR(sd.root_source, "/dev/dm-0");
	CHECK_INT(sd.n_root_disks, 3);
	CHECK(sysdisk_holds_root(&sd, 253, 0));
	CHECK(sysdisk_holds_root(&sd, 8, 0));
	CHECK(sysdisk_holds_root(&sd, 8, 16));
	CHECK(!sysdisk_holds_root(&sd, 8, 32));
	CHECK_INT(sd.n_swaps, 0); /* no /proc/swaps: no swap */
	CHECK_INT(sysdisk_classify(&sd, "/mnt/data", 8, 3), SYSDISK_ROOT_DISK);
	CHECK_INT(sysdisk_classify(&sd, "/media/stick1", 8, 33), SYSDISK_NONE);
	sysroot_set(NULL);
}

int main(void)
{
	TEST_PLAN(6);
	RUN(root_on_device_mapper);
	RUN(slaves_are_followed);
	RUN(root_and_swap_facts);
	RUN(kinds_of_mounts);
	RUN(system_dirs);
	RUN(whole_disk_root_without_swaps);
	return test_summary();
}
