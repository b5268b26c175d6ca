/* fs_traits.h: what each filesystem the project knows does, in one table.
 *
 * Every decision that depends on the destination's filesystem (how a copy
 * is made durable, which write strategy to start with, whether modes and
 * symlinks can be stored, how large a file may be, which name rules
 * apply) reads a trait of its row here instead of testing fs_kind.  A row
 * is chosen by the kind (target.h) and, where the kind alone does not
 * tell, by a name: blkid's type behind a fuseblk mount (exfat-fuse,
 * fusefat, ntfs-3g), the mount's fstype otherwise (fuse.fusefat, ntfs3,
 * tmpfs).  Whatever is not recognised gets its kind's catch-all row; the
 * catch-all of fuseblk (blkid could not tell the type: no root) has the
 * safe traits of every daemon it could be.
 *
 * Pure: no system calls.  Limits that only the system knows (fpathconf)
 * stay with their callers; the table says when to ask. */
#ifndef SAFECP_FS_TRAITS_H
#define SAFECP_FS_TRAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/name_rules.h"
#include "device/target.h"

enum fs_case {
	FS_CASE_SENSITIVE = 0,
	FS_CASE_INSENSITIVE, /* insensitive, preserving: "A" and "a" are one name */
};

/* The strategy safecp starts with (io/sizing.c turns it into its own enum). */
enum fs_write_default {
	FS_WRITE_BY_DIO = 0,  /* direct where statx reports DIO alignment, else window */
	FS_WRITE_SYNC_WINDOW, /* fdatasync per window: nothing else reaches the device */
};

/* Directory-entry space the space check counts per name written. */
enum fs_dirents {
	FS_DIRENTS_NONE = 0,
	FS_DIRENTS_FAT,   /* 32-byte entries: 1 + ceil(len / 13) (VFAT long names) */
	FS_DIRENTS_EXFAT, /* 32-byte entries: 2 + ceil(len / 15) */
};

#define FS_FAT_MAX_FILE_SIZE 0xffffffffULL /* a 32-bit size in the entry */

struct fs_traits {
	const char *id;        /* "ext4", "exfat-fuse", ...: tests and debug */
	bool on_block;         /* a block device stands behind the mount */
	bool fuse;             /* a FUSE daemon serves it: syncfs and sync_file_range
				* do not reach it, fsync per file (FUSE_FSYNC) does */
	bool device_cache;     /* the daemon writes through the block device's page
				* cache: the dirty data is the device's (fuseblk) */
	bool format_from_blkid; /* the fstype says "fuseblk": blkid names the format */
	bool journaled;        /* a rename is committed with or after the new inode's
				* size and blocks (ext4, xfs, btrfs) */
	bool tmpfile;          /* O_TMPFILE is worth trying (the engine still falls
				* back when it fails) */
	bool stores_modes;
	bool stores_symlinks;
	bool hard_links;       /* one file may have several names (link(2)) */
	/* issue 29, what --preserve can keep: owners (chown), extended
	 * attributes (user.*; trusted.* and security.* as root), POSIX ACLs */
	bool stores_owners;
	bool stores_xattrs;
	bool stores_acls;
	bool volume_fsync;     /* any fsync flushes the whole volume (exfat-fuse, ntfs-3g) */
	bool fsync_noop;       /* the daemon answers FSYNC with success and writes
				* nothing (fusefat): its writes wait in the block
				* device's cache until the device itself is synced
				* (io/fs_sync.h fs_sync_device) */
	bool rename_sets_mtime; /* a renamed file gets the rename's time as its mtime
				 * (fusefat): times are set again after it */
	bool no_rewrite;       /* a file cannot be opened again for writing (fusefat:
				* EPERM): no resumable partials there */
	bool statfs_clusters;  /* statfs counts clusters in f_files and f_ffree and
				* says 1 KiB blocks, whatever the cluster (fusefat):
				* the space check takes the cluster from them */
	bool holes;            /* a file may have holes: a write past its end leaves
				* the gap unallocated (where not, the gap is
				* written as zeros by us, not by the filesystem) */
	uint32_t mtime_step_ns; /* a stored mtime is a multiple of this; unknown
				 * filesystems: FAT's 2 s, the coarsest known */
	enum fs_case name_case;
	enum name_fs names;    /* name_rules.h's family */
	uint64_t max_file_size; /* the format's limit; 0: none known, ask fpathconf */
	enum fs_write_default write;
	enum fs_dirents dirents;
};

/* The row of a filesystem; never NULL.  fstype is the mount's type
 * ("fuse.fusefat", "ntfs3"), blkid_fstype what libblkid found on the
 * device (only consulted for FS_FUSEBLK); either may be NULL. */
const struct fs_traits *fs_traits_lookup(enum fs_kind kind, const char *fstype,
					 const char *blkid_fstype);

/* The row of a probed target; NULL (nothing known) gets the "other" row. */
const struct fs_traits *fs_traits_of(const struct target *t);

/* The whole table, for tests: *ret_n rows. */
const struct fs_traits *fs_traits_table(size_t *ret_n);

#endif
