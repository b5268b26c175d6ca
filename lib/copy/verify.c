/* verify.c: see verify.h; here the recheck at the end.
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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/grow.h"
#include "copy/plan.h"
#include "copy/verify.h"
#include "util/beneath.h"
#include "copy/hook_paths.h"

/* A file named after its read-back matched, to read again at the end. */
struct named_file {
	size_t entry;
	dev_t dev;
	ino_t ino;
	uint64_t from;   /* read back from here (verify_file.from) */
	uint64_t size;
	uint64_t commit; /* the commit that named it */
	char digest[CHECKSUM_TEXT_MAX];
};

struct verify {
	struct verify_setup s;
	struct read_back rb;
	bool cached_noted;
	struct named_file *named;
	size_t n_named, cap_named;
	uint64_t commits; /* batch commits (that may have named something) */
	/* the recheck's place: pass 0 the earlier commits' files, pass 1
	 * (after one of them read back different) the last commit's */
	int pass;
	size_t at;
	bool bad;
};

int verify_file_start(struct verify_file *f)
{
	f->digest[0] = '\0';
	if (f->hash) {
		checksum_reset(f->hash);
		return 0;
	}
	f->hash = checksum_new(CHECKSUM_BIT(CHECKSUM_XXH128));
	return f->hash ? 0 : -ENOMEM;
}

void verify_file_add(struct verify_file *f, const void *buf, size_t len)
{
	if (f->hash)
		checksum_update(f->hash, buf, len);
}

void verify_file_add_bytes(void *ctx, const void *buf, size_t len)
{
	verify_file_add(ctx, buf, len);
}

void verify_file_free(struct verify_file *f)
{
	checksum_free(f->hash);
	f->hash = NULL;
}

int verify_file_compare(struct verify_file *f, struct read_back *rb, int fd, uint64_t size,
			bool fuse, int bdev_fd, enum readback_how *how, _Atomic uint64_t *counted)
{
	struct checksum_result want, got;
	int r;

	checksum_final(f->hash, &want);
	r = read_back_range(rb, fd, f->from, size, fuse, bdev_fd, CHECKSUM_BIT(CHECKSUM_XXH128),
			    &got, how, counted);
	if (r < 0)
		return r;
	if (!checksum_result_match(&want, &got))
		return 1;
	memcpy(f->digest, checksum_result_text(&got, CHECKSUM_XXH128), sizeof(f->digest));
	return 0;
}

int verify_new(const struct verify_setup *s, struct verify **ret)
{
	struct verify *v = calloc(1, sizeof(*v));
	int r;

	if (!v)
		return -ENOMEM;
	v->s = *s;
	r = read_back_init(&v->rb, s->buf_size);
	if (r < 0) {
		free(v);
		return r;
	}
	*ret = v;
	return 0;
}

void verify_free(struct verify *v)
{
	if (!v)
		return;
	read_back_done(&v->rb);
	free(v->named);
	free(v);
}

int verify_written(struct verify *v, struct verify_file *f, size_t entry, int fd, uint64_t size,
		   bool *note_cached)
{
	enum readback_how how;
	struct stat st;
	int r;

	*note_cached = false;
	if (!v || !f->hash)
		return 0;
	test_hook_dst("verify", v->s.plan, entry);
	r = verify_file_compare(f, &v->rb, fd, size, v->s.fuse, v->s.bdev_fd, &how,
				v->s.counts.bytes);
	if (r >= 0 && how == READBACK_CACHED && !v->cached_noted) {
		v->cached_noted = *note_cached = true;
		atomic_store(v->s.counts.cached, true);
	}
	if (r == 1) {
		atomic_fetch_add(v->s.counts.mismatched, 1);
		return -EBADMSG;
	}
	if (r < 0)
		return r;
	atomic_fetch_add(v->s.counts.files, 1);
	if (fstat(fd, &st) == 0) {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	}
	return 0;
}

void verify_named(struct verify *v, const struct verify_file *f, size_t entry, uint64_t size)
{
	if (!v || !f->digest[0] || GROW(v->named, v->cap_named, v->n_named + 1, 64) < 0)
		return;
	v->named[v->n_named] = (struct named_file){
		.entry = entry, .dev = f->dev, .ino = f->ino, .from = f->from, .size = size,
		.commit = v->commits,
	};
	memcpy(v->named[v->n_named++].digest, f->digest, sizeof(f->digest));
}

void verify_committed(struct verify *v)
{
	if (v)
		v->commits++;
}

bool verify_recheck_due(const struct verify *v)
{
	return v && v->n_named > 0 && v->commits > 0;
}

/* Take f away from its name rel (under dir_fd), if the name still holds it. */
static int withdraw(int dir_fd, const struct named_file *f, const char *rel)
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
	dfd = slash ? beneath_openat(dir_fd, dir, O_RDONLY | O_DIRECTORY | O_NOCTTY, 0)
		    : fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
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

/* true, with *ret, when f reads back different (or unreadable) */
static bool recheck_one(struct verify *v, int dir_fd, const struct named_file *f,
			struct verify_bad *ret)
{
	char rel[PATH_MAX];
	struct checksum_result got;
	enum readback_how how;
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	if (!plan_dest_rel(v->s.plan, f->entry, rel, sizeof(rel)))
		return false;
	fd = beneath_openat(dir_fd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0);
	/* gone or replaced since (by someone else): not ours to judge */
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != f->dev || st.st_ino != f->ino)
		return false;
	test_hook_dst("recheck", v->s.plan, f->entry);
	r = read_back_range(&v->rb, fd, f->from, f->size, v->s.fuse, v->s.bdev_fd,
			    CHECKSUM_BIT(CHECKSUM_XXH128), &got, &how, NULL);
	if (r == 0 && strcmp(checksum_result_text(&got, CHECKSUM_XXH128), f->digest) == 0)
		return false;
	*ret = (struct verify_bad){ .entry = f->entry, .err = r < 0 ? r : -EBADMSG };
	/* closed first, as dest_file_remove does: FUSE hides an open file */
	close(TAKE_FD(fd));
	if (withdraw(dir_fd, f, rel) == 0) {
		ret->withdrawn = true;
		atomic_fetch_sub(v->s.counts.files, 1);
		if (ret->err == -EBADMSG)
			atomic_fetch_add(v->s.counts.mismatched, 1);
	}
	return true;
}

int verify_recheck_next(struct verify *v, int dir_fd, int root_fd, struct verify_bad *ret)
{
	if (!verify_recheck_due(v))
		return 0;
	for (;;) {
		const struct named_file *f;

		if (v->at == v->n_named) {
			/* the second pass only when the first found the stick lying */
			if (v->pass == 1 || !v->bad || syncfs(root_fd) < 0) {
				v->pass = 1;
				return 0;
			}
			v->pass = 1;
			v->at = 0;
		}
		f = &v->named[v->at++];
		if (v->s.cancel && atomic_load(v->s.cancel))
			return -ECANCELED;
		if ((f->commit + 1 >= v->commits) != (v->pass == 1))
			continue;
		if (recheck_one(v, dir_fd, f, ret)) {
			v->bad = true;
			return 1;
		}
	}
}
