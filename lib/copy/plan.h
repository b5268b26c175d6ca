/* plan.h: what a copy will do, decided and checked before the first byte.
 *
 * plan_build() turns cp-style arguments (SOURCE... DEST, -t, -T, -r, -L,
 * -n) into the source tree (source_tree.h: the entries in the order they
 * will be written) and one destination's view of it, the plan: where
 * each entry goes and what is there already.  It refuses what GNU cp
 * would refuse, but all of it before anything is written: missing
 * sources, the same file twice, a directory into itself, type clashes
 * with existing destination entries, loops.
 * plan_check() then refuses what the destination filesystem cannot hold:
 * not enough free space (cluster rounding) or inodes, a file larger than
 * the filesystem allows (FAT32: 4 GiB - 1).  Problems come back as a kind
 * plus the paths and numbers involved; cmd/ turns them into words.
 *
 * Semantics, where they are not GNU cp's:
 * - An existing destination entry is replaced by rename (the engine
 *   writes a temporary and renames it into place), so an existing
 *   symlink at a file's destination is replaced, not written through.
 * - Several sources that land on one destination name are refused
 *   (PLAN_DEST_CLASH) instead of being copied one over the other.
 * - With -L a symlink that leads back to a directory being walked is
 *   refused (PLAN_LOOP); so is a bind-mount loop without -L.
 * - Devices, FIFOs and sockets become PLAN_SKIP entries, with or
 *   without -r; the command warns about them. */
#ifndef SAFECP_PLAN_H
#define SAFECP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "copy/plan_options.h"
#include "copy/plan_problem.h"
#include "copy/source_tree.h"
#include "copy/dest_file.h"
#include "device/fs_traits.h"
#include "device/target.h"

struct checksum_result;

/* How a file at the destination was judged the source's copy, so that it
 * is left alone (identical.h). */
enum plan_identical {
	PLAN_IDENTICAL_NO = 0,
	PLAN_IDENTICAL_QUICK,    /* same size, mtime within the destination's step */
	PLAN_IDENTICAL_MANIFEST, /* the source's digest is the manifest's (ascmhl) */
	PLAN_IDENTICAL_LIST,     /* the source's digest is a checksum list's */
	PLAN_IDENTICAL_CONTENT,  /* both copies read: the same xxh128 */
};

/* A file left alone whose copy here this run read back from the device
 * and found equal to the source (identical.h: content always, any basis
 * with identical_options.read_back). */
enum plan_read_back {
	PLAN_READ_BACK_NONE = 0, /* not read back */
	PLAN_READ_BACK_DEVICE,   /* past the page cache (read_back.h) */
	PLAN_READ_BACK_CACHED,   /* read back, but the cache could not be bypassed */
};

/* What lstat found at an entry's destination (plan_entry.dst_exists):
 * only such entries have one, in plan.existing. */
struct plan_existing {
	dev_t dst_dev;      /* checked again when the engine opens a merged */
	ino_t dst_ino;      /*   directory, or reads a file judged identical */
	uint64_t dst_old_size; /* st_size of the existing non-directory */
	uint64_t dst_freed; /* bytes replacing it frees: its st_blocks * 512 if a
			     * regular file with one link, else 0 */
	struct timespec dst_mtim; /* st_mtim of the existing non-directory */
	mode_t dst_mode;    /* its st_mode: a file replaced without --preserve=mode
			     * keeps it, as cp's write in place does */
	/* the source's digests the judgement computed (content, list), when
	 * asked to keep them (identical_options.keep_algs); else NULL.  Only
	 * judged files pay for one: most entries never are. */
	struct checksum_result *judged_sums;
};

/* One entry of the tree (source_tree.h) at this plan's destination:
 * 16 bytes, so each further destination of a million files costs 16 MB.
 * Its destination path is not kept: it is built from the names when
 * needed (plan_dst()): the top entry's from plan.names, each below it
 * its parent's joined with its name (the source's, or plan.names' once
 * --rename-invalid renamed it). */
struct plan_entry {
	const struct source_entry *source; /* the tree's entry of the same index */
	uint32_t existing;  /* dst_exists: its record in plan.existing */
	enum plan_identical identical : 8; /* why an identical file is left alone
					    * (identical.h), else PLAN_IDENTICAL_NO */
	enum plan_read_back identical_read_back : 8;
	bool dst_exists : 1; /* lstat(dst) found something: a directory is merged
			      * into, anything else is replaced or (-n) kept */
	bool dst_regular : 1; /* the existing non-directory is a regular file */
	bool skip_existing : 1; /* the existing entry is left alone, not written:
				 * -n, or identical (never set on directories) */
	/* judged identical, but its copy read back other bytes (or could not
	 * be read): copied again, not left alone */
	bool read_back_differs : 1;
	bool dst_named : 1; /* its name (and a top entry's path) is plan.names' */
	bool linked : 1;    /* a follower (source_links.c) made a name of its
			     * leader's copy here, not written (plan_links_here()) */
};

/* A destination name that is not the source's: each top entry's (with
 * its path), and each --rename-invalid gave. */
struct plan_name {
	size_t idx;         /* the entry */
	char *dst;          /* a top entry's destination path; NULL below */
	const char *name;   /* dst's last component ("." for dest_dir itself);
			     * below the top: the new name (own allocation) */
};

/* One destination's view of the source tree. */
struct plan {
	struct source_tree *tree; /* shared with the copy's other plans, read-only
				   * (source_tree.h: who frees it) */
	struct plan_entry *entries; /* entries[i] is tree->entries[i] here */
	size_t n_entries;       /* tree->n_entries */
	struct plan_existing *existing; /* plan_entry.existing's records */
	size_t n_existing, cap_existing;
	struct plan_name *names; /* sorted by idx: plan_entry.dst_named's */
	size_t n_names, cap_names;
	uint64_t total_bytes;   /* regular-file bytes to write (kept files excluded):
				 * with holes, the data the walk saw (plan_file_bytes) */
	uint64_t apparent_bytes; /* the same files' sizes, holes included */
	bool holes;             /* its files get the source's holes (--sparse not
				 * never, and the filesystem keeps holes) */
	size_t n_files;         /* regular files to write (kept ones excluded;
				 * linked ones included, with no bytes) */
	size_t n_symlinks;      /* symlinks to create (kept ones excluded) */
	size_t n_existing_kept; /* -n: files and symlinks left alone */
	size_t n_identical;     /* files left alone as identical (identical.h) */
	uint64_t identical_bytes; /* their bytes */
	bool sources_changed;   /* plan_build_beside(): an operand is no longer
				 * as the tree has it (plan_same_source()) */
	char *dest_root;        /* the directory the top-level entries go into, or
				 * the one merged into (-rT): its filesystem is synced */
	char *dest_dir;         /* the directory holding the top-level dst_names
				 * (DEST, or DEST's parent when DEST is the copy's
				 * name), opened once by path as cp resolves it */
	dev_t dest_dir_dev;     /* stat(dest_dir) at plan time: the engine */
	ino_t dest_dir_ino;     /*   refuses a directory swapped since */
	size_t dest_root_entry; /* PLAN_TOP: dest_root is dest_dir; else the
				 * entry (0) whose directory it is */
	struct plan_options opts;
	struct stale_temps stale; /* dead copies' temporaries where this one
				   * writes: dest_root and the existing
				   * directories it merges into */
};

/* The bytes of file idx this destination writes: with holes the data
 * the walk saw (source_data_bytes()), else its size. */
uint64_t plan_file_bytes(const struct plan *p, size_t idx);

/* Whether p's files get holes, now that its filesystem is known: fs_holes
 * (fs_traits.holes) and --sparse not never.  Its totals are counted again. */
void plan_set_holes(struct plan *p, bool fs_holes);

/* Build the plan for sources -> dest (with -t, dest is the DIR).
 * Returns 0 with *ret filled, or -errno with *ret untouched.  A refusal
 * fills *problem (kind != PLAN_OK, see the kinds for which fields) and
 * returns -problem->err, or -EINVAL when the problem has no errno;
 * kind == PLAN_OK on failure means the system failed (-ENOMEM).  Usage
 * errors the command should catch first return -EINVAL with kind
 * PLAN_OK: no sources, -t with -T, -T with several sources.  *problem is
 * overwritten (may be NULL); release it with plan_problem_done(). */
int plan_build(const char *const *sources, size_t n_sources, const char *dest,
	       const struct plan_options *opts, struct plan **ret,
	       struct plan_problem *problem);
void plan_free(struct plan *p);

/* plan_build() for another destination of the same copy: the sources
 * are examined again (their top-level checks are per destination) but
 * the tree is first's (a plan_build() of the same sources), shared, not
 * read again, so every destination's plan has the same entries in the
 * same order; each is classified against this destination.  A
 * directory operand that is no longer the tree's, or no longer a
 * directory, is refused (PLAN_SOURCE_CHANGED); any other change to an
 * operand (identity, size, times, link) sets sources_changed. */
int plan_build_beside(const struct plan *first, const char *const *sources, size_t n_sources,
		      const char *dest, const struct plan_options *opts, struct plan **ret,
		      struct plan_problem *problem);

/* Are a and b (the plans of two destinations) views of one source tree,
 * whose operands both found as the tree has them (identity, size and
 * times)?  Then one reader serves both: entry i is the same source in
 * each. */
bool plan_same_source(const struct plan *a, const struct plan *b);

/* Entry idx's destination path, into buf (size bytes): 0, or
 * -ENAMETOOLONG (never for a built plan with size PATH_MAX: the plan
 * refused longer ones). */
int plan_dst(const struct plan *p, size_t idx, char *buf, size_t size);

/* The same for messages: buf (PATH_MAX bytes) holding the path. */
const char *plan_dst_path(const struct plan *p, size_t idx, char *buf);

/* Its name in its parent's destination directory (the top: in
 * p->dest_dir; "." when it is dest_dir itself). */
const char *plan_dst_name(const struct plan *p, size_t idx);

/* Give entry idx (not a top one) the destination name name (copied).
 * 0 or -ENOMEM. */
int plan_rename_entry(struct plan *p, size_t idx, const char *name);

/* What lstat found at e's destination: its record, or one of zeros
 * when nothing was there. */
const struct plan_existing *plan_existing_of(const struct plan *p, const struct plan_entry *e);

/* Entry idx's destination path relative to p->dest_dir ("card/DCIM/a.jpg"),
 * the path checksum lists and manifests give, in buf (size bytes).  False
 * for dest_dir itself (-rT's top entry) and for a path that does not fit. */
bool plan_dest_rel(const struct plan *p, size_t idx, char *buf, size_t size);

/* The destination filesystem's space and limits. */
struct fs_space {
	uint64_t avail_bytes;   /* statvfs f_bavail * f_frsize (not root's reserve) */
	uint64_t avail_inodes;  /* f_favail; UINT64_MAX when the fs has no count (FAT) */
	uint64_t cluster;       /* allocation unit: f_frsize (FAT, exfat: the cluster) */
	uint64_t max_file_size; /* FAT: 2^32 - 1; others: see fs_space_read() */
	enum fs_dirents dirents; /* directory-entry bytes per name (FAT, exFAT) */
	bool stores_modes;      /* from the traits: FAT/exfat/fuseblk: no */
	bool stores_symlinks;   /* from the traits: FAT/exfat/fuseblk: no */
};

/* Fill *ret for the filesystem holding dir, whose traits (fs_traits_of
 * its target) say what it stores.  avail_bytes is UINT64_MAX when the
 * filesystem reports no size (fusefat).  The limit on file size is the
 * traits' (FAT: 4 GiB - 1; also when statfs says msdos) and otherwise
 * fpathconf(_PC_FILESIZEBITS), which glibc answers with 32 for every
 * filesystem it does not know (tmpfs, fuse, exfat), so 32 is taken to
 * mean "unknown" and no limit is applied.  Returns 0 or -errno. */
int fs_space_read(const char *dir, const struct fs_traits *traits, struct fs_space *ret);

/* The copy engine's largest batch of files renamed together
 * (copy_batch.c: a commit at 4 windows of data or 1000 files, and before
 * a file larger than a window; a window is at most 64 MiB).  Replaced
 * files of one batch exist twice until the renames, so the space check
 * must know; keep these in step with the engine. */
#define PLAN_BATCH_BYTES (256ULL << 20)
#define PLAN_BATCH_FILES 1000
#define PLAN_BATCH_BIG (64ULL << 20)

/* --preserve=links: each follower of the tree (source_links.c) whose
 * leader this destination writes or holds identical already, and which
 * is not left alone itself,
 * becomes a name of the leader's copy (linked), where the filesystem
 * holds hard links (fs_links); else it is copied as a file of its own.
 * After the identical files are judged; the totals are counted again. */
void plan_links_here(struct plan *p, bool fs_links);

/* -i: ask(data, source, dest) of each file or symlink that would replace
 * one at its destination and is not left alone already (-n, -u,
 * identical): 1 replaces it, 0 leaves the one there (kept, as -n keeps
 * it), a negative errno stops the asking and is returned.  The totals are
 * counted again.  0 or that error. */
typedef int (*plan_ask_fn)(void *data, const char *source, const char *dest);
int plan_ask_replace(struct plan *p, plan_ask_fn ask, void *data);

/* Bytes the plan will occupy at its peak: each file rounded up to the
 * cluster, a cluster per new directory and per symlink, on FAT and exfat
 * the directory entries (long names included); a replaced file frees its
 * old blocks only after its batch is renamed into place, so the worst
 * batch counts whole (see plan_check.c for the arithmetic). */
uint64_t plan_space_needed(const struct plan *p, const struct fs_space *fs);

/* Inodes the plan needs at its peak (0 when nothing new is created). */
uint64_t plan_inodes_needed(const struct plan *p);

/* PLAN_OK, PLAN_FILE_TOO_BIG (the first offender), PLAN_NO_SPACE or
 * PLAN_NO_INODES, in that order, with *problem filled (may be NULL);
 * space_needed is plan_space_needed(p, fs), which the caller keeps.
 * The space and inodes of p->stale count as free (problem->have
 * includes them): the engine removes those files before it writes.
 * Pure: no system calls, so tests can feed any fs_space.  Returns the
 * kind, or -ENOMEM when the problem's paths could not be copied. */
int plan_check(const struct plan *p, const struct fs_space *fs, uint64_t space_needed,
	       struct plan_problem *problem);

#endif
