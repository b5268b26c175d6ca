/* copy_recheck.c: --verify's last pass.
 *
 * A file's read-back happens right after its own data, so it cannot see
 * a later write that lands on it: a counterfeit stick, which has less
 * flash than it claims, wraps writes past its real size onto earlier
 * blocks.  Once the last batch is named, every file named in an earlier
 * commit is read back again (the last commit's files were read after all
 * the data); one that differs now is taken away from its name (unlinked:
 * the source still has it) and reported.  When one did, the stick is not
 * to be trusted at all: the metadata is synced and the last commit's
 * files are read again too (its renames are writes that can land on
 * them).  The cost is one more read of all but the last batch: nothing
 * for one large file, about everything for a tree of small ones.  Writes
 * after this pass (the checksum lists, the manifest, the directories'
 * times) are not read back.  Files are reached from the destination
 * directory's fd with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) and
 * must still be the inode we wrote. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "util/beneath.h"
#include "base/cleanup.h"
#include "util/test_hook.h"

/* Take f away from its name, if the name still holds it. */
static int withdraw(struct engine *g, const struct named_file *f, const char *rel)
{
	_cleanup_free_ char *dir = strdup(rel);
	char *slash;
	const char *base;
	_cleanup_close_ int dfd = -1;
	struct stat st;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	base = slash ? slash + 1 : rel;
	if (slash)
		*slash = '\0';
	dfd = slash ? beneath_openat(g->dest_dir_fd, dir, O_RDONLY | O_DIRECTORY | O_NOCTTY, 0)
		    : fcntl(g->dest_dir_fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (st.st_dev != f->dev || st.st_ino != f->ino)
		return -ESTALE;
	if (unlinkat(dfd, base, 0) < 0)
		return -errno;
	return fsync(dfd) < 0 ? -errno : 0;
}

/* true when f read back different (or unreadable) */
static bool recheck_one(struct engine *g, const struct named_file *f)
{
	const struct plan_entry *e = &g->plan->entries[f->entry];
	char rel[PATH_MAX];
	struct checksum_result got;
	enum readback_how how;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!plan_dest_rel(g->plan, f->entry, rel, sizeof(rel)))
		return false;
	fd = beneath_openat(g->dest_dir_fd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0);
	/* gone or replaced since (by someone else): not ours to judge */
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != f->dev || st.st_ino != f->ino)
		return false;
	test_hook("recheck", e->dst);
	r = read_back_file(&g->rb, fd, f->size, g->fuse, g->bdev_fd, CHECKSUM_BIT(CHECKSUM_XXH128),
			   &got, &how, NULL);
	if (r == 0 && strcmp(checksum_result_text(&got, CHECKSUM_XXH128), f->digest) == 0)
		return false;
	r = r < 0 ? r : -EBADMSG;
	copy_report(g, f->entry, COPY_STEP_VERIFY, r, e->dst, false);
	/* closed first, as dest_file_remove does: FUSE hides an open file */
	close(TAKE_FD(fd));
	if (withdraw(g, f, rel) == 0) {
		atomic_fetch_sub(&g->stats->files_done, 1);
		atomic_fetch_sub(&g->stats->files_verified, 1);
		if (r == -EBADMSG)
			atomic_fetch_add(&g->stats->files_mismatched, 1);
		copy_count_failed(g);
		g->published[f->entry] = false;
		copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_FILE_WITHDRAWN,
						   .entry = f->entry });
	}
	return true;
}

int recheck_named(struct engine *g)
{
	if (!g->o->verify || g->n_named == 0 || g->commits == 0)
		return 0;
	bool bad = false;

	atomic_store(&g->stats->phase, COPY_PHASE_RECHECK);
	for (int pass = 0; pass < 2; pass++) {
		/* the second pass only when the first found the stick lying */
		if (pass == 1 && (!bad || syncfs(g->dest_fd) < 0))
			break;
		for (size_t i = 0; i < g->n_named; i++) {
			bool last = g->named[i].commit + 1 >= g->commits;

			if (g->cancel && atomic_load(g->cancel))
				return -ECANCELED;
			if (last == (pass == 1))
				bad = recheck_one(g, &g->named[i]) || bad;
		}
	}
	return 0;
}
