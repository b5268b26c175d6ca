/* test_fs_traits.c: every row of the filesystem traits table, how a
 * filesystem finds its row, and the rules that tie the columns together. */
#include <stdlib.h>

#include "device/fs_traits.h"
#include "test.h"

#define SEC 1000000000U

static const struct fs_traits *row(enum fs_kind kind, const char *fstype, const char *blkid)
{
	return fs_traits_lookup(kind, fstype, blkid);
}

TEST(journaled_posix_rows)
{
	const char *ids[] = { "ext4", "xfs", "btrfs" };
	const enum fs_kind kinds[] = { FS_EXT4, FS_XFS, FS_BTRFS };

	for (size_t i = 0; i < 3; i++) {
		const struct fs_traits *t = row(kinds[i], ids[i], ids[i]);

		CHECK_STR(t->id, ids[i]);
		CHECK(t->on_block && t->journaled && t->tmpfile);
		CHECK(t->stores_modes && t->stores_symlinks);
		CHECK(!t->fuse && !t->device_cache && !t->format_from_blkid && !t->volume_fsync);
		CHECK_INT(t->mtime_step_ns, 1);
		CHECK_INT(t->name_case, FS_CASE_SENSITIVE);
		CHECK_INT(t->names, NAME_FS_POSIX);
		CHECK_U64(t->max_file_size, 0);
		CHECK_INT(t->write, FS_WRITE_BY_DIO);
		CHECK_INT(t->dirents, FS_DIRENTS_NONE);
	}
	/* ext2 and ext3 come through the ext4 driver's kind; ext3 has a
	 * journal, ext2 none */
	CHECK_STR(row(fs_kind_from_name("ext3"), "ext3", NULL)->id, "ext4");
	CHECK_STR(row(fs_kind_from_name("ext2"), "ext2", NULL)->id, "ext2");
	CHECK(!row(fs_kind_from_name("ext2"), "ext2", NULL)->journaled);
	CHECK(row(fs_kind_from_name("ext2"), "ext2", NULL)->tmpfile);
}

TEST(f2fs_row)
{
	const struct fs_traits *t = row(FS_F2FS, "f2fs", NULL);

	CHECK_STR(t->id, "f2fs");
	CHECK(t->on_block && !t->journaled && t->tmpfile && t->stores_modes);
	CHECK_INT(t->write, FS_WRITE_BY_DIO);
	CHECK_INT(t->names, NAME_FS_POSIX);
}

TEST(vfat_row)
{
	const struct fs_traits *t = row(FS_VFAT, "vfat", "vfat");

	CHECK_STR(t->id, "vfat");
	CHECK_STR(row(fs_kind_from_name("msdos"), "msdos", NULL)->id, "vfat");
	CHECK(t->on_block && !t->journaled && !t->tmpfile && !t->fuse);
	CHECK(!t->stores_modes && !t->stores_symlinks && !t->volume_fsync);
	CHECK_INT(t->mtime_step_ns, 2 * SEC);
	CHECK_INT(t->name_case, FS_CASE_INSENSITIVE);
	CHECK_INT(t->names, NAME_FS_FAT);
	CHECK_U64(t->max_file_size, 0xffffffffULL);
	CHECK_INT(t->write, FS_WRITE_BY_DIO);
	CHECK_INT(t->dirents, FS_DIRENTS_FAT);
}

TEST(exfat_kernel_row)
{
	const struct fs_traits *t = row(FS_EXFAT, "exfat", "exfat");

	CHECK_STR(t->id, "exfat");
	CHECK(t->on_block && !t->journaled && !t->tmpfile && !t->fuse && !t->volume_fsync);
	CHECK(!t->stores_modes && !t->stores_symlinks);
	CHECK_INT(t->mtime_step_ns, 10000000);
	CHECK_INT(t->name_case, FS_CASE_INSENSITIVE);
	CHECK_INT(t->names, NAME_FS_EXFAT);
	CHECK_U64(t->max_file_size, 0);
	CHECK_INT(t->write, FS_WRITE_BY_DIO);
	CHECK_INT(t->dirents, FS_DIRENTS_EXFAT);
}

TEST(ntfs3_kernel_row)
{
	const struct fs_traits *t = row(FS_OTHER, "ntfs3", "ntfs");

	CHECK_STR(t->id, "ntfs3");
	CHECK_STR(row(FS_OTHER, "ntfs", NULL)->id, "ntfs3");
	CHECK(t->on_block && !t->fuse && !t->journaled && !t->tmpfile);
	CHECK(t->stores_modes && t->stores_symlinks);
	CHECK_INT(t->mtime_step_ns, 100);
	CHECK_INT(t->names, NAME_FS_NTFS);
	CHECK_INT(t->write, FS_WRITE_BY_DIO);
}

/* What every FUSE daemon on a block device shares. */
static void check_fuseblk_common(const struct fs_traits *t)
{
	CHECK(t->on_block && t->fuse && t->device_cache && t->format_from_blkid);
	CHECK(!t->journaled && !t->tmpfile && !t->stores_modes && !t->stores_symlinks);
	CHECK_INT(t->name_case, FS_CASE_INSENSITIVE);
	CHECK_INT(t->write, FS_WRITE_SYNC_WINDOW);
}

TEST(exfat_fuse_row)
{
	const struct fs_traits *t = row(FS_FUSEBLK, "fuseblk", "exfat");

	CHECK_STR(t->id, "exfat-fuse");
	check_fuseblk_common(t);
	CHECK(t->volume_fsync);
	CHECK(!t->fsync_noop); /* exfat_fsync writes the device (measured) */
	CHECK_INT(t->dirents, FS_DIRENTS_NONE);
	CHECK(!t->rename_sets_mtime);
	CHECK_INT(t->mtime_step_ns, 1 * SEC);
	CHECK_INT(t->names, NAME_FS_EXFAT);
	CHECK_U64(t->max_file_size, 0);
}

TEST(fusefat_blkdev_row)
{
	const struct fs_traits *t = row(FS_FUSEBLK, "fuseblk", "vfat");

	CHECK_STR(t->id, "fusefat-blkdev");
	CHECK(row(FS_FUSEBLK, "fuseblk", "msdos") == t);
	check_fuseblk_common(t);
	CHECK(!t->volume_fsync);
	CHECK(t->fsync_noop); /* fusefat's fsync is a stub */
	CHECK(t->statfs_clusters); /* its statfs counts clusters, in 1 KiB blocks */
	CHECK_INT(t->dirents, FS_DIRENTS_FAT);
	CHECK_INT(t->mtime_step_ns, 2 * SEC);
	CHECK(t->rename_sets_mtime); /* fusefat: the rename's time */
	CHECK_INT(t->names, NAME_FS_FUSEFAT);
	CHECK_U64(t->max_file_size, 0xffffffffULL);
}

TEST(ntfs_3g_row)
{
	const struct fs_traits *t = row(FS_FUSEBLK, "fuseblk", "ntfs");

	CHECK_STR(t->id, "ntfs-3g");
	CHECK(row(FS_FUSEBLK, "fuseblk", "ntfs3") == t);
	check_fuseblk_common(t);
	CHECK(t->volume_fsync); /* its fsync syncs the whole device */
	CHECK(!t->fsync_noop); /* ntfs-3g fsyncs the device */
	CHECK_INT(t->dirents, FS_DIRENTS_NONE);
	CHECK_INT(t->mtime_step_ns, 100);
	CHECK_INT(t->names, NAME_FS_NTFS);
	CHECK_U64(t->max_file_size, 0);
}

/* blkid could not tell (no root) or named something we do not know: the
 * traits that are safe whichever daemon it is */
TEST(fuseblk_unknown_is_safe)
{
	const char *blkids[] = { NULL, "hfsplus", "" };

	for (size_t i = 0; i < 3; i++) {
		const struct fs_traits *t = row(FS_FUSEBLK, "fuseblk", blkids[i]);

		CHECK_STR(t->id, "fuseblk");
		check_fuseblk_common(t);
		CHECK(!t->volume_fsync); /* fsync of every file, not one for all */
		CHECK_INT(t->mtime_step_ns, 2 * SEC);
		CHECK(t->rename_sets_mtime); /* it may be fusefat */
		CHECK(t->fsync_noop);        /* so may its fsync */
		CHECK(!t->statfs_clusters);  /* but its statfs is taken as it is */
		CHECK_INT(t->dirents, FS_DIRENTS_NONE);
		CHECK_INT(t->names, NAME_FS_FUSEBLK);
	}
	/* the mount's fstype never names a fuseblk row */
	CHECK_STR(row(FS_FUSEBLK, "exfat", NULL)->id, "fuseblk");
}

TEST(fuse_rows)
{
	const struct fs_traits *t = row(FS_FUSE, "fuse.sshfs", NULL);

	CHECK_STR(t->id, "fuse");
	CHECK(!t->on_block && t->fuse && !t->device_cache && !t->format_from_blkid);
	CHECK(!t->tmpfile && !t->journaled && !t->volume_fsync);
	CHECK_INT(t->write, FS_WRITE_SYNC_WINDOW);
	CHECK_INT(t->names, NAME_FS_POSIX);
	CHECK_INT(t->name_case, FS_CASE_SENSITIVE);
	CHECK_INT(t->mtime_step_ns, 2 * SEC);

	t = row(FS_FUSE, "fuse.fusefat", NULL);
	CHECK_STR(t->id, "fusefat");
	CHECK(!t->on_block && t->fuse && !t->tmpfile);
	CHECK_INT(t->write, FS_WRITE_SYNC_WINDOW);
	CHECK_INT(t->names, NAME_FS_FUSEFAT);
	CHECK_INT(t->name_case, FS_CASE_INSENSITIVE);
	CHECK_INT(t->mtime_step_ns, 2 * SEC);
}

TEST(noblock_rows)
{
	const struct fs_traits *t = row(FS_NOBLOCK, "tmpfs", NULL);

	CHECK_STR(t->id, "tmpfs");
	CHECK(!t->on_block && !t->fuse && t->tmpfile && !t->journaled);
	CHECK(t->stores_modes && t->stores_symlinks);
	CHECK_INT(t->mtime_step_ns, 1);
	CHECK_INT(t->names, NAME_FS_POSIX);
	CHECK_INT(t->write, FS_WRITE_BY_DIO);

	t = row(FS_NOBLOCK, "nfs4", NULL);
	CHECK_STR(t->id, "noblock");
	CHECK(!t->on_block && !t->fuse && t->tmpfile && !t->journaled && t->stores_modes);
	CHECK_INT(t->mtime_step_ns, 2 * SEC);
	CHECK_INT(t->write, FS_WRITE_BY_DIO);
}

TEST(other_row)
{
	const struct fs_traits *t = row(FS_OTHER, "hfsplus", NULL);

	CHECK_STR(t->id, "other");
	CHECK(t->on_block && !t->fuse && t->tmpfile && !t->journaled);
	CHECK(t->stores_modes && t->stores_symlinks && !t->volume_fsync);
	CHECK_INT(t->names, NAME_FS_POSIX);
	CHECK_INT(t->write, FS_WRITE_BY_DIO);
	CHECK_INT(t->mtime_step_ns, 2 * SEC);
	/* nothing known, and a kind past the enum */
	CHECK(fs_traits_of(NULL) == t);
	CHECK(row(FS_OTHER, NULL, NULL) == t);
	CHECK(row((enum fs_kind)99, "ext4", "ext4") == t);
}

TEST(of_target)
{
	char fuseblk[] = "fuseblk", exfat[] = "exfat", fusefat[] = "fuse.fusefat", vfat[] = "vfat";
	struct target t = { .kind = FS_FUSEBLK, .fstype = fuseblk, .blkid_fstype = exfat };

	CHECK_STR(fs_traits_of(&t)->id, "exfat-fuse");
	t.blkid_fstype = NULL;
	CHECK_STR(fs_traits_of(&t)->id, "fuseblk");
	t = (struct target){ .kind = FS_FUSE, .fstype = fusefat };
	CHECK_STR(fs_traits_of(&t)->id, "fusefat");
	t = (struct target){ .kind = FS_VFAT, .fstype = vfat, .blkid_fstype = vfat };
	CHECK_STR(fs_traits_of(&t)->id, "vfat");
}

/* Columns that must agree in every row, and every row reachable. */
TEST(table_rules)
{
	size_t n;
	const struct fs_traits *tab = fs_traits_table(&n);

	CHECK(n >= 15);
	for (size_t i = 0; i < n; i++) {
		const struct fs_traits *t = &tab[i];

		if (!t->id) {
			FAIL_AT("row %zu has no id", i);
			continue;
		}
		/* plan_names.c folds case by the name family */
		if ((t->name_case == FS_CASE_INSENSITIVE) != name_fs_folds_case(t->names))
			FAIL_AT("%s: case and name rules disagree", t->id);
		/* a daemon's writes are bounded only by fdatasync, and O_TMPFILE
		 * is never tried through one */
		if (t->fuse != (t->write == FS_WRITE_SYNC_WINDOW) || (t->fuse && t->tmpfile))
			FAIL_AT("%s: fuse, write and tmpfile disagree", t->id);
		if ((t->volume_fsync || t->device_cache || t->format_from_blkid) && !t->fuse)
			FAIL_AT("%s: a daemon trait without a daemon", t->id);
		/* the fallback syncs the device the daemon writes */
		if (t->fsync_noop && !t->device_cache)
			FAIL_AT("%s: fsync_noop without a device cache to sync", t->id);
		if (t->device_cache && !t->on_block)
			FAIL_AT("%s: a device cache without a device", t->id);
		if (t->mtime_step_ns == 0 || t->mtime_step_ns > 2 * SEC)
			FAIL_AT("%s: mtime step %u", t->id, t->mtime_step_ns);
		for (size_t j = 0; j < i; j++)
			if (tab[j].id && strcmp(tab[j].id, t->id) == 0)
				FAIL_AT("%s: two rows", t->id);
	}
}

/* Every row is some filesystem's: a row no lookup returns is dead. */
TEST(rows_reachable)
{
	static const struct {
		enum fs_kind kind;
		const char *fstype, *blkid;
	} fs[] = {
		{ FS_EXT4, "ext4", NULL },       { FS_XFS, "xfs", NULL },
		{ FS_EXT4, "ext2", NULL },
		{ FS_BTRFS, "btrfs", NULL },     { FS_F2FS, "f2fs", NULL },
		{ FS_VFAT, "vfat", NULL },       { FS_EXFAT, "exfat", NULL },
		{ FS_OTHER, "ntfs3", NULL },     { FS_FUSEBLK, "fuseblk", "exfat" },
		{ FS_FUSEBLK, "fuseblk", "vfat" }, { FS_FUSEBLK, "fuseblk", "ntfs" },
		{ FS_FUSEBLK, "fuseblk", NULL }, { FS_FUSE, "fuse.fusefat", NULL },
		{ FS_FUSE, "fuse.sshfs", NULL }, { FS_NOBLOCK, "tmpfs", NULL },
		{ FS_NOBLOCK, "nfs", NULL },     { FS_OTHER, "hfsplus", NULL },
	};
	size_t n;
	const struct fs_traits *tab = fs_traits_table(&n);

	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t j = 0; j < sizeof(fs) / sizeof(fs[0]); j++)
			found |= row(fs[j].kind, fs[j].fstype, fs[j].blkid) == &tab[i];
		if (!found)
			FAIL_AT("row %zu (%s): no filesystem finds it", i, tab[i].id ? tab[i].id : "?");
	}
}

int main(void)
{
	TEST_PLAN(15);
	RUN(journaled_posix_rows);
	RUN(f2fs_row);
	RUN(vfat_row);
	RUN(exfat_kernel_row);
	RUN(ntfs3_kernel_row);
	RUN(exfat_fuse_row);
	RUN(fusefat_blkdev_row);
	RUN(ntfs_3g_row);
	RUN(fuseblk_unknown_is_safe);
	RUN(fuse_rows);
	RUN(noblock_rows);
	RUN(other_row);
	RUN(of_target);
	RUN(table_rules);
	RUN(rows_reachable);
	return test_summary();
}
