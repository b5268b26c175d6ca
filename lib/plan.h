/* plan.h: what a copy will do, decided and checked before the first byte.
 *
 * plan_build() turns cp-style arguments (SOURCE... DEST, -t, -T, -r, -L,
 * -n) into a flat list of entries in the order they will be written:
 * each directory before its contents.  plan_check() refuses what cannot
 * work: not enough free space (cluster rounding), a file larger than the
 * destination filesystem allows (FAT32: 4 GiB - 1).  Problems come back
 * as a kind plus the paths and numbers involved; cmd/ turns them into
 * words. */
#ifndef SAFECP_PLAN_H
#define SAFECP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "target.h"

enum plan_entry_type {
	PLAN_DIR,
	PLAN_FILE,
	PLAN_SYMLINK,
	PLAN_SKIP,  /* devices, FIFOs, sockets: warned about, not copied */
};

struct plan_entry {
	enum plan_entry_type type;
	char *src;          /* path to open */
	char *dst;          /* final destination path */
	char *rel;          /* name to show: relative to the source argument's parent */
	struct stat st;     /* of the source (stat with -L, else lstat) */
	char *link_target;  /* PLAN_SYMLINK */
	bool dst_exists;    /* an existing entry will be replaced */
	uint64_t dst_old_size;
	bool skip_existing; /* -n and dst_exists: left alone */
};

enum plan_problem_kind {
	PLAN_OK = 0,
	PLAN_SOURCE_MISSING,   /* path, err */
	PLAN_SOURCE_UNREADABLE,/* path, err: stat/opendir failed */
	PLAN_OMIT_DIRECTORY,   /* path: a directory without -r */
	PLAN_SAME_FILE,        /* path (src), path2 (dst) */
	PLAN_INTO_ITSELF,      /* path (src dir), path2 (dst) */
	PLAN_DEST_NOT_DIR,     /* path2: several sources, DEST not a directory */
	PLAN_DEST_MISSING,     /* path2: DEST's parent does not exist */
	PLAN_DIR_ONTO_NONDIR,  /* path, path2 */
	PLAN_NONDIR_ONTO_DIR,  /* path, path2 */
	PLAN_NO_SPACE,         /* path2 (dest fs), need, have */
	PLAN_FILE_TOO_BIG,     /* path (src), need (size), have (limit) */
};

struct plan_problem {
	enum plan_problem_kind kind;
	char *path;
	char *path2;
	int err;
	uint64_t need, have;
};

struct plan_options {
	bool recursive;        /* -r */
	bool follow_symlinks;  /* -L */
	bool target_directory; /* -t DIR: dest is a directory, must exist */
	bool no_target_directory; /* -T: dest is never treated as a directory */
	bool no_clobber;       /* -n */
};

struct plan {
	struct plan_entry *entries;
	size_t n_entries;
	uint64_t total_bytes;   /* regular-file bytes to write */
	size_t n_files, n_dirs, n_symlinks, n_skipped, n_existing_kept;
	char *dest_root;        /* the directory the copy writes into */
};

int plan_build(const char *const *sources, size_t n_sources, const char *dest,
	       const struct plan_options *opts, struct plan **ret,
	       struct plan_problem *problem);
void plan_free(struct plan *p);
void plan_problem_done(struct plan_problem *p);

/* The destination filesystem's space and limits. */
struct fs_space {
	uint64_t avail_bytes;   /* statvfs f_bavail * f_frsize */
	uint64_t cluster;       /* allocation unit (f_bsize; FAT: cluster) */
	uint64_t max_file_size; /* from _PC_FILESIZEBITS; FAT32: 2^32 - 1 */
	enum fs_kind kind;
	bool stores_modes;      /* FAT/exfat: no */
	bool stores_symlinks;   /* FAT/exfat: no */
};

int fs_space_read(const char *dir, enum fs_kind kind, struct fs_space *ret);

/* Bytes the plan will occupy: each file rounded up to the cluster, a
 * cluster per directory, minus what replaced files free. */
uint64_t plan_space_needed(const struct plan *p, const struct fs_space *fs);

/* PLAN_OK, PLAN_NO_SPACE or PLAN_FILE_TOO_BIG (the first offender). */
int plan_check(const struct plan *p, const struct fs_space *fs,
	       struct plan_problem *problem);

#endif
