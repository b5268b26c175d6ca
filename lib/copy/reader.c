/* reader.c: the read-ahead loop.
 *
 * A thread reads every file some destination writes, in plan order,
 * into a ring (io/ring.h) with one cursor per destination (their side:
 * reader_cursor.c).  With one destination that is all.  With several,
 * each chunk read is hashed, and a cursor that holds the ring full
 * while another waits for data for DETACH_HOLD_S is detached: it goes on
 * from a second reader of its own, which runs this loop again from the
 * cursor's place and checks what it reads against the first read's
 * hashes (reader_second.c).  A large file's chunks are lent to the write
 * rather than read here (reader_lend.c), and a job may give the bytes of
 * each entry from a stream in place of the files (reader_feed.c).
 *
 * Each file is opened from its directory's fd as the plan saw it
 * (source_open.h), read no further than the plan's size, and flagged
 * changed when it ends short, has a byte more, or its size or times are
 * no longer the plan's.  With verify_source each file is hashed as it is
 * read and, before its last chunk is published, read again past the
 * page cache and compared (verify.h).
 *
 * Sources are read with POSIX_FADV_SEQUENTIAL (larger readahead).  With
 * one destination, a file that was not in the page cache before we read
 * it is dropped behind us with POSIX_FADV_DONTNEED, so copying a card
 * does not evict the rest of the system's cache, while a file the user
 * had cached stays cached.  With several, the first reader keeps what it
 * read (a second read then comes from memory, not from the card), and a
 * second reader drops behind itself what the first found uncached.
 *
 * A tap sees every chunk of the first read before it is published; a
 * lent chunk mapped for it is read under a SIGBUS guard
 * (util/sigbus_guard.h): a file that shrinks under the mapping ends
 * there, flagged changed. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "copy/holes.h"
#include "copy/reader.h"
#include "copy/reader_internal.h"
#include "copy/source_open.h"
#include "dirty/cachestat.h"
#include "io/ring.h"
#include "base/cleanup.h"
#include "util/sigbus_guard.h"
#include "base/size.h"
#include "base/sorted.h"
#include "util/debug.h"

#define DROP_BACK (2u << 20) /* the largest page cache folio on x86-64 */
/* how long the fastest destination may starve behind a full ring before
 * the slowest one is detached: longer than a batch commit's flush */
#define DETACH_HOLD_S 1.0

bool reader_should_stop(const struct reader *r)
{
	return r->cancel && atomic_load(r->cancel);
}

bool reader_wants(const struct plan *p, size_t idx)
{
	const struct plan_entry *e = &p->entries[idx];

	return e->source->type == PLAN_FILE && !e->skip_existing && !e->linked;
}

/* DONTNEED skips a large folio that is not wholly inside the range, and
 * one may straddle two chunks: each drop reaches back over the previous
 * chunk's end, and the last one to the end of the file. */
void reader_drop_pages(int fd, uint64_t off, size_t len, bool last)
{
	uint64_t from = off > DROP_BACK ? off - DROP_BACK : 0;

	posix_fadvise(fd, (off_t)from, last ? 0 : (off_t)(off + len - from), POSIX_FADV_DONTNEED);
}

static bool was_cached(int fd)
{
	struct file_cache fc;

	return cachestat_fd(fd, 0, 0, &fc) == 0 && fc.cached > 0;
}

/* Is idx skipped by every cursor that still takes from this ring? */
bool reader_skipped(struct reader *r, size_t idx)
{
	bool skip = true;

	pthread_mutex_lock(&r->first->lock);
	for (unsigned i = 0; i < r->n && skip; i++) {
		const struct reader_cursor *k = &r->cursors[i];

		if (!k->left && !k->second.detached && reader_wants(k->plan, idx) &&
		    !(idx >= k->skip_from && idx < k->skip_to))
			skip = false;
	}
	pthread_mutex_unlock(&r->first->lock);
	return skip;
}

/* A free slot for the chunk at (idx, offset); NULL when told to stop.
 * Only the first reader detaches a cursor that holds the ring full. */
void *reader_claim(struct reader *r, size_t idx, uint64_t offset, size_t bytes)
{
	void *buf;
	unsigned lag;
	int rc;

	r->at_entry = idx;
	r->at_offset = offset;
	while ((rc = ring_claim_size(r->ring, bytes, r->hashing && !r->second ? DETACH_HOLD_S : 0,
				     &buf, &lag)) == 1)
		second_detach(r, lag);
	return rc == 0 && !reader_should_stop(r) ? buf : NULL;
}

struct tap_call {
	struct reader *r;
	const struct reader_chunk *c;
};

static void call_tap(void *ctx)
{
	struct tap_call *t = ctx;

	t->r->tap.chunk(t->r->tap.ctx, t->c);
}

/* The tap sees chunk c; a mapped one under the SIGBUS guard: when the
 * file shrank under the mapping, it ends here, changed, and the tap is
 * told so (its half-done sums are dropped). */
static void tap(struct reader *r, struct reader_chunk *c)
{
	struct reader_chunk end;

	if (!c->mapped || c->len == 0) {
		r->tap.chunk(r->tap.ctx, c);
		return;
	}
	if (sigbus_guarded(c->buf, c->len, call_tap, &(struct tap_call){ r, c }) == 0)
		return;
	c->changed = c->last = true;
	end = *c;
	end.len = 0;
	end.lent = end.mapped = false;
	r->tap.chunk(r->tap.ctx, &end);
}

void reader_publish(struct reader *r, struct reader_chunk *c)
{
	second_note(r, c);
	if (r->tap.chunk)
		tap(r, c);
	ring_publish(r->ring, c);
}

/* Publish a chunk that ends the file; false when told to stop.  It has
 * no bytes, so lends none, whatever the file's chunk before it did (its
 * release must not give a lent chunk back twice). */
bool reader_publish_end(struct reader *r, struct reader_chunk *c, int err, bool changed)
{
	c->buf = reader_claim(r, c->entry, c->offset, 0);
	if (!c->buf)
		return false;
	c->len = 0;
	c->lent = c->mapped = false;
	c->err = err;
	c->changed = changed;
	c->last = true;
	reader_publish(r, c);
	return true;
}

/* Drop what we read behind us?  See the top of the file. */
static bool drops_behind(struct reader *r, size_t idx, int fd)
{
	if (r->second)
		return r->first->uncached[idx];
	r->uncached[idx] = !was_cached(fd);
	return r->n == 1 && r->uncached[idx];
}

/* verify_source: digest chunk c; at the file's end read it again from
 * the device and compare (verify.h). */
static void source_again(struct reader *r, int fd, struct reader_chunk *c, uint64_t size)
{
	enum readback_how how;

	if (c->offset == 0)
		verify_file_start(&r->src); /* holds one: cannot fail */
	if (!c->err && !c->changed)
		reader_chunk_bytes(c, 0, verify_file_add_bytes, &r->src);
	if (!c->last || c->err || c->changed)
		return;
	if (verify_file_compare(&r->src, &r->src_rb, fd, size, false, -1, &how, NULL) != 0)
		c->reread_differs = true;
}

/* One file's read, chunk by chunk (read_file()). */
struct file_read {
	const struct source_entry *e;
	int fd;
	uint64_t left;     /* bytes before the plan's size */
	uint64_t seg;      /* of them, data before the next hole (holes: else left) */
	bool holes;        /* its holes are chunks of their own (reader_chunk.hole) */
	bool drop_behind;
};

/* The last chunk c (with n of want bytes read, or -errno): the byte past
 * the plan's size, read unless the read asked for it, says whether the
 * file grew; then its size and times must be the plan's. */
static void end_check(struct file_read *f, struct reader_chunk *c, ssize_t n, size_t want,
		      ssize_t more, bool asked)
{
	char probe;

	if (c->last && n >= 0 && (size_t)n == want && !asked)
		more = source_pread_full(f->fd, &probe, 1, c->offset + want);
	if (more < 0)
		c->err = (int)more;
	else if (c->last && n >= 0)
		c->changed = (size_t)c->len < want || more > 0 || !source_unchanged(f->fd, f->e);
}

/* The hole before the next data, as a chunk of its own; false when told
 * to stop.  f->seg gets the data's length. */
static bool read_hole(struct reader *r, struct file_read *f, struct reader_chunk *c)
{
	uint64_t data, end, size = c->offset + f->left;

	holes_next_data(f->fd, c->offset, size, r->align, &data, &end);
	f->seg = end - data;
	if (data == c->offset)
		return true;
	c->buf = reader_claim(r, c->entry, c->offset, 0);
	if (!c->buf)
		return false;
	c->hole = true;
	c->lent = c->mapped = false;
	c->err = 0;
	c->len = (size_t)(data - c->offset);
	f->left -= c->len;
	c->last = f->left == 0;
	end_check(f, c, (ssize_t)c->len, c->len, 0, false);
	if (r->src.hash)
		source_again(r, f->fd, c, (uint64_t)f->e->size);
	reader_publish(r, c);
	c->hole = false;
	c->offset += c->len;
	return true;
}

/* Read one file into the ring from `from`, never past the plan's size;
 * false when told to stop.  A file with holes (SOURCE_HOLES, unless
 * --sparse=never) is read by its data, each hole one chunk of no
 * bytes: from `from` (a multiple of the chunk) every boundary is a
 * multiple of the reader's alignment, but the file's end. */
static bool read_file(struct reader *r, size_t idx, uint64_t from)
{
	const struct source_entry *e = &r->tree->entries[idx];
	struct reader_chunk c = { .entry = idx, .offset = from, .seen = e };
	struct file_read f = { .e = e };
	_cleanup_close_ int fd = -1;
	bool lend = lend_file(r, e);
	int rc;

	f.left = f.seg = (uint64_t)e->size > from ? (uint64_t)e->size - from : 0;
	f.holes = r->holes && (e->flags & SOURCE_HOLES);
	if (idx < r->bad_dir_end)
		return reader_publish_end(r, &c, r->bad_dir_err, false);
	rc = source_open_in(r->tree, &r->dirs, e, &fd);
	if (rc != 0)
		return reader_publish_end(r, &c, rc < 0 ? rc : 0, rc == 1);
	f.fd = fd;
	/* a file that fits one read gains nothing from a larger readahead */
	if (f.left > r->chunk)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	f.drop_behind = drops_behind(r, idx, fd);
	if (f.holes)
		f.seg = 0;
	for (;;) {
		size_t want;
		size_t ask;
		ssize_t n, more = 0;

		if (reader_skipped(r, idx))
			return reader_publish_end(r, &c, -ECANCELED, false);
		if (f.holes && f.seg == 0 && f.left > 0) {
			if (!read_hole(r, &f, &c))
				return false;
			if (f.left == 0)
				return true;
		}
		want = (size_t)MIN(f.seg, (uint64_t)r->chunk);
		/* the chunk that reaches the plan's size reads one byte more,
		 * the byte that shows the file grew, where it fits the slot */
		ask = want == f.left && want < r->chunk ? want + 1 : want;
		c.buf = reader_claim(r, idx, c.offset, ask);
		if (!c.buf)
			return false;
		c.mapped = false;
		c.lent = lend = lend && want > 0 && lend_chunk(r, fd, &c, want, f.drop_behind);
		n = c.lent ? (ssize_t)want : source_pread_least(fd, c.buf, ask, want, c.offset);
		if (n > (ssize_t)want) {
			n = (ssize_t)want;
			more = 1;
		}
		c.err = n < 0 ? (int)n : 0;
		c.len = n < 0 ? 0 : (size_t)n;
		f.left -= c.len;
		f.seg -= MIN(f.seg, (uint64_t)c.len);
		atomic_fetch_add(&r->first->bytes_read, c.len);
		if (r->second)
			atomic_fetch_add(&r->first->bytes_reread, c.len);
		/* short of the plan's size: it shrank; at it: one byte more
		 * means it grew, and then its times and size must be the plan's */
		c.last = n < 0 || (size_t)n < want || f.left == 0;
		end_check(&f, &c, n, want, more, !c.lent && ask != want);
		if (r->src.hash)
			source_again(r, fd, &c, (uint64_t)e->size);
		if (n >= 0 && f.drop_behind && !c.lent)
			reader_drop_pages(fd, c.offset, c.len, c.last);
		reader_publish(r, &c);
		if (c.last)
			return true;
		c.offset += c.len;
	}
}

/* Make the source directory of entry idx the top of the stack: opened
 * from its parent's fd by name, and the one the plan walked.  Files
 * below one that cannot be opened get its error. */
static void enter_dir(struct reader *r, size_t idx)
{
	const struct source_entry *e = &r->tree->entries[idx];
	int err = source_enter_dir(r->tree, &r->dirs, idx);

	if (err < 0 && e->end > r->bad_dir_end) {
		r->bad_dir_end = e->end;
		r->bad_dir_err = err;
	}
}

/* Where file idx is read from: its resumed offset, else 0. */
static uint64_t file_start(const struct reader *r, size_t idx)
{
	const struct reader *f = r->first;
	size_t i = sorted_find(f->starts, f->n_starts, sizeof(*f->starts),
			       offsetof(struct reader_start, entry), idx);

	return i < f->n_starts ? f->starts[i].from : 0;
}

static void *reader_thread(void *arg)
{
	struct reader *r = arg;

	for (size_t i = 0; i < r->tree->n_entries; i++) {
		const struct source_entry *e = &r->tree->entries[i];
		bool go;

		/* a second reader starts inside the tree: the directories
		 * wholly before its start are not entered */
		if (e->type == PLAN_DIR && e->end <= r->start_entry) {
			i = e->end - 1;
			continue;
		}
		/* a feed's entries are not in directories of ours */
		if (e->type == PLAN_DIR && i >= r->bad_dir_end && !r->feed)
			enter_dir(r, i);
		if (e->type != PLAN_FILE || !r->want[i] || i < r->start_entry)
			continue;
		if (i >= r->bad_dir_end && !r->feed)
			dirstack_pop_to(&r->dirs, source_parent(e, i));
		if (reader_skipped(r, i))
			go = reader_publish_end(r, &(struct reader_chunk){ .entry = i }, -ECANCELED,
						false);
		else if (r->feed)
			go = feed_read(r, i);
		else
			go = read_file(r, i, r->second && i == r->start_entry ? r->start_offset
								       : file_start(r, i));
		if (!go)
			break;
	}
	dirstack_free(&r->dirs);
	ring_finish(r->ring);
	return NULL;
}

/* A reader of n cursors, not yet running: a ring of slots (0: 3) chunks
 * of chunk bytes, aligned to align (at least a page). */
/* An arena slot's bytes: a chunk, but no more than the largest file read
 * needs (page-rounded, and at least READER_SMALL_SLOT so that hundreds of
 * small files fit ahead): a tree of small files would otherwise hold
 * slots x chunk (15 MiB on a stick whose chunk is 5 MiB) for a few KiB
 * each, and the arena's pages, once touched, stay in the process. */
static size_t arena_slot(const struct reader *r)
{
	uint64_t largest = 0;

	for (size_t j = 0; j < r->tree->n_entries; j++)
		if (r->want[j] && r->tree->entries[j].size > largest)
			largest = r->tree->entries[j].size;
	largest = (largest + r->align - 1) / r->align * r->align;
	return MIN(r->chunk, (size_t)MAX(largest, (uint64_t)READER_SMALL_SLOT));
}

int reader_new(const struct plan *const *plans, unsigned n, size_t chunk, size_t align,
	       unsigned slots, atomic_bool *cancel, struct reader **ret)
{
	struct reader *r = calloc(1, sizeof(*r));
	int e;

	if (!r)
		return -ENOMEM;
	slots = slots ? slots : 3;
	r->tree = plans[0]->tree;
	r->cancel = cancel;
	r->chunk = chunk;
	r->align = MAX(align, 4096);
	r->n = n;
	r->hashing = n > 1;
	r->holes = plans[0]->opts.sparse != SPARSE_NEVER;
	r->first = r;
	dirstack_init(&r->dirs, r->tree->follow_symlinks);
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->lent_lock, NULL);
	r->cursors = calloc(n, sizeof(*r->cursors));
	r->want = calloc(r->tree->n_entries + 1, sizeof(*r->want));
	if (!r->cursors || !r->want) {
		reader_free(r);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		r->cursors[i] = (struct reader_cursor){ .r = r, .idx = i, .plan = plans[i] };
		for (size_t j = 0; j < r->tree->n_entries; j++)
			r->want[j] = r->want[j] || reader_wants(plans[i], j);
	}
	/* one arena: a small file takes a page, not a chunk, so the reader
	 * runs as many files ahead as a large file's bytes */
	r->slot = arena_slot(r);
	e = ring_new_arena(MAX(slots, READER_RECORDS), (size_t)slots * r->slot, r->align,
			   sizeof(struct reader_chunk), n, &r->ring);
	if (e < 0) {
		reader_free(r);
		return e;
	}
	*ret = r;
	return 0;
}

int reader_run(struct reader *r)
{
	int e = -pthread_create(&r->thread, NULL, reader_thread, r);

	r->started = e == 0;
	if (e == 0)
		DEBUG(DEBUG_COPY, "reader: %u slots of %zu bytes, %u cursors",
		      ring_slots(r->ring), r->chunk, r->n);
	return e;
}

int reader_start(const struct reader_opts *o, struct reader **ret)
{
	const struct write_plan *wp = o->wp;
	struct reader *r;
	int e;

	if (o->n == 0 || o->n > RING_CURSORS_MAX || (o->feed && o->verify_source))
		return -EINVAL;
	e = reader_new(o->plans, o->n, wp->chunk, wp->mem_align, wp->ring_slots, o->cancel, &r);
	if (e == 0 && o->feed) {
		r->feed = o->feed;
		r->hashing = false; /* nothing reads a stream again to compare */
	}
	/* the first reader's: second readers look it up there */
	if (e == 0 && !(r->uncached = calloc(r->tree->n_entries + 1, sizeof(*r->uncached)))) {
		reader_free(r);
		e = -ENOMEM;
	}
	if (e == 0 && o->tap)
		r->tap = *o->tap;
	if (e == 0) {
		r->starts = o->starts;
		r->n_starts = o->n_starts;
	}
	if (e == 0)
		r->bytes_seen = o->bytes_seen || o->verify_source;
	if (e == 0 && o->verify_source) {
		e = verify_file_start(&r->src);
		if (e == 0)
			e = read_back_init(&r->src_rb, r->chunk);
		if (e < 0)
			reader_free(r);
	}
	if (e == 0 && (e = reader_run(r)) < 0)
		reader_free(r);
	if (e == 0)
		*ret = r;
	return e;
}

void reader_stats(const struct reader *r, struct reader_stats *ret)
{
	ret->bytes_read = atomic_load(&r->bytes_read);
	ret->bytes_reread = atomic_load(&r->bytes_reread);
	ret->detached = atomic_load(&r->detached);
	ret->mismatches = atomic_load(&r->mismatches);
}

static void stop(struct reader *r)
{
	if (!r)
		return;
	if (r->ring)
		ring_stop(r->ring);
	for (unsigned i = 0; r->cursors && i < r->n; i++)
		stop(r->cursors[i].second.reader);
}

void reader_free(struct reader *r)
{
	if (!r)
		return;
	stop(r);
	if (r->started)
		pthread_join(r->thread, NULL);
	r->started = false;
	for (unsigned i = 0; r->cursors && i < r->n; i++)
		second_end(&r->cursors[i]);
	lend_return_all(r);
	ring_free(r->ring);
	free(r->cursors);
	free(r->want);
	free(r->uncached);
	verify_file_free(&r->src);
	read_back_done(&r->src_rb);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->lent_lock);
	free(r);
}
