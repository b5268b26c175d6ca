/* test_poweroff.c: power-off plans (method, what is detached, refusals)
 * on the fixture tree tests/fixtures/unmount-disks, and the detach write
 * on a scratch tree. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unmount/poweroff.h"
#include "util/sysroot.h"
#include "test.h"

#define ROOT FIXTURES_DIR "/unmount-disks"
#define USB_DIR "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1"

static bool has_dev(const struct poweroff_plan *p, const char *node)
{
	for (size_t i = 0; i < p->n_devs; i++)
		if (strcmp(p->devs[i].devnode, node) == 0)
			return true;
	return false;
}

TEST(usb_stick_and_its_sibling)
{
	struct poweroff_plan p;

	sysroot_set(ROOT);
	CHECK_INT(poweroff_plan_make(8, 17, POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_STR(p.disk, "sdb");
	CHECK_STR(p.devnode, "/dev/sdb");
	CHECK_INT(p.major, 8);
	CHECK_INT(p.minor, 16);
	CHECK_INT(p.method, POWEROFF_USB);
	CHECK_STR(p.detach_path, USB_DIR "/remove");
	CHECK_STR(p.detach_value, "1");
	CHECK_INT(p.n_devs, 4);
	CHECK(p.n_devs > 0 && p.devs[0].is_disk && strcmp(p.devs[0].name, "sdb") == 0);
	CHECK(has_dev(&p, "/dev/sdb1"));
	CHECK(has_dev(&p, "/dev/sdb2"));
	CHECK(has_dev(&p, "/dev/sdc")); /* the other slot goes away too */
	CHECK_INT(p.refusal, POWEROFF_OK);
	poweroff_plan_done(&p);
	sysroot_set(NULL);
}

TEST(refused_while_mounted)
{
	struct poweroff_plan p;

	sysroot_set(ROOT);
	CHECK_INT(poweroff_plan_make(8, 16, 0, &p), 0);
	CHECK_INT(p.refusal, POWEROFF_MOUNTED);
	CHECK_STR(p.blocker, "/dev/sdb2");
	CHECK_STR(p.blocker_where, "/media/usb/inner");
	poweroff_plan_done(&p);
	/* the loop device: its partition is mounted */
	CHECK_INT(poweroff_plan_make(7, 3, 0, &p), 0);
	CHECK_INT(p.method, POWEROFF_LOOP);
	CHECK_STR(p.detach_path, "");
	CHECK_INT(p.n_devs, 2);
	CHECK_INT(p.refusal, POWEROFF_MOUNTED);
	CHECK_STR(p.blocker, "/dev/loop3p1");
	CHECK_STR(p.blocker_where, "/run/loop");
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(259, 0, POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_STR(p.disk, "loop3");
	CHECK_INT(p.refusal, POWEROFF_OK);
	poweroff_plan_done(&p);
	sysroot_set(NULL);
}

/* A SATA disk could be deleted, but is never powered off; its bus is the
 * refusal, not the dm-0 that holds it (freeing it would not help). */
TEST(sata_disk_refused)
{
	struct poweroff_plan p;

	sysroot_set(ROOT);
	CHECK_INT(poweroff_plan_make(8, 0, 0, &p), 0);
	CHECK_INT(p.method, POWEROFF_SCSI);
	CHECK_STR(p.detach_path,
		  "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/delete");
	CHECK_INT(p.transport, TRANSPORT_SATA);
	CHECK_INT(p.refusal, POWEROFF_FIXED_DISK);
	CHECK_STR(p.blocker, "");
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(8, 1, POWEROFF_FORCE | POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_INT(p.refusal, POWEROFF_FIXED_DISK); /* --force does not lift it */
	poweroff_plan_done(&p);
	sysroot_set(NULL);
}

/* tests/fixtures/unmount-system: FireWire and Thunderbolt are refused,
 * USB and loop planned, the MMC card needs force. */
TEST(buses_of_the_system_tree)
{
	struct poweroff_plan p;

	sysroot_set(FIXTURES_DIR "/unmount-system");
	CHECK_INT(poweroff_plan_make(8, 17, POWEROFF_IGNORE_MOUNTS | POWEROFF_FORCE, &p), 0);
	CHECK_INT(p.transport, TRANSPORT_FIREWIRE);
	CHECK_INT(p.refusal, POWEROFF_FIXED_DISK);
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(259, 1, POWEROFF_IGNORE_MOUNTS | POWEROFF_FORCE, &p), 0);
	CHECK_INT(p.transport, TRANSPORT_THUNDERBOLT);
	CHECK_INT(p.refusal, POWEROFF_NO_METHOD);
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(8, 3, POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_INT(p.transport, TRANSPORT_SATA);
	CHECK_INT(p.refusal, POWEROFF_FIXED_DISK);
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(8, 33, POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_INT(p.transport, TRANSPORT_USB);
	CHECK_INT(p.refusal, POWEROFF_OK);
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(7, 0, POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_INT(p.transport, TRANSPORT_LOOP);
	CHECK_INT(p.refusal, POWEROFF_OK);
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(179, 1, POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_INT(p.transport, TRANSPORT_MMC);
	CHECK_INT(p.refusal, POWEROFF_INTERNAL_READER);
	poweroff_plan_done(&p);
	sysroot_set(NULL);
}

TEST(no_method_for_virtio)
{
	struct poweroff_plan p;

	sysroot_set(ROOT);
	CHECK_INT(poweroff_plan_make(254, 0, POWEROFF_IGNORE_MOUNTS, &p), 0);
	CHECK_INT(p.method, POWEROFF_NONE);
	CHECK_INT(p.refusal, POWEROFF_NO_METHOD);
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(254, 0, 0, &p), 0);
	CHECK_INT(p.refusal, POWEROFF_NO_METHOD); /* the bus first, though it is the root */
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(9, 9, 0, &p), -ENOENT);
	sysroot_set(NULL);
}

TEST(internal_reader_needs_force)
{
	struct poweroff_plan p;

	sysroot_set(ROOT);
	CHECK_INT(poweroff_plan_make(179, 1, 0, &p), 0);
	CHECK_STR(p.disk, "mmcblk0");
	CHECK_INT(p.method, POWEROFF_MMC);
	CHECK_INT(p.refusal, POWEROFF_INTERNAL_READER);
	poweroff_plan_done(&p);
	CHECK_INT(poweroff_plan_make(179, 0, POWEROFF_FORCE, &p), 0);
	CHECK_INT(p.refusal, POWEROFF_OK);
	CHECK_STR(p.detach_path, "/sys/bus/mmc/drivers/mmcblk/unbind");
	CHECK_STR(p.detach_value, "mmc0:aaaa");
	poweroff_plan_done(&p);
	poweroff_plan_done(NULL);
	sysroot_set(NULL);
}

TEST(method_names)
{
	CHECK_STR(poweroff_method_name(POWEROFF_USB), "usb");
	CHECK_STR(poweroff_method_name(POWEROFF_LOOP), "loop");
	CHECK_STR(poweroff_method_name((enum poweroff_method)42), "none");
}

TEST(detach_write)
{
	char root[] = "/tmp/test_poweroff.XXXXXX", path[256], got[16] = "";
	struct poweroff_plan p = { .detach_path = "/remove", .detach_value = "1" };
	int fd;

	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/remove", root);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	CHECK(fd >= 0);
	close(fd);
	sysroot_set(root);
	CHECK_INT(poweroff_detach_sysfs(&p), 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, got, sizeof(got) - 1) == 1);
	close(fd);
	CHECK_STR(got, "1");
	snprintf(p.detach_path, sizeof(p.detach_path), "/missing/remove");
	CHECK_INT(poweroff_detach_sysfs(&p), -ENOENT);
	/* the run opens device nodes: never under a sysroot */
	{
		struct poweroff_result res;

		p.n_devs = 1;
		CHECK_INT(poweroff_run(&p, &res), -EINVAL);
	}
	sysroot_set(NULL);
	unlink(path);
	rmdir(root);
}

int main(void)
{
	TEST_PLAN(8);
	RUN(usb_stick_and_its_sibling);
	RUN(refused_while_mounted);
	RUN(sata_disk_refused);
	RUN(buses_of_the_system_tree);
	RUN(no_method_for_virtio);
	RUN(internal_reader_needs_force);
	RUN(method_names);
	RUN(detach_write);
	return test_summary();
}
