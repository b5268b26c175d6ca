/* reader.c: the read-ahead threads.
 *
 * The first reader reads every file some destination writes, in plan
 * order, into a ring (io/ring.h) with one cursor per destination.  With
 * one destination that is all.  With several, each chunk read into the
 * ring is hashed (a lent one is not: below), and a cursor that holds
 * the ring full while another waits for data for DETACH_HOLD_S is
 * detached: its destination goes on from a second reader of its own,
 * which reads the source again from the cursor's place.  The first
 * reader leaves the second an expectation for every chunk the second
 * will read again (those still in the ring when it was detached, and
 * those the first reads after), and the second compares: bytes that
 * differ mean the source changed between the reads, and that file is
 * flagged changed for that destination.
 *
 * Sources are read with POSIX_FADV_SEQUENTIAL (larger readahead).  With
 * one destination, a file that was not in the page cache before we read
 * it is dropped behind us with POSIX_FADV_DONTNEED, so copying a card
 * does not evict the rest of the system's cache, while a file the user
 * had cached stays cached.  With several, the first reader keeps what it
 * read (a second read then comes from memory, not from the card), and a
 * second reader drops behind itself what the first found uncached.
 *
 * A file of LEND_MIN bytes or more is lent instead of read: each chunk
 * names its range of the source (a dup of the fd) and each destination's
 * writer splices the source's pages to its file (io/file_move.h), so no
 * byte is copied or mapped in user space.  This thread only asks the
 * kernel to read the range ahead (WILLNEED), so a slow card is read
 * while the stick writes.  The bytes are read when the write takes them,
 * so the check that the file did not change is made again after its
 * last write, per destination (reader_chunk_written); a source truncated
 * under us makes the write fail with EFAULT.  With several destinations
 * a lent chunk is not hashed: each destination takes the source's own
 * pages, which the first reader keeps in the cache, and a detached
 * cursor's second reader lends the file again, from the cache when it
 * is still there, else from the source, checked by size and times like
 * every read, not byte for byte (only --verify reads the bytes; it
 * keeps them in the ring and hashed, as do shared checksums).  Per
 * byte, N destinations then cost N splices, not a copy into the ring,
 * a hash, and a second copy and hash for the laggard.  A tap (per-file
 * checksums) with one destination must
 * see the bytes: for it each lent chunk is also mapped and populated
 * (MADV_POPULATE_READ, which fails where a touch would raise SIGBUS) and
 * read under a SIGBUS guard (util/sigbus_guard.h): a file that shrinks
 * under it ends there, flagged changed.  The write then takes the bytes
 * from that mapping: with its page tables already paid for, pinning the
 * pages costs less than splicing them.  Several cursors and --verify
 * read: their hashes are the engine's or the ring's.
 *
 * A job may give a stream feed (source_feed.h) in place of the files:
 * then the reader enters no directory and opens no file; each wanted
 * entry's bytes are the feed's, read into the ring's slots a whole
 * chunk at a time, never mapped, never hashed for a second read (a
 * stream cannot be read again, so no cursor is detached: the slowest
 * destination sets the pace). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <search.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/dirstack.h"
#include "copy/read_back.h"
#include "copy/reader.h"
#include "copy/source_open.h"
#include "copy/source_feed.h"
#include "dirty/cachestat.h"
#include "hash/chunk_hash.h"
#include "io/ring.h"
#include "util/cleanup.h"
#include "util/sigbus_guard.h"
#include "util/size.h"
#include "util/debug.h"
#include "util/test_hook.h"

#define DROP_BACK (2u << 20) /* the largest page cache folio on x86-64 */
/* how long the fastest destination may starve behind a full ring before
 * the slowest one is detached: longer than a batch commit's flush */
#define DETACH_HOLD_S 1.0
/* chunks in the ring at most, whatever their size */
#define READER_RECORDS 1024u
/* smaller files are read: a pipe per file and (with a tap) the mmap,
 * populate and munmap cost more than the copy they save */
#define LEND_MIN (1u << 20)

/* A published chunk lent from the source, until its release.  Chunks
 * are released in order (each cursor in its own), so these form a
 * queue. */
struct lent {
	void *map;               /* its mapping, for a tap; NULL: none */
	size_t map_len;
	int fd;                  /* a dup of the source's: the chunk's src_fd */
	bool drop;               /* drop the pages behind us after the write */
	uint64_t seq;            /* its slot in the ring */
};

/* A chunk the first read hashed, for a detached cursor to compare. */
struct expect {
	size_t entry;
	uint64_t offset;
	uint64_t hash;
};

struct reader_cursor {
	struct reader *r;        /* the reader whose ring it takes from */
	unsigned idx;            /* its cursor in that ring */
	const struct plan *plan; /* its destination's plan: which files it writes */
	size_t skip_from, skip_to; /* under r->lock */
	bool left;               /* under r->lock */
	/* detach, set by the first reader's thread under its lock */
	bool detached;
	size_t det_entry;
	uint64_t det_offset;
	void *expect;            /* tsearch tree of struct expect, under the first's lock */
	_Atomic size_t own_entry; /* where the second reader is: the first */
	struct reader *own;      /*   stores expectations only ahead of it */
};

struct reader {
	const struct source_tree *tree; /* the source tree every plan shares */
	const struct source_feed *feed; /* NULL: the tree's files (source_feed.h) */
	bool *want;               /* per entry: some cursor writes this file */
	size_t chunk, align;
	struct ring *ring;
	atomic_bool *cancel;
	pthread_t thread;
	bool started;
	bool hashing;
	bool bytes_seen;          /* a consumer hashes the bytes: map nothing */
	struct checksum_state *src_hash; /* verify_source: this file's first read */
	struct read_back src_rb;
	struct reader_tap tap;    /* the first reader only */
	pthread_mutex_t lock;
	unsigned n;
	struct reader_cursor *cursors;
	/* a second reader: the first, the cursor it serves, where it starts */
	struct reader *first;
	struct reader_cursor *serves;
	size_t start_entry;
	uint64_t start_offset;
	/* reader thread only */
	struct dirstack dirs;
	size_t bad_dir_end;  /* files before this index lie under a directory */
	int bad_dir_err;     /*   that could not be opened, with this error */
	size_t at_entry;     /* the chunk being read: where a detached */
	uint64_t at_offset;  /*   cursor goes on when the ring holds none */
	bool *uncached;      /* the first: file was not cached before we read it */
	/* the first reader's counters, of all readers */
	_Atomic uint64_t bytes_read, bytes_reread, mismatches;
	_Atomic unsigned detached;
	/* published lent chunks not yet released, oldest first, under lock */
	struct lent lent[READER_RECORDS];
	unsigned lent_head, lent_len;
};

static bool should_stop(const struct reader *r)
{
	return r->cancel && atomic_load(r->cancel);
}

static struct reader *first_of(struct reader *r)
{
	return r->first ? r->first : r;
}

static bool wants(const struct plan *p, size_t idx)
{
	const struct plan_entry *e = &p->entries[idx];

	return e->source->type == PLAN_FILE && !e->skip_existing;
}

/* DONTNEED skips a large folio that is not wholly inside the range, and
 * one may straddle two chunks: each drop reaches back over the previous
 * chunk's end, and the last one to the end of the file. */
static void drop_pages(int fd, uint64_t off, size_t len, bool last)
{
	uint64_t from = off > DROP_BACK ? off - DROP_BACK : 0;

	posix_fadvise(fd, (off_t)from, last ? 0 : (off_t)(off + len - from), POSIX_FADV_DONTNEED);
}

static bool was_cached(int fd)
{
	struct file_cache fc;

	return cachestat_fd(fd, 0, 0, &fc) == 0 && fc.cached > 0;
}

static int cmp_expect(const void *a, const void *b)
{
	const struct expect *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* First reader, under its lock: remember chunk c for detached cursor k,
 * unless k's own reader is already past it. */
static void expect_add(struct reader_cursor *k, const struct reader_chunk *c)
{
	struct expect *x, **found;

	if (c->len == 0 || c->lent || c->err || !k->detached || k->left ||
	    atomic_load(&k->own_entry) > c->entry)
		return;
	x = malloc(sizeof(*x));
	if (!x)
		return; /* that chunk is then not compared, only read twice */
	*x = (struct expect){ c->entry, c->offset, c->hash };
	found = tsearch(x, &k->expect, cmp_expect);
	if (!found || *found != x)
		free(x);
}

/* Second reader: does chunk c match the first read of it, where there
 * was one? */
static bool expect_check(struct reader *r, const struct reader_chunk *c)
{
	struct reader *f = r->first;
	struct reader_cursor *k = r->serves;
	struct expect key = { c->entry, c->offset, 0 }, **found, *x;
	bool same = true;

	pthread_mutex_lock(&f->lock);
	found = tfind(&key, &k->expect, cmp_expect);
	if (found) {
		x = *found;
		same = x->hash == c->hash;
		tdelete(&key, &k->expect, cmp_expect);
		free(x);
	}
	pthread_mutex_unlock(&f->lock);
	if (!same)
		atomic_fetch_add(&f->mismatches, 1);
	return same;
}

/* Is idx skipped by every cursor that still takes from this ring? */
static bool skipped(struct reader *r, size_t idx)
{
	bool skip = true;

	pthread_mutex_lock(&first_of(r)->lock);
	for (unsigned i = 0; i < r->n && skip; i++) {
		const struct reader_cursor *k = &r->cursors[i];

		if (!k->left && !k->detached && wants(k->plan, idx) &&
		    !(idx >= k->skip_from && idx < k->skip_to))
			skip = false;
	}
	pthread_mutex_unlock(&first_of(r)->lock);
	return skip;
}

/* First reader: detach cursor lag, which holds the ring full.  It goes
 * on from the oldest chunk it has not taken, or, when it has taken them
 * all, from the one being read now. */
static void detach(struct reader *r, unsigned lag)
{
	struct reader_cursor *k = &r->cursors[lag];
	struct reader_chunk m;
	uint64_t next, produced;

	pthread_mutex_lock(&r->lock);
	ring_detach(r->ring, lag, &next);
	produced = ring_produced(r->ring);
	k->det_entry = r->at_entry;
	k->det_offset = r->at_offset;
	if (next < produced && ring_meta(r->ring, next, &m)) {
		k->det_entry = m.entry;
		k->det_offset = m.offset;
	}
	k->detached = true;
	for (uint64_t s = next; s < produced; s++)
		if (ring_meta(r->ring, s, &m))
			expect_add(k, &m);
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add(&r->detached, 1);
	DEBUG(DEBUG_COPY, "reader: cursor %u detached at entry %zu offset %llu", lag,
	      k->det_entry, (unsigned long long)k->det_offset);
}

/* A free slot for the chunk at (idx, offset); NULL when told to stop. */
static void *claim(struct reader *r, size_t idx, uint64_t offset, size_t bytes)
{
	void *buf;
	unsigned lag;
	int rc;

	r->at_entry = idx;
	r->at_offset = offset;
	while ((rc = ring_claim_size(r->ring, bytes, r->hashing && !r->first ? DETACH_HOLD_S : 0, &buf,
				&lag)) == 1)
		detach(r, lag);
	return rc == 0 && !should_stop(r) ? buf : NULL;
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

static void publish(struct reader *r, struct reader_chunk *c)
{
	if (r->first)
		atomic_store(&r->serves->own_entry, c->entry);
	/* a lent chunk has no bytes here: see the top of the file */
	if (r->hashing && !c->lent && c->len > 0 && !c->err) {
		c->hash = chunk_hash(c->buf, c->len);
		if (r->first) {
			if (!expect_check(r, c))
				c->changed = c->last = true;
		} else {
			pthread_mutex_lock(&r->lock);
			for (unsigned i = 0; i < r->n; i++)
				expect_add(&r->cursors[i], c);
			pthread_mutex_unlock(&r->lock);
		}
	}
	if (r->tap.chunk && !r->first)
		tap(r, c);
	ring_publish(r->ring, c);
}

/* Publish a chunk that ends the file; false when told to stop. */
static bool publish_end(struct reader *r, struct reader_chunk *c, int err, bool changed)
{
	c->buf = claim(r, c->entry, c->offset, 0);
	if (!c->buf)
		return false;
	c->len = 0;
	c->err = err;
	c->changed = changed;
	c->last = true;
	publish(r, c);
	return true;
}

/* Drop what we read behind us?  See the top of the file. */
static bool drops_behind(struct reader *r, size_t idx, int fd)
{
	if (r->first)
		return r->first->uncached[idx];
	r->uncached[idx] = !was_cached(fd);
	return r->n == 1 && r->uncached[idx];
}

/* A large file is lent unless its bytes are needed here: by --verify's
 * hashes, or by a tap that several destinations share (one alone maps
 * the chunk for it).  A second reader lends what its first one does. */
static bool lends_files(const struct reader *r, const struct source_entry *e)
{
	const struct reader *f = r->first ? r->first : r;

	return !f->feed && !f->bytes_seen && !(f->tap.chunk && f->n > 1) &&
	       e->st.st_size >= LEND_MIN;
}

/* Map and populate m's len bytes of fd at off. */
static bool map_lent(struct lent *m, int fd, uint64_t off, size_t len)
{
	m->map_len = (size_t)round_up_u64(len, (uint64_t)sysconf(_SC_PAGESIZE));
	m->map = mmap(NULL, m->map_len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return false;
	}
	if (madvise(m->map, m->map_len, MADV_POPULATE_READ) < 0) {
		munmap(m->map, m->map_len);
		m->map = NULL;
		return false;
	}
	return true;
}

/* Several cursors release lent chunks each in its own order: a chunk's
 * fd is closed once every cursor is past it, here before the next is
 * lent, and at the end.  (Such chunks are never mapped: no tap; nor
 * dropped: several destinations keep what was read.) */
static void reclaim_lent(struct reader *r)
{
	uint64_t oldest = ring_oldest(r->ring);

	for (;;) {
		int fd;

		pthread_mutex_lock(&r->lock);
		if (r->lent_len == 0 || r->lent[r->lent_head].seq >= oldest) {
			pthread_mutex_unlock(&r->lock);
			return;
		}
		fd = r->lent[r->lent_head].fd;
		r->lent_head = (r->lent_head + 1) % READER_RECORDS;
		r->lent_len--;
		pthread_mutex_unlock(&r->lock);
		close(fd);
	}
}

/* Lend chunk c's want bytes of fd to the write, in place of the slot's
 * buffer, which then holds nothing (its bytes in the ring still bound
 * how far ahead the source is read); false (nothing lent) when any
 * step fails, and the chunk is then read. */
static bool lend_chunk(struct reader *r, int fd, struct reader_chunk *c, size_t want, bool drop)
{
	struct lent m = { .drop = drop, .seq = ring_produced(r->ring) };

	if (r->n > 1)
		reclaim_lent(r);
	if (r->lent_len == READER_RECORDS)
		return false;
	if (r->tap.chunk && !map_lent(&m, fd, c->offset, want))
		return false;
	m.fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (m.fd < 0) {
		if (m.map)
			munmap(m.map, m.map_len);
		return false;
	}
	if (!m.map)
		posix_fadvise(fd, (off_t)c->offset, (off_t)want, POSIX_FADV_WILLNEED);
	pthread_mutex_lock(&r->lock);
	r->lent[(r->lent_head + r->lent_len++) % READER_RECORDS] = m;
	pthread_mutex_unlock(&r->lock);
	if (m.map)
		c->buf = m.map;
	c->mapped = m.map != NULL;
	c->src_fd = m.fd;
	return true;
}

/* Give back the oldest lent chunk, c, and drop its pages when we should. */
static void return_oldest(struct reader *r, const struct reader_chunk *c)
{
	struct lent m;

	pthread_mutex_lock(&r->lock);
	m = r->lent[r->lent_head];
	r->lent_head = (r->lent_head + 1) % READER_RECORDS;
	r->lent_len--;
	pthread_mutex_unlock(&r->lock);
	if (m.map)
		munmap(m.map, m.map_len);
	if (c && m.drop)
		drop_pages(m.fd, c->offset, c->len, c->last);
	close(m.fd);
}

/* verify_source: hash chunk c; at the file's end read it again from the
 * device and compare. */
static void source_again(struct reader *r, int fd, struct reader_chunk *c, uint64_t size)
{
	struct checksum_result res, again;
	enum readback_how how;

	if (c->offset == 0)
		checksum_reset(r->src_hash);
	if (!c->err && !c->changed)
		checksum_update(r->src_hash, c->buf, c->len);
	if (!c->last || c->err || c->changed)
		return;
	checksum_final(r->src_hash, &res);
	if (read_back_file(&r->src_rb, fd, size, false, -1, CHECKSUM_BIT(CHECKSUM_XXH128), &again,
			   &how, NULL) < 0 ||
	    strcmp(checksum_result_text(&again, CHECKSUM_XXH128),
		   checksum_result_text(&res, CHECKSUM_XXH128)) != 0)
		c->reread_differs = true;
}

/* Read one file into the ring from `from`, never past the plan's size;
 * false when told to stop. */
static bool read_file(struct reader *r, size_t idx, uint64_t from)
{
	const struct source_entry *e = &r->tree->entries[idx];
	struct reader_chunk c = { .entry = idx, .offset = from, .seen = &e->st };
	uint64_t left = (uint64_t)e->st.st_size > from ? (uint64_t)e->st.st_size - from : 0;
	_cleanup_close_ int fd = -1;
	bool drop_behind, lend = lends_files(r, e);
	char probe;
	int rc;

	if (idx < r->bad_dir_end)
		return publish_end(r, &c, r->bad_dir_err, false);
	rc = source_open_in(r->tree, &r->dirs, e, &fd);
	if (rc != 0)
		return publish_end(r, &c, rc < 0 ? rc : 0, rc == 1);
	/* a file that fits one read gains nothing from a larger readahead */
	if (left > r->chunk)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	drop_behind = drops_behind(r, idx, fd);
	for (;;) {
		size_t want = (size_t)MIN(left, (uint64_t)r->chunk);
		/* the chunk that reaches the plan's size reads one byte more,
		 * the byte that shows the file grew, where it fits the slot */
		size_t ask = want == left && want < r->chunk ? want + 1 : want;
		ssize_t n, more = 0;

		if (skipped(r, idx))
			return publish_end(r, &c, -ECANCELED, false);
		c.buf = claim(r, idx, c.offset, ask);
		if (!c.buf)
			return false;
		c.mapped = false;
		c.lent = lend = lend && want > 0 && lend_chunk(r, fd, &c, want, drop_behind);
		n = c.lent ? (ssize_t)want : source_pread_least(fd, c.buf, ask, want, c.offset);
		if (n > (ssize_t)want) {
			n = (ssize_t)want;
			more = 1;
		}
		c.err = n < 0 ? (int)n : 0;
		c.len = n < 0 ? 0 : (size_t)n;
		left -= c.len;
		atomic_fetch_add(&first_of(r)->bytes_read, c.len);
		if (r->first)
			atomic_fetch_add(&r->first->bytes_reread, c.len);
		/* short of the plan's size: it shrank; at it: one byte more
		 * means it grew, and then its times and size must be the plan's */
		c.last = n < 0 || (size_t)n < want || left == 0;
		if (c.last && n >= 0 && (size_t)n == want && (c.lent || ask == want))
			more = source_pread_full(fd, &probe, 1, c.offset + want);
		if (more < 0)
			c.err = (int)more;
		else if (c.last && n >= 0)
			c.changed = (size_t)c.len < want || more > 0 || !source_unchanged(fd, &e->st);
		if (r->src_hash)
			source_again(r, fd, &c, (uint64_t)e->st.st_size);
		if (n >= 0 && drop_behind && !c.lent)
			drop_pages(fd, c.offset, c.len, c.last);
		publish(r, &c);
		if (c.last)
			return true;
		c.offset += c.len;
	}
}

/* A stream feed's entry idx into the ring (source_feed.h's contract),
 * whole chunks but for the last; false when told to stop. */
static bool read_fed(struct reader *r, size_t idx)
{
	const struct source_feed *f = r->feed;
	struct reader_chunk c = { .entry = idx };
	bool end = false, changed = false;
	int rc = f->ops->open(f->ctx, idx, r->cancel);

	if (rc < 0)
		return publish_end(r, &c, rc, false);
	for (;;) {
		ssize_t n;

		if (skipped(r, idx)) {
			f->ops->close(f->ctx, &changed);
			return publish_end(r, &c, -ECANCELED, false);
		}
		c.buf = claim(r, idx, c.offset, r->chunk);
		if (!c.buf) {
			f->ops->close(f->ctx, &changed);
			return false;
		}
		n = f->ops->read(f->ctx, c.buf, r->chunk, &end);
		if (n == -ECANCELED && should_stop(r)) {
			f->ops->close(f->ctx, &changed);
			return false;
		}
		if (n >= 0 && (size_t)n < r->chunk && !end)
			n = -EIO; /* the feed broke its contract */
		c.err = n < 0 ? (int)n : 0;
		c.len = n < 0 ? 0 : (size_t)n;
		c.last = n < 0 || end;
		atomic_fetch_add(&r->bytes_read, c.len);
		if (c.last) {
			rc = f->ops->close(f->ctx, &changed);
			if (!c.err && rc < 0)
				c.err = rc;
			c.changed = !c.err && changed;
		}
		publish(r, &c);
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

static void *reader_thread(void *arg)
{
	struct reader *r = arg;

	for (size_t i = 0; i < r->tree->n_entries; i++) {
		const struct source_entry *e = &r->tree->entries[i];

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
			dirstack_pop_to(&r->dirs, e->parent);
		if (skipped(r, i) ? !publish_end(r, &(struct reader_chunk){ .entry = i },
						  -ECANCELED, false)
		    : r->feed     ? !read_fed(r, i)
				  : !read_file(r, i, i == r->start_entry ? r->start_offset : 0))
			break;
	}
	dirstack_free(&r->dirs);
	ring_finish(r->ring);
	return NULL;
}

static int reader_new(const struct plan *const *plans, unsigned n, const struct write_plan *wp,
		      atomic_bool *cancel, struct reader **ret)
{
	struct reader *r = calloc(1, sizeof(*r));
	unsigned slots = wp->ring_slots ? wp->ring_slots : 3;
	int e;

	if (!r)
		return -ENOMEM;
	r->tree = plans[0]->tree;
	r->cancel = cancel;
	r->chunk = wp->chunk;
	r->align = MAX(wp->mem_align, 4096);
	r->n = n;
	r->hashing = n > 1;
	dirstack_init(&r->dirs, r->tree->follow_symlinks);
	pthread_mutex_init(&r->lock, NULL);
	r->cursors = calloc(n, sizeof(*r->cursors));
	r->want = calloc(r->tree->n_entries + 1, sizeof(*r->want));
	if (!r->cursors || !r->want) {
		reader_free(r);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		r->cursors[i] = (struct reader_cursor){ .r = r, .idx = i, .plan = plans[i] };
		for (size_t j = 0; j < r->tree->n_entries; j++)
			r->want[j] = r->want[j] || wants(plans[i], j);
	}
	/* one arena: a small file takes a page, not a chunk, so the reader
	 * runs as many files ahead as a large file's bytes */
	e = ring_new_arena(MAX(slots, READER_RECORDS), (size_t)slots * r->chunk, r->align,
			   sizeof(struct reader_chunk), n,
		     &r->ring);
	if (e < 0) {
		reader_free(r);
		return e;
	}
	*ret = r;
	return 0;
}

static int reader_run(struct reader *r)
{
	int e = -pthread_create(&r->thread, NULL, reader_thread, r);

	r->started = e == 0;
	if (e == 0)
		DEBUG(DEBUG_COPY, "reader: %u slots of %zu bytes, %u cursors",
		      ring_slots(r->ring), r->chunk, r->n);
	return e;
}

int reader_start(const struct plan *const *plans, unsigned n, const struct write_plan *wp,
		 atomic_bool *cancel, struct reader **ret)
{
	return reader_start_tapped(plans, n, wp, NULL, false, false, cancel, ret);
}

int reader_start_tapped(const struct plan *const *plans, unsigned n, const struct write_plan *wp,
			const struct reader_tap *tap, bool bytes_seen, bool verify_source,
			atomic_bool *cancel, struct reader **ret)
{
	return reader_start_fed(plans, n, wp, NULL, tap, bytes_seen, verify_source, cancel, ret);
}

int reader_start_fed(const struct plan *const *plans, unsigned n, const struct write_plan *wp,
		     const struct source_feed *feed, const struct reader_tap *tap, bool bytes_seen,
		     bool verify_source, atomic_bool *cancel, struct reader **ret)
{
	struct reader *r;
	int e;

	if (n == 0 || n > RING_CURSORS_MAX || (feed && verify_source))
		return -EINVAL;
	e = reader_new(plans, n, wp, cancel, &r);
	if (e == 0 && feed) {
		r->feed = feed;
		r->hashing = false; /* nothing reads a stream again to compare */
	}
	/* the first reader's: second readers look it up there */
	if (e == 0 && !(r->uncached = calloc(r->tree->n_entries + 1, sizeof(*r->uncached)))) {
		reader_free(r);
		e = -ENOMEM;
	}
	if (e == 0 && tap)
		r->tap = *tap;
	if (e == 0)
		r->bytes_seen = bytes_seen || verify_source;
	if (e == 0 && verify_source) {
		r->src_hash = checksum_new(CHECKSUM_BIT(CHECKSUM_XXH128));
		e = r->src_hash ? read_back_init(&r->src_rb, r->chunk) : -ENOMEM;
		if (e < 0)
			reader_free(r);
	}
	if (e == 0 && (e = reader_run(r)) < 0)
		reader_free(r);
	if (e == 0)
		*ret = r;
	return e;
}

struct reader_cursor *reader_cursor(struct reader *r, unsigned i)
{
	return &r->cursors[i];
}

/* Detached cursor k goes on from a reader of its own (its first one's
 * chunk and ring sizes), which starts where k was. */
static int start_own(struct reader_cursor *k, const struct write_plan *wp)
{
	struct reader *f = k->r, *own;
	int e = reader_new(&k->plan, 1, wp, f->cancel, &own);

	if (e < 0)
		return e;
	own->first = f;
	own->serves = k;
	own->hashing = true;
	pthread_mutex_lock(&f->lock);
	own->start_entry = k->det_entry;
	own->start_offset = k->det_offset;
	own->cursors[0].skip_from = k->skip_from;
	own->cursors[0].skip_to = k->skip_to;
	atomic_store(&k->own_entry, k->det_entry);
	pthread_mutex_unlock(&f->lock);
	e = reader_run(own);
	if (e < 0) {
		reader_free(own);
		return e;
	}
	k->own = own;
	return 0;
}

int reader_next(struct reader_cursor *k, struct reader_chunk *ret)
{
	for (;;) {
		void *buf;
		uint64_t next;
		int rc;

		if (k->own)
			return reader_next(&k->own->cursors[0], ret);
		rc = ring_take(k->r->ring, k->idx, ret, &buf, &next);
		if (rc == RING_DETACHED) {
			struct write_plan wp = { .chunk = k->r->chunk, .mem_align = (uint32_t)k->r->align,
						 .ring_slots = (unsigned)(ring_arena_bytes(k->r->ring) / k->r->chunk) /
							       k->r->n };

			rc = start_own(k, &wp);
			if (rc < 0)
				return rc;
			continue;
		}
		if (rc != 0)
			return rc;
		if (!ret->lent)
			ret->buf = buf;
		if (wants(k->plan, ret->entry))
			return 0;
		/* another destination's file (-n kept it here) */
		ring_release(k->r->ring, k->idx);
	}
}

void reader_skip(struct reader_cursor *k, size_t from, size_t to)
{
	pthread_mutex_lock(&first_of(k->r)->lock);
	k->skip_from = from;
	k->skip_to = to;
	pthread_mutex_unlock(&first_of(k->r)->lock);
	if (k->own)
		reader_skip(&k->own->cursors[0], from, to);
}

void reader_release(struct reader_cursor *k, const struct reader_chunk *ch)
{
	if (k->own) {
		reader_release(&k->own->cursors[0], ch);
		return;
	}
	/* one cursor gives lent chunks back in order: this is the oldest;
	 * with several, reclaim_lent closes what all of them are past */
	if (ch->lent && k->r->n == 1)
		return_oldest(k->r, ch);
	ring_release(k->r->ring, k->idx);
}

void reader_leave(struct reader_cursor *k)
{
	struct reader *f = first_of(k->r);

	pthread_mutex_lock(&f->lock);
	k->left = true;
	pthread_mutex_unlock(&f->lock);
	ring_leave(k->r->ring, k->idx);
	if (k->own)
		reader_leave(&k->own->cursors[0]);
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
		stop(r->cursors[i].own);
}

static void reap(struct reader *r)
{
	if (r->started)
		pthread_join(r->thread, NULL);
	r->started = false;
	for (unsigned i = 0; r->cursors && i < r->n; i++) {
		struct reader_cursor *k = &r->cursors[i];

		if (k->own) {
			reap(k->own);
			reader_free(k->own);
			k->own = NULL;
		}
		tdestroy(k->expect, free);
		k->expect = NULL;
	}
}

void reader_free(struct reader *r)
{
	if (!r)
		return;
	stop(r);
	reap(r);
	while (r->lent_len > 0)
		return_oldest(r, NULL);
	ring_free(r->ring);
	free(r->cursors);
	free(r->want);
	free(r->uncached);
	checksum_free(r->src_hash);
	read_back_done(&r->src_rb);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
