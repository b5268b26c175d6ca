/* plan_check.c: will the plan fit on the destination filesystem?
 *
 * Owns fs_space_read() (the only part that asks the system) and the pure
 * arithmetic: plan_space_needed(), plan_inodes_needed(), plan_check().
 *
 * Space, in bytes, every size rounded up to fs->cluster:
 *   new_i   = roundup(size_i)  for each regular file written (-n kept: 0);
 *             a file with holes written where holes are kept: its data
 *             (plan_file_bytes(): the blocks the source allocates)
 *   freed_i = blocks of the file it replaces (plan_entry.dst_freed: 0
 *             unless a regular file with a single link, whose blocks the
 *             rename really releases)
 *   need    = sum of max(new_i - freed_i, 0)
 *                 growth, as if no shrinking file helped: the order the
 *                 engine writes in then does not matter
 *           + the largest batch overlap
 *                 a temporary is complete and durable before the rename
 *                 frees the file it replaces, and the engine renames a
 *                 whole batch at once (copy_batch.c), so for a moment
 *                 every file of a batch exists twice: the sum of
 *                 min(new_i, freed_i) over the batch.  Which files share
 *                 a batch depends on the run-time window, so this takes
 *                 the worst run of consecutive files the engine could
 *                 batch (PLAN_BATCH_* in plan.h): a file larger than the
 *                 largest window alone, else up to PLAN_BATCH_FILES files
 *                 whose bytes before the last are under PLAN_BATCH_BYTES.
 *           + one cluster per new directory and per symlink
 *           + FAT and exFAT only (fs_traits.h's dirents): 32-byte
 *             directory entries for every name written (vfat: 1 + ceil(len / 13) with long names;
 *             exFAT: 2 + ceil(len / 15)), rounded up to clusters in total.
 *             len is in bytes, never fewer than the UTF-16 units stored.
 * Since new_i = max(new_i - freed_i, 0) + min(new_i, freed_i), the usage
 * at any moment of the copy is at most need above what was there before.
 * Not counted: ext4/xfs/btrfs metadata (extent trees, journal, btrfs
 * chunk allocation), which is why the check compares against f_bavail,
 * the space an unprivileged writer may use, leaving root's reserve as the
 * margin on ext4.
 *
 * Inodes: one per name that does not exist yet, plus the temporaries of
 * replaced names that coexist with them (at most a batch).
 *
 * What is free: f_bavail and f_favail, plus the blocks and inodes of the
 * dead copies' temporaries in plan.stale, which the engine removes before
 * it writes (a retry after a killed copy must not be refused for the
 * space the killed copy's temporary holds). */
#include <errno.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"
#include "base/size.h"

#define OFF_MAX_FILE_SIZE ((uint64_t)INT64_MAX)
#define DIRENT 32

static uint64_t max_file_size(const char *dir, const struct fs_traits *traits)
{
	struct statfs sf;
	long bits;

	/* the table knows FAT's limit (vfat, fusefat on a block device);
	 * statfs catches a FAT whose kind the caller did not know */
	if (traits->max_file_size)
		return traits->max_file_size;
	if (statfs(dir, &sf) == 0 && sf.f_type == MSDOS_SUPER_MAGIC)
		return FS_FAT_MAX_FILE_SIZE;
	errno = 0;
	bits = pathconf(dir, _PC_FILESIZEBITS);
	/* 32 is glibc's answer for a filesystem it does not know (measured:
	 * tmpfs says 32 and holds files far past 2 GiB) */
	if (bits > 32 && bits < 64)
		return (1ULL << (bits - 1)) - 1;
	return OFF_MAX_FILE_SIZE;
}

int fs_space_read(const char *dir, const struct fs_traits *traits, struct fs_space *ret)
{
	struct statvfs sv;

	if (statvfs(dir, &sv) < 0)
		return -errno;
	*ret = (struct fs_space){
		.cluster = sv.f_frsize ? sv.f_frsize : sv.f_bsize,
		.dirents = traits->dirents,
		.stores_modes = traits->stores_modes,
		.stores_symlinks = traits->stores_symlinks,
	};
	if (ret->cluster == 0)
		ret->cluster = 512;
	if (traits->statfs_clusters && sv.f_files) {
		/* fusefat: f_files clusters, f_blocks their bytes in KiB (0
		 * below 1 KiB clusters, which are then 512 bytes, FAT's least) */
		ret->cluster = sv.f_blocks ? sv.f_blocks * ret->cluster / sv.f_files : 512;
		ret->avail_bytes = (uint64_t)sv.f_ffree * ret->cluster;
		ret->avail_inodes = UINT64_MAX; /* FAT has none: its dirents are space */
		ret->max_file_size = max_file_size(dir, traits);
		return 0;
	}
	/* no block count (an unknown fusefat row says 0 of 0): the size is
	 * unknown, not full; the device will say ENOSPC if it comes to that */
	ret->avail_bytes = sv.f_blocks == 0 ? UINT64_MAX : (uint64_t)sv.f_bavail * ret->cluster;
	ret->avail_inodes = sv.f_files == 0 ? UINT64_MAX : (uint64_t)sv.f_favail;
	ret->max_file_size = max_file_size(dir, traits);
	return 0;
}

/* Entry idx's name in its destination directory: its plan name, but for
 * "cp -r . DEST"'s top entry (".") the last component of DEST. */
static const char *last_name(const struct plan *p, size_t idx, char buf[PATH_MAX])
{
	const char *name = plan_dst_name(p, idx), *s;

	if (strcmp(name, ".") != 0)
		return name;
	s = strrchr(plan_dst_path(p, idx, buf), '/');
	return s ? s + 1 : buf;
}

/* Directory-entry bytes a name takes on FAT-like filesystems, else 0. */
static uint64_t dirent_bytes(const struct fs_space *fs, const char *name)
{
	uint64_t len = strlen(name);

	switch (fs->dirents) {
	case FS_DIRENTS_FAT:
		return DIRENT * (1 + (len + 12) / 13);
	case FS_DIRENTS_EXFAT:
		return DIRENT * (2 + (len + 14) / 15);
	case FS_DIRENTS_NONE:
		break;
	}
	return 0;
}

static bool writes_name(const struct plan_entry *e)
{
	return e->source->type != PLAN_SKIP && !e->skip_existing &&
	       !(e->source->type == PLAN_DIR && e->dst_exists);
}

static bool batch_file(const struct plan_entry *e)
{
	return e->source->type == PLAN_FILE && !e->skip_existing;
}

/* The largest sum of min(new, freed) over files the engine may rename
 * together (see the file comment); two pointers over the entries, O(n). */
static uint64_t batch_overlap(const struct plan *p, uint64_t cl)
{
	uint64_t bytes = 0, sum = 0, best = 0; /* bytes: new bytes before hi */
	size_t lo = 0, count = 0;

	for (size_t hi = 0; hi < p->n_entries; hi++) {
		const struct plan_entry *e = &p->entries[hi];
		uint64_t n;

		if (!batch_file(e))
			continue;
		n = round_up_u64(plan_file_bytes(p, hi), cl);
		if (n > PLAN_BATCH_BIG) { /* committed alone */
			bytes = sum = count = 0;
			lo = hi;
		}
		while (count > 0 && (bytes >= PLAN_BATCH_BYTES || count >= PLAN_BATCH_FILES)) {
			const struct plan_entry *o = &p->entries[lo++];
			uint64_t on;

			if (!batch_file(o))
				continue;
			on = round_up_u64(plan_file_bytes(p, lo - 1), cl);
			bytes -= on;
			sum -= MIN(on, round_up_u64(plan_existing_of(p, o)->dst_freed, cl));
			count--;
		}
		bytes += n;
		sum += MIN(n, round_up_u64(plan_existing_of(p, e)->dst_freed, cl));
		count++;
		best = MAX(best, sum);
		if (n > PLAN_BATCH_BIG) {
			bytes = sum = count = 0;
			lo = hi + 1;
		}
	}
	return best;
}

uint64_t plan_space_needed(const struct plan *p, const struct fs_space *fs)
{
	uint64_t cl = fs->cluster ? fs->cluster : 1;
	uint64_t growth = 0, meta = 0, dirents = 0;
	char buf[PATH_MAX];

	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];
		uint64_t n, f;

		if (!writes_name(e))
			continue;
		dirents += dirent_bytes(fs, last_name(p, i, buf));
		if (e->source->type != PLAN_FILE) {
			meta += cl; /* a new directory, a symlink */
			continue;
		}
		if (e->linked)
			continue; /* another name of a file counted once: its entry only */
		n = round_up_u64(plan_file_bytes(p, i), cl);
		f = round_up_u64(plan_existing_of(p, e)->dst_freed, cl);
		growth += n > f ? n - f : 0;
	}
	return growth + batch_overlap(p, cl) + meta + round_up_u64(dirents, cl);
}

uint64_t plan_inodes_needed(const struct plan *p)
{
	uint64_t fresh = 0, replaced = 0;

	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];

		if (!writes_name(e))
			continue;
		if (e->dst_exists)
			replaced++;
		else
			fresh++;
	}
	return fresh + MIN(replaced, (uint64_t)PLAN_BATCH_FILES);
}

static int problem_set(struct plan_problem *pr, enum plan_problem_kind kind,
		       const char *path, const char *path2, uint64_t need, uint64_t have)
{
	int r;

	if (!pr)
		return kind;
	r = plan_problem_set(pr, kind, path, path2);
	if (r < 0)
		return r;
	pr->need = need;
	pr->have = have;
	return kind;
}

int plan_check(const struct plan *p, const struct fs_space *fs, uint64_t space_needed,
	       struct plan_problem *problem)
{
	uint64_t need, have;

	if (problem)
		*problem = (struct plan_problem){ .kind = PLAN_OK };
	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];

		char src[PATH_MAX], dst[PATH_MAX];

		if (e->source->type == PLAN_FILE && !e->skip_existing &&
		    (uint64_t)e->source->size > fs->max_file_size)
			return problem_set(problem, PLAN_FILE_TOO_BIG,
					   source_path(e->source, src, sizeof(src)) < 0 ? "?" : src,
					   plan_dst_path(p, i, dst), (uint64_t)e->source->size,
					   fs->max_file_size);
	}
	/* the engine removes dead copies' temporaries before it writes */
	have = fs->avail_bytes == UINT64_MAX ? UINT64_MAX : fs->avail_bytes + p->stale.bytes;
	if (space_needed > have)
		return problem_set(problem, PLAN_NO_SPACE, NULL, p->dest_root, space_needed, have);
	have = fs->avail_inodes == UINT64_MAX ? UINT64_MAX : fs->avail_inodes + p->stale.n;
	need = plan_inodes_needed(p);
	if (need > have)
		return problem_set(problem, PLAN_NO_INODES, NULL, p->dest_root, need, have);
	return PLAN_OK;
}
