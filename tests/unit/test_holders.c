/* test_holders.c: who holds a mount or a device, on the fixture /proc of
 * tests/fixtures/unmount-proc (see its README for the cast). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unmount/holders.h"
#include "util/sysroot.h"
#include "test.h"

#define ROOT FIXTURES_DIR "/unmount-proc"

static const struct holder *find(const struct holder_list *l, pid_t pid, enum holder_how how,
				 const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].pid == pid && l->items[i].how == how &&
		    strcmp(l->items[i].path, path) == 0)
			return &l->items[i];
	return NULL;
}

TEST(path_within)
{
	CHECK(holders_path_within("/media/stick", "/media/stick"));
	CHECK(holders_path_within("/media/stick/a/b", "/media/stick"));
	CHECK(holders_path_within("/media/stick/a", "/media/stick/"));
	CHECK(!holders_path_within("/media/stick2/a", "/media/stick"));
	CHECK(!holders_path_within("/media", "/media/stick"));
	CHECK(holders_path_within("/media/stick/gone (deleted)", "/media/stick"));
	CHECK(holders_path_within("/media/stick (deleted)", "/media/stick"));
	CHECK(!holders_path_within("/media/sticky (deleted)", "/media/stick"));
	CHECK(holders_path_within("/anything", "/"));
	CHECK(!holders_path_within("socket:[1]", "/"));
}

TEST(names)
{
	CHECK_STR(holder_how_name(HOLDER_CWD), "cwd");
	CHECK_STR(holder_how_name(HOLDER_MAP), "map");
	CHECK_STR(holder_how_name(HOLDER_NAMESPACE), "namespace");
	CHECK_STR(holder_how_name((enum holder_how)99), "unknown");
}

TEST(mount_holders)
{
	const struct holders_mount m = {
		.mountpoint = "/media/stick", .mnt_id = 90, .sb_major = 8, .sb_minor = 17,
	};
	struct holder_list l = { 0 };

	CHECK_INT(sysroot_set(ROOT), 0);
	CHECK_INT(holders_of_mount(&m, &l), 0);
	CHECK(find(&l, 200, HOLDER_CWD, "/media/stick/DCIM"));
	CHECK(find(&l, 300, HOLDER_FILE, "/media/stick/movie.mp4"));
	CHECK(find(&l, 300, HOLDER_MAP, "/media/stick/movie.mp4"));
	/* matched by its device 08:11 as well as its (deleted) path */
	CHECK(find(&l, 300, HOLDER_MAP, "/media/stick/plugins/libx.so (deleted)"));
	CHECK(find(&l, 400, HOLDER_ROOT, "/media/stick/rootfs"));
	CHECK(find(&l, 400, HOLDER_CWD, "/media/stick/rootfs/tmp"));
	CHECK(find(&l, 800, HOLDER_CWD, "/media/stick/gone (deleted)"));
	/* exactly these seven: not /media/stick2, /usr/bin/vlc, the socket,
	 * the heap, nor the processes elsewhere */
	CHECK_INT(l.n, 7);
	CHECK_INT(l.unreadable, 0);
	for (size_t i = 1; i < l.n; i++)
		CHECK(l.items[i - 1].pid <= l.items[i].pid);
	if (l.n)
		CHECK_STR(l.items[0].command, "bash");
	holder_list_done(&l);
	CHECK_INT(l.n, 0);
	sysroot_set(NULL);
}

TEST(mount_by_device_number_only)
{
	/* a mount point the links do not spell: only the maps' 08:11 match */
	const struct holders_mount m = {
		.mountpoint = "/elsewhere", .sb_major = 8, .sb_minor = 17,
	};
	struct holder_list l = { 0 };

	sysroot_set(ROOT);
	CHECK_INT(holders_of_mount(&m, &l), 0);
	CHECK_INT(l.n, 2);
	CHECK(find(&l, 300, HOLDER_MAP, "/media/stick/movie.mp4"));
	holder_list_done(&l);
	sysroot_set(NULL);
}

TEST(device_holders)
{
	struct holder_list l = { 0 };

	sysroot_set(ROOT);
	CHECK_INT(holders_of_device(8, 17, "/dev/sdb1", &l), 0);
	CHECK(find(&l, 600, HOLDER_DEVICE, "/dev/sdb1"));
	/* one process per foreign namespace: 500 and 501 share one */
	CHECK(find(&l, 500, HOLDER_NAMESPACE, "/run/other place"));
	CHECK(!find(&l, 501, HOLDER_NAMESPACE, "/run/other place"));
	/* our own namespace (proc/self -> 100) is not "another" */
	CHECK(!find(&l, 100, HOLDER_NAMESPACE, "/media/stick"));
	CHECK_INT(l.n, 2);
	holder_list_done(&l);

	/* btrfs: anonymous 0:39 in mountinfo, found by its source */
	CHECK_INT(holders_of_device(8, 32, "/dev/sdc", &l), 0);
	CHECK_INT(l.n, 1);
	CHECK(find(&l, 550, HOLDER_NAMESPACE, "/data"));
	holder_list_done(&l);

	CHECK_INT(holders_of_device(8, 48, "/dev/sdd", &l), 0);
	CHECK_INT(l.n, 0);
	holder_list_done(&l);
	sysroot_set(NULL);
}

TEST(equal)
{
	struct holder_list a = { 0 }, b = { 0 };
	const struct holders_mount m = { .mountpoint = "/media/stick" };

	sysroot_set(ROOT);
	CHECK_INT(holders_of_mount(&m, &a), 0);
	CHECK_INT(holders_of_mount(&m, &b), 0);
	CHECK(holder_list_equal(&a, &b));
	holder_list_done(&b);
	CHECK_INT(holders_of_device(8, 17, "/dev/sdb1", &b), 0);
	CHECK(!holder_list_equal(&a, &b));
	holder_list_done(&a);
	holder_list_done(&b);
	holder_list_done(NULL);
	sysroot_set(NULL);
}

TEST(missing_proc)
{
	const struct holders_mount m = { .mountpoint = "/media/stick" };
	struct holder_list l = { 0 };

	sysroot_set(FIXTURES_DIR "/no-such-tree");
	CHECK_INT(holders_of_mount(&m, &l), -ENOENT);
	CHECK_INT(holders_of_mount(NULL, &l), -EINVAL);
	sysroot_set(NULL);
}

int main(void)
{
	TEST_PLAN(7);
	RUN(path_within);
	RUN(names);
	RUN(mount_holders);
	RUN(mount_by_device_number_only);
	RUN(device_holders);
	RUN(equal);
	RUN(missing_proc);
	return test_summary();
}
