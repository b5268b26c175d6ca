/* test_api_dirty.c: <safecp/dirty.h> and <safecp/target.h> as a program
 * outside the tree uses them, through the public headers only, on the
 * captured trees: a reading of every device, a selection read again, the
 * figures and the structures filled up to the caller's size, the rate
 * between two readings, a file's page cache. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <safecp/dirty.h>
#include <safecp/target.h>

#include "test.h"

#define KIB 1024ULL
#define PAGE 4096ULL

static void use(const char *tree)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, tree);
	CHECK_INT(safecp_sysroot_set(path), 0);
	CHECK_STR(safecp_sysroot(), path);
}

static size_t by_name(const struct safecp_dirty *d, const char *name)
{
	struct safecp_dirty_device dev;

	for (size_t i = 0; i < safecp_dirty_count(d); i++)
		if (safecp_dirty_device(d, i, &dev, sizeof(dev)) == 0 && strcmp(dev.name, name) == 0)
			return i;
	return (size_t)-1;
}

TEST(sysroot_seam)
{
	use("dirtystat-usb");
	CHECK_INT(safecp_sysroot_set(NULL), 0);
	CHECK_STR(safecp_sysroot(), "");
	use("dirtystat-usb");
	CHECK_INT(safecp_sysroot_set(""), 0);
	CHECK_STR(safecp_sysroot(), "");
}

/* the stick, sdb: debugfs bdi 8:16, /sys/block/sdb/stat and inflight */
static void check_stick(const struct safecp_dirty *d, size_t i)
{
	struct safecp_dirty_device dev;
	struct safecp_dirty_figures f;

	CHECK_INT(safecp_dirty_device(d, i, &dev, sizeof(dev)), 0);
	CHECK_STR(dev.name, "sdb");
	CHECK(dev.has_block);
	CHECK_INT(dev.major, 8);
	CHECK_INT(dev.minor, 16);
	CHECK_STR(dev.bdi, "8:16");
	CHECK_STR(dev.fstype, "vfat");
	CHECK(dev.removable);
	CHECK_U64(dev.size, 30031872ULL * 512);
	CHECK_INT(dev.n_mountpoints, 1);
	if (dev.n_mountpoints == 1)
		CHECK_STR(dev.mountpoints[0], "/media/user/STICK");

	CHECK_INT(safecp_dirty_figures(d, i, &f, sizeof(f)), 0);
	CHECK_INT(f.source, SAFECP_DIRTY_DEBUGFS);
	CHECK_U64(f.dirty, 153600 * KIB);
	CHECK_U64(f.writeback, 12288 * KIB);
	CHECK_U64(f.bdi_thresh, 1958292 * KIB);
	CHECK_U64(f.dirtied, 415524 * KIB);
	CHECK_U64(f.written, 210696 * KIB);
	CHECK_U64(f.bandwidth, 20480 * KIB);
	CHECK(f.has_block_stat);
	CHECK_U64(f.bytes_written, 409600ULL * 512);
	CHECK_INT(f.inflight_reads, 0);
	CHECK_INT(f.inflight_writes, 1);
	CHECK(f.error > 0);
}

TEST(every_device)
{
	struct safecp_dirty *d = NULL;
	struct safecp_dirty_system s;
	struct safecp_dirty_device dev;
	struct safecp_dirty_figures f;
	enum safecp_dirty_part part = 0;

	use("dirtystat-usb");
	CHECK_INT(safecp_dirty_read(NULL, &d, &part), 0);
	CHECK_INT(part, 0); /* untouched on success */
	if (!d)
		return;
	/* sda, sdb, dm-0, by name; not NFS, tmpfs, overlay, sshfs */
	CHECK_INT(safecp_dirty_count(d), 3);
	CHECK_INT(safecp_dirty_device(d, 0, &dev, sizeof(dev)), 0);
	CHECK_STR(dev.name, "dm-0");
	CHECK_INT(safecp_dirty_device(d, 3, &dev, sizeof(dev)), -ENOENT);
	CHECK_INT(safecp_dirty_figures(d, 3, &f, sizeof(f)), -ENOENT);
	check_stick(d, by_name(d, "sdb"));

	CHECK_INT(safecp_dirty_system(d, &s, sizeof(s)), 0);
	CHECK_U64(s.dirty, 194688 * KIB);
	CHECK_U64(s.writeback, 12288 * KIB);
	CHECK_U64(s.writeback_tmp, 0);
	CHECK(s.thresh > s.bg_thresh);
	/* (thresh + bg_thresh) / 2 in whole pages, as the kernel */
	CHECK_U64(s.throttle, (s.thresh / PAGE + s.bg_thresh / PAGE) / 2 * PAGE);
	CHECK(s.time > 0 && s.realtime > 0);
	safecp_dirty_free(d);
	safecp_dirty_free(NULL);

	d = NULL;
	use("no-such-tree");
	CHECK_INT(safecp_dirty_read(NULL, &d, &part), -ENOENT);
	CHECK_INT(part, SAFECP_DIRTY_PART_SYSTEM);
	CHECK(d == NULL);
	CHECK_INT(safecp_sysroot_set(NULL), 0);
}

/* A caller built against an older header passes a smaller size: the
 * fields it knows are filled, nothing past them is written. */
TEST(filled_up_to_size)
{
	struct safecp_dirty *d = NULL;
	struct safecp_dirty_figures f;
	unsigned char big[sizeof(struct safecp_dirty_system) + 16];
	size_t part = offsetof(struct safecp_dirty_figures, writeback);

	use("dirtystat-usb");
	CHECK_INT(safecp_dirty_read(NULL, &d, NULL), 0);
	if (!d)
		return;
	memset(&f, 0xa5, sizeof(f));
	CHECK_INT(safecp_dirty_figures(d, by_name(d, "sdb"), &f, part), 0);
	CHECK_U64(f.dirty, 153600 * KIB);
	CHECK_U64(f.writeback, 0xa5a5a5a5a5a5a5a5ULL);
	/* and one built against a newer header gets zeros past ours */
	memset(big, 0xa5, sizeof(big));
	CHECK_INT(safecp_dirty_system(d, (struct safecp_dirty_system *)(void *)big, sizeof(big)), 0);
	for (size_t i = sizeof(struct safecp_dirty_system); i < sizeof(big); i++)
		CHECK_INT(big[i], 0);
	safecp_dirty_free(d);
	CHECK_INT(safecp_sysroot_set(NULL), 0);
}

static struct safecp_target *probe(const char *path)
{
	struct safecp_target *t = NULL;

	CHECK_INT(safecp_target_probe(path, &t), 0);
	return t;
}

/* dirtystat DIR...: the devices of the directories, each once, with all
 * its mounts; a filesystem on no disk (NFS) with its own mount. */
TEST(selection_read_again)
{
	struct safecp_target *t[4];
	struct safecp_dirty *sel = NULL, *d = NULL;
	struct safecp_dirty_device dev;
	struct safecp_dirty_figures f;
	struct safecp_dirty_system s;

	use("dirtystat-usb");
	t[0] = probe("/media/user/STICK");
	t[1] = probe("/srv");
	t[2] = probe("/media/user/STICK");
	t[3] = probe("/home");
	if (!t[0] || !t[1] || !t[2] || !t[3])
		return;
	CHECK_STR(safecp_target_mountpoint(t[0]), "/media/user/STICK");
	CHECK_STR(safecp_target_fs_name(t[0]), "vfat");
	CHECK(safecp_target_cache_device(t[0]) == NULL);
	CHECK_INT(safecp_dirty_select((const struct safecp_target *const *)t, 4, &sel), 0);
	CHECK_INT(safecp_dirty_count(sel), 3);
	CHECK_INT(safecp_dirty_system(sel, &s, sizeof(s)), -ENODATA);
	CHECK_INT(safecp_dirty_figures(sel, 0, &f, sizeof(f)), -ENODATA);

	CHECK_INT(safecp_dirty_read(sel, &d, NULL), 0);
	if (d) {
		CHECK_INT(safecp_dirty_count(d), 3); /* the same, not every device */
		check_stick(d, 0);
		CHECK_INT(safecp_dirty_device(d, 1, &dev, sizeof(dev)), 0);
		CHECK_STR(dev.name, "dm-0");
		CHECK_INT(safecp_dirty_device(d, 2, &dev, sizeof(dev)), 0);
		CHECK_STR(dev.name, "fileserver:/export/home");
		CHECK(!dev.has_block);
		CHECK_STR(dev.bdi, "0:52");
		CHECK_INT(dev.n_mountpoints, 1);
		CHECK_INT(safecp_dirty_figures(d, 2, &f, sizeof(f)), 0);
		CHECK_INT(f.source, SAFECP_DIRTY_DEBUGFS);
		CHECK(!f.has_block_stat);
		safecp_dirty_free(d);
	}
	safecp_dirty_free(sel);
	sel = NULL;
	CHECK_INT(safecp_dirty_select(NULL, 0, &sel), 0);
	CHECK_INT(safecp_dirty_count(sel), 0);
	safecp_dirty_free(sel);
	for (size_t i = 0; i < 4; i++)
		safecp_target_free(t[i]);
	safecp_target_free(NULL);
	CHECK_INT(safecp_sysroot_set(NULL), 0);
}

/* Without debugfs: the system's figures, labelled; the sector counter
 * still says what the disk wrote. */
TEST(estimate_without_debugfs)
{
	struct safecp_dirty_figures f;

	use("dirty-nodebugfs");
	CHECK_INT(safecp_dirty_device_read("7:1", "loop1", &f, sizeof(f)), 0);
	CHECK_INT(f.source, SAFECP_DIRTY_ESTIMATE);
	CHECK_U64(f.dirty, 307980 * KIB);
	CHECK_U64(f.writeback, 0);
	CHECK_U64(f.bdi_thresh, 0);
	CHECK(f.has_block_stat);
	CHECK_U64(f.bytes_written, 1240083ULL * 512);
	CHECK_INT(safecp_dirty_device_read(NULL, "no-such-disk", &f, sizeof(f)), -ENOENT);
	CHECK_INT(safecp_dirty_device_read("a/b", NULL, &f, sizeof(f)), -EINVAL);
	CHECK_STR(safecp_dirty_source_name(SAFECP_DIRTY_DEBUGFS), "debugfs");
	CHECK_STR(safecp_dirty_source_name(SAFECP_DIRTY_ESTIMATE), "estimate");
	CHECK(safecp_dirty_source_name((enum safecp_dirty_source)7) == NULL);
	CHECK_INT(safecp_sysroot_set(NULL), 0);
}

TEST(fuseblk_data_in_the_device_cache)
{
	struct safecp_target *t;

	use("target-loop");
	t = probe("/media/exfat/new.jpg");
	if (t) {
		CHECK_STR(safecp_target_cache_device(t), "/dev/loop4");
		CHECK(safecp_target_fs_name(t) != NULL);
		safecp_target_free(t);
	}
	t = probe("/media/ext4/a/b");
	if (t) {
		CHECK(safecp_target_cache_device(t) == NULL);
		safecp_target_free(t);
	}
	CHECK_INT(safecp_sysroot_set(NULL), 0);
}

TEST(rate_between_readings)
{
	struct safecp_dirty_figures a = { .time = 10, .source = SAFECP_DIRTY_DEBUGFS,
					  .has_block_stat = 1, .bytes_written = 1 << 20,
					  .written = 0, .bandwidth = 777 };
	struct safecp_dirty_figures b = a, c = a;

	b.time = 12;
	c.time = 14;
	c.bytes_written = 0;
	b.bytes_written = 5 << 20;
	CHECK(safecp_dirty_rate(&a, &b) == 2 << 20);
	/* the counter went backwards: the device was re-created */
	CHECK(safecp_dirty_rate(&b, &c) == 0);
	/* no time between them: the kernel's bandwidth */
	CHECK(safecp_dirty_rate(&a, &a) == 777);
	/* no block stat: BdiWritten, from debugfs only */
	a.has_block_stat = b.has_block_stat = 0;
	b.written = 4 << 20;
	CHECK(safecp_dirty_rate(&a, &b) == 2 << 20);
	b.source = SAFECP_DIRTY_ESTIMATE;
	CHECK(safecp_dirty_rate(&a, &b) == 0);
}

TEST(file_page_cache)
{
	char path[] = "/tmp/test_api_dirty.XXXXXX";
	struct safecp_dirty_file byname, byfd, bypath;
	char buf[16384];
	int fd = mkstemp(path), pfd, r;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	memset(buf, 'x', sizeof(buf));
	CHECK_INT(write(fd, buf, sizeof(buf)), sizeof(buf));
	r = safecp_dirty_file(path, &byname, sizeof(byname));
	if (r == -ENOSYS) {
		printf("# cachestat(2) needs Linux 6.5: only the errors are checked\n");
	} else {
		CHECK_INT(r, 0);
		CHECK_U64(byname.cached, sizeof(buf));
		CHECK_INT(safecp_dirty_file_fd(fd, &byfd, sizeof(byfd)), 0);
		CHECK_U64(byfd.cached, sizeof(buf));
		/* an O_PATH descriptor is reopened, not refused */
		pfd = open(path, O_PATH | O_CLOEXEC);
		CHECK_INT(safecp_dirty_file_fd(pfd, &bypath, sizeof(bypath)), 0);
		CHECK_U64(bypath.cached, sizeof(buf));
		close(pfd);
	}
	CHECK_INT(safecp_dirty_file_fd(-1, &byfd, sizeof(byfd)), -EBADF);
	close(fd);
	unlink(path);
	CHECK_INT(safecp_dirty_file(path, &byname, sizeof(byname)), -ENOENT);
}

int main(void)
{
	TEST_PLAN(8);
	RUN(sysroot_seam);
	RUN(every_device);
	RUN(filled_up_to_size);
	RUN(selection_read_again);
	RUN(estimate_without_debugfs);
	RUN(fuseblk_data_in_the_device_cache);
	RUN(rate_between_readings);
	RUN(file_page_cache);
	return test_summary();
}
