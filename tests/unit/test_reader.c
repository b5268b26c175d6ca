/* test_reader.c: the reader reads only what the plan saw.  A tree is
 * planned, then changed the way a local user who owns it could change it
 * before or while it is read; every file must still yield its chunks in
 * plan order, ending with one flagged last, and a file that is not the
 * plan's, or changed, must be flagged and never block. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "plan_tree.h"
#include "copy/file_sums.h"
#include "copy/reader.h"
#include "base/clock.h"

#define CHUNK (64 * 1024)

static const struct write_plan wp = { .chunk = CHUNK, .mem_align = 4096, .ring_slots = 3 };

/* A reader of n plans with the write plan above and tap (NULL: none). */
static int start(const struct plan *const *plans, unsigned n, const struct reader_tap *tap,
		 struct reader **ret)
{
	return reader_start(&(struct reader_opts){ .plans = plans, .n = n, .wp = &wp, .tap = tap },
			    ret);
}

struct outcome {
	uint64_t bytes;
	int chunks, err;
	bool changed, last;
};

/* Take the chunks of every file of the plan; out[i] for entry i. */
static void read_all(const struct plan *p, struct outcome *out)
{
	struct reader *r;
	struct reader_chunk c;

	memset(out, 0, p->n_entries * sizeof(*out));
	CHECK_INT(start(&p, 1, NULL, &r), 0);
	while (reader_next(reader_cursor(r, 0), &c) == 0) {
		struct outcome *o = &out[c.entry];

		o->bytes += c.len;
		o->chunks++;
		o->err = c.err;
		o->changed = c.changed;
		o->last = c.last;
		reader_release(reader_cursor(r, 0), &c);
	}
	reader_free(r);
}

static size_t idx_of(const struct plan *p, const char *rel)
{
	const struct plan_entry *e = find(p, rel);

	return e ? (size_t)(e - p->entries) : 0;
}

TEST(unchanged_files_read_whole)
{
	struct outcome out[8];
	struct run x;

	tree_new();
	mkdirs("src", "src/d", "dst");
	mkfile("src/empty", 0);
	mkfile("src/d/exact", 2 * CHUNK);
	mkfile("src/d/odd", 3 * CHUNK + 5);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	read_all(x.p, out);
	CHECK_U64(out[idx_of(x.p, "src/empty")].bytes, 0);
	CHECK(out[idx_of(x.p, "src/empty")].last && !out[idx_of(x.p, "src/empty")].changed);
	CHECK_U64(out[idx_of(x.p, "src/d/exact")].bytes, 2 * CHUNK);
	CHECK_INT(out[idx_of(x.p, "src/d/exact")].chunks, 2);
	CHECK_U64(out[idx_of(x.p, "src/d/odd")].bytes, 3 * CHUNK + 5);
	CHECK(!out[idx_of(x.p, "src/d/odd")].changed && !out[idx_of(x.p, "src/d/odd")].err);
	run_done(&x);
	tree_done();
}

TEST(changed_after_the_plan_is_flagged)
{
	struct outcome out[16];
	struct run x;

	tree_new();
	mkdirs("src", "dst", NULL);
	mkfile("src/grown", 3 * CHUNK);
	mkfile("src/shrunk", 3 * CHUNK);
	mkfile("src/touched", 100);
	mkfile("src/to-link", 100);
	mkfile("src/to-fifo", 100);
	mkfile("src/secret", 100);
	mkfile("src/same", 100);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	mkfile("src/grown", 3 * CHUNK + 1);
	CHECK(truncate("src/shrunk", CHUNK) == 0);
	CHECK(utimensat(AT_FDCWD, "src/touched", (struct timespec[]){ { 0, UTIME_OMIT }, { 1, 0 } }, 0) == 0);
	CHECK(unlink("src/to-link") == 0 && symlink("secret", "src/to-link") == 0);
	CHECK(unlink("src/to-fifo") == 0 && mkfifo("src/to-fifo", 0644) == 0);
	read_all(x.p, out);
	CHECK(out[idx_of(x.p, "src/grown")].changed);
	CHECK(out[idx_of(x.p, "src/grown")].bytes <= 3 * CHUNK);
	CHECK(out[idx_of(x.p, "src/shrunk")].changed);
	CHECK(out[idx_of(x.p, "src/touched")].changed);
	CHECK(out[idx_of(x.p, "src/to-link")].changed);
	CHECK_U64(out[idx_of(x.p, "src/to-link")].bytes, 0);
	/* opened without blocking, then refused: no writer ever comes */
	CHECK(out[idx_of(x.p, "src/to-fifo")].changed);
	CHECK(!out[idx_of(x.p, "src/same")].changed);
	CHECK(out[idx_of(x.p, "src/same")].last);
	run_done(&x);
	tree_done();
}

/* A directory swapped for a symlink to elsewhere after the plan: the
 * files below it are not read from there. */
TEST(swapped_directory_not_followed)
{
	struct outcome out[8];
	struct run x;

	tree_new();
	mkdirs("src", "src/d", "dst");
	mkdirs("elsewhere", NULL, NULL);
	mkfile("src/d/f", 100);
	mkfile("elsewhere/f", 100);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	CHECK(rename("src/d", "moved") == 0 && symlink("../elsewhere", "src/d") == 0);
	read_all(x.p, out);
	CHECK(out[idx_of(x.p, "src/d/f")].err < 0);
	CHECK_U64(out[idx_of(x.p, "src/d/f")].bytes, 0);
	run_done(&x);
	tree_done();
}

TEST(skipped_files_end_at_once)
{
	struct reader *r;
	struct reader_chunk c;
	size_t a, b;
	int n_a = 0;
	struct run x;

	tree_new();
	mkdirs("src", "dst", NULL);
	mkfile("src/a", 20 * CHUNK);
	mkfile("src/b", 10);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	a = idx_of(x.p, "src/a");
	b = idx_of(x.p, "src/b");
	CHECK_INT(start((const struct plan *const *)&x.p, 1, NULL, &r), 0);
	reader_skip(reader_cursor(r, 0), a, a + 1);
	while (reader_next(reader_cursor(r, 0), &c) == 0) {
		if (c.entry == a) {
			n_a++;
			if (c.last)
				CHECK_INT(c.err, -ECANCELED);
		} else {
			CHECK_U64(c.entry, b);
			CHECK_U64(c.len, 10);
		}
		reader_release(reader_cursor(r, 0), &c);
	}
	reader_free(r);
	/* at most the ring's worth (3 chunks) was read ahead before the
	 * skip was seen, and one more whose claim was waiting then; and the
	 * chunk that ends it */
	CHECK(n_a >= 1 && n_a <= 5);
	run_done(&x);
	tree_done();
}

/* A lent file skipped after its first chunk was taken (as the engine
 * skips a file whose write failed): the chunk that ends it has no bytes
 * and lends nothing, so giving it back gives no lent chunk back twice.
 * (A stale `lent` there made each release pop one lent fd too many: a
 * close of an fd the reader no longer owned, and a wrapped count that
 * kept reader_free closing for minutes.) */
TEST(lent_file_skipped_midway_ends_unlent)
{
	struct reader *r;
	struct reader_chunk c;
	bool first_lent, end_lent = true;
	size_t a;
	struct run x;

	tree_new();
	mkdirs("src", "dst", NULL);
	mkfile("src/a", 20 * CHUNK);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	a = idx_of(x.p, "src/a");
	CHECK_INT(start((const struct plan *const *)&x.p, 1, NULL, &r), 0);
	CHECK_INT(reader_next(reader_cursor(r, 0), &c), 0);
	CHECK_U64(c.entry, a);
	first_lent = c.lent;
	reader_skip(reader_cursor(r, 0), a, a + 1);
	reader_release(reader_cursor(r, 0), &c);
	while (reader_next(reader_cursor(r, 0), &c) == 0) {
		if (c.last) {
			end_lent = c.lent || c.mapped;
			/* so that a failure here fails, not hangs in reader_free */
			c.lent = c.mapped = false;
		}
		reader_release(reader_cursor(r, 0), &c);
	}
	reader_free(r);
	CHECK(first_lent);
	CHECK(!end_lent);
	run_done(&x);
	tree_done();
}

/* Several cursors.  Each file's bytes are a pattern of its seed and
 * offset, so a chunk of another file, of another place or of a stale
 * buffer shows; a tally per cursor checks every chunk as it comes. */

#define MAX_ENTRIES 16

static uint8_t pattern_byte(unsigned seed, uint64_t off)
{
	uint64_t z = ((uint64_t)seed << 40) ^ (off >> 3);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (uint8_t)(z >> (8 * (off & 7)));
}

static void fill_pattern(uint8_t *buf, unsigned seed, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern_byte(seed, off + i);
}

/* Write [off, off + len) of path with seed's pattern (the file keeps its size). */
static void write_pattern(const char *path, unsigned seed, uint64_t off, uint64_t len, bool create)
{
	static uint8_t buf[CHUNK];
	int fd = open(path, O_WRONLY | (create ? O_CREAT | O_TRUNC : 0), 0644);

	if (fd < 0)
		FAIL_AT("open %s: %m", path);
	while (fd >= 0 && len > 0) {
		size_t n = (size_t)MIN(len, (uint64_t)sizeof(buf));

		fill_pattern(buf, seed, off, n);
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n) {
			FAIL_AT("write %s: %m", path);
			break;
		}
		off += n;
		len -= n;
	}
	if (fd >= 0)
		close(fd);
}

struct seen {
	uint64_t bytes, next_off, changed_at;
	int chunks, err;
	bool last, changed;
	unsigned bad_bytes, bad_offset;
};

struct tally {
	unsigned seed[MAX_ENTRIES];  /* per entry: its pattern */
	struct seen s[MAX_ENTRIES];
	size_t cur;                  /* the entry of the last chunk */
	bool any;
	unsigned bad_order;          /* a file before the last one ended, or after one */
	uint8_t want[CHUNK];         /* the bytes a chunk should have */
	uint8_t got[CHUNK];          /* a lent chunk's bytes, read from its source */
	unsigned lent;               /* chunks that came lent */
};

/* Check chunk c against what came before on this cursor and the file's pattern. */
static void tally_chunk(struct tally *t, const struct reader_chunk *c)
{
	struct seen *s = &t->s[c->entry < MAX_ENTRIES ? c->entry : 0];
	uint8_t *want = t->want;

	if (t->any && (c->entry < t->cur || (c->entry == t->cur && t->s[t->cur].last) ||
		       (c->entry > t->cur && !t->s[t->cur].last)))
		t->bad_order++;
	t->any = true;
	t->cur = c->entry;
	if (c->offset != s->next_off)
		s->bad_offset++;
	if (!c->changed && !c->err) {
		const uint8_t *bytes = c->buf;

		/* lent: what the writer takes is the source's, at src_fd */
		if (c->lent) {
			t->lent++;
			bytes = t->got;
			if (c->len > CHUNK ||
			    pread(c->src_fd, t->got, c->len, (off_t)c->offset) != (ssize_t)c->len)
				s->bad_bytes++;
		}
		fill_pattern(want, t->seed[c->entry], c->offset, c->len);
		if (c->len > CHUNK || memcmp(bytes, want, c->len) != 0)
			s->bad_bytes++;
	}
	if (c->changed && !s->changed)
		s->changed_at = c->offset;
	s->bytes += c->len;
	s->next_off += c->len;
	s->chunks++;
	s->err = c->err;
	s->last = c->last;
	s->changed |= c->changed;
}

/* Take up to max chunks (0: all) from cursor k; reader_next's last result. */
static int tally_take(struct reader_cursor *k, struct tally *t, int max)
{
	struct reader_chunk c;
	int rc = 0;

	for (int i = 0; !max || i < max; i++) {
		rc = reader_next(k, &c);
		if (rc != 0)
			break;
		tally_chunk(t, &c);
		reader_release(k, &c);
	}
	return rc;
}

static uint64_t size_of(const struct plan *p, const char *rel)
{
	const struct plan_entry *e = find(p, rel);

	return e ? (uint64_t)e->source->size : UINT64_MAX;
}

/* The cursor got file rel whole, with its own bytes, unflagged. */
#define CHECK_WHOLE(t, p, rel) \
	do { \
		const struct seen *_s = &(t)->s[idx_of((p), (rel))]; \
		CHECK_U64(_s->bytes, size_of((p), (rel))); \
		CHECK(_s->last && !_s->changed && _s->err == 0); \
		CHECK_INT(_s->bad_bytes, 0); \
		CHECK_INT(_s->bad_offset, 0); \
	} while (0)

static void tally_seed(struct tally *t, const struct plan *p, const char *rel, unsigned seed)
{
	t->seed[idx_of(p, rel)] = seed;
}

struct taker {
	struct reader_cursor *k;
	struct tally *t;
	pthread_t thread;
	int rc;
};

static void *take_all(void *arg)
{
	struct taker *w = arg;

	w->rc = tally_take(w->k, w->t, 0);
	return NULL;
}

static void taker_start(struct taker *w)
{
	if (pthread_create(&w->thread, NULL, take_all, w) != 0) {
		perror("test_reader: pthread_create");
		exit(99);
	}
}

/* The tree of the several-cursor cases: files of 8, 3 + odd, 0 and 1
 * chunk, one in a directory; t[i] gets the seeds for cursor i. */
static struct run multi_tree(struct tally *t, unsigned n)
{
	struct run x;

	tree_new();
	mkdirs("src", "src/d", "dst");
	write_pattern("src/a", 1, 0, 8 * CHUNK, true);
	write_pattern("src/d/b", 2, 0, 3 * CHUNK + 5, true);
	write_pattern("src/empty", 3, 0, 0, true);
	write_pattern("src/z", 4, 0, 100, true);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	if (x.r < 0 || x.p->n_entries > MAX_ENTRIES)
		exit(99);
	for (unsigned i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		tally_seed(&t[i], x.p, "src/a", 1);
		tally_seed(&t[i], x.p, "src/d/b", 2);
		tally_seed(&t[i], x.p, "src/empty", 3);
		tally_seed(&t[i], x.p, "src/z", 4);
	}
	return x;
}

#define CHECK_ALL_WHOLE(t, p) \
	do { \
		CHECK_INT((t)->bad_order, 0); \
		CHECK_WHOLE((t), (p), "src/a"); \
		CHECK_WHOLE((t), (p), "src/d/b"); \
		CHECK_WHOLE((t), (p), "src/empty"); \
		CHECK_WHOLE((t), (p), "src/z"); \
	} while (0)

/* Cursor 1 takes two chunks, then holds the third while cursor 0 takes
 * everything in a thread, until cursor 1 is detached (after a second of
 * cursor 0 starving); then it gives the held chunk back (checked only
 * now: overwritten while held shows as wrong bytes) and takes the rest,
 * from its second read. */
static void stall_then_detach(struct reader *r, struct tally t[2])
{
	struct reader_stats st = { 0 };
	struct reader_chunk held;
	struct taker w;
	double end;

	CHECK_INT(tally_take(reader_cursor(r, 1), &t[1], 2), 0);
	CHECK_INT(reader_next(reader_cursor(r, 1), &held), 0);
	w = (struct taker){ reader_cursor(r, 0), &t[0], 0, 0 };
	taker_start(&w);
	for (end = clock_monotonic() + 20; !st.detached && clock_monotonic() < end;) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
		reader_stats(r, &st);
	}
	CHECK_INT(st.detached, 1);
	tally_chunk(&t[1], &held);
	reader_release(reader_cursor(r, 1), &held);
	CHECK_INT(tally_take(reader_cursor(r, 1), &t[1], 0), 1);
	pthread_join(w.thread, NULL);
	CHECK_INT(w.rc, 1);
}

/* Two cursors taking at once: each gets every file whole. */
TEST(two_cursors_get_every_file)
{
	struct tally t[2];
	struct run x = multi_tree(t, 2);
	const struct plan *plans[2] = { x.p, x.p };
	struct taker w[2];
	struct reader_stats st;
	struct reader *r;

	CHECK_INT(start(plans, 2, NULL, &r), 0);
	for (unsigned i = 0; i < 2; i++) {
		w[i] = (struct taker){ reader_cursor(r, i), &t[i], 0, 0 };
		taker_start(&w[i]);
	}
	for (unsigned i = 0; i < 2; i++) {
		pthread_join(w[i].thread, NULL);
		CHECK_INT(w[i].rc, 1);
		CHECK_ALL_WHOLE(&t[i], x.p);
	}
	reader_stats(r, &st);
	CHECK_U64(st.mismatches, 0);
	reader_free(r);
	run_done(&x);
	tree_done();
}

/* Cursor 1 takes two chunks, then holds the third while cursor 0 takes
 * on: cursor 1 is detached (after a second of cursor 0 starving), its
 * held chunk stays intact until it gives it back (cursor 0 waits for
 * that), and it still gets every chunk of every file, in order, from the
 * second read. */
TEST(stalled_cursor_detached_gets_everything)
{
	struct tally t[2];
	struct run x = multi_tree(t, 2);
	const struct plan *plans[2] = { x.p, x.p };
	struct reader_stats st;
	struct reader *r;

	CHECK_INT(start(plans, 2, NULL, &r), 0);
	stall_then_detach(r, t);
	CHECK_ALL_WHOLE(&t[0], x.p);
	CHECK_ALL_WHOLE(&t[1], x.p);
	reader_stats(r, &st);
	CHECK_INT(st.detached, 1);
	CHECK(st.bytes_reread > 0);
	CHECK_U64(st.mismatches, 0);
	/* the second read starts where cursor 1 stood, not at the start */
	CHECK(st.bytes_reread <= 8 * CHUNK + 3 * CHUNK + 5 + 100 - 3 * CHUNK);
	CHECK_U64(st.bytes_read, 11 * CHUNK + 105 + st.bytes_reread);
	reader_free(r);
	run_done(&x);
	tree_done();
}

/* The source changes between the first read and the second: the detached
 * cursor's chunk that differs is flagged changed and ends the file; no
 * chunk with other bytes than the first read's comes unflagged.  Chunk 2
 * of a was in the ring when cursor 1 was detached, chunk 1 of b was read
 * after: both kinds of first read are compared. */
TEST(changed_between_reads_flagged)
{
	struct tally t[2];
	struct run x = multi_tree(t, 2);
	const struct plan *plans[2] = { x.p, x.p };
	const struct seen *a, *b;
	struct reader_stats st;
	struct reader *r;

	CHECK_INT(start(plans, 2, NULL, &r), 0);
	CHECK_INT(tally_take(reader_cursor(r, 1), &t[1], 1), 0);
	CHECK_INT(tally_take(reader_cursor(r, 0), &t[0], 0), 1);
	CHECK_ALL_WHOLE(&t[0], x.p);
	/* the first read is over; the files change in place, not in size */
	write_pattern("src/a", 9, 2 * CHUNK, CHUNK, false);
	write_pattern("src/d/b", 9, CHUNK, 10, false);
	CHECK_INT(tally_take(reader_cursor(r, 1), &t[1], 0), 1);
	a = &t[1].s[idx_of(x.p, "src/a")];
	b = &t[1].s[idx_of(x.p, "src/d/b")];
	CHECK(a->changed && a->last);
	CHECK(b->changed && b->last);
	/* by the compare, at the chunk that differs, not by the times at EOF */
	CHECK_U64(a->changed_at, 2 * CHUNK);
	CHECK_INT(a->chunks, 3);
	CHECK_U64(b->changed_at, CHUNK);
	CHECK_INT(b->chunks, 2);
	CHECK_INT(a->bad_bytes + b->bad_bytes, 0);
	CHECK_INT(a->bad_offset + b->bad_offset, 0);
	CHECK_INT(t[1].bad_order, 0);
	CHECK_WHOLE(&t[1], x.p, "src/empty");
	CHECK_WHOLE(&t[1], x.p, "src/z");
	reader_stats(r, &st);
	CHECK_INT(st.detached, 1);
	CHECK_U64(st.mismatches, 2);
	reader_free(r);
	run_done(&x);
	tree_done();
}

/* A skip is the cursor's own: the other cursor still gets the file
 * whole, the skipping one what ends it and then the next files.  Skipped
 * by both, it is not read. */
TEST(skip_per_cursor)
{
	struct tally t[2];
	struct run x = multi_tree(t, 2);
	const struct plan *plans[2] = { x.p, x.p };
	size_t a = idx_of(x.p, "src/a");
	struct taker w[2];
	struct reader *r;

	CHECK_INT(start(plans, 2, NULL, &r), 0);
	reader_skip(reader_cursor(r, 0), a, a + 1);
	for (unsigned i = 0; i < 2; i++) {
		w[i] = (struct taker){ reader_cursor(r, i), &t[i], 0, 0 };
		taker_start(&w[i]);
	}
	for (unsigned i = 0; i < 2; i++) {
		pthread_join(w[i].thread, NULL);
		CHECK_INT(w[i].rc, 1);
	}
	CHECK_ALL_WHOLE(&t[1], x.p);
	CHECK_INT(t[0].bad_order, 0);
	CHECK(t[0].s[a].last);
	CHECK_INT(t[0].s[a].bad_bytes, 0);
	CHECK_WHOLE(&t[0], x.p, "src/d/b");
	CHECK_WHOLE(&t[0], x.p, "src/z");
	reader_free(r);

	for (unsigned i = 0; i < 2; i++) {
		memset(t[i].s, 0, sizeof(t[i].s));
		t[i].any = false;
		t[i].bad_order = 0;
	}
	CHECK_INT(start(plans, 2, NULL, &r), 0);
	reader_skip(reader_cursor(r, 0), a, a + 1);
	reader_skip(reader_cursor(r, 1), a, a + 1);
	for (unsigned i = 0; i < 2; i++) {
		w[i] = (struct taker){ reader_cursor(r, i), &t[i], 0, 0 };
		taker_start(&w[i]);
	}
	for (unsigned i = 0; i < 2; i++) {
		pthread_join(w[i].thread, NULL);
		CHECK_INT(w[i].rc, 1);
		CHECK_INT(t[i].bad_order, 0);
		CHECK(t[i].s[a].last);
		CHECK_INT(t[i].s[a].err, -ECANCELED);
		/* at most the ring's worth was read before the skips were seen */
		CHECK(t[i].s[a].bytes <= 4 * CHUNK);
		CHECK_WHOLE(&t[i], x.p, "src/d/b");
		CHECK_WHOLE(&t[i], x.p, "src/z");
	}
	reader_free(r);
	run_done(&x);
	tree_done();
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* Several cursors and a large file: both get it lent, chunk by chunk
 * (the bytes at src_fd), cursor 1 stalls and is detached, and its second
 * reader lends the file again; every file is whole for both.  The first
 * reader closes each lent fd once both cursors are past it: at the end,
 * before reader_free, few are open, not one per chunk. */
TEST(several_cursors_lend_and_the_laggard_lends_again)
{
	const uint64_t big = (2u << 20) + 5;
	struct tally t[2];
	struct run x;
	const struct plan *plans[2];
	struct reader_stats st;
	struct reader *r;
	int before;

	tree_new();
	mkdirs("src", "src/d", "dst");
	write_pattern("src/big", 7, 0, big, true);
	write_pattern("src/d/b", 2, 0, 3 * CHUNK + 5, true);
	write_pattern("src/z", 4, 0, 100, true);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	if (x.r < 0 || x.p->n_entries > MAX_ENTRIES)
		exit(99);
	plans[0] = plans[1] = x.p;
	for (unsigned i = 0; i < 2; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		tally_seed(&t[i], x.p, "src/big", 7);
		tally_seed(&t[i], x.p, "src/d/b", 2);
		tally_seed(&t[i], x.p, "src/z", 4);
	}
	before = open_fds();
	CHECK_INT(start(plans, 2, NULL, &r), 0);
	stall_then_detach(r, t);
	for (unsigned i = 0; i < 2; i++) {
		CHECK_INT(t[i].bad_order, 0);
		CHECK_WHOLE(&t[i], x.p, "src/big");
		CHECK_WHOLE(&t[i], x.p, "src/d/b");
		CHECK_WHOLE(&t[i], x.p, "src/z");
	}
	/* the big file's 33 chunks, lent to both; cursor 1's from both reads */
	CHECK_INT((int)t[0].lent, 33);
	CHECK_INT((int)t[1].lent, 33);
	reader_stats(r, &st);
	CHECK(st.bytes_reread > 0);
	CHECK_U64(st.mismatches, 0);
	CHECK(open_fds() <= before + 8);
	reader_free(r);
	CHECK_INT(open_fds(), before);
	run_done(&x);
	tree_done();
}

/* A cursor that leaves holds the other back no more: it finishes without
 * anyone being detached.  Then again, leaving with a chunk in hand (were
 * that chunk kept, the other would wait for it for ever). */
TEST(leave_lets_the_other_finish)
{
	struct tally t[2];
	struct run x = multi_tree(t, 2);
	const struct plan *plans[2] = { x.p, x.p };
	struct reader_chunk held;
	struct reader_stats st;
	struct reader *r;

	for (int holding = 0; holding < 2; holding++) {
		memset(t[0].s, 0, sizeof(t[0].s));
		t[0].any = false;
		CHECK_INT(start(plans, 2, NULL, &r), 0);
		CHECK_INT(reader_next(reader_cursor(r, 1), &held), 0);
		if (!holding)
			reader_release(reader_cursor(r, 1), &held);
		reader_leave(reader_cursor(r, 1));
		CHECK_INT(tally_take(reader_cursor(r, 0), &t[0], 0), 1);
		CHECK_ALL_WHOLE(&t[0], x.p);
		reader_stats(r, &st);
		CHECK_INT(st.detached, 0);
		CHECK_U64(st.bytes_reread, 0);
		reader_free(r);
	}
	run_done(&x);
	tree_done();
}

/* One cursor, no tap: a file of 1 MiB or more comes as chunks lent from
 * the source (its bytes at src_fd, offset; buf unused), a small one
 * as read chunks; the check after the last write passes for an untouched
 * file and flags one rewritten in place after it was lent. */
TEST(one_cursor_lends_large_files)
{
	const uint64_t big = (1u << 20) + 12345;
	struct run x;
	const struct plan *plan;
	struct reader *r;
	struct reader_chunk c;
	static uint8_t want[CHUNK], got[CHUNK];
	unsigned lent = 0, read = 0, bad = 0;
	bool flagged[2] = { false, false };

	tree_new();
	mkdirs("src", "dst", NULL);
	write_pattern("src/big", 1, 0, big, true);
	write_pattern("src/rewritten", 2, 0, big, true);
	write_pattern("src/small", 3, 0, 5000, true);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	plan = x.p;
	CHECK_INT(start(&plan, 1, NULL, &r), 0);
	while (reader_next(reader_cursor(r, 0), &c) == 0) {
		const char *rel = t_rel(x.p->entries[c.entry].source);
		bool rewritten = strstr(rel, "rewritten") != NULL;
		unsigned seed = rewritten ? 2 : strstr(rel, "small") ? 3 : 1;

		const uint8_t *bytes = c.buf;

		if (c.lent) {
			lent++;
			/* what the writer takes: the source, not the buffer */
			bad += pread(c.src_fd, got, c.len, (off_t)c.offset) != (ssize_t)c.len;
			bad += c.mapped;
			bytes = got;
		} else if (c.len > 0) {
			read++;
		}
		fill_pattern(want, seed, c.offset, c.len);
		bad += memcmp(bytes, want, c.len) != 0;
		/* the rewrite lands after the reader lent the last chunk */
		if (rewritten && c.last)
			write_pattern("src/rewritten", 4, 0, 100, false);
		reader_chunk_written(&c, 0);
		if (c.last && c.len > 0)
			flagged[rewritten] = flagged[rewritten] || c.changed;
		reader_release(reader_cursor(r, 0), &c);
	}
	reader_free(r);
	CHECK_INT((int)bad, 0);
	CHECK_INT((int)lent, 2 * (int)((big + CHUNK - 1) / CHUNK));
	CHECK_INT((int)read, 1);
	CHECK(!flagged[0]);
	CHECK(flagged[1]);
	run_done(&x);
	tree_done();
}

/* A tap on one cursor: the large file is still lent, and mapped for the
 * tap (the file checksums), which reads the mapping itself; one truncated under the
 * mapping while the tap reads it ends there, changed, without SIGBUS
 * killing the process, and gets no checksum. */
struct shrink_tap {
	struct reader_tap inner;
	const char *path;
	size_t entry;  /* the file to shrink, at its first chunk */
	bool done;     /* the reader's thread only */
};

static void shrink_then_pass(void *ctx, const struct reader_chunk *c)
{
	struct shrink_tap *t = ctx;

	if (!t->done && c->entry == t->entry && c->len > 0) {
		t->done = true;
		if (truncate(t->path, 4096) < 0)
			FAIL_AT("truncate %s: %m", t->path);
	}
	t->inner.chunk(t->inner.ctx, c);
}

TEST(tap_reads_mapped_files_and_survives_a_shrink)
{
	const uint64_t big = (3u << 20) + 777;
	static uint8_t all[(3u << 20) + 777];
	char want[CHECKSUM_TEXT_MAX];
	struct file_sums *fs;
	struct shrink_tap st = { .path = "src/shrinks" };
	struct reader_tap tap;
	struct run x;
	const struct plan *plan;
	struct reader *r;
	struct reader_chunk c;
	unsigned mapped = 0;
	bool shrink_flagged = false;
	const char *got;

	tree_new();
	mkdirs("src", "dst", NULL);
	write_pattern("src/big", 5, 0, big, true);
	write_pattern("src/shrinks", 6, 0, big, true);
	fill_pattern(all, 5, 0, big);
	CHECK_INT(checksum_text_of(CHECKSUM_XXH128, all, big, want), 0);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(file_sums_new(x.p, CHECKSUM_BIT(CHECKSUM_XXH128), &fs), 0);
	st.inner = file_sums_tap(fs);
	tap = (struct reader_tap){ .ctx = &st, .chunk = NULL };
	plan = x.p;
	st.entry = idx_of(x.p, "src/shrinks");
	tap.chunk = shrink_then_pass;
	CHECK_INT(start(&plan, 1, &tap, &r), 0);
	while (reader_next(reader_cursor(r, 0), &c) == 0) {
		const char *rel = t_rel(x.p->entries[c.entry].source);

		mapped += c.lent && c.mapped;
		reader_chunk_written(&c, 0);
		if (strstr(rel, "shrinks") && c.last && c.changed)
			shrink_flagged = true;
		reader_release(reader_cursor(r, 0), &c);
	}
	reader_free(r);
	CHECK((int)mapped > 1);
	got = file_sums_text(fs, idx_of(x.p, "src/big"), CHECKSUM_XXH128);
	CHECK(got && strcmp(got, want) == 0);
	CHECK(shrink_flagged);
	CHECK(file_sums_text(fs, idx_of(x.p, "src/shrinks"), CHECKSUM_XXH128) == NULL);
	file_sums_free(fs);
	run_done(&x);
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(13);
	RUN(unchanged_files_read_whole);
	RUN(changed_after_the_plan_is_flagged);
	RUN(swapped_directory_not_followed);
	RUN(skipped_files_end_at_once);
	RUN(lent_file_skipped_midway_ends_unlent);
	RUN(two_cursors_get_every_file);
	RUN(stalled_cursor_detached_gets_everything);
	RUN(changed_between_reads_flagged);
	RUN(skip_per_cursor);
	RUN(leave_lets_the_other_finish);
	RUN(several_cursors_lend_and_the_laggard_lends_again);
	RUN(one_cursor_lends_large_files);
	RUN(tap_reads_mapped_files_and_survives_a_shrink);
	return test_summary();
}
