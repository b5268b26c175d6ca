/* resume.c: see resume.h. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/grow.h"
#include "base/size.h"
#include "base/sorted.h"
#include "copy/partial_state.h"
#include "copy/plan.h"
#include "copy/read_back.h"
#include "copy/resume.h"
#include "copy/source_open.h"
#include "device/target.h"
#include "hash/chunk_hash.h"

/* ------------------------------------------------------ the candidates */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* A new partial's record for entry e of p: the source as the tree saw it. */
static void new_record(const struct plan *p, size_t idx, uint64_t chunk, struct partial_record *r)
{
	const struct plan_entry *e = &p->entries[idx];
	const struct source_entry *s = e->source;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", plan_dst_name(p, idx));
	snprintf(r->source_name, sizeof(r->source_name), "%s",
		 source_name(s) ? source_name(s) : base_name(source_arg(s)));
	r->size = s->size;
	r->mtime_sec = s->mtime;
	r->mtime_nsec = s->mtime_ns;
	r->dev = s->dev;
	r->ino = s->ino;
	r->chunk = chunk;
	/* blocks only before the kernel's pool is ready, early at boot */
	(void)!getrandom(r->nonce, sizeof(r->nonce), 0);
}

/* The stale temporary named name in directory dir, or SIZE_MAX. */
static size_t stale_named(const struct plan *p, size_t dir, const char *name)
{
	for (size_t i = 0; i < p->stale.n; i++)
		if (p->stale.v[i].dir == dir && p->stale.v[i].partial &&
		    strcmp(p->stale.v[i].name, name) == 0)
			return i;
	return SIZE_MAX;
}

/* The destination directory dir (a plan entry, or PLAN_TOP), opened as
 * the stale scan opened it. */
static int open_dir(const struct plan *p, size_t dir)
{
	char buf[PATH_MAX];
	const char *path = dir == PLAN_TOP ? p->dest_dir : plan_dst_path(p, dir, buf);

	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* name in dfd, for reading: a regular file of ours with one link. */
static int open_ours(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
	    st->st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int read_record(int dfd, const char *name, struct partial_record *rec)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	ssize_t n;

	fd = open_ours(dfd, name, &st);
	if (fd < 0)
		return fd;
	if (st.st_size > PARTIAL_RECORD_MAX)
		return -EFBIG;
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return -ENOMEM;
	n = pread(fd, text, (size_t)st.st_size, 0);
	if (n < 0)
		return -errno;
	return partial_record_parse(text, (size_t)n, rec);
}

/* The record is of this file from this source, in this copy's chunks? */
static enum resume_outcome same_source(const struct partial_record *kept,
				       const struct partial_record *want)
{
	if (strcmp(kept->name, want->name) != 0 ||
	    strcmp(kept->source_name, want->source_name) != 0 || kept->size != want->size ||
	    kept->mtime_sec != want->mtime_sec || kept->mtime_nsec != want->mtime_nsec ||
	    (kept->dev == want->dev && kept->ino != want->ino))
		return RESUME_DISCARDED_SOURCE;
	return kept->chunk == want->chunk ? RESUME_FROM : RESUME_DISCARDED_CHUNK;
}

/* The partial written by this machine for exactly this record? */
static enum resume_outcome ours(const struct resume_plan *rp, int fd,
				const struct partial_record *rec)
{
	struct partial_key k;
	uint64_t header;
	pid_t pid;

	if (partial_record_header_digest(rec, &header) < 0)
		return RESUME_DISCARDED_RECORD;
	partial_key_of(fd, rp->fs_uuid, header, rp->stable_ino, &k);
	return partial_state_find(rp->state_dir, &k, &pid) == 1 ? RESUME_FROM
								 : RESUME_DISCARDED_MACHINE;
}

/* f's kept partial, found as data stale[0] and record stale[1]: judged,
 * and on RESUME_FROM with from = its claim (the source check cuts it). */
static void judge_kept(const struct resume_plan *rp, const struct plan *p, size_t dir,
		       struct resume_file *f)
{
	_cleanup_close_ int dfd = open_dir(p, dir);
	_cleanup_close_ int fd = -1;
	struct partial_record kept;
	struct stat st;

	f->outcome = RESUME_DISCARDED_RECORD;
	if (dfd < 0 || f->stale[1] == SIZE_MAX ||
	    read_record(dfd, p->stale.v[f->stale[1]].name, &kept) < 0)
		return;
	f->outcome = same_source(&kept, &f->rec);
	fd = f->outcome == RESUME_FROM ? open_ours(dfd, p->stale.v[f->stale[0]].name, &st) : -1;
	if (f->outcome == RESUME_FROM && fd < 0)
		f->outcome = RESUME_DISCARDED_PARTIAL;
	if (f->outcome == RESUME_FROM)
		f->outcome = ours(rp, fd, &kept);
	if (f->outcome == RESUME_FROM) {
		f->claimed = partial_record_claimed(&kept);
		if ((uint64_t)st.st_size < f->claimed)
			f->outcome = RESUME_DISCARDED_PARTIAL;
	}
	if (f->outcome != RESUME_FROM || f->claimed == 0) {
		/* stopped before its first chunk was on the device: nothing to
		 * resume, the two are an interrupted copy's temporaries */
		f->outcome = f->outcome == RESUME_FROM ? RESUME_NEW : f->outcome;
		partial_record_free(&kept);
		return;
	}
	partial_record_free(&f->rec);
	f->rec = kept;
	f->from = f->claimed;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
}

static int add_file(struct resume_plan *rp, const struct plan *p, size_t idx, uint64_t chunk)
{
	const struct plan_entry *e = &p->entries[idx];
	struct resume_file *f;
	char data[PARTIAL_NAME_MAX], rec[PARTIAL_NAME_MAX];

	if (GROW(rp->v, rp->cap, rp->n + 1, 8) < 0)
		return -ENOMEM;
	f = &rp->v[rp->n++];
	*f = (struct resume_file){ .entry = idx, .stale = { SIZE_MAX, SIZE_MAX } };
	new_record(p, idx, chunk, &f->rec);
	partial_names(plan_dst_name(p, idx), data, rec);
	f->stale[0] = stale_named(p, source_parent(e->source, idx), data);
	f->stale[1] = stale_named(p, source_parent(e->source, idx), rec);
	if (f->stale[0] != SIZE_MAX)
		judge_kept(rp, p, source_parent(e->source, idx), f);
	return 0;
}

int resume_plan_build(struct resume_plan *rp, const struct plan *p, const struct target *t,
		      bool fuse)
{
	char dir[PATH_MAX];

	*rp = (struct resume_plan){ .stable_ino = !fuse };
	if (!partial_state_dir(dir, sizeof(dir)))
		return 0;
	rp->state_dir = strdup(dir);
	rp->fs_uuid = t && t->uuid ? strdup(t->uuid) : NULL;
	if (!rp->state_dir || (t && t->uuid && !rp->fs_uuid))
		return -ENOMEM;
	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];
		uint64_t size = (uint64_t)e->source->size, chunk;
		int r;

		if (e->source->type != PLAN_FILE || e->skip_existing)
			continue;
		chunk = partial_chunk_for(size);
		if (chunk == 0 || size <= chunk)
			continue;
		r = add_file(rp, p, i, chunk);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ------------------------------------------------- the source's prefix */

/* Entry idx's kept partial in rp, or NULL. */
static struct resume_file *kept_of(struct resume_plan *rp, size_t idx)
{
	struct resume_file *f = (struct resume_file *)resume_plan_find(rp, idx);

	return f && f->outcome == RESUME_FROM ? f : NULL;
}

/* Chunk k of the source matches every kept record that lists it, or
 * that record's from stops at k. */
static void compare_chunk(struct resume_plan *const *rps, size_t n, size_t idx, uint64_t k,
			  uint64_t digest)
{
	for (size_t d = 0; d < n; d++) {
		struct resume_file *f = kept_of(rps[d], idx);

		if (f && f->from > k * f->rec.chunk && f->rec.digests[k] != digest)
			f->from = k * f->rec.chunk;
	}
}

/* Read entry idx's source up to want bytes in chunks of chunk. */
static int check_one(struct resume_plan *const *rps, size_t n, const struct plan *p, size_t idx,
		     uint64_t chunk, uint64_t want)
{
	const struct source_entry *e = p->entries[idx].source;
	_cleanup_free_ void *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	char src[PATH_MAX];

	if (source_path(e, src, sizeof(src)) < 0)
		return -ENAMETOOLONG;
	fd = source_open_regular(AT_FDCWD, src,
				 source_follows(p->tree, e), &st);
	if (fd < 0)
		return fd;
	if (st.st_dev != e->dev || st.st_ino != e->ino)
		return -ESTALE;
	if (posix_memalign(&buf, 4096, (size_t)chunk) != 0)
		return -ENOMEM;
	posix_fadvise(fd, 0, (off_t)want, POSIX_FADV_SEQUENTIAL);
	for (uint64_t k = 0; k * chunk < want; k++) {
		ssize_t got = source_pread_full(fd, buf, (size_t)chunk, k * chunk);

		if (got < 0)
			return (int)got;
		if ((uint64_t)got != chunk)
			return -ESTALE; /* shorter than the tree saw it */
		compare_chunk(rps, n, idx, k, chunk_hash(buf, (size_t)chunk));
	}
	return 0;
}

/* After the check: what a kept partial goes on from. */
static void settle(struct resume_plan *rp)
{
	rp->bytes_resumed = 0;
	for (size_t i = 0; i < rp->n; i++) {
		struct resume_file *f = &rp->v[i];

		if (f->outcome != RESUME_FROM)
			continue;
		if (f->from == 0)
			f->outcome = RESUME_DISCARDED_PREFIX;
		f->rec.n = (size_t)(f->from / f->rec.chunk);
		rp->bytes_resumed += f->from;
	}
}

/* Entry idx's kept partials, each cut to what its source gives; a
 * source that cannot be read keeps none. */
static int check_entry(struct resume_plan *const *rps, size_t n, const struct plan *p, size_t idx)
{
	uint64_t want = 0, chunk = 0;
	int r;

	/* one read, as far as the longest claim (every chunk size is the copy's) */
	for (size_t d = 0; d < n; d++) {
		struct resume_file *f = kept_of(rps[d], idx);

		if (f && f->from > want) {
			want = f->from;
			chunk = f->rec.chunk;
		}
	}
	r = check_one(rps, n, p, idx, chunk, want);
	for (size_t d = 0; r < 0 && d < n; d++) {
		struct resume_file *f = kept_of(rps[d], idx);

		if (f)
			f->from = 0;
	}
	return r;
}

int resume_check_sources(struct resume_plan *const *rps, size_t n, const struct plan *p)
{
	int r = 0, e;

	for (size_t d = 0; d < n && r != -ENOMEM; d++) {
		for (size_t i = 0; i < rps[d]->n && r != -ENOMEM; i++) {
			size_t idx = rps[d]->v[i].entry;
			bool seen = rps[d]->v[i].outcome != RESUME_FROM;

			/* an earlier destination's partial of it had it read */
			for (size_t b = 0; b < d && !seen; b++)
				seen = kept_of(rps[b], idx) != NULL;
			if (!seen && (e = check_entry(rps, n, p, idx)) < 0)
				r = e;
		}
	}
	for (size_t d = 0; d < n; d++)
		settle(rps[d]);
	return r;
}

/* ------------------------------------------------- the device's prefix */

/* A read-back's sink: each chunk's digest against the record's. */
struct against {
	struct chunk_hash_stream *stream;
	const struct resume_file *f;
	uint64_t at;
	uint64_t first_bad;  /* the first chunk that differs, or UINT64_MAX */
};

static int against_begin(void *ctx)
{
	struct against *a = ctx;

	chunk_hash_stream_reset(a->stream);
	a->at = 0;
	a->first_bad = UINT64_MAX;
	return 0;
}

static void against_add(void *ctx, const void *buf, size_t len)
{
	struct against *a = ctx;
	const char *p = buf;
	uint64_t chunk = a->f->rec.chunk;

	while (len > 0) {
		uint64_t end = (a->at / chunk + 1) * chunk, k = a->at / chunk;
		size_t n = (size_t)(end - a->at < len ? end - a->at : len);

		chunk_hash_stream_add(a->stream, p, n);
		p += n;
		len -= n;
		a->at += n;
		if (a->at == end) {
			if (a->first_bad == UINT64_MAX &&
			    chunk_hash_stream_digest(a->stream) != a->f->rec.digests[k])
				a->first_bad = k;
			chunk_hash_stream_reset(a->stream);
		}
	}
}

/* f's partial read back: the offset it can go on from. */
static uint64_t read_back_kept(const struct plan *p, size_t dir, const struct resume_file *f,
			       struct read_back *rb, struct chunk_hash_stream *stream,
			       bool fuse, int bdev_fd)
{
	char data[PARTIAL_NAME_MAX], rec[PARTIAL_NAME_MAX];
	struct against a = { stream, f, 0, UINT64_MAX };
	_cleanup_close_ int dfd = open_dir(p, dir);
	_cleanup_close_ int fd = -1;
	enum readback_how how;
	struct stat st;

	partial_names(plan_dst_name(p, f->entry), data, rec);
	fd = dfd < 0 ? -1 : open_ours(dfd, data, &st);
	if (fd < 0 || st.st_ino != f->ino ||
	    read_back_each(rb, fd, 0, f->from, fuse, bdev_fd,
			   &(struct read_back_sink){ &a, against_begin, against_add }, &how,
			   NULL) < 0)
		return 0;
	return a.first_bad == UINT64_MAX ? f->from : a.first_bad * f->rec.chunk;
}

int resume_read_back(struct resume_plan *rp, const struct plan *p, const struct target *t,
		     bool fuse)
{
	struct chunk_hash_stream *stream = chunk_hash_stream_new();
	int bdev_fd = fuse ? read_back_device_open(t) : -1;
	struct read_back rb = { 0 };
	int r = stream ? read_back_init(&rb, 4u << 20) : -ENOMEM;

	for (size_t i = 0; r == 0 && i < rp->n; i++) {
		struct resume_file *f = &rp->v[i];
		uint64_t from;

		if (f->outcome != RESUME_FROM || f->from == 0)
			continue;
		from = read_back_kept(p, source_parent(p->entries[f->entry].source, f->entry), f,
				      &rb, stream,
				      fuse, bdev_fd);
		f->rewritten = f->from - from;
		f->from = from;
		if (from == 0)
			f->outcome = RESUME_DISCARDED_READ_BACK;
	}
	settle(rp);
	read_back_done(&rb);
	chunk_hash_stream_free(stream);
	if (bdev_fd >= 0)
		close(bdev_fd);
	return r;
}

int resume_plan_keep(struct resume_plan *rp, struct plan *p)
{
	struct stale_temps *st = &p->stale;
	_cleanup_free_ bool *kept = calloc(st->n + 1, sizeof(*kept));
	size_t out = 0;

	if (!kept)
		return -ENOMEM;
	for (size_t i = 0; i < rp->n; i++) {
		struct resume_file *f = &rp->v[i];

		for (int k = 0; k < 2; k++) {
			if (f->outcome == RESUME_FROM && f->stale[k] != SIZE_MAX)
				kept[f->stale[k]] = true;
			f->stale[k] = SIZE_MAX; /* the indices change now */
		}
	}
	/* the space check counted them as free: rightly, they become part of
	 * the file whose whole size it counted */
	for (size_t i = 0; i < st->n; i++) {
		if (kept[i]) {
			st->bytes -= st->v[i].bytes;
			free(st->v[i].path);
		} else {
			st->v[out++] = st->v[i];
		}
	}
	st->n = out;
	return 0;
}

const struct resume_file *resume_plan_find(const struct resume_plan *rp, size_t entry)
{
	size_t i;

	if (!rp)
		return NULL;
	i = sorted_find(rp->v, rp->n, sizeof(*rp->v), offsetof(struct resume_file, entry), entry);
	return i < rp->n ? &rp->v[i] : NULL;
}

void resume_plan_free(struct resume_plan *rp)
{
	for (size_t i = 0; i < rp->n; i++)
		partial_record_free(&rp->v[i].rec);
	free(rp->v);
	free(rp->state_dir);
	free(rp->fs_uuid);
	*rp = (struct resume_plan){ 0 };
}
