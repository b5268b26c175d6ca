/* copy_batch.c: files written but not yet under their names, committed
 * together.
 *
 * Small files must not pay a device flush each, so finished files gather
 * in a batch.  Their writeback is started as each one ends; the oldest
 * are waited for whenever more than a window is unconfirmed, which keeps
 * the device busy and the dirty data bounded.  A commit then:
 *   1. waits for the data of every item still in flight;
 *   2. sets timestamps and mode on the open files (FUSE: fsync each, the
 *      only call its daemon acts on; once on exfat-fuse, whose fsync
 *      flushes the whole volume);
 *   3. without a journal (vfat, exfat, ...): syncfs, so every temporary
 *      file is durable, data and metadata, before any rename;
 *   4. puts each under its final name: an unnamed (O_TMPFILE) file is
 *      linked there (onto an existing file: linked under a temporary
 *      name and renamed over it), a named temporary is renamed;
 *   5. syncfs so the new names are durable (FUSE: fsync each distinct
 *      directory, which reaches the daemon as FSYNCDIR).
 * fusefat's fsync is a no-op and it has no fsyncdir (doc/kernel.md 1.5):
 * what it wrote waits in the block device's cache, so steps 2 and 5 end
 * with a sync of that device (fs_sync_device), which covers the whole
 * volume as exfat-fuse's fsync does: step 1 leaves it to step 2.
 * On ext4, xfs and btrfs step 3 is left out: their journal (btrfs: its
 * transaction) puts each rename in the same or a later commit than the
 * new inode's size and blocks, and the data was on the device before the
 * rename, so the one syncfs of step 5 makes the batch durable in the
 * right order; the extra commit cost every batch a drained queue.
 * There, without --verify, steps 2 and 4 come early too, for each file
 * the moment its data is waited for (names_early): the commit is left
 * with the last window's files and the syncfs, and the device is not
 * idle while a thousand files are named at its end.  Such a file is
 * counted as copied only at the commit, as the others are.
 * A commit happens when the batch holds four windows of data, 1000
 * files, or has been open two seconds, and before any file larger than a
 * window. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "copy/copy_internal.h"
#include "util/clock.h"
#include "util/debug.h"
#include "io/fs_sync.h"
#include "util/test_hook.h"

/* plan_check() counts replaced files that coexist with their new copies
 * by these limits (plan.h PLAN_BATCH_*): 4 windows of at most 64 MiB
 * each, PLAN_BATCH_FILES files. */
#define BATCH_WINDOWS (PLAN_BATCH_BYTES / PLAN_BATCH_BIG)
#define BATCH_SECONDS 2.0

static bool names_early(const struct engine *g);
static int publish_early(struct engine *g, struct batch_item *it);

void batch_item_done(struct batch_item *it)
{
	writer_free(it->w);
	it->w = NULL;
	free(it->name);
	it->name = NULL;
	checksum_free(it->hash);
	it->hash = NULL;
}

void batch_close_dirs(struct batch *b)
{
	for (size_t i = 0; i < b->n_dirs; i++)
		close(b->dirs[i].fd);
	free(b->dirs);
	b->dirs = NULL;
	b->n_dirs = 0;
}

int batch_parent_fd(struct engine *g, size_t idx)
{
	struct batch *b = &g->batch;
	struct batch_dir *grown;
	int fd;

	for (size_t i = b->n_dirs; i-- > 0;)
		if (b->dirs[i].idx == idx)
			return b->dirs[i].fd;
	fd = copy_dir_fd(g, idx);
	if (fd < 0)
		return fd;
	grown = realloc(b->dirs, (b->n_dirs + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	b->dirs = grown;
	fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	b->dirs[b->n_dirs++] = (struct batch_dir){ idx, fd };
	return fd;
}

static uint64_t unconfirmed(const struct batch_item *it)
{
	return it->w ? writer_written(it->w) - writer_confirmed(it->w) : 0;
}

/* exfat-fuse flushes the whole volume on any fsync (its fsync and
 * fsyncdir handlers call exfat_flush_nodes, exfat_flush and fsync of the
 * device), so one fdatasync of the newest file puts every earlier file's
 * data on the device too; per file it rewrote the cluster bitmap and the
 * directory each time (98 MiB written for 63 MiB of small files). */
/* The newest file with a writer at or after item from. */
static struct batch_item *newest_file_from(struct batch *b, size_t from)
{
	for (size_t i = b->n; i-- > from;)
		if (b->items[i].w)
			return &b->items[i];
	return NULL;
}

static struct batch_item *newest_file(struct batch *b)
{
	return newest_file_from(b, b->unwaited);
}

/* A sync that covers the whole volume returned: every item is on the device. */
static void confirm_all(struct batch *b)
{
	for (size_t i = b->unwaited; i < b->n; i++)
		if (b->items[i].w)
			writer_confirm_flushed(b->items[i].w);
	b->unwaited = b->n;
	b->pending = 0;
}

static int wait_volume(struct engine *g, uint64_t keep)
{
	struct batch *b = &g->batch;
	struct batch_item *last = newest_file(b);
	int r;

	if (!last || b->pending <= keep)
		return 0;
	r = fdatasync(writer_fd(last->w)) < 0 ? -errno : 0;
	if (r == 0 && g->device_sync)
		r = fs_sync_device(writer_fd(last->w), g->bdev_fd);
	if (r < 0) {
		copy_report(g, last->entry, COPY_STEP_WRITE, r, g->plan->entries[last->entry].dst, true);
		return r;
	}
	confirm_all(b);
	return 0;
}

/* Wait for the data of the oldest items until at most `keep` bytes are
 * still unconfirmed. */
static int batch_wait_data(struct engine *g, uint64_t keep)
{
	struct batch *b = &g->batch;

	if (g->volume_fsync)
		return wait_volume(g, keep);

	while (b->unwaited < b->n && b->pending > keep) {
		struct batch_item *it = &b->items[b->unwaited];
		uint64_t was = unconfirmed(it);
		int r = it->w ? writer_finish_data(it->w) : 0;

		if (r < 0) {
			copy_report(g, it->entry, COPY_STEP_WRITE, r, g->plan->entries[it->entry].dst, true);
			return r;
		}
		b->pending -= was;
		b->unwaited++;
		if (it->w && names_early(g) && (r = publish_early(g, it)) < 0)
			return r;
	}
	return 0;
}

int batch_add(struct engine *g, struct batch_item *item)
{
	struct batch *b = &g->batch;

	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		struct batch_item *grown = realloc(b->items, cap * sizeof(*grown));

		if (!grown) {
			copy_remove_temp(item);
			batch_item_done(item);
			return -ENOMEM;
		}
		b->items = grown;
		b->cap = cap;
	}
	if (b->n == 0)
		b->opened = clock_monotonic();
	b->items[b->n++] = *item;
	b->pending += unconfirmed(item);
	if (item->w)
		b->bytes += writer_written(item->w);
	return batch_wait_data(g, g->o->wplan->window);
}

bool batch_due(const struct engine *g)
{
	const struct batch *b = &g->batch;

	return b->n > 0 && (b->bytes >= BATCH_WINDOWS * g->o->wplan->window ||
			    b->n >= g->batch_files || b->n_dirs >= g->batch_dirs ||
			    clock_monotonic() - b->opened >= BATCH_SECONDS);
}

/* Timestamps and mode where the filesystem keeps them; a failure is a
 * note, not a failed copy (FAT stores no modes). */
static void set_attrs(struct engine *g, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	const struct timespec times[2] = { e->source->st.st_atim, e->source->st.st_mtim };
	int fd = it->w ? writer_fd(it->w) : -1;
	int r = 0;

	if (g->o->keep_times) {
		r = fd >= 0 ? futimens(fd, times)
			    : utimensat(it->dirfd, it->tmp, times, AT_SYMLINK_NOFOLLOW);
		if (r < 0)
			copy_report(g, it->entry, COPY_STEP_ATTRS, -errno, e->dst, false);
	}
	if (fd < 0)
		return;
	/* the owner is not kept, so neither are setuid, setgid and sticky
	 * (GNU cp without --preserve=ownership); without --preserve=mode a
	 * file gets what a new file gets: 0666 & ~umask */
	r = g->fs_has_modes &&
		    fchmod(fd, g->o->keep_mode ? e->source->st.st_mode & 0777 : 0666 & ~g->umask) < 0
	    ? -errno : 0;
	/* only these say the filesystem keeps no modes (a FUSE daemon's
	 * refusal); any other failure is this file's */
	if (!g->fs_has_modes || r == -EPERM || r == -ENOTSUP || r == -EOPNOTSUPP) {
		if (!g->mode_noted)
			copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_NOTE,
							   .note = COPY_NOTE_NO_MODES,
							   .path = (char *)e->dst });
		g->mode_noted = true;
	} else if (r < 0) {
		copy_report(g, it->entry, COPY_STEP_ATTRS, r, e->dst, false);
	}
}

/* --verify: the durable file read back from the device must be what
 * was written, or it is not named (read_back.h). */
static void verify_item(struct engine *g, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	struct checksum_result want, got;
	enum readback_how how;
	int r;

	checksum_final(it->hash, &want);
	test_hook("verify", e->dst);
	r = read_back_file(&g->rb, writer_fd(it->w), writer_written(it->w), g->fuse, g->bdev_fd,
			   CHECKSUM_BIT(CHECKSUM_XXH128), &got, &how, &g->stats->bytes_verified);
	if (r == 0 && how == READBACK_CACHED && !g->verify_noted) {
		g->verify_noted = true;
		atomic_store(&g->stats->verify_cached, true);
		copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_NOTE,
						   .note = COPY_NOTE_VERIFY_CACHED,
						   .path = (char *)g->plan->dest_root });
	}
	if (r == 0 && checksum_result_match(&want, &got)) {
		struct stat st;

		atomic_fetch_add(&g->stats->files_verified, 1);
		memcpy(it->digest, checksum_result_text(&got, CHECKSUM_XXH128), sizeof(it->digest));
		if (fstat(writer_fd(it->w), &st) == 0) {
			it->dev = st.st_dev;
			it->ino = st.st_ino;
		}
		return;
	}
	copy_report(g, it->entry, COPY_STEP_VERIFY, r < 0 ? r : -EBADMSG, e->dst, false);
	if (r == 0)
		atomic_fetch_add(&g->stats->files_mismatched, 1);
	it->rejected = it->settled = true;
	copy_remove_temp(it);
	copy_forget_bytes(g, it);
	copy_count_failed(g);
}

static int durable_files(struct engine *g)
{
	struct batch *b = &g->batch;
	/* of every item: the data wait (wait_volume) has marked them all waited */
	struct batch_item *last = g->volume_fsync ? newest_file_from(b, 0) : NULL;

	/* attributes first: on a volume-wide fsync they ride on the last one */
	for (size_t i = 0; last && i < b->n; i++)
		set_attrs(g, &b->items[i]);
	for (size_t i = 0; i < b->n; i++) {
		struct batch_item *it = &b->items[i];
		bool sync = g->fuse && it->w && (!last || it == last);

		if (it->settled)
			continue; /* named early, attributes set */
		if (!last)
			set_attrs(g, it);
		if (sync && fsync(writer_fd(it->w)) < 0) {
			int r = -errno; /* before the report, which takes a lock */

			copy_report(g, it->entry, COPY_STEP_SYNC, r, g->plan->entries[it->entry].dst,
				    true);
			return r;
		}
	}
	/* the data, times and sizes the daemon wrote are in the device's cache:
	 * one sync of it, which the commit did not do before (batch_commit) */
	if (g->device_sync && b->n) {
		int r = fs_sync_device(g->dest_fd, g->bdev_fd);

		if (r < 0) {
			copy_report(g, b->items[0].entry, COPY_STEP_SYNC, r, g->plan->dest_root, true);
			return r;
		}
		if (g->volume_fsync)
			confirm_all(b);
	}
	if (!g->fuse && !g->journaled && syncfs(g->dest_fd) < 0) {
		int r = -errno;

		copy_report(g, b->items[0].entry, COPY_STEP_SYNC, r, g->plan->dest_root, true);
		return r;
	}
	/* durable now; read back before any of them is named */
	for (size_t i = 0; g->o->verify && i < b->n; i++) {
		/* stopped: what is not verified must not be named */
		if (g->cancel && atomic_load(g->cancel))
			return -ECANCELED;
		if (b->items[i].w && b->items[i].hash)
			verify_item(g, &b->items[i]);
	}
	for (size_t i = 0; i < b->n; i++) {
		struct batch_item *it = &b->items[i];
		int r = 0;

		/* an unnamed file needs its fd until it is linked */
		if (it->w && !it->unnamed && !it->rejected && !it->settled)
			r = writer_close(it->w);
		if (r < 0) {
			copy_report(g, it->entry, COPY_STEP_SYNC, r, g->plan->entries[it->entry].dst, true);
			return r;
		}
	}
	return 0;
}

/* Link an unnamed file as name: by its fd (AT_EMPTY_PATH, which Linux
 * 6.10 allows whoever opened the file; before, only CAP_DAC_READ_SEARCH),
 * else through /proc, a path walk more per file.  ENOENT is what a
 * refused AT_EMPTY_PATH returns, and the /proc link then tells. */
static int link_as(struct engine *g, struct batch_item *it, const char *name)
{
	char proc[48];

	if (!g->no_flink) {
		if (linkat(writer_fd(it->w), "", it->dirfd, name, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != ENOENT && errno != EPERM)
			return -errno;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", writer_fd(it->w));
	if (linkat(AT_FDCWD, proc, it->dirfd, name, AT_SYMLINK_FOLLOW) == 0) {
		g->no_flink = true;
		return 0;
	}
	return -errno;
}

/* No RENAME_NOREPLACE (exfat-fuse, ntfs-3g): claim the name with an
 * O_EXCL placeholder, which fails if anything is there, and rename over
 * our own placeholder; a check-then-rename would overwrite a name made
 * in between. */
static int rename_onto_placeholder(struct batch_item *it)
{
	int fd = openat(it->dirfd, it->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	struct stat mine = { 0 }, now;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &mine) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && renameat(it->dirfd, it->tmp, it->dirfd, it->name) == 0)
		return 0;
	r = r ? r : -errno;
	/* only our placeholder, if it is still the one there */
	if (fstatat(it->dirfd, it->name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == mine.st_dev && now.st_ino == mine.st_ino)
		(void)unlinkat(it->dirfd, it->name, 0); /* the error said is r's */
	return r;
}

/* No RENAME_NOREPLACE, and not -n: rename only if lstat finds nothing
 * under the name.  A name made between the two is replaced; on the
 * filesystems that get here (FUSE daemons without RENAME2: exfat-fuse,
 * ntfs-3g, fusefat) every file has the mount's owner and mode, so whoever
 * could make it could as well overwrite any file there.  The placeholder
 * would close that gap but leaves an empty file under the final name if
 * we are killed between its creation and the rename. */
static int rename_if_free(struct batch_item *it)
{
	struct stat st;

	if (fstatat(it->dirfd, it->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	return renameat(it->dirfd, it->tmp, it->dirfd, it->name) < 0 ? -errno : 0;
}

/* Replace only what the plan saw and meant to replace.  A name the plan
 * saw free is never replaced: one that appeared since (-n: kept, as asked),
 * or one the filesystem counts as the same as a file already there: an
 * exFAT volume compares names through the up-case table it carries, which
 * its last owner wrote, not the fixed model plan_names.c checks (a table
 * that folds the digits makes IMG_0001.JPG and IMG_0002.JPG one name).
 * -EEXIST then. */
static int rename_item(struct engine *g, struct batch_item *it)
{
	bool keep = g->plan->opts.no_clobber || !g->plan->entries[it->entry].dst_exists;

	if (renameat2(it->dirfd, it->tmp, it->dirfd, it->name, keep ? RENAME_NOREPLACE : 0) == 0)
		return 0;
	if (errno != EINVAL || !keep)
		return -errno;
	return g->plan->opts.no_clobber ? rename_onto_placeholder(it) : rename_if_free(it);
}

/* Entries looked at for the file holding a clashing name: a bound on the
 * error path's cost in a huge directory. */
#define CLASH_SCAN_MAX 100000

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A FUSE daemon on libfuse's high-level API (exfat-fuse, without
 * use_ino) numbers inodes per name, so the two names of one file get two
 * numbers: then the one entry that looks the same must do. */
static bool looks_same(const struct stat *a, const struct stat *b)
{
	return (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT) && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The name, in the directory's own listing, of the file that `name`
 * reaches: `name` itself when a file appeared under it, another name the
 * filesystem folds onto it, or NULL when no entry is sure. */
static char *clash_holder(int dirfd, const char *name)
{
	_cleanup_free_ char *weak = NULL;
	char *found = NULL;
	size_t n_weak = 0, seen = 0;
	struct stat want, st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(dirfd, name, &want, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return NULL;
	}
	while (!found && seen++ < CLASH_SCAN_MAX && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (strcmp(de->d_name, name) == 0 || same_file(&st, &want))
			found = strdup(de->d_name);
		else if (looks_same(&st, &want) && n_weak++ == 0)
			weak = strdup(de->d_name);
	}
	closedir(d);
	return found ? found : n_weak == 1 ? TAKE_PTR(weak) : NULL;
}

/* The path of `holder` (a name in the item's directory), for messages. */
static char *holder_path(const struct plan_entry *e, const char *holder)
{
	size_t dlen = strlen(e->dst), nlen = strlen(e->dst_name);
	char *p;

	if (nlen > dlen || strcmp(e->dst + dlen - nlen, e->dst_name) != 0)
		return strdup(holder);
	p = malloc(dlen - nlen + strlen(holder) + 1);
	if (p) {
		memcpy(p, e->dst, dlen - nlen);
		strcpy(p + dlen - nlen, holder);
	}
	return p;
}

/* The name the plan saw free is taken (EEXIST at publish): true, and the
 * item is reported and dropped, unless it is -n's case: the very name
 * appeared, or no file holding it was found, and it is kept. */
static bool name_clash(struct engine *g, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	_cleanup_free_ char *holder = NULL, *path = NULL;

	if (e->dst_exists)
		return false; /* -n, and the plan's own file: kept */
	holder = clash_holder(it->dirfd, it->name);
	if (g->plan->opts.no_clobber && (!holder || strcmp(holder, it->name) == 0))
		return false;
	path = holder ? holder_path(e, holder) : NULL;
	DEBUG(DEBUG_COPY, "name clash: '%s' taken by '%s'", e->dst, path ? path : "?");
	copy_report(g, it->entry, COPY_STEP_NAME_CLASH, -EEXIST, path, false);
	copy_remove_temp(it);
	copy_forget_bytes(g, it);
	copy_count_failed(g);
	return true;
}

static int sync_dirs(struct engine *g)
{
	struct batch *b = &g->batch;

	if (!g->fuse)
		return fs_sync(g->dest_fd);
	/* FUSE: FSYNCDIR per directory; exfat-fuse's covers the volume */
	for (size_t i = 0; i < (g->volume_fsync ? MIN(b->n_dirs, 1) : b->n_dirs); i++)
		if (fsync(b->dirs[i].fd) < 0)
			return -errno;
	/* fusefat: the new entries are in the device's cache */
	return g->device_sync ? fs_sync_device(g->dest_fd, g->bdev_fd) : 0;
}

static void reset(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		batch_item_done(&b->items[i]);
	b->n = b->unwaited = 0;
	b->bytes = b->pending = 0;
	batch_close_dirs(b);
}

/* Remember a verified file for the recheck at the end. */
static void remember(struct engine *g, const struct batch_item *it)
{
	struct named_file *grown;

	if (!it->digest[0])
		return;
	grown = realloc(g->named, (g->n_named + 1) * sizeof(*grown));
	if (!grown)
		return; /* that one is not read again: it was verified once */
	g->named = grown;
	g->named[g->n_named] = (struct named_file){
		.entry = it->entry, .dev = it->dev, .ino = it->ino,
		.size = it->size,
		.commit = g->commits,
	};
	memcpy(g->named[g->n_named++].digest, it->digest, sizeof(it->digest));
}

static void renamed(struct engine *g, struct batch_item *it)
{
	remember(g, it);
	atomic_fetch_add(&g->stats->files_done, 1);
	g->published[it->entry] = true;
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_FILE_DONE, .entry = it->entry });
}

/* fusefat gives a renamed file the rename's time: the source's again, on
 * the final name (step 5's directory fsync makes it durable). */
static void times_again(struct engine *g, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	const struct timespec times[2] = { e->source->st.st_atim, e->source->st.st_mtim };

	if (g->o->keep_times && utimensat(it->dirfd, it->name, times, AT_SYMLINK_NOFOLLOW) < 0)
		copy_report(g, it->entry, COPY_STEP_ATTRS, -errno, e->dst, false);
}

/* Put an item under its final name.  An unnamed file is linked there;
 * onto an existing entry it is linked under a temporary name first and
 * renamed over it, so the old file is replaced in one step. */
static int publish_item(struct engine *g, struct batch_item *it)
{
	int r, rc;

	test_hook("publish", g->plan->entries[it->entry].dst);
	if (!it->unnamed) {
		r = rename_item(g, it);
		if (r == 0 && g->times_after_rename)
			times_again(g, it);
		return r;
	}
	r = link_as(g, it, it->name);
	/* replaced only where the plan saw a file (rename_item) */
	if (r == -EEXIST && !g->plan->opts.no_clobber && g->plan->entries[it->entry].dst_exists) {
		copy_temp_name(g, it);
		r = link_as(g, it, it->tmp);
		if (r < 0)
			it->tmp[0] = '\0';
		else
			r = rename_item(g, it);
	}
	rc = writer_close(it->w);
	return r < 0 ? r : rc;
}

/* -n, and the name appeared during the copy: kept, as -n asks. */
static void kept(struct engine *g, struct batch_item *it)
{
	copy_remove_temp(it);
	copy_forget_bytes(g, it);
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_SKIPPED, .entry = it->entry,
					   .skip = COPY_SKIP_APPEARED });
}

/* Name it (or keep or drop it); -errno only for an error that stops the
 * copy, and then it and the rest are batch_abort's. */
static int settle_item(struct engine *g, struct batch_item *it)
{
	int r = publish_item(g, it);

	if (copy_fatal_error(r)) {
		copy_report(g, it->entry, COPY_STEP_RENAME, r, g->plan->entries[it->entry].dst, true);
		return r;
	}
	it->settled = true; /* renamed, kept or dropped: not batch_abort's */
	if (r == 0) {
		it->tmp[0] = '\0';
		it->renamed = true;
	} else if (r == -EEXIST && name_clash(g, it)) {
		/* reported and dropped */
	} else if (r == -EEXIST && g->plan->opts.no_clobber) {
		kept(g, it);
	} else {
		copy_report(g, it->entry, COPY_STEP_RENAME, r, g->plan->entries[it->entry].dst, false);
		copy_remove_temp(it);
		copy_forget_bytes(g, it);
		copy_count_failed(g);
	}
	return 0;
}

/* With a journal and nothing to read back, a file whose data is on the
 * device is named at once, not at the commit: the journal puts the name
 * in the same or a later commit than the file's size and blocks (as at
 * the commit, step 3's comment), so the batch's one syncfs still makes
 * it durable in the right order, and the commit has little left to do
 * while the device waits: naming a thousand files at its end drained
 * the device's queue for as long. */
static bool names_early(const struct engine *g)
{
	return g->journaled && !g->fuse && !g->volume_fsync && !g->device_sync && !g->o->verify;
}

static int publish_early(struct engine *g, struct batch_item *it)
{
	int r = 0;

	set_attrs(g, it);
	if (!it->unnamed)
		r = writer_close(it->w);
	if (r < 0) {
		copy_report(g, it->entry, COPY_STEP_SYNC, r, g->plan->entries[it->entry].dst, true);
		return r;
	}
	return settle_item(g, it);
}

int batch_commit(struct engine *g)
{
	struct batch *b = &g->batch;
	int r;

	if (b->n == 0)
		return 0;
	DEBUG(DEBUG_COPY, "commit: %zu items, %llu bytes", b->n, (unsigned long long)b->bytes);
	/* fusefat: durable_files' device sync covers the data too */
	r = g->device_sync && g->volume_fsync ? 0 : batch_wait_data(g, 0);
	if (r == 0)
		r = durable_files(g);
	for (size_t i = 0; r == 0 && i < b->n; i++)
		if (!b->items[i].rejected && !b->items[i].settled)
			r = settle_item(g, &b->items[i]);
	/* under its final name is copied, whatever comes after */
	for (size_t i = 0; i < b->n; i++)
		if (b->items[i].renamed)
			renamed(g, &b->items[i]);
	g->commits++;
	if (r == 0) {
		finish_dirs(g, false);
		r = sync_dirs(g);
		if (r < 0)
			copy_report(g, b->items[0].entry, COPY_STEP_SYNC, r, g->plan->dest_root, true);
	}
	if (r < 0)
		return r; /* batch_abort removes what was not renamed */
	reset(b);
	return 0;
}

void batch_abort(struct engine *g, int why)
{
	struct batch *b = &g->batch;
	bool named = false;

	/* unnamed files vanish when their fds close in reset() */
	for (size_t i = 0; i < b->n; i++) {
		named = named || b->items[i].renamed;
		if (!b->items[i].settled) {
			copy_remove_temp(&b->items[i]);
			copy_forget_bytes(g, &b->items[i]);
		}
	}
	/* named early, whole: stopped by the user, they are copied once
	 * durable, as their commit would have made them.  After an error
	 * they stay uncounted: a syncfs on a failed device may still
	 * return 0 (xfs, shut down, has nothing left to write). */
	if (named && why == -ECANCELED && sync_dirs(g) == 0) {
		for (size_t i = 0; i < b->n; i++)
			if (b->items[i].renamed)
				renamed(g, &b->items[i]);
		g->commits++;
	}
	reset(b);
}
