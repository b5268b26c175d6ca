/* test_partial_digests.c: the tap that hashes large files for their
 * partials' records: each chunk's digest is chunk_hash() of its bytes
 * whatever pieces the reader read them in, a read that starts at a
 * resumed offset hashes from there, only the files asked for are
 * hashed, and a read that failed or skipped bytes gives no digests past
 * that point. */
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "copy/partial_digests.h"
#include "hash/chunk_hash.h"

#define CH 4096

static unsigned char bytes[10 * CH + 100];

/* Feed entry idx's bytes [from, to) to tap in pieces of piece bytes. */
static void feed(struct reader_tap *t, size_t idx, uint64_t from, uint64_t to, size_t piece)
{
	for (uint64_t at = from; at < to; at += piece) {
		struct reader_chunk c = { .entry = idx, .offset = at, .buf = bytes + at,
					  .len = (size_t)(to - at < piece ? to - at : piece) };

		c.last = at + c.len == to;
		t->chunk(t->ctx, &c);
	}
}

TEST(digests_of_whole_chunks_in_any_pieces)
{
	struct partial_digests *d;
	struct reader_tap t;
	uint64_t v;

	CHECK_INT(partial_digests_new(&d), 0);
	CHECK_INT(partial_digests_want(d, 3, sizeof(bytes), 2 * CH, 0), 0);
	CHECK_INT(partial_digests_want(d, 5, sizeof(bytes), 2 * CH, 4 * CH), 0);
	CHECK_INT(partial_digests_want(d, 5, sizeof(bytes), 2 * CH, 0), -EINVAL); /* order */
	t = partial_digests_tap(d);
	feed(&t, 1, 0, 100, 100);                       /* not wanted */
	feed(&t, 3, 0, sizeof(bytes), 3000);            /* pieces across boundaries */
	feed(&t, 5, 4 * CH, sizeof(bytes), 2 * CH);     /* resumed at chunk 2 */
	for (uint64_t k = 0; k < 5; k++) {
		CHECK(partial_digests_get(d, 3, k, &v));
		CHECK_U64(v, chunk_hash(bytes + k * 2 * CH, 2 * CH));
	}
	CHECK(!partial_digests_get(d, 3, 5, &v)); /* the 100-byte tail: no whole chunk */
	CHECK(!partial_digests_get(d, 5, 1, &v)); /* before the resumed offset */
	CHECK(partial_digests_get(d, 5, 2, &v));
	CHECK_U64(v, chunk_hash(bytes + 4 * CH, 2 * CH));
	CHECK(partial_digests_get(d, 5, 4, &v));
	CHECK(!partial_digests_get(d, 1, 0, &v));
	partial_digests_free(d);
}

TEST(a_broken_read_stops_the_digests)
{
	struct partial_digests *d;
	struct reader_tap t;
	struct reader_chunk bad = { .entry = 2, .offset = 2 * CH, .buf = bytes, .len = CH,
				    .err = -5 };
	uint64_t v;

	CHECK_INT(partial_digests_new(&d), 0);
	CHECK_INT(partial_digests_want(d, 2, sizeof(bytes), CH, 0), 0);
	CHECK_INT(partial_digests_want(d, 4, sizeof(bytes), CH, 0), 0);
	t = partial_digests_tap(d);
	feed(&t, 2, 0, 2 * CH, CH);
	t.chunk(t.ctx, &bad);
	feed(&t, 2, 3 * CH, 4 * CH, CH);
	/* a gap in the offsets is no read of the file either */
	feed(&t, 4, 0, CH, CH);
	feed(&t, 4, 2 * CH, 3 * CH, CH);
	CHECK(partial_digests_get(d, 2, 1, &v));
	CHECK(!partial_digests_get(d, 2, 2, &v));
	CHECK(!partial_digests_get(d, 2, 3, &v));
	CHECK(partial_digests_get(d, 4, 0, &v));
	CHECK(!partial_digests_get(d, 4, 1, &v)); /* never read */
	CHECK(!partial_digests_get(d, 4, 2, &v));
	partial_digests_free(d);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)(i * 131 + i / 7);
	RUN(digests_of_whole_chunks_in_any_pieces);
	RUN(a_broken_read_stops_the_digests);
	return test_summary();
}
