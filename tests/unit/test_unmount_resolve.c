/* test_unmount_resolve.c: TARGETs resolved on the captured tree
 * tests/fixtures/unmount-system ("/" on /dev/vda2, /boot on /dev/vda1,
 * USB sticks on sdc, a FireWire disk sdb), and the refusals as kinds
 * with the names cmd/ words. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "unmount/resolve.h"
#include "util/sysroot.h"

#define ROOT FIXTURES_DIR "/unmount-system"

/* The refusal of arg, its name and device in *r (the caller frees). */
static enum unmount_refusal_kind refused(const char *arg, const struct unmount_resolve_options *o,
					 struct unmount_refusal *r)
{
	struct unmount_target t;

	if (unmount_target_resolve(arg, o, &t, r) == 0) {
		unmount_target_done(&t);
		return UNMOUNT_REFUSAL_NONE;
	}
	CHECK_INT(t.n_fs, 0);
	return r->kind;
}

TEST(system_disks)
{
	const struct unmount_resolve_options none = { 0 }, sys = { .system = true };
	struct unmount_refusal r;

	sysroot_set(ROOT);
	CHECK_INT(refused("/boot", &none, &r), UNMOUNT_REFUSAL_SYSTEM);
	CHECK_STR(r.name, "/boot");
	CHECK_STR(r.device, "/dev/vda1");
	unmount_refusal_done(&r);
	CHECK_INT(refused("/boot", &sys, &r), UNMOUNT_REFUSAL_NONE);
	/* "/" through its partition, whatever the options */
	CHECK_INT(refused("/dev/vda2", &sys, &r), UNMOUNT_REFUSAL_ROOT);
	CHECK_STR(r.device, "/dev/vda2");
	unmount_refusal_done(&r);
	CHECK_INT(refused("/", &sys, &r), UNMOUNT_REFUSAL_ROOT_FS);
	unmount_refusal_done(&r);
	CHECK_INT(refused("/mnt/nothing", &none, &r), UNMOUNT_REFUSAL_ON_ROOT_FS);
	CHECK_STR(r.name, "/mnt/nothing");
	unmount_refusal_done(&r);
	sysroot_set(NULL);
}

TEST(finding)
{
	const struct unmount_resolve_options none = { 0 };
	struct unmount_refusal r;
	struct unmount_target t;

	sysroot_set(ROOT);
	CHECK_INT(refused("LABEL=x", &none, &r), UNMOUNT_REFUSAL_TAG_IN_SYSROOT);
	CHECK(r.where && strstr(r.where, "unmount-system"));
	unmount_refusal_done(&r);
	CHECK_INT(refused("/dev/nope", &none, &r), UNMOUNT_REFUSAL_NO_ACCESS);
	CHECK(r.error < 0);
	unmount_refusal_done(&r);
	/* a USB stick's partition: its one filesystem and its disk */
	CHECK_INT(unmount_target_resolve("/dev/sdc1", &none, &t, &r), 0);
	CHECK(t.device_target && !t.whole_disk && t.have_disk);
	CHECK_INT(t.n_fs, 1);
	if (t.n_fs == 1) {
		CHECK_STR(t.fs[0].m.mountpoint, "/media/stick1");
		CHECK_STR(t.fs[0].devnode, "/dev/sdc1");
	}
	unmount_target_done(&t);
	/* the whole disk: both sticks' filesystems */
	CHECK_INT(unmount_target_resolve("/dev/sdc", &none, &t, &r), 0);
	CHECK(t.whole_disk);
	CHECK_INT(t.n_fs, 2);
	unmount_target_done(&t);
	sysroot_set(NULL);
}

TEST(power_off)
{
	const struct unmount_resolve_options po = { .power_off = true, .force = true, .system = true };
	struct unmount_refusal r;
	struct unmount_target t;

	sysroot_set(ROOT);
	CHECK_INT(refused("/boot", &po, &r), UNMOUNT_REFUSAL_POWER_OFF_ROOT);
	CHECK_STR(r.where, "/dev/vda2");
	unmount_refusal_done(&r);
	/* a refused target still says whether arg named a device: cmd/ names
	 * it "device" or "path" in the error event */
	CHECK(unmount_target_resolve("/dev/vda1", &po, &t, &r) < 0);
	CHECK_INT(r.kind, UNMOUNT_REFUSAL_POWER_OFF_ROOT);
	CHECK(t.device_target);
	CHECK_STR(t.arg, "/dev/vda1");
	unmount_refusal_done(&r);
	CHECK(unmount_target_resolve("/boot", &po, &t, &r) < 0);
	CHECK(!t.device_target);
	unmount_refusal_done(&r);
	/* a FireWire disk is never powered off; only root gets as far as asking */
	if (geteuid() == 0) {
		CHECK_INT(refused("/media/fw", &po, &r), UNMOUNT_REFUSAL_FIXED_DISK);
		CHECK_INT(r.transport, TRANSPORT_FIREWIRE);
	} else {
		CHECK_INT(refused("/media/fw", &po, &r), UNMOUNT_REFUSAL_NOT_ROOT);
	}
	unmount_refusal_done(&r);
	sysroot_set(NULL);
}

int main(void)
{
	TEST_PLAN(3);
	RUN(system_disks);
	RUN(finding);
	RUN(power_off);
	return test_summary();
}
