/* identical.c: plan_skip_identical() and the mtime comparison (identical.h).
 *
 * Files are read here through their paths, but each open is checked
 * against what the plan saw (device, inode, size; the source's mtime and
 * ctime too), so a file swapped or changed since is not judged: it is
 * copied, and the engine checks it again.  The destination is read back
 * through read_back.h, as --verify and --check read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/identical.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"
#include "copy/read_back.h"
#include "copy/source_open.h"
#include "base/cleanup.h"
#include "base/test_hook.h"

#define NSEC_PER_SEC 1000000000LL
#define READ_BUF (1u << 20)

/* dst on the grid of multiples of step (a divisor of a second, or whole
 * seconds). */
static bool on_grid(const struct timespec *t, uint32_t step)
{
	long long secs;

	if (step < NSEC_PER_SEC)
		return t->tv_nsec % step == 0;
	secs = step / NSEC_PER_SEC;
	return t->tv_nsec == 0 && ((t->tv_sec % secs) + secs) % secs == 0;
}

bool identical_mtime(const struct timespec *src, const struct timespec *dst, uint32_t step_ns)
{
	long long dsec = (long long)src->tv_sec - (long long)dst->tv_sec, diff;

	if (dsec == 0 && src->tv_nsec == dst->tv_nsec)
		return true;
	if (step_ns <= 1 || dsec > 8 || dsec < -8) /* no step is 8 s: no overflow below */
		return false;
	diff = dsec * NSEC_PER_SEC + (src->tv_nsec - dst->tv_nsec);
	return diff > -(long long)step_ns && diff < (long long)step_ns && on_grid(dst, step_ns);
}

/* path opened for reading, if it is still the regular file of that
 * device, inode and size (and, when times is given, mtime and ctime):
 * O_PATH first, following a symlink only when follow
 * (source_open_regular()), so nothing else is ever opened for real. */
static int open_checked(const char *path, bool follow, dev_t dev, ino_t ino, off_t size,
			const struct source_entry *times)
{
	struct stat st;
	int fd = source_open_regular(AT_FDCWD, path, follow, &st);

	if (fd < 0)
		return fd;
	if (st.st_dev != dev || st.st_ino != ino || st.st_size != size ||
	    (times && !source_unchanged(fd, times))) {
		close(fd);
		return -ESTALE;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return fd;
}

/* The digests in algs of fd's bytes, all of them (size of them). */
static int digest_fd(int fd, off_t size, checksum_set algs, void *buf,
		     struct checksum_result *ret)
{
	struct checksum_state *s = checksum_new(algs);
	off_t got = 0;

	if (!s)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = read(fd, buf, READ_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			checksum_free(s);
			return n < 0 ? -errno : -ESTALE; /* shorter than it was */
		}
		checksum_update(s, buf, (size_t)n);
		got += n;
	}
	checksum_final(s, ret);
	checksum_free(s);
	return 0;
}

/* The source as the tree saw it: a symlink there was followed by the
 * walk (-L, an operand) or the entry is no regular file and never judged;
 * following it again is safe, the fd is checked against what was seen. */
static int digest_source(const struct source_entry *s, checksum_set algs, void *buf,
			 struct checksum_result *ret)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;

	if (source_path(s, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = open_checked(path, true, s->dev, s->ino, (off_t)s->size, s);
	return fd < 0 ? fd : digest_fd(fd, (off_t)s->size, algs, buf, ret);
}

static bool newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

void plan_keep_newer(struct plan *p, uint32_t step_ns)
{
	for (size_t i = 0; i < p->n_entries; i++) {
		struct plan_entry *e = &p->entries[i];
		const struct timespec *dst = &plan_existing_of(p, e)->dst_mtim;
		struct timespec src = source_mtim(e->source);

		if (e->dst_exists && !e->skip_existing && e->source->type != PLAN_DIR &&
		    e->source->type != PLAN_SKIP &&
		    (identical_mtime(&src, dst, step_ns) || newer(dst, &src)))
			e->skip_existing = true;
	}
	plan_count(p);
}

/* A judgement's scratch: the read buffers, made on first use, and the
 * source's digests of the file being judged (src.algs 0: not read). */
struct judge {
	const struct identical_options *o;
	void *buf;
	struct read_back rb;
	struct checksum_result src;
};

static int judge_buffer(struct judge *j)
{
	if (!j->buf && !(j->buf = malloc(READ_BUF)))
		return -ENOMEM;
	return 0;
}

/* e's destination read back from the device (read_back.h), its xxh128 in
 * *ret and the way it was read in *how. */
static int read_back_dest(struct judge *j, const struct plan *p, size_t idx,
			  struct checksum_result *ret, enum readback_how *how)
{
	const struct plan_existing *x = plan_existing_of(p, &p->entries[idx]);
	_cleanup_close_ int fd = -1;
	char dst[PATH_MAX];
	int r;

	if (!j->rb.buf) {
		r = read_back_init(&j->rb, READ_BUF);
		if (r < 0)
			return r;
	}
	plan_dst_path(p, idx, dst);
	test_hook("identical", dst);
	/* the plan's lstat saw a regular file: a symlink now is a swap */
	fd = open_checked(dst, false, x->dst_dev, x->dst_ino, (off_t)x->dst_old_size, NULL);
	if (fd < 0)
		return fd;
	return read_back_file(&j->rb, fd, x->dst_old_size, j->o->fuse, j->o->bdev_fd,
			      CHECKSUM_BIT(CHECKSUM_XXH128), ret, how, NULL);
}

static enum plan_read_back read_back_kind(enum readback_how how)
{
	return how == READBACK_CACHED ? PLAN_READ_BACK_CACHED : PLAN_READ_BACK_DEVICE;
}

/* rec's entry for entry idx: 1 listed (in *f), 0 not, -ENOMEM. */
static int recorded_entry(const struct plan *p, size_t idx, const struct recorded_sums *rec,
			  struct recorded_file *f)
{
	char rel[PATH_MAX];
	int r;

	if (!rec || !plan_dest_rel(p, idx, rel, sizeof(rel)))
		return 0;
	r = rec->lookup(rec->ctx, rel, f);
	return r == -ENOMEM ? r : r > 0;
}

/* The record's word (rec), else both copies read (the destination read
 * back, e->identical_read_back says how): the judgement, or
 * PLAN_IDENTICAL_NO; -ENOMEM.  j->src holds the source's digests, also
 * those of keep_algs (and xxh128 with read_back). */
static int judge_by_content(const struct plan *p, size_t idx, const struct recorded_sums *rec,
			    struct judge *j)
{
	struct plan_entry *e = &p->entries[idx];
	checksum_set extra = j->o->keep_algs | (j->o->read_back ? CHECKSUM_BIT(CHECKSUM_XXH128) : 0);
	struct checksum_result dst;
	struct recorded_file f = { 0 };
	enum readback_how how;
	int r = judge_buffer(j);

	if (r < 0)
		return r;
	if (rec) {
		r = recorded_entry(p, idx, rec, &f);
		if (r < 0)
			return r;
		/* never trust what is not listed, or listed as failed */
		if (r == 0 || f.action != RECORDED_GOOD || !(f.sums.algs & CHECKSUM_SET_ALL))
			return PLAN_IDENTICAL_NO;
		r = digest_source(e->source, (f.sums.algs & CHECKSUM_SET_ALL) | extra, j->buf,
				  &j->src);
		if (r == -ENOMEM)
			return r;
		return r == 0 && checksum_result_match(&j->src, &f.sums) ? (int)rec->basis
									 : PLAN_IDENTICAL_NO;
	}
	r = digest_source(e->source, CHECKSUM_BIT(CHECKSUM_XXH128) | extra, j->buf, &j->src);
	if (r == 0)
		r = read_back_dest(j, p, idx, &dst, &how);
	if (r == -ENOMEM)
		return r;
	/* they share xxh128 only: that is what is compared */
	if (r != 0 || !checksum_result_match(&j->src, &dst))
		return PLAN_IDENTICAL_NO;
	e->identical_read_back = read_back_kind(how);
	return PLAN_IDENTICAL_CONTENT;
}

/* read_back: a file judged identical on basis (not by reading its copy)
 * is read back and compared with the source's xxh128; basis, or
 * PLAN_IDENTICAL_NO (it differs or cannot be read: copied again); -ENOMEM. */
static int confirm_read_back(const struct plan *p, size_t idx, int basis, struct judge *j)
{
	struct plan_entry *e = &p->entries[idx];
	struct checksum_result dst;
	enum readback_how how;
	int r;

	if (!j->o->read_back || e->identical_read_back != PLAN_READ_BACK_NONE)
		return basis;
	if (!(j->src.algs & CHECKSUM_BIT(CHECKSUM_XXH128))) { /* quick read nothing */
		r = judge_buffer(j);
		if (r == 0)
			r = digest_source(e->source,
					  CHECKSUM_BIT(CHECKSUM_XXH128) | j->o->keep_algs, j->buf,
					  &j->src);
		if (r < 0)
			return r == -ENOMEM ? r : PLAN_IDENTICAL_NO; /* the engine reads it */
	}
	r = read_back_dest(j, p, idx, &dst, &how);
	if (r == -ENOMEM)
		return r;
	if (r != 0 || !checksum_result_match(&j->src, &dst)) {
		/* a source that changed meanwhile is not the stick's fault */
		e->read_back_differs = r != -ESTALE;
		return PLAN_IDENTICAL_NO;
	}
	e->identical_read_back = read_back_kind(how);
	return basis;
}

/* quick: size and mtime; with listed_only, a file the record does not
 * list is read as hash without a record reads it. */
static int judge_quick(const struct plan *p, size_t idx, struct judge *j)
{
	const struct plan_entry *e = &p->entries[idx];
	struct recorded_file f = { 0 };
	int r;

	struct timespec mtim = source_mtim(e->source);

	if (!identical_mtime(&mtim, &plan_existing_of(p, e)->dst_mtim, j->o->mtime_step_ns))
		return PLAN_IDENTICAL_NO;
	if (!j->o->listed_only)
		return PLAN_IDENTICAL_QUICK;
	r = recorded_entry(p, idx, j->o->recorded, &f);
	if (r != 0)
		return r < 0 ? r : PLAN_IDENTICAL_QUICK;
	return judge_by_content(p, idx, NULL, j);
}

/* Keep what reading the source computed, if asked: 0 or -ENOMEM.  A
 * file the history vouched for is listed with the history's hashes
 * (manifest.h); quick reads its source only to read it back. */
static int keep_sums(struct plan_existing *x, const struct plan_entry *e, const struct judge *j)
{
	if (!j->o->keep_algs || e->identical == PLAN_IDENTICAL_MANIFEST ||
	    (j->src.algs & j->o->keep_algs) != j->o->keep_algs)
		return 0;
	x->judged_sums = malloc(sizeof(*x->judged_sums));
	if (!x->judged_sums)
		return -ENOMEM;
	*x->judged_sums = j->src;
	return 0;
}

/* A file whose destination is a regular file of its size: replaced, or
 * kept by -n (an identical one is then counted as identical, not kept). */
static bool candidate(const struct plan *p, const struct plan_entry *e)
{
	return e->source->type == PLAN_FILE && e->dst_exists && e->dst_regular &&
	       plan_existing_of(p, e)->dst_old_size == e->source->size;
}

int plan_skip_identical(struct plan *p, const struct identical_options *o)
{
	struct judge j = { .o = o };
	int r = 0;

	for (size_t i = 0; r >= 0 && i < p->n_entries; i++) {
		struct plan_entry *e = &p->entries[i];

		if (!candidate(p, e))
			continue;
		j.src.algs = 0;
		r = o->mode == IDENTICAL_QUICK ? judge_quick(p, i, &j)
					       : judge_by_content(p, i, o->recorded, &j);
		if (r > PLAN_IDENTICAL_NO)
			r = confirm_read_back(p, i, r, &j);
		if (r <= PLAN_IDENTICAL_NO) {
			e->identical_read_back = PLAN_READ_BACK_NONE;
			continue;
		}
		e->identical = (enum plan_identical)r;
		e->skip_existing = true;
		p->existing[e->existing].dst_freed = 0; /* nothing replaced, nothing freed */
		r = keep_sums(&p->existing[e->existing], e, &j);
	}
	free(j.buf);
	read_back_done(&j.rb);
	if (r < 0)
		return r;
	plan_count(p);
	return 0;
}
