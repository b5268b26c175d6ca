/* test_source_feed.c: the reader over a stream feed (source_feed.h).
 * The files of the plan are empty: every byte must come from the feed,
 * in whole chunks but for each entry's last, with the feed's errors and
 * "changed" on the entry's last chunk, and with two destinations the
 * slow one is waited for, never detached (a stream cannot be re-read). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "plan_tree.h"
#include "copy/reader.h"
#include "copy/source_feed.h"

#define CHUNK (64 * 1024)
#define ENTRIES 8

static const struct write_plan wp = { .chunk = CHUNK, .mem_align = 4096, .ring_slots = 3 };

/* A reader of n plans fed by feed, with the write plan above. */
static int start_fed(const struct plan *const *plans, unsigned n, const struct source_feed *feed,
		     bool verify_source, struct reader **ret)
{
	return reader_start(&(struct reader_opts){ .plans = plans, .n = n, .wp = &wp, .feed = feed,
						    .verify_source = verify_source },
			    ret);
}

/* A feed of entry-numbered bytes: len[i] bytes for entry i. */
struct fake {
	uint64_t len[ENTRIES];
	uint64_t at;          /* offset in the open entry */
	size_t open;          /* the open entry, or SIZE_MAX */
	size_t order[ENTRIES]; /* entries opened, in order */
	unsigned n_opened, n_closed;
	bool misordered;      /* opened while another was open */
	size_t fail_open, fail_read, changed, short_read; /* entries, or SIZE_MAX */
};

static uint8_t byte_of(size_t entry, uint64_t off)
{
	return (uint8_t)(entry * 31 + off * 7 + off / 4099);
}

static int fake_open(void *ctx, size_t entry, atomic_bool *cancel)
{
	struct fake *f = ctx;

	if (f->open != SIZE_MAX)
		f->misordered = true;
	if (f->n_opened < ENTRIES)
		f->order[f->n_opened] = entry;
	f->n_opened++;
	if (entry == f->fail_open)
		return -EACCES;
	f->open = entry;
	f->at = 0;
	return 0;
}

static ssize_t fake_read(void *ctx, void *buf, size_t len, bool *end)
{
	struct fake *f = ctx;
	uint64_t left = f->len[f->open] - f->at;
	size_t n = (size_t)MIN(left, (uint64_t)len);

	if (f->open == f->fail_read && f->at > 0)
		return -EIO;
	if (f->at >= f->len[f->open]) {
		*end = true;
		return 0;
	}
	if (f->open == f->short_read)
		n = len / 2;
	for (size_t i = 0; i < n; i++)
		((uint8_t *)buf)[i] = byte_of(f->open, f->at + i);
	f->at += n;
	/* an entry that ends on a chunk's end says so with that chunk */
	*end = f->at == f->len[f->open] && f->open != f->short_read;
	return (ssize_t)n;
}

static int fake_close(void *ctx, bool *changed)
{
	struct fake *f = ctx;

	*changed = f->open == f->changed;
	f->open = SIZE_MAX;
	f->n_closed++;
	return 0;
}

static const struct source_feed_ops fake_ops = { fake_open, fake_read, fake_close };

static struct fake fake_new(void)
{
	return (struct fake){ .open = SIZE_MAX, .fail_open = SIZE_MAX, .fail_read = SIZE_MAX,
			      .changed = SIZE_MAX, .short_read = SIZE_MAX };
}

/* What a cursor saw of each entry. */
struct seen {
	uint64_t bytes;
	unsigned chunks;
	int err;
	bool changed, last, wrong_bytes, short_inside, after_last;
};

static void take(struct reader_cursor *k, struct seen *s, size_t n_entries)
{
	struct reader_chunk c;

	while (reader_next(k, &c) == 0) {
		struct seen *e = &s[c.entry < n_entries ? c.entry : 0];

		e->after_last |= e->last;
		for (size_t i = 0; i < c.len; i++)
			e->wrong_bytes |= ((uint8_t *)c.buf)[i] != byte_of(c.entry, c.offset + i);
		e->short_inside |= !c.last && c.len != CHUNK;
		e->wrong_bytes |= c.offset != e->bytes;
		e->bytes += c.len;
		e->chunks++;
		e->err = c.err;
		e->changed = c.changed;
		e->last = c.last;
		reader_release(k, &c);
	}
}

/* src/a .. src/e, empty: the plan's entries 1..5 (0 is src itself). */
static struct run five_files(void)
{
	struct run x;

	tree_new();
	mkdirs("src", "dst", NULL);
	mkfile("src/a", 0);
	mkfile("src/b", 0);
	mkfile("src/c", 0);
	mkfile("src/d", 0);
	mkfile("src/e", 0);
	x = BUILD(&rec, "dst", "src");
	CHECK_INT(x.r, 0);
	CHECK_INT(x.p->n_entries, 6);
	return x;
}

TEST(stream_bytes_in_whole_chunks)
{
	struct run x = five_files();
	struct fake f = fake_new();
	struct source_feed feed = { &fake_ops, &f };
	struct seen s[ENTRIES] = { 0 };
	const struct plan *p = x.p;
	struct reader *r;

	f.len[1] = 0;
	f.len[2] = 2 * CHUNK;      /* ends on a chunk's end */
	f.len[3] = 3 * CHUNK + 5;  /* the plan says 0: the feed's length counts */
	f.len[4] = 1;
	f.len[5] = 10 * CHUNK + 4097; /* more than the ring holds */
	CHECK_INT(start_fed(&p, 1, &feed, false, &r), 0);
	take(reader_cursor(r, 0), s, ENTRIES);
	reader_free(r);
	for (size_t i = 1; i <= 5; i++) {
		CHECK_U64(s[i].bytes, f.len[i]);
		CHECK(s[i].last && !s[i].err && !s[i].changed);
		CHECK(!s[i].wrong_bytes && !s[i].short_inside && !s[i].after_last);
		CHECK_INT(f.order[i - 1], i);
	}
	CHECK_INT(s[2].chunks, 2); /* no empty chunk after an end the feed said */
	CHECK_INT(s[5].chunks, 11);
	CHECK_INT(f.n_opened, 5);
	CHECK_INT(f.n_closed, 5);
	CHECK(!f.misordered);
	run_done(&x);
	tree_done();
}

TEST(stream_errors_end_their_entry_only)
{
	struct run x = five_files();
	struct fake f = fake_new();
	struct source_feed feed = { &fake_ops, &f };
	struct seen s[ENTRIES] = { 0 };
	const struct plan *p = x.p;
	struct reader *r;

	for (size_t i = 1; i <= 5; i++)
		f.len[i] = 2 * CHUNK + 100;
	f.fail_open = 1;
	f.fail_read = 2;
	f.changed = 3;
	f.short_read = 4;
	CHECK_INT(start_fed(&p, 1, &feed, false, &r), 0);
	take(reader_cursor(r, 0), s, ENTRIES);
	reader_free(r);
	CHECK_INT(s[1].err, -EACCES);
	CHECK(s[1].last && s[1].bytes == 0 && s[1].chunks == 1);
	CHECK_INT(s[2].err, -EIO);
	CHECK(s[2].last && s[2].bytes == CHUNK && !s[2].changed);
	CHECK(s[3].last && s[3].changed && !s[3].err && s[3].bytes == f.len[3]);
	/* a short read without the end breaks the contract: an error, not a
	 * short chunk the writer would take for the last */
	CHECK_INT(s[4].err, -EIO);
	CHECK(s[4].last && s[4].bytes == 0 && !s[4].short_inside);
	CHECK(s[5].last && !s[5].err && !s[5].changed && s[5].bytes == f.len[5]);
	CHECK(!s[5].wrong_bytes && !s[5].after_last);
	CHECK_INT(f.n_opened, 5);
	CHECK_INT(f.n_closed, 4); /* not the one whose open failed */
	CHECK(!f.misordered);
	run_done(&x);
	tree_done();
}

struct taker {
	struct reader_cursor *k;
	struct seen *s;
	pthread_t thread;
};

static void *taker_run(void *arg)
{
	struct taker *t = arg;

	take(t->k, t->s, ENTRIES);
	return NULL;
}

/* Cursor 1 holds its first chunk for twice the time after which a file
 * feed's laggard is detached: nothing is detached or read again, cursor
 * 0 waits, and both get every byte. */
TEST(stream_laggard_waited_for_not_detached)
{
	struct run x = five_files();
	struct fake f = fake_new();
	struct source_feed feed = { &fake_ops, &f };
	struct seen s0[ENTRIES] = { 0 }, s1[ENTRIES] = { 0 };
	const struct plan *plans[2] = { x.p, x.p };
	struct timespec pause = { 2, 0 };
	struct reader_stats st;
	struct reader_chunk held;
	struct taker t = { .s = s0 };
	struct reader *r;
	uint64_t total = 0;

	for (size_t i = 1; i <= 5; i++)
		total += f.len[i] = 4 * CHUNK + 3;
	CHECK_INT(start_fed(plans, 2, &feed, false, &r), 0);
	CHECK_INT(reader_next(reader_cursor(r, 1), &held), 0);
	t.k = reader_cursor(r, 0);
	pthread_create(&t.thread, NULL, taker_run, &t);
	nanosleep(&pause, NULL);
	reader_stats(r, &st);
	CHECK_INT(st.detached, 0);
	/* the held chunk's bytes are still the first chunk's */
	CHECK(held.entry == 1 && held.offset == 0 && held.len == CHUNK);
	for (size_t i = 0; i < held.len; i++)
		if (((uint8_t *)held.buf)[i] != byte_of(1, i)) {
			FAIL_AT("held chunk overwritten at %zu", i);
			break;
		}
	s1[1].bytes = held.len;
	s1[1].chunks = 1;
	reader_release(reader_cursor(r, 1), &held);
	take(reader_cursor(r, 1), s1, ENTRIES);
	pthread_join(t.thread, NULL);
	reader_stats(r, &st);
	CHECK_INT(st.detached, 0);
	CHECK_U64(st.bytes_reread, 0);
	CHECK_U64(st.bytes_read, total);
	for (size_t i = 1; i <= 5; i++) {
		CHECK_U64(s0[i].bytes, f.len[i]);
		CHECK_U64(s1[i].bytes, f.len[i]);
		CHECK(!s0[i].wrong_bytes && !s1[i].wrong_bytes && s0[i].last && s1[i].last);
	}
	reader_free(r);
	run_done(&x);
	tree_done();
}

/* A feed cannot be read a second time past the page cache. */
TEST(stream_refuses_verify_source)
{
	struct run x = five_files();
	struct fake f = fake_new();
	struct source_feed feed = { &fake_ops, &f };
	const struct plan *p = x.p;
	struct reader *r = NULL;

	CHECK_INT(start_fed(&p, 1, &feed, true, &r), -EINVAL);
	CHECK(r == NULL);
	CHECK_INT(f.n_opened, 0);
	run_done(&x);
	tree_done();
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	TEST_PLAN(4);
	RUN(stream_bytes_in_whole_chunks);
	RUN(stream_errors_end_their_entry_only);
	RUN(stream_laggard_waited_for_not_detached);
	RUN(stream_refuses_verify_source);
	return test_summary();
}
