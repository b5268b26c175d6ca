/* fuzz_mhl.c: libFuzzer harness for lib/mhl's reader (mhl_read.h) and, through it, its
 * writer.
 *
 * The input is a manifest, then after a NUL byte a chain. Whatever the bytes, the
 * parsers must not crash, leak or hang; a manifest they accept must hold only what
 * the reader promises (valid relative paths, well-formed hashes, entries sorted and
 * found by path), and must survive a round trip: written again with mhl_generation_*
 * and parsed back, it gives the same entries. An accepted chain is sorted by sequence
 * number with names that carry their numbers.
 *
 * Memory: a parsed document may keep KEPT_MAX(len) bytes of the heap for len bytes of
 * input, as the allocator counts them (the sanitizer's count of live bytes): a few
 * times its text (an entry's struct and strings are about its text's size) plus a
 * fixed part. More aborts: an input that costs far more memory than it takes on the
 * stick is how a hostile ascmhl folder exhausts the machine (audit turn 3 M5). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/allocator_interface.h>

#include "fuzz_util.h"
#include "mhl/mhl_read.h"
#include "mhl/mhl_write.h"

#define CHECK(c) \
	do { \
		if (!(c)) { \
			fprintf(stderr, "fuzz_mhl: %s failed at line %d\n", #c, __LINE__); \
			abort(); \
		} \
	} while (0)

#define KEPT_MAX(len) (16 * (size_t)(len) + ((size_t)64 << 10))

/* The heap's live bytes now; what a parse keeps is the difference. */
static size_t heap_now(void)
{
	return __sanitizer_get_current_allocated_bytes();
}

static void check_kept(size_t before, size_t len, const char *what)
{
	size_t kept = heap_now() - before;

	if (heap_now() > before && kept > KEPT_MAX(len)) {
		fprintf(stderr, "fuzz_mhl: the %s parsed from %zu bytes keeps %zu bytes (bound %zu)\n",
			what, len, kept, KEPT_MAX(len));
		abort();
	}
}

static void check_entry(const struct mhl_manifest *m, const struct mhl_entry *e)
{
	CHECK(mhl_path_valid(e->path));
	CHECK(mhl_manifest_find(m, e->path) == e);
	for (int f = 0; f < MHL_FORMAT_COUNT; f++)
		CHECK(!e->hash[f] || mhl_hash_valid((enum mhl_hash_format)f, e->hash[f]));
}

/* Write m again and parse it back: the same paths, sizes and hashes. */
static void round_trip(const struct mhl_manifest *m)
{
	struct mhl_creator c = {0, "fuzz", "fuzz_mhl", "1"};
	struct mhl_generation *g;
	struct mhl_manifest *back;
	size_t n = mhl_manifest_count(m), len, listed = 0;
	char *xml;

	CHECK(mhl_generation_new(&c, &g) == 0);
	for (size_t i = 0; i < n; i++) {
		const struct mhl_entry *e = mhl_manifest_entry(m, i);
		struct mhl_hash h[MHL_FORMAT_COUNT];
		struct mhl_file f = {e->path, e->size, e->mtime.tv_sec, h, 0};

		for (int k = 0; k < MHL_FORMAT_COUNT; k++)
			if (e->hash[k])
				h[f.n_hashes++] = (struct mhl_hash){(enum mhl_hash_format)k, e->hash[k],
								   e->action[k], 0};
		if (f.n_hashes == 0) /* the writer lists files with a hash only */
			continue;
		CHECK(mhl_generation_add_file(g, &f) == 0);
		listed++;
	}
	CHECK(mhl_generation_render(g, &xml, &len) == 0);
	mhl_generation_free(g);
	CHECK(mhl_manifest_parse(xml, len, "round trip", &back, NULL) == MHL_READ_OK);
	CHECK(mhl_manifest_count(back) == listed);
	for (size_t i = 0; i < mhl_manifest_count(back); i++) {
		const struct mhl_entry *b = mhl_manifest_entry(back, i);
		const struct mhl_entry *e = mhl_manifest_find(m, b->path);

		CHECK(e && b->size == e->size && b->mtime.tv_sec == e->mtime.tv_sec);
		for (int k = 0; k < MHL_FORMAT_COUNT; k++)
			CHECK((!b->hash[k] && !e->hash[k]) ||
			      (b->hash[k] && e->hash[k] && strcmp(b->hash[k], e->hash[k]) == 0 &&
			       b->action[k] == e->action[k]));
	}
	mhl_manifest_free(back);
	free(xml);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part;
	size_t len;
	struct mhl_read_problem why;

	if (fuzz_next_part(&data, &size, &part, &len)) {
		struct mhl_manifest *m = NULL;
		size_t before = heap_now();

		if (mhl_manifest_parse((const char *)part, len, "fuzz", &m, &why) == MHL_READ_OK) {
			check_kept(before, len, "manifest");
			for (size_t i = 0; i < mhl_manifest_count(m); i++)
				check_entry(m, mhl_manifest_entry(m, i));
			for (size_t i = 1; i < mhl_manifest_count(m); i++)
				CHECK(strcmp(mhl_manifest_entry(m, i - 1)->path, mhl_manifest_entry(m, i)->path) < 0);
			round_trip(m);
			mhl_manifest_free(m);
		} else {
			CHECK(why.kind != MHL_READ_OK && !m);
		}
	}
	if (fuzz_next_part(&data, &size, &part, &len)) {
		struct mhl_chain *c = NULL;
		size_t before = heap_now();

		if (mhl_chain_parse((const char *)part, len, &c, &why) == MHL_READ_OK) {
			check_kept(before, len, "chain");
			CHECK(mhl_chain_count(c) > 0);
			for (size_t i = 0; i < mhl_chain_count(c); i++) {
				const struct mhl_link *l = mhl_chain_link(c, i);

				CHECK(mhl_generation_number(l->path) == l->sequence);
				CHECK(mhl_hash_valid(MHL_C4, l->c4));
				CHECK(i == 0 || mhl_chain_link(c, i - 1)->sequence < l->sequence);
			}
			mhl_chain_free(c);
		}
	}
	return 0;
}
