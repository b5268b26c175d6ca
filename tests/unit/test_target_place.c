/* test_target_place.c: target_place() on the fixture trees: a USB stick
 * and an SD card are removable, a loop device is a loop, "/" and a system
 * mount are the system's, tmpfs, NFS and sshfs are no disk; a disk of its
 * own that is neither is fixed. */
#include <errno.h>
#include <string.h>

#include "device/target_place.h"
#include "base/cleanup.h"
#include "util/sysroot.h"
#include "test.h"

DEFINE_CLEANUP_FUNC(struct target, target_free)

/* target_place() of path in fixture; place -1 when it could not be told */
static struct target_placement place_in(const char *fixture, const char *path)
{
	char root[4096];
	struct target *t = NULL;
	struct target_placement pl = { .place = (enum target_place)-1 };
	int r;

	snprintf(root, sizeof(root), "%s/%s", FIXTURES_DIR, fixture);
	sysroot_set(root);
	r = target_probe(path, &t);
	if (r == 0)
		r = target_place(t, &pl);
	sysroot_set(NULL);
	target_free(t);
	if (r != 0)
		FAIL_AT("%s in %s: %d (%s)", path, fixture, r, strerror(-r));
	return pl;
}

TEST(removable)
{
	struct target_placement usb = place_in("target-usb", "/media/user/STICK/DCIM/a.jpg");
	struct target_placement sd = place_in("target-laptop", "/media/user/CAMERA/x");

	CHECK_INT(usb.place, TARGET_REMOVABLE);
	CHECK(usb.removable);
	CHECK_INT(sd.place, TARGET_REMOVABLE);
	CHECK(sd.removable);
}

TEST(loop)
{
	struct target_placement l = place_in("target-loop", "/media/ext4/a/b");

	CHECK_INT(l.place, TARGET_LOOP);
	CHECK(!l.removable);
}

TEST(system)
{
	struct target_placement root = place_in("target-usb", "/etc/fstab");
	struct target_placement srv = place_in("target-usb", "/srv/www/index.html");
	struct target_placement nvme = place_in("target-laptop", "/root/x");
	struct target_placement bind = place_in("target-laptop", "/mnt/a/x");

	CHECK_INT(root.place, TARGET_SYSTEM);
	CHECK_INT(root.kind, SYSDISK_ROOT);
	CHECK_INT(srv.place, TARGET_SYSTEM);
	CHECK_INT(srv.kind, SYSDISK_SYSTEM);
	CHECK_INT(nvme.place, TARGET_SYSTEM);
	/* a subdirectory of the root filesystem mounted elsewhere: its disk */
	CHECK_INT(bind.place, TARGET_SYSTEM);
	CHECK_INT(bind.kind, SYSDISK_ROOT_DISK);
	CHECK(!root.removable && !srv.removable && !bind.removable);
}

TEST(no_disk)
{
	CHECK_INT(place_in("target-usb", "/tmp/x").place, TARGET_NO_DISK);
	CHECK_INT(place_in("target-usb", "/home/user/doc.txt").place, TARGET_NO_DISK);
	CHECK_INT(place_in("target-usb", "/home/user/remote/x").place, TARGET_NO_DISK);
	CHECK_INT(place_in("target-loop", "/dev/shm/f").place, TARGET_NO_DISK);
}

/* No fixture has a second fixed disk: the stick's facts with its USB and
 * removable flag taken away, and those of the same disk on USB again. */
TEST(fixed)
{
	_cleanup_(target_freep) struct target *t = NULL;
	struct target_placement pl;
	char root[4096];

	snprintf(root, sizeof(root), "%s/target-usb", FIXTURES_DIR);
	sysroot_set(root);
	CHECK_INT(target_probe("/media/user/STICK/x", &t), 0);
	if (!t) {
		sysroot_set(NULL);
		return;
	}
	t->disk.removable = false;
	t->disk.transport = TRANSPORT_SATA;
	CHECK_INT(target_place(t, &pl), 0);
	CHECK_INT(pl.place, TARGET_FIXED);
	CHECK(!pl.removable);
	t->disk.transport = TRANSPORT_USB;
	CHECK_INT(target_place(t, &pl), 0);
	CHECK_INT(pl.place, TARGET_REMOVABLE);
	sysroot_set(NULL);
}

int main(void)
{
	RUN(removable);
	RUN(loop);
	RUN(system);
	RUN(no_disk);
	RUN(fixed);
	return test_summary();
}
