/* test_mount.c: mountinfo through libmount, path resolution, and which
 * mount holds a path (stacked and hidden mounts), on captured and
 * hand-modelled fixture trees plus the real root for realpath cases. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "device/mount.h"
#include "util/sysroot.h"
#include "test.h"

TEST(list_captured)
{
	struct mount_entry *list = NULL;
	size_t n = 0;

	sysroot_set(FIXTURES_DIR "/target-loop");
	CHECK_INT(mount_list(&list, &n), 0);
	sysroot_set(NULL);
	CHECK_INT(n, 11);
	if (n != 11)
		goto out;
	CHECK_STR(list[0].target, "/proc");
	CHECK_INT(list[0].id, 22);
	CHECK_INT(list[0].parent_id, 27);
	CHECK_STR(list[6].target, "/media/ext4");
	CHECK_STR(list[6].source, "/dev/loop1p1");
	CHECK_INT(list[6].major, 259);
	CHECK_INT(list[6].minor, 0);
	CHECK_STR(list[7].options, "rw,relatime,inode64,logbufs=8,logbsize=32k,noquota");
	CHECK_STR(list[9].fstype, "btrfs");
	CHECK_STR(list[9].root, "/sub");
	CHECK_INT(list[9].major, 0);
	CHECK_INT(list[9].minor, 41);
	CHECK_STR(list[10].fstype, "fuseblk");
out:
	mount_list_free(list, n);
}

static void check_mount_of(const char *root, const char *path, int id, const char *target)
{
	struct mount_entry e = { 0 };
	int r;

	sysroot_set(root);
	r = mount_find_for_path(path, &e);
	sysroot_set(NULL);
	if (r != 0) {
		FAIL_AT("mount_find_for_path(%s) = %d", path, r);
		return;
	}
	if (e.id != id || strcmp(e.target, target) != 0)
		FAIL_AT("'%s' is on mount %d '%s', expected %d '%s'", path, e.id, e.target, id,
			target);
	mount_entry_done(&e);
}

TEST(find_longest_and_component_wise)
{
	const char *loop = FIXTURES_DIR "/target-loop";

	check_mount_of(loop, "/", 27, "/");
	check_mount_of(loop, "/media", 27, "/");
	check_mount_of(loop, "/media/xfs", 45, "/media/xfs");
	check_mount_of(loop, "/media/xfs/a/b.jpg", 45, "/media/xfs");
	check_mount_of(loop, "/media//xfs/", 45, "/media/xfs");
	/* "/media/btrfs" is a string prefix of "/media/btrfs-sub", not a parent */
	check_mount_of(loop, "/media/btrfs-sub/x", 48, "/media/btrfs-sub");
	check_mount_of(loop, "/media/btrfsx", 27, "/");
	check_mount_of(loop, "/proc/self", 22, "/proc");
}

TEST(find_stacked_and_hidden)
{
	const char *laptop = FIXTURES_DIR "/target-laptop";

	/* captured: a tmpfs mounted over the tmpfs on /dev/shm */
	check_mount_of(FIXTURES_DIR "/target-loop", "/dev/shm/new", 30, "/dev/shm");
	check_mount_of(laptop, "/mnt/stack/f", 91, "/mnt/stack");
	/* /mnt/a/b (80) is hidden by /mnt/a (81), mounted later on its parent */
	check_mount_of(laptop, "/mnt/a/b/c", 81, "/mnt/a");
	check_mount_of(laptop, "/boot/efi/EFI", 31, "/boot/efi");
}

TEST(resolve_under_sysroot)
{
	_cleanup_free_ char *p = NULL;
	char *q = NULL;

	sysroot_set(FIXTURES_DIR "/target-usb");
	CHECK_INT(mount_resolve_path("//media//user/STICK/", &p), 0);
	CHECK_STR(p, "/media/user/STICK");
	CHECK_INT(mount_resolve_path("media/user", &q), -EINVAL);
	CHECK(q == NULL);
	sysroot_set(NULL);
}

TEST(resolve_real_root)
{
	char dir[] = "/tmp/safecp-test-mount.XXXXXX";
	_cleanup_free_ char *real = NULL, *p = NULL, *expect = NULL, *given = NULL;
	char *none = NULL;

	sysroot_set(NULL);
	if (!mkdtemp(dir)) {
		FAIL_AT("mkdtemp: %s", strerror(errno));
		return;
	}
	real = realpath(dir, NULL);
	CHECK(real != NULL);
	CHECK(asprintf(&expect, "%s/new.jpg", real) > 0);
	CHECK(asprintf(&given, "%s//./new.jpg", dir) > 0);
	/* a destination that does not exist yet: its directory, plus the name */
	CHECK_INT(mount_resolve_path(given, &p), 0);
	CHECK_STR(p, expect);
	CHECK_INT(mount_resolve_path("/nonexistent-safecp-dir/new.jpg", &none), -ENOENT);
	CHECK(none == NULL);
	rmdir(dir);
}

/* Ids repeat and parents loop only in a broken table (found by tests/fuzz), but the
 * walk must end: on some mount of the loop, not hang. */
TEST(find_in_parent_loop)
{
	struct mount_entry e = { 0 };

	sysroot_set(FIXTURES_DIR "/mount-cycle");
	CHECK_INT(mount_find_for_path("/a/b", &e), 0);
	sysroot_set(NULL);
	CHECK_STR(e.target, "/a");
	mount_entry_done(&e);
}

int main(void)
{
	TEST_PLAN(6);
	RUN(list_captured);
	RUN(find_longest_and_component_wise);
	RUN(find_stacked_and_hidden);
	RUN(resolve_under_sysroot);
	RUN(resolve_real_root);
	RUN(find_in_parent_loop);
	return test_summary();
}
