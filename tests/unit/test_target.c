/* test_target.c: target_probe() on fixture trees (bdi resolution for a
 * partition, btrfs and fuseblk, transports, queue facts, identity,
 * non-block filesystems) and on the real root (missing paths, a
 * destination that does not exist yet, /proc). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/blockid.h"
#include "base/cleanup.h"
#include "device/mount.h"
#include "device/sysfs_disk.h"
#include "util/sysroot.h"
#include "device/target.h"
#include "test.h"

DEFINE_CLEANUP_FUNC(struct target, target_free)

#define USB_DISK "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb"

static struct target *probe_in(const char *fixture, const char *path)
{
	char root[4096];
	struct target *t = NULL;
	int r;

	snprintf(root, sizeof(root), "%s/%s", FIXTURES_DIR, fixture);
	sysroot_set(root);
	r = target_probe(path, &t);
	sysroot_set(NULL);
	if (r != 0)
		FAIL_AT("target_probe(%s) in %s = %d (%s)", path, fixture, r, strerror(-r));
	return t;
}

TEST(usb_stick_partition)
{
	_cleanup_(target_freep) struct target *t =
		probe_in("target-usb", "/media/user/STICK/DCIM/new.jpg");

	if (!t)
		return;
	CHECK_STR(t->path, "/media/user/STICK/DCIM/new.jpg");
	CHECK_STR(t->mountpoint, "/media/user/STICK");
	CHECK_STR(t->fstype, "vfat");
	CHECK_INT(t->kind, FS_VFAT);
	CHECK_STR(t->source, "/dev/sdb1");
	CHECK(t->has_block);
	CHECK_STR(t->devname, "sdb1");
	CHECK_STR(t->devnode, "/dev/sdb1");
	CHECK_INT(t->dev_major, 8);
	CHECK_INT(t->dev_minor, 17);
	CHECK(t->is_partition);
	CHECK_U64(t->dev_size_bytes, 30029824ULL * 512);
	CHECK_STR(t->diskname, "sdb");
	CHECK_INT(t->disk_major, 8);
	CHECK_INT(t->disk_minor, 16);
	CHECK_STR(t->sysfs_path, USB_DISK);
	/* the usb_device, not the interface below it nor the root hub above */
	CHECK_STR(t->usb_sysfs_path, "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1");
	/* setup_bdev_super: a partition's fs uses the whole disk's bdi */
	CHECK_STR(t->bdi, "8:16");
	CHECK_STR(t->fs_bdi, "8:16");
	CHECK_INT(t->disk.transport, TRANSPORT_USB);
	CHECK_INT(t->disk.max_sectors_kb, 240);
	CHECK_INT(t->disk.max_hw_sectors_kb, 240);
	CHECK_INT(t->disk.nr_requests, 2);
	CHECK(t->disk.removable);
	CHECK(!t->disk.write_cache_back);
	CHECK(t->disk.rotational);
	CHECK_STR(t->disk.vendor, "SanDisk");
	CHECK_STR(t->disk.model, "Cruzer Blade");
	CHECK_U64(t->disk.size_bytes, 30031872ULL * 512);
	/* names come from libblkid on real nodes only */
	CHECK(t->label == NULL && t->uuid == NULL && t->blkid_fstype == NULL);
}

TEST(sata_root_and_dm)
{
	_cleanup_(target_freep) struct target *t = probe_in("target-usb", "/etc/fstab");
	_cleanup_(target_freep) struct target *dm = probe_in("target-usb", "/srv/www/index.html");

	if (!t || !dm)
		return;
	CHECK_STR(t->devname, "sda2");
	CHECK_STR(t->diskname, "sda");
	CHECK_STR(t->bdi, "8:0");
	CHECK_INT(t->disk.transport, TRANSPORT_SATA);
	CHECK_STR(t->disk.vendor, "ATA");
	CHECK_STR(t->disk.model, "Samsung SSD 860");
	CHECK(t->disk.write_cache_back);
	CHECK(!t->disk.rotational);
	CHECK(!t->disk.removable);
	CHECK_STR(t->usb_sysfs_path, "");
	/* dm: the source names /dev/mapper, the dirty pages go to dm-0's bdi */
	CHECK_STR(dm->source, "/dev/mapper/cryptsrv");
	CHECK_STR(dm->devname, "dm-0");
	CHECK_STR(dm->devnode, "/dev/dm-0");
	CHECK(!dm->is_partition);
	CHECK_STR(dm->bdi, "253:0");
	CHECK_INT(dm->disk.transport, TRANSPORT_UNKNOWN);
}

TEST(loop_partition_captured)
{
	_cleanup_(target_freep) struct target *t = probe_in("target-loop", "/media/ext4/a/b");

	if (!t)
		return;
	CHECK_INT(t->kind, FS_EXT4);
	/* loop partitions get extended dev_t numbers (major 259) */
	CHECK_INT(t->fs_major, 259);
	CHECK_STR(t->devname, "loop1p1");
	CHECK(t->is_partition);
	CHECK_U64(t->dev_size_bytes, 100000ULL * 1024);
	CHECK_STR(t->diskname, "loop1");
	CHECK_INT(t->disk_major, 7);
	CHECK_INT(t->disk_minor, 1);
	CHECK_STR(t->bdi, "7:1");
	CHECK_STR(t->sysfs_path, "/sys/devices/virtual/block/loop1");
	CHECK_INT(t->disk.transport, TRANSPORT_LOOP);
	CHECK_STR(t->disk.model, "/dev/shm/tgt-ext4.img");
	CHECK_INT(t->disk.logical_block_size, 512);
	CHECK_INT(t->disk.physical_block_size, 512);
	CHECK_INT(t->disk.max_sectors_kb, 1280);
	CHECK_INT(t->disk.max_hw_sectors_kb, 1280);
	CHECK_INT(t->disk.optimal_io_size, 0);
	CHECK_INT(t->disk.minimum_io_size, 512);
	CHECK_INT(t->disk.nr_requests, 128);
	CHECK_INT(t->disk.dma_alignment, 511);
	CHECK(t->disk.write_cache_back);
	CHECK(!t->disk.rotational);
	CHECK_U64(t->disk.size_bytes, 300ULL << 20);
}

TEST(btrfs_bdi)
{
	_cleanup_(target_freep) struct target *t = probe_in("target-loop", "/media/btrfs/x");
	_cleanup_(target_freep) struct target *sub = probe_in("target-loop", "/media/btrfs-sub/y");

	if (!t || !sub)
		return;
	CHECK_INT(t->kind, FS_BTRFS);
	/* mountinfo shows the anonymous dev; the device comes from the source */
	CHECK_INT(t->fs_major, 0);
	CHECK_INT(t->fs_minor, 41);
	CHECK(t->has_block);
	CHECK_STR(t->devname, "loop3");
	CHECK_INT(t->dev_major, 7);
	CHECK_INT(t->dev_minor, 3);
	CHECK_STR(t->bdi, "btrfs-10");
	CHECK_STR(t->fs_bdi, "btrfs-10");
	CHECK_INT(t->disk.transport, TRANSPORT_LOOP);
	CHECK_STR(sub->mountpoint, "/media/btrfs-sub");
	CHECK_STR(sub->fs_root, "/sub");
	CHECK_STR(sub->bdi, "btrfs-10");
	CHECK_STR(sub->diskname, "loop3");
}

TEST(fuseblk_bdi)
{
	_cleanup_(target_freep) struct target *t = probe_in("target-loop", "/media/exfat/new.jpg");

	if (!t)
		return;
	CHECK_STR(t->fstype, "fuseblk");
	CHECK_INT(t->kind, FS_FUSEBLK);
	CHECK(t->has_block);
	CHECK_STR(t->devname, "loop4");
	/* the daemon writes through the disk's page cache: data on 7:4 */
	CHECK_STR(t->bdi, "7:4");
	CHECK_STR(t->fs_bdi, "7:4-fuseblk");
	CHECK_STR(t->disk.model, "/dev/shm/tgt-exfat.img");
}

TEST(xfs_and_virtio_root)
{
	_cleanup_(target_freep) struct target *x = probe_in("target-loop", "/media/xfs");
	_cleanup_(target_freep) struct target *r = probe_in("target-loop", "/home/user");

	if (!x || !r)
		return;
	CHECK_STR(x->devname, "loop0");
	CHECK(!x->is_partition);
	CHECK_STR(x->bdi, "7:0");
	CHECK_U64(x->dev_size_bytes, x->disk.size_bytes);
	CHECK_STR(r->devname, "vda");
	CHECK_INT(r->disk.transport, TRANSPORT_VIRTIO);
	CHECK_INT(r->disk.physical_block_size, 4096);
	CHECK_INT(r->disk.max_sectors_kb, 4096);
	CHECK_INT(r->disk.nr_requests, 256);
	CHECK(r->disk.rotational);
	CHECK_STR(r->disk.vendor, "");
	CHECK_STR(r->bdi, "254:0");
}

TEST(nvme_and_mmc)
{
	_cleanup_(target_freep) struct target *n = probe_in("target-laptop", "/home/user/x");
	_cleanup_(target_freep) struct target *m = probe_in("target-laptop", "/media/user/CAMERA/DCIM");

	if (!n || !m)
		return;
	CHECK_STR(n->devname, "nvme0n1p2");
	CHECK_STR(n->diskname, "nvme0n1");
	CHECK_INT(n->disk_major, 259);
	CHECK_INT(n->disk_minor, 0);
	CHECK_STR(n->bdi, "259:0");
	CHECK_INT(n->disk.transport, TRANSPORT_NVME);
	CHECK_STR(n->disk.model, "Samsung SSD 970 EVO Plus 1TB");
	CHECK_STR(n->disk.vendor, "");
	CHECK_INT(n->disk.nr_requests, 1023);
	CHECK_INT(m->kind, FS_EXFAT);
	CHECK_STR(m->devname, "mmcblk0p1");
	CHECK_STR(m->diskname, "mmcblk0");
	CHECK_STR(m->bdi, "179:0");
	CHECK_INT(m->disk.transport, TRANSPORT_MMC);
	CHECK_STR(m->disk.model, "SC64G");
	CHECK(!m->disk.write_cache_back);
	CHECK(!m->disk.removable);
}

static void check_noblock(const char *fixture, const char *path, enum fs_kind kind,
			  const char *bdi)
{
	_cleanup_(target_freep) struct target *t = probe_in(fixture, path);

	if (!t)
		return;
	if (t->kind != kind || t->has_block || strcmp(t->bdi, bdi) != 0 ||
	    strcmp(t->fs_bdi, bdi) != 0 || t->devname[0] || t->disk.max_sectors_kb)
		FAIL_AT("%s: kind %s has_block %d bdi '%s' fs_bdi '%s' dev '%s', expected "
			"kind %s, no block, bdi '%s'",
			path, fs_kind_name(t->kind), t->has_block, t->bdi, t->fs_bdi, t->devname,
			fs_kind_name(kind), bdi);
}

TEST(not_on_a_block_device)
{
	check_noblock("target-usb", "/home/user/doc.txt", FS_NOBLOCK, "0:52");
	check_noblock("target-usb", "/home/user/remote/x", FS_FUSE, "0:60");
	check_noblock("target-usb", "/var/lib/docker/overlay2/3f1c/merged/etc", FS_NOBLOCK, "");
	check_noblock("target-usb", "/tmp/x", FS_NOBLOCK, "");
	check_noblock("target-loop", "/dev/shm/f", FS_NOBLOCK, "");
	check_noblock("target-loop", "/proc/self/status", FS_NOBLOCK, "");
}

TEST(stacked_and_hidden_mounts)
{
	_cleanup_(target_freep) struct target *h = probe_in("target-laptop", "/mnt/a/b/c");
	_cleanup_(target_freep) struct target *s = probe_in("target-laptop", "/mnt/stack/f");

	if (!h || !s)
		return;
	CHECK_STR(h->mountpoint, "/mnt/a");
	CHECK_STR(h->fs_root, "/srv/a");
	CHECK_STR(h->devname, "nvme0n1p2");
	CHECK_STR(s->fstype, "exfat");
	CHECK_STR(s->devname, "mmcblk0p1");
}

TEST(probe_listed_mounts)
{
	struct mount_entry *list = NULL;
	size_t n = 0;
	int seen = 0;

	sysroot_set(FIXTURES_DIR "/target-laptop");
	CHECK_INT(mount_list(&list, &n), 0);
	for (size_t i = 0; i < n; i++) {
		struct target *t = NULL;

		CHECK_INT(target_probe_mount(&list[i], &t), 0);
		if (!t)
			continue;
		CHECK(t->path == NULL);
		CHECK_STR(t->mountpoint, list[i].target);
		/* the hidden tmpfs is answered for itself, not for what hides it */
		if (list[i].id == 80) {
			CHECK_STR(t->source, "hidden");
			CHECK_INT(t->kind, FS_NOBLOCK);
			seen++;
		}
		if (list[i].id == 31) {
			CHECK_STR(t->devname, "nvme0n1p1");
			CHECK_STR(t->bdi, "259:0");
			seen++;
		}
		target_free(t);
	}
	sysroot_set(NULL);
	CHECK_INT(seen, 2);
	mount_list_free(list, n);
}

TEST(blockdev_without_mount)
{
	struct target *t = NULL;

	sysroot_set(FIXTURES_DIR "/target-usb");
	CHECK_INT(target_probe_blockdev(8, 16, &t), 0);
	if (t) {
		CHECK(t->mountpoint == NULL && t->path == NULL && t->fstype == NULL);
		CHECK(!t->is_partition);
		CHECK_STR(t->diskname, "sdb");
		CHECK_STR(t->bdi, "8:16");
		CHECK_INT(t->disk.max_sectors_kb, 240);
		CHECK_INT(t->kind, FS_OTHER);
	}
	target_free(t);
	t = NULL;
	CHECK_INT(target_probe_devname("/dev/sdb1", &t), 0);
	if (t) {
		CHECK(t->is_partition);
		CHECK_INT(t->dev_minor, 17);
		CHECK_STR(t->diskname, "sdb");
	}
	target_free(t);
	t = NULL;
	CHECK_INT(target_probe_devname("dm-0", &t), 0);
	CHECK(t && t->dev_major == 253);
	target_free(t);
	t = NULL;
	/* no /dev here: the mapper name is found in dm/name */
	CHECK_INT(target_probe_devname("/dev/mapper/cryptsrv", &t), 0);
	CHECK(t && strcmp(t->devname, "dm-0") == 0);
	target_free(t);
	t = NULL;
	CHECK_INT(target_probe_blockdev(8, 99, &t), -ENOENT);
	CHECK_INT(target_probe_devname("/dev/sdz", &t), -ENOENT);
	CHECK_INT(target_probe_devname("/dev/mapper/nope", &t), -ENOENT);
	CHECK(t == NULL);
	sysroot_set(NULL);
}

TEST(transport_from_path)
{
	static const struct {
		const char *path;
		enum transport t;
	} cases[] = {
		{ USB_DISK, TRANSPORT_USB },
		/* an SD card in a USB reader is a USB device */
		{ "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/host7/target7:0:0/7:0:0:1/block/sdc",
		  TRANSPORT_USB },
		{ "/sys/devices/platform/fe320000.mmc/mmc_host/mmc1/mmc1:59b4/block/mmcblk1",
		  TRANSPORT_MMC },
		{ "/sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1",
		  TRANSPORT_NVME },
		{ "/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", TRANSPORT_NVME },
		{ "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda", TRANSPORT_VIRTIO },
		/* virtio-scsi: the virtio bus is the outer one */
		{ "/sys/devices/pci0000:00/0000:00:03.0/virtio0/host0/target0:0:0/0:0:0:0/block/sda",
		  TRANSPORT_VIRTIO },
		{ "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda",
		  TRANSPORT_SATA },
		{ "/sys/devices/pci0000:00/0000:00:10.0/host2/target2:0:0/2:0:0:0/block/sda",
		  TRANSPORT_SCSI },
		{ "/sys/devices/virtual/block/loop7", TRANSPORT_LOOP },
		{ "/sys/devices/virtual/block/dm-0", TRANSPORT_UNKNOWN },
		{ "/sys/devices/virtual/block/zram0", TRANSPORT_UNKNOWN },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum transport got = transport_from_sysfs_path(cases[i].path);

		if (got != cases[i].t)
			FAIL_AT("%s: %s, expected %s", cases[i].path, transport_name(got),
				transport_name(cases[i].t));
	}
	CHECK_STR(transport_name(TRANSPORT_USB), "usb");
	CHECK_STR(transport_name(TRANSPORT_SATA), "sata");
	CHECK_STR(transport_name((enum transport)99), "unknown");
}

TEST(kind_names)
{
	CHECK_INT(fs_kind_from_name("ext4"), FS_EXT4);
	CHECK_INT(fs_kind_from_name("ext3"), FS_EXT4);
	CHECK_INT(fs_kind_from_name("vfat"), FS_VFAT);
	CHECK_INT(fs_kind_from_name("exfat"), FS_EXFAT);
	CHECK_INT(fs_kind_from_name("fuseblk"), FS_FUSEBLK);
	CHECK_INT(fs_kind_from_name("fuse.sshfs"), FS_FUSE);
	CHECK_INT(fs_kind_from_name("fuse"), FS_FUSE);
	CHECK_INT(fs_kind_from_name("fusectl"), FS_NOBLOCK);
	CHECK_INT(fs_kind_from_name("overlay"), FS_NOBLOCK);
	CHECK_INT(fs_kind_from_name("nfs4"), FS_NOBLOCK);
	CHECK_INT(fs_kind_from_name("ntfs3"), FS_OTHER);
	CHECK_INT(fs_kind_from_name(NULL), FS_OTHER);
	CHECK_STR(fs_kind_name(FS_FUSEBLK), "fuseblk");
	CHECK_STR(fs_kind_name(FS_NOBLOCK), "noblock");
	CHECK_STR(fs_kind_name(fs_kind_from_name("btrfs")), "btrfs");
}

TEST(real_root)
{
	char dir[] = "/tmp/safecp-test-target.XXXXXX";
	_cleanup_free_ char *file = NULL;
	struct target *t = NULL, *d = NULL;

	sysroot_set(NULL);
	CHECK_INT(target_probe("/nonexistent-safecp-dir/new.jpg", &t), -ENOENT);
	CHECK(t == NULL);
	CHECK_INT(target_probe("/proc/self", &t), 0);
	if (t) {
		CHECK_STR(t->fstype, "proc");
		CHECK_INT(t->kind, FS_NOBLOCK);
		CHECK(!t->has_block);
	}
	target_free(t);
	t = NULL;
	if (!mkdtemp(dir)) {
		FAIL_AT("mkdtemp: %s", strerror(errno));
		return;
	}
	CHECK(asprintf(&file, "%s/new.jpg", dir) > 0);
	CHECK_INT(target_probe(file, &t), 0);
	CHECK_INT(target_probe(dir, &d), 0);
	if (t && d) {
		CHECK_STR(t->path, file);
		CHECK_STR(t->mountpoint, d->mountpoint);
		CHECK_INT(t->fs_major, d->fs_major);
		CHECK_INT(t->fs_minor, d->fs_minor);
		CHECK_STR(t->bdi, d->bdi);
	}
	target_free(t);
	target_free(d);
	rmdir(dir);
}

TEST(errors)
{
	struct target *t = NULL;
	char *node = NULL;

	sysroot_set(FIXTURES_DIR "/target-usb");
	CHECK_INT(target_probe("relative/path", &t), -EINVAL);
	sysroot_set(FIXTURES_DIR "/no-such-fixture");
	CHECK_INT(target_probe("/media", &t), -ENOENT);
	sysroot_set(NULL);
	CHECK(t == NULL);
	CHECK_INT(blockid_resolve("/dev/null", &node), -ENOTBLK);
	CHECK_INT(blockid_resolve("/nonexistent-safecp-dev", &node), -ENOENT);
	CHECK(node == NULL);
}

int main(void)
{
	TEST_PLAN(15);
	RUN(usb_stick_partition);
	RUN(sata_root_and_dm);
	RUN(loop_partition_captured);
	RUN(btrfs_bdi);
	RUN(fuseblk_bdi);
	RUN(xfs_and_virtio_root);
	RUN(nvme_and_mmc);
	RUN(not_on_a_block_device);
	RUN(stacked_and_hidden_mounts);
	RUN(probe_listed_mounts);
	RUN(blockdev_without_mount);
	RUN(transport_from_path);
	RUN(kind_names);
	RUN(real_root);
	RUN(errors);
	return test_summary();
}
