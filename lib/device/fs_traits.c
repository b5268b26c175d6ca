/* fs_traits.c: the table of filesystem traits and its lookup.
 *
 * Where the values come from:
 * - journaled: ext4, xfs and btrfs commit a rename in the same or a later
 *   transaction than the new inode's size and blocks (copy_batch.c), so
 *   the engine leaves out the syncfs before its renames.  ext2 and ext3
 *   are served by the ext4 driver and share its row (fs_kind_from_name).
 * - tmpfile: the kernel drivers of vfat, exfat and ntfs3 have no ->tmpfile,
 *   FUSE gets none from the daemons we know; elsewhere it is tried, and
 *   the engine falls back to a named temporary when it fails once.
 * - modes, symlinks: FAT and exFAT have no field for either; the FUSE
 *   daemons on a block device keep neither by default.
 * - mtime step: FAT stores 2 s, exFAT 10 ms (its 10 ms increment field),
 *   but exfat-fuse converts from whole seconds (libexfat
 *   exfat_unix2exfat takes a time_t), NTFS 100 ns.
 * - owners, xattrs, ACLs (issue 29): the POSIX block filesystems keep all
 *   three (ext4 and xfs have user_xattr and acl on by default, btrfs
 *   always); FAT and exFAT none; ntfs-3g without a user mapping takes
 *   chown, chmod and setfacl and keeps nothing of them (its "silent"
 *   default), but keeps user.* as named streams (streams_interface=xattr,
 *   its default; measured: setfattr and getfattr on a fresh mkntfs -Q
 *   stick); fusefat and exfat-fuse have no xattr handlers.  Where the
 *   table cannot know (FUSE, tmpfs without CONFIG_TMPFS_POSIX_ACL, a
 *   network) the row says yes and the engine takes EOPNOTSUPP as the
 *   answer, once per run (copy_meta.c).
 * - max file size: FAT's 32-bit size field; every other row asks
 *   fpathconf(_PC_FILESIZEBITS) (plan_check.c).
 * - volume fsync: exfat-fuse's fsync and fsyncdir flush every node, the
 *   bitmap and the device (exfat_flush_nodes, exfat_flush, fsync);
 *   ntfs-3g's fsync is an fsync of the device, nothing else ("sync the
 *   full device"), and every write, utimens or rename it serves closes
 *   the inodes it opened, which writes their records: each request's
 *   effect is in the device's cache when it returns (FUSE without
 *   writeback cache), so one fsync covers all that came before.
 * - fsync noop: fusefat 0.1a's fsync is a stub that returns 0, it has no
 *   fsyncdir (ENOSYS: the kernel then answers every later one with 0),
 *   and it writes the device with plain buffered write()s: after an
 *   fsync its data is still dirty in the device's cache (measured,
 *   doc/kernel.md 1.5).  The catch-all fuseblk row may be fusefat.
 * - rename sets mtime: fusefat 1.0 gives a renamed file the time of the
 *   rename (measured: utimensat, fsync, rename; stat after the attribute
 *   cache expires shows the rename's time), so the engine sets the times
 *   again on the final name; harmless where it is not needed (fuseblk).
 * - no rewrite: fusefat 0.1a refuses every write through a file opened
 *   again (O_WRONLY or O_RDWR, with or without O_APPEND: EPERM; measured),
 *   and a file renamed while open is written into a directory entry it
 *   no longer has; only a file it created can be written.  So a partial
 *   cannot be resumed there, nor its record grow: none is made.  The
 *   catch-all fuseblk row may be fusefat.
 * - statfs clusters: fusefat 0.1a answers statfs with f_bsize 1024,
 *   f_blocks = clusters x (cluster / 1024) rounded down (0 for 512-byte
 *   clusters: FAT32 volumes under 260 MB), f_files and f_ffree the total
 *   and free clusters (measured on 41, 64, 128 and 300 MiB sticks), so
 *   the space check reads the cluster from them; its dirents are then
 *   counted like vfat's.
 * - write: a FUSE daemon dirties the device's cache (fuseblk) or its own
 *   storage, where neither O_DIRECT nor sync_file_range on our file
 *   bounds anything; only fdatasync per window does (io/sizing.c).
 * - names, case: name_rules.h's families; FAT, exFAT and NTFS are read by
 *   Windows, so names differing in case are one name (ntfs-3g itself
 *   would keep both).
 * Rows marked "as before the table" keep what the scattered checks
 * decided when they were gathered here, though the filesystem would
 * allow a better answer: changing them changes behaviour, so they wait
 * for their own commit. */
#include <string.h>

#include "device/fs_traits.h"
#include "base/cleanup.h"

#define NSEC 1U
#define MSEC 1000000U
#define SEC 1000000000U

enum row {
	ROW_OTHER = 0, /* first: a kind missing from by_kind falls here */
	ROW_EXT4,
	ROW_EXT2,
	ROW_XFS,
	ROW_BTRFS,
	ROW_F2FS,
	ROW_VFAT,
	ROW_EXFAT,
	ROW_NTFS3,
	ROW_EXFAT_FUSE,
	ROW_FUSEFAT_BLK,
	ROW_NTFS_3G,
	ROW_FUSEBLK,
	ROW_FUSEFAT,
	ROW_FUSE,
	ROW_TMPFS,
	ROW_NOBLOCK,
	N_ROWS,
};

/* A kernel filesystem on a block device that keeps POSIX metadata. */
#define POSIX_BLOCK(name, journal) \
	{ .id = name, .on_block = true, .journaled = journal, .tmpfile = true, \
	  .stores_modes = true, .stores_symlinks = true, .hard_links = true, \
	  .mtime_step_ns = NSEC, .holes = true, \
	  .stores_owners = true, .stores_xattrs = true, .stores_acls = true, \
	  .name_case = FS_CASE_SENSITIVE, .names = NAME_FS_POSIX, \
	  .write = FS_WRITE_BY_DIO }

/* A FUSE daemon on a block device: fsync per file, no O_TMPFILE, no modes,
 * no symlinks, sync-window writes, Windows names. */
#define FUSEBLK_DAEMON(name) \
	.id = name, .on_block = true, .fuse = true, .device_cache = true, \
	.format_from_blkid = true, .name_case = FS_CASE_INSENSITIVE, \
	.write = FS_WRITE_SYNC_WINDOW

static const struct fs_traits rows[N_ROWS] = {
	[ROW_EXT4] = POSIX_BLOCK("ext4", true),
	/* ext2 comes through the ext4 driver's kind but has no journal: a
	 * rename is not ordered after the file's metadata */
	[ROW_EXT2] = POSIX_BLOCK("ext2", false),
	[ROW_XFS] = POSIX_BLOCK("xfs", true),
	[ROW_BTRFS] = POSIX_BLOCK("btrfs", true),
	[ROW_F2FS] = POSIX_BLOCK("f2fs", false),
	[ROW_VFAT] = {
		.id = "vfat", .on_block = true, .mtime_step_ns = 2 * SEC,
		.name_case = FS_CASE_INSENSITIVE, .names = NAME_FS_FAT,
		.max_file_size = FS_FAT_MAX_FILE_SIZE, .write = FS_WRITE_BY_DIO,
		.dirents = FS_DIRENTS_FAT,
	},
	[ROW_EXFAT] = {
		.id = "exfat", .on_block = true, .mtime_step_ns = 10 * MSEC,
		.name_case = FS_CASE_INSENSITIVE, .names = NAME_FS_EXFAT,
		.write = FS_WRITE_BY_DIO, .dirents = FS_DIRENTS_EXFAT,
	},
	/* kernel ntfs3 (also registered as "ntfs"): modes and symlinks as
	 * before the table, which knew it only by its names */
	[ROW_NTFS3] = {
		.id = "ntfs3", .on_block = true, .stores_modes = true, .stores_symlinks = true,
		.hard_links = true,
		.stores_owners = true, .stores_xattrs = true, .stores_acls = true,
		.mtime_step_ns = 100 * NSEC, .name_case = FS_CASE_INSENSITIVE,
		.names = NAME_FS_NTFS, .write = FS_WRITE_BY_DIO,
	},
	/* dirents: exFAT's are not counted on exfat-fuse, as before the table */
	[ROW_EXFAT_FUSE] = {
		FUSEBLK_DAEMON("exfat-fuse"), .volume_fsync = true, .mtime_step_ns = 1 * SEC,
		.names = NAME_FS_EXFAT,
	},
	/* fusefat -o blkdev */
	[ROW_FUSEFAT_BLK] = {
		FUSEBLK_DAEMON("fusefat-blkdev"), .mtime_step_ns = 2 * SEC, .names = NAME_FS_FUSEFAT,
		.max_file_size = FS_FAT_MAX_FILE_SIZE, .rename_sets_mtime = true,
		.fsync_noop = true, .statfs_clusters = true, .dirents = FS_DIRENTS_FAT,
		.no_rewrite = true,
	},
	/* symlinks: ntfs-3g stores them, but not counted so, as before the
	 * table; holes: a write past the end leaves the gap unallocated
	 * (measured: 1 MiB at 20 MiB of a 64 MiB file, 2048 blocks) */
	[ROW_NTFS_3G] = {
		FUSEBLK_DAEMON("ntfs-3g"), .volume_fsync = true, .mtime_step_ns = 100 * NSEC,
		.hard_links = true, .stores_xattrs = true,
		.names = NAME_FS_NTFS, .holes = true,
	},
	/* blkid could not say (no root): any of the three above, so what is
	 * safe for all: fsync per file and the device synced after it (it
	 * may be fusefat), nothing stored but data and names,
	 * the coarsest mtime step; no size limit, since refusing a large file
	 * that exfat-fuse would hold is worse than fusefat's EFBIG */
	[ROW_FUSEBLK] = {
		FUSEBLK_DAEMON("fuseblk"), .mtime_step_ns = 2 * SEC, .names = NAME_FS_FUSEBLK,
		.rename_sets_mtime = true, .fsync_noop = true, .no_rewrite = true,
	},
	/* fusefat without a block device: FAT names; modes, symlinks and
	 * the 4 GiB limit as before the table */
	[ROW_FUSEFAT] = {
		.id = "fusefat", .fuse = true, .stores_modes = true, .stores_symlinks = true,
		.stores_owners = true,
		.mtime_step_ns = 2 * SEC, .name_case = FS_CASE_INSENSITIVE, .names = NAME_FS_FUSEFAT,
		.write = FS_WRITE_SYNC_WINDOW, .rename_sets_mtime = true, .no_rewrite = true,
	},
	[ROW_FUSE] = {
		.id = "fuse", .fuse = true, .stores_modes = true, .stores_symlinks = true,
		.stores_owners = true, .stores_xattrs = true, .stores_acls = true,
		.mtime_step_ns = 2 * SEC, .names = NAME_FS_POSIX, .write = FS_WRITE_SYNC_WINDOW,
	},
	[ROW_TMPFS] = {
		.id = "tmpfs", .tmpfile = true, .stores_modes = true, .stores_symlinks = true,
		.holes = true, .hard_links = true,
		.stores_owners = true, .stores_xattrs = true, .stores_acls = true,
		.mtime_step_ns = NSEC, .names = NAME_FS_POSIX, .write = FS_WRITE_BY_DIO,
	},
	/* nfs, overlay, cifs...: what the server or the lower layer keeps */
	[ROW_NOBLOCK] = {
		.id = "noblock", .tmpfile = true, .stores_modes = true, .stores_symlinks = true,
		.stores_owners = true, .stores_xattrs = true, .stores_acls = true,
		.mtime_step_ns = 2 * SEC, .names = NAME_FS_POSIX, .write = FS_WRITE_BY_DIO,
	},
	[ROW_OTHER] = {
		.id = "other", .on_block = true, .tmpfile = true, .stores_modes = true,
		.stores_symlinks = true, .stores_owners = true, .stores_xattrs = true,
		.stores_acls = true, .mtime_step_ns = 2 * SEC, .names = NAME_FS_POSIX,
		.write = FS_WRITE_BY_DIO,
	},
};

static const enum row by_kind[] = {
	[FS_OTHER] = ROW_OTHER,     [FS_EXT4] = ROW_EXT4,       [FS_XFS] = ROW_XFS,
	[FS_BTRFS] = ROW_BTRFS,     [FS_VFAT] = ROW_VFAT,       [FS_EXFAT] = ROW_EXFAT,
	[FS_F2FS] = ROW_F2FS,       [FS_FUSEBLK] = ROW_FUSEBLK, [FS_FUSE] = ROW_FUSE,
	[FS_NOBLOCK] = ROW_NOBLOCK,
};

/* Rows a kind's name picks; for FS_FUSEBLK the name is blkid's type. */
static const struct {
	enum fs_kind kind;
	const char *name;
	enum row row;
} by_name[] = {
	{ FS_EXT4, "ext2", ROW_EXT2 },
	{ FS_FUSEBLK, "exfat", ROW_EXFAT_FUSE },
	{ FS_FUSEBLK, "vfat", ROW_FUSEFAT_BLK },
	{ FS_FUSEBLK, "msdos", ROW_FUSEFAT_BLK },
	{ FS_FUSEBLK, "ntfs", ROW_NTFS_3G },
	{ FS_FUSEBLK, "ntfs3", ROW_NTFS_3G },
	{ FS_FUSE, "fuse.fusefat", ROW_FUSEFAT },
	{ FS_OTHER, "ntfs3", ROW_NTFS3 },
	{ FS_OTHER, "ntfs", ROW_NTFS3 },
	{ FS_NOBLOCK, "tmpfs", ROW_TMPFS },
};

const struct fs_traits *fs_traits_lookup(enum fs_kind kind, const char *fstype,
					 const char *blkid_fstype)
{
	const char *name = kind == FS_FUSEBLK ? blkid_fstype : fstype;

	for (size_t i = 0; name && i < ARRAY_SIZE(by_name); i++)
		if (by_name[i].kind == kind && strcmp(name, by_name[i].name) == 0)
			return &rows[by_name[i].row];
	if ((unsigned)kind < ARRAY_SIZE(by_kind))
		return &rows[by_kind[kind]];
	return &rows[ROW_OTHER];
}

const struct fs_traits *fs_traits_of(const struct target *t)
{
	if (!t)
		return &rows[ROW_OTHER];
	return fs_traits_lookup(t->kind, t->fstype, t->blkid_fstype);
}

const struct fs_traits *fs_traits_table(size_t *ret_n)
{
	*ret_n = N_ROWS;
	return rows;
}
