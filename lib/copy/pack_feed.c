/* pack_feed.c: the archive's bytes made as the reader asks for them
 * (pack.h, piece 3; the contract is source_feed.h's).
 *
 * Pull, on the reader's thread: asked for a chunk, the feed takes the
 * next step of the sources (a directory or symlink header; a regular
 * file's header, then its bytes a block at a time) through the
 * pack_writer, whose output callback appends to a queue, until the
 * queue holds the chunk or the archive is closed; then it hands out
 * exactly one chunk.  So the archive is re-chunked to the reader's
 * (and the writer's) alignment here, and the queue never holds much
 * more than a chunk plus one block's output.
 *
 * The sources are read as the reader reads a copy's (source_open.h):
 * each from its directory's fd by name (a dirstack of the sources'
 * directories, each opened checked against the walk), never through a
 * symlink, O_NONBLOCK, the file the walk saw, no more than its size,
 * and checked unchanged after its last byte.  Devices, FIFOs and
 * sockets are not packed (the command warned about them).  Any source
 * that fails fails the archive (pack.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/dirstack.h"
#include "copy/pack.h"
#include "copy/source_open.h"
#include "base/cleanup.h"
#include "base/grow.h"
#include "base/size.h"

/* source bytes per step: a compressor's work between cancel checks */
#define STEP_BYTES (256u << 10)

struct pack_feed {
	const struct source_tree *t;
	enum pack_format fmt;
	struct pack_writer *w;
	atomic_bool *cancel;
	struct source_feed feed;
	/* the archive's bytes not handed out yet: q[q_off, q_off + q_len) */
	uint8_t *q;
	size_t q_off, q_len, q_cap;
	/* the walk over the sources */
	size_t next;             /* the next source entry to add */
	struct dirstack dirs;
	int fd;                  /* the regular file being packed, or -1 */
	size_t cur;              /*   its entry */
	uint64_t left, off;      /*   bytes still to pack, and where */
	uint8_t *in;             /* STEP_BYTES of it at a time */
	bool closed;             /* the archive's end is in the queue */
	/* the first failure: a source's (problem_entry) or the writer's */
	int err;
	bool changed;
	size_t problem_entry;
	bool has_problem;
	_Atomic uint64_t packed;
};

static int queue_out(void *ctx, const void *buf, size_t len)
{
	struct pack_feed *f = ctx;

	if (f->q_off > 0 && f->q_off + f->q_len + len > f->q_cap) {
		memmove(f->q, f->q + f->q_off, f->q_len);
		f->q_off = 0;
	}
	if (grow_array(&f->q, &f->q_cap, f->q_len + len, 1, len) < 0)
		return -ENOMEM;
	memcpy(f->q + f->q_off + f->q_len, buf, len);
	f->q_len += len;
	return 0;
}

static void problem(struct pack_feed *f, size_t entry, int err)
{
	if (f->has_problem)
		return;
	f->has_problem = true;
	f->problem_entry = entry;
	f->err = err;
	f->changed = err == 0;
}

/* Open regular file idx for packing; 0, or the problem's error (0 when
 * it is not the file the walk saw: changed). */
static int open_file(struct pack_feed *f, size_t idx)
{
	const struct source_entry *e = &f->t->entries[idx];
	int r;

	dirstack_pop_to(&f->dirs, source_parent(e, idx));
	r = source_open_in(f->t, &f->dirs, e, &f->fd);
	if (r != 0) {
		problem(f, idx, r < 0 ? r : 0);
		return -1;
	}
	posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	f->cur = idx;
	f->left = (uint64_t)e->size;
	f->off = 0;
	return 0;
}

/* The next block of the open file; at its end, the checks a copy makes:
 * no byte past the walk's size, size and times as the walk saw them. */
static int file_step(struct pack_feed *f)
{
	const struct source_entry *e = &f->t->entries[f->cur];
	size_t want = (size_t)MIN(f->left, (uint64_t)STEP_BYTES);
	ssize_t n = want ? source_pread_full(f->fd, f->in, want, f->off) : 0;
	char probe;
	int r;

	if (n < 0 || (size_t)n < want) {
		problem(f, f->cur, n < 0 ? (int)n : 0);
		return -1;
	}
	r = pack_writer_data(f->w, f->in, want);
	if (r < 0)
		return r;
	f->left -= want;
	f->off += want;
	atomic_fetch_add(&f->packed, want);
	if (f->left > 0)
		return 0;
	n = source_pread_full(f->fd, &probe, 1, f->off);
	if (n != 0 || !source_unchanged(f->fd, e))
		problem(f, f->cur, n < 0 ? (int)n : 0);
	/* the file is in the archive now: its pages need not stay */
	posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
	close(f->fd);
	f->fd = -1;
	return f->has_problem ? -1 : 0;
}

/* The next entry's header (and for a file, its opening). */
static int entry_step(struct pack_feed *f)
{
	size_t idx = f->next++;
	const struct source_entry *e = &f->t->entries[idx];
	char buf[PATH_MAX];
	const char *name = pack_entry_name(f->t, idx, buf);
	struct stat st;
	int r = 0;

	if (e->type == PLAN_DIR && (r = source_enter_dir(f->t, &f->dirs, idx)) < 0) {
		problem(f, idx, r);
		return -1;
	}
	if (e->type == PLAN_FILE && open_file(f, idx) < 0)
		return -1;
	if (name && e->type != PLAN_SKIP) {
		source_entry_stat(e, &st);
		r = pack_writer_header(f->w, name, &st, source_link(e));
	}
	return r;
}

/* One step; 0, or -1 for a source's problem, or the writer's -errno. */
static int step(struct pack_feed *f)
{
	if (f->fd >= 0)
		return file_step(f);
	if (f->next < f->t->n_entries)
		return entry_step(f);
	f->closed = true;
	return pack_writer_close(f->w);
}

static int feed_open(void *ctx, size_t entry, atomic_bool *cancel)
{
	struct pack_feed *f = ctx;

	f->cancel = cancel;
	return entry == 0 ? pack_writer_new(f->fmt, queue_out, f, &f->w) : -EINVAL;
}

static ssize_t feed_read(void *ctx, void *buf, size_t len, bool *end)
{
	struct pack_feed *f = ctx;
	size_t n;

	while (f->q_len < len && !f->closed && !f->has_problem && !f->err) {
		int r;

		if (f->cancel && atomic_load(f->cancel))
			return -ECANCELED;
		r = step(f);
		if (r < -1)
			f->err = r;
	}
	if (f->err)
		return f->err;
	/* changed: the archive ends here, flagged (close says so) */
	n = MIN(len, f->q_len);
	memcpy(buf, f->q + f->q_off, n);
	f->q_off += n;
	f->q_len -= n;
	*end = f->has_problem || (f->closed && f->q_len == 0);
	return (ssize_t)n;
}

static int feed_close(void *ctx, bool *changed)
{
	struct pack_feed *f = ctx;

	*changed = f->changed;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	pack_writer_free(f->w);
	f->w = NULL;
	dirstack_free(&f->dirs);
	return 0;
}

static const struct source_feed_ops pack_ops = { feed_open, feed_read, feed_close };

int pack_feed_new(const struct source_tree *sources, enum pack_format fmt,
		  struct pack_feed **ret)
{
	struct pack_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->t = sources;
	f->fmt = fmt;
	f->fd = -1;
	f->feed = (struct source_feed){ &pack_ops, f };
	dirstack_init(&f->dirs, sources->follow_symlinks);
	f->in = malloc(STEP_BYTES);
	if (!f->in) {
		free(f);
		return -ENOMEM;
	}
	*ret = f;
	return 0;
}

const struct source_feed *pack_feed_source(struct pack_feed *f)
{
	return &f->feed;
}

uint64_t pack_feed_packed(const struct pack_feed *f)
{
	return atomic_load(&f->packed);
}

bool pack_feed_problem(const struct pack_feed *f, size_t *entry, int *err)
{
	if (!f->has_problem)
		return false;
	*entry = f->problem_entry;
	*err = f->err;
	return true;
}

void pack_feed_free(struct pack_feed *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	pack_writer_free(f->w);
	dirstack_free(&f->dirs);
	free(f->q);
	free(f->in);
	free(f);
}
