/* test_checksum.c: every algorithm against known digests (the texts xxhsum
 * -H2/-H3/-H1, md5sum, sha1sum and sha256sum print, and C4 IDs as ascmhl makes
 * them), one pass over several algorithms, uneven pieces, the name list parser.
 *
 * The "big" vectors are of big_byte(i) for 5 MiB + 12345 bytes; they were
 * computed with python3-xxhash and hashlib and checked with the tools. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "hash/checksum.h"
#include "test.h"

#define BIG_LEN ((size_t)5 * 1024 * 1024 + 12345)

static uint8_t big_byte(size_t i)
{
	return (uint8_t)(((uint64_t)i * 2654435761u) >> 13);
}

struct vector {
	const char *text[CHECKSUM_ALG_COUNT];
};

static const struct vector v_empty = { {
	[CHECKSUM_XXH128] = "99aa06d3014798d86001c324468d497f",
	[CHECKSUM_XXH3] = "2d06800538d394c2",
	[CHECKSUM_XXH64] = "ef46db3751d8e999",
	[CHECKSUM_MD5] = "d41d8cd98f00b204e9800998ecf8427e",
	[CHECKSUM_SHA1] = "da39a3ee5e6b4b0d3255bfef95601890afd80709",
	[CHECKSUM_SHA256] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	/* the C4 ID of nothing, as the C4 specification gives it */
	[CHECKSUM_C4] = "c459dsjfscH38cYeXXYogktxf4Cd9ibshE3BHUo6a58hBXmRQdZrAkZzsWcbWtDg5o"
			"QstpDuni4Hirj75GEmTc1sFT",
} };

static const struct vector v_abc = { {
	[CHECKSUM_XXH128] = "06b05ab6733a618578af5f94892f3950",
	[CHECKSUM_XXH3] = "78af5f94892f3950",
	[CHECKSUM_XXH64] = "44bc2cf5ad770999",
	[CHECKSUM_MD5] = "900150983cd24fb0d6963f7d28e17f72",
	[CHECKSUM_SHA1] = "a9993e364706816aba3e25717850c26c9cd0d89d",
	[CHECKSUM_SHA256] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	[CHECKSUM_C4] = "c45S4rnaTNWonxss1u8LzsaJdEph1AJhWUF4sh2waXKMsutyfAxg4ybUeuXVWS9HdN"
			"cEypmeXn8FZGonD4w1rj9DZp",
} };

static const struct vector v_big = { {
	[CHECKSUM_XXH128] = "42fc62ca009e089ef7b9b2becf2ad8f0",
	[CHECKSUM_XXH3] = "f7b9b2becf2ad8f0",
	[CHECKSUM_XXH64] = "6994f5eaae91518b",
	[CHECKSUM_MD5] = "04136d71408449e47407b34de619726e",
	[CHECKSUM_SHA1] = "6acd74e0b13921c30994e88212571fb1d0464f4d",
	[CHECKSUM_SHA256] = "23d4cd46b07607ba8b0158e4d2b770c590002163fc28fe73da0dffdd0fa259c4",
	[CHECKSUM_C4] = "c45faML5pfF2tuNEHqCsAQ1c5fEAPnTWge3smm3dqBxXHABdNWukbzfHXhsYWJNwFV"
			"KGpoaL33QuhXYu1FjcnCoeR3",
} };

static uint8_t *big_buffer(void)
{
	uint8_t *b = malloc(BIG_LEN);

	for (size_t i = 0; b && i < BIG_LEN; i++)
		b[i] = big_byte(i);
	return b;
}

/* Digests of BUF for SET, fed in pieces of the sizes in STEPS (cycled; NULL:
 * one piece), checked against V. */
static void check_digests(checksum_set set, const void *buf, size_t len, const size_t *steps,
			  size_t nsteps, const struct vector *v)
{
	struct checksum_state *s = checksum_new(set);
	struct checksum_result r;
	const uint8_t *p = buf;

	CHECK(s != NULL);
	if (!s)
		return;
	for (size_t off = 0, k = 0; off < len; k++) {
		size_t n = steps ? steps[k % nsteps] : len;
		if (n > len - off)
			n = len - off;
		checksum_update(s, p + off, n);
		off += n;
	}
	checksum_final(s, &r);
	CHECK_INT(r.algs, set);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		if (set & CHECKSUM_BIT(a)) {
			CHECK_STR(checksum_result_text(&r, a), v->text[a]);
			CHECK_INT(strlen(r.text[a]), checksum_text_len(a));
		} else {
			CHECK(checksum_result_text(&r, a) == NULL);
		}
	}
	checksum_free(s);
}

TEST(each_alone_empty_and_abc)
{
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		check_digests(CHECKSUM_BIT(a), "", 0, NULL, 0, &v_empty);
		check_digests(CHECKSUM_BIT(a), "abc", 3, NULL, 0, &v_abc);
	}
}

TEST(all_in_one_pass)
{
	check_digests(CHECKSUM_SET_ALL, "", 0, NULL, 0, &v_empty);
	check_digests(CHECKSUM_SET_ALL, "abc", 3, NULL, 0, &v_abc);
	/* xxh128 and xxh3 share a state: each with the other, and each without */
	check_digests(CHECKSUM_BIT(CHECKSUM_XXH128) | CHECKSUM_BIT(CHECKSUM_XXH3), "abc", 3,
		      NULL, 0, &v_abc);
	check_digests(CHECKSUM_BIT(CHECKSUM_XXH3) | CHECKSUM_BIT(CHECKSUM_SHA256), "abc", 3,
		      NULL, 0, &v_abc);
}

TEST(big_buffer_one_shot_and_uneven_pieces)
{
	/* pieces that straddle every internal block size: 1, odd, a 64-byte block
	 * and one past it, the XXH3 stripe and buffer sizes, a MiB and change */
	static const size_t uneven[] = { 1, 7, 64, 65, 255, 256, 1023, 1 << 20, 3, (1 << 20) + 17 };
	static const size_t tiny[] = { 1, 2, 3 };
	uint8_t *b = big_buffer();

	CHECK(b != NULL);
	if (!b)
		return;
	check_digests(CHECKSUM_SET_ALL, b, BIG_LEN, NULL, 0, &v_big);
	check_digests(CHECKSUM_SET_ALL, b, BIG_LEN, uneven, sizeof(uneven) / sizeof(uneven[0]),
		      &v_big);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		check_digests(CHECKSUM_BIT(a), b, BIG_LEN, uneven,
			      sizeof(uneven) / sizeof(uneven[0]), &v_big);
	/* byte-sized steps over the first 300 KiB still equal its one-shot digests */
	struct checksum_state *one = checksum_new(CHECKSUM_SET_ALL);
	struct checksum_state *many = checksum_new(CHECKSUM_SET_ALL);
	struct checksum_result r1, r2;
	size_t len = 300 << 10; /* a multiple of 6, so the 1, 2, 3 steps end on it */
	checksum_update(one, b, len);
	for (size_t off = 0, k = 0; off < len; off += tiny[k++ % 3])
		checksum_update(many, b + off, tiny[k % 3]);
	checksum_final(one, &r1);
	checksum_final(many, &r2);
	CHECK(checksum_result_match(&r1, &r2));
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		CHECK_STR(r2.text[a], r1.text[a]);
	checksum_free(one);
	checksum_free(many);
	free(b);
}

TEST(final_restarts_for_the_next_file)
{
	struct checksum_state *s = checksum_new(CHECKSUM_SET_ALL);
	struct checksum_result r;

	checksum_update(s, "first file", 10);
	checksum_final(s, &r);
	checksum_update(s, "abc", 3);
	checksum_final(s, &r);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		CHECK_STR(r.text[a], v_abc.text[a]);
	/* reset drops what was fed; nothing fed after a final is the empty file */
	checksum_update(s, "dropped", 7);
	checksum_reset(s);
	checksum_update(s, "ab", 2);
	checksum_update(s, "c", 1);
	checksum_final(s, &r);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		CHECK_STR(r.text[a], v_abc.text[a]);
	checksum_final(s, &r);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		CHECK_STR(r.text[a], v_empty.text[a]);
	CHECK_INT(checksum_algs(s), CHECKSUM_SET_ALL);
	checksum_free(s);
	checksum_free(NULL);
}

/* C4 pads its base58 with '1' (the alphabet's zero) on the left: the digest of
 * "1533" starts with 0x00066d, so its ID has three of them after "c4". */
TEST(c4_left_padding)
{
	static const struct vector v = { {
		[CHECKSUM_C4] = "c4112gw1jFbSWRPm2QfogfwBUWumMTfFje1HTCjYvgVgm245j9GQ3PwePLzLaYGr4e"
				"BhfoqMKx1YXC4uTkUjj4YAuT",
	} };

	check_digests(CHECKSUM_BIT(CHECKSUM_C4), "1533", 4, NULL, 0, &v);
}

TEST(result_match)
{
	struct checksum_state *s = checksum_new(CHECKSUM_BIT(CHECKSUM_XXH128) |
						CHECKSUM_BIT(CHECKSUM_SHA256));
	struct checksum_state *t = checksum_new(CHECKSUM_BIT(CHECKSUM_XXH128));
	struct checksum_state *u = checksum_new(CHECKSUM_BIT(CHECKSUM_MD5));
	struct checksum_result rs, rt, ru;

	checksum_update(s, "abc", 3);
	checksum_update(t, "abc", 3);
	checksum_update(u, "abc", 3);
	checksum_final(s, &rs);
	checksum_final(t, &rt);
	checksum_final(u, &ru);
	CHECK(checksum_result_match(&rs, &rt)); /* agree on xxh128 */
	CHECK(!checksum_result_match(&rs, &ru)); /* nothing in common */
	checksum_update(t, "abd", 3);
	checksum_final(t, &rt);
	CHECK(!checksum_result_match(&rs, &rt));
	checksum_free(s);
	checksum_free(t);
	checksum_free(u);
}

TEST(new_refuses_empty_and_unknown_sets)
{
	CHECK(checksum_new(0) == NULL);
	CHECK(checksum_new(CHECKSUM_BIT(CHECKSUM_ALG_COUNT)) == NULL);
}

TEST(names)
{
	static const char *names[] = { "xxh128", "xxh3", "xxh64", "md5", "sha1", "sha256", "c4" };

	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		CHECK_STR(checksum_alg_name(a), names[a]);
		CHECK_INT(checksum_alg_from_name(names[a]), a);
	}
	CHECK_INT(checksum_alg_from_name("XXH128"), -1);
	CHECK_INT(checksum_alg_from_name("xxh12"), -1);
	CHECK_INT(checksum_alg_from_name("sha2566"), -1);
	CHECK_INT(checksum_alg_from_name(""), -1);
	CHECK_INT(checksum_alg_from_name(NULL), -1);
	CHECK(checksum_alg_name(CHECKSUM_ALG_COUNT) == NULL);
	CHECK_INT(checksum_text_len(CHECKSUM_C4), 90);
	CHECK_INT(checksum_text_len(CHECKSUM_ALG_COUNT), 0);
}

/* Parses LIST within ALLOWED: the set, or -1 with *ERR filled. */
static long parse(const char *list, checksum_set allowed, struct checksum_list_error *err)
{
	checksum_set set = 12345;

	*err = (struct checksum_list_error){ .kind = 99, .pos = 99, .len = 99 };
	int r = checksum_list_parse(list, allowed, &set, err);
	if (r < 0) {
		if (r != -EINVAL || set != 12345)
			return -2;
		return -1;
	}
	return (long)set;
}

TEST(list_parse)
{
	struct checksum_list_error e;

	CHECK_INT(parse("xxh128", CHECKSUM_SET_ALL, &e), CHECKSUM_BIT(CHECKSUM_XXH128));
	CHECK_INT(e.kind, CHECKSUM_LIST_OK);
	CHECK_INT(parse("xxh128,sha256,md5", CHECKSUM_SET_ALL, &e),
		  CHECKSUM_BIT(CHECKSUM_XXH128) | CHECKSUM_BIT(CHECKSUM_SHA256) |
			  CHECKSUM_BIT(CHECKSUM_MD5));
	CHECK_INT(parse("sha1,sha1", CHECKSUM_SET_ALL, &e), CHECKSUM_BIT(CHECKSUM_SHA1));
	CHECK_INT(parse("xxh128,xxh3,xxh64,md5,sha1,sha256,c4", CHECKSUM_SET_ALL, &e),
		  CHECKSUM_SET_ALL);
	/* NULL error pointer is fine */
	checksum_set set = 0;
	CHECK_INT(checksum_list_parse("xxh64", CHECKSUM_SET_ALL, &set, NULL), 0);
	CHECK_INT(set, CHECKSUM_BIT(CHECKSUM_XXH64));
	CHECK_INT(checksum_list_parse("nope", CHECKSUM_SET_ALL, &set, NULL), -EINVAL);
}

#define CHECK_BAD(list, allowed, want_kind, want_pos, want_len) \
	do { \
		struct checksum_list_error _e; \
		CHECK_INT(parse(list, allowed, &_e), -1); \
		CHECK_INT(_e.kind, want_kind); \
		CHECK_INT(_e.pos, want_pos); \
		CHECK_INT(_e.len, want_len); \
	} while (0)

TEST(list_parse_errors)
{
	CHECK_BAD("", CHECKSUM_SET_ALL, CHECKSUM_LIST_EMPTY, 0, 0);
	CHECK_BAD(",md5", CHECKSUM_SET_ALL, CHECKSUM_LIST_EMPTY, 0, 0);
	CHECK_BAD("md5,,sha1", CHECKSUM_SET_ALL, CHECKSUM_LIST_EMPTY, 4, 0);
	CHECK_BAD("md5,", CHECKSUM_SET_ALL, CHECKSUM_LIST_EMPTY, 4, 0);
	CHECK_BAD("sha512", CHECKSUM_SET_ALL, CHECKSUM_LIST_UNKNOWN, 0, 6);
	CHECK_BAD("xxh128,crc32,md5", CHECKSUM_SET_ALL, CHECKSUM_LIST_UNKNOWN, 7, 5);
	CHECK_BAD("md5,SHA1", CHECKSUM_SET_ALL, CHECKSUM_LIST_UNKNOWN, 4, 4);
	CHECK_BAD("md5, sha1", CHECKSUM_SET_ALL, CHECKSUM_LIST_UNKNOWN, 4, 5);
	CHECK_BAD("xxh128,c4", CHECKSUM_SET_LISTS, CHECKSUM_LIST_NOT_ALLOWED, 7, 2);
	CHECK_BAD("sha256", CHECKSUM_SET_ASC_MHL, CHECKSUM_LIST_NOT_ALLOWED, 0, 6);
	/* the first bad name is the one reported */
	CHECK_BAD("md5,bad1,,bad2", CHECKSUM_SET_ALL, CHECKSUM_LIST_UNKNOWN, 4, 4);
}

int main(void)
{
	TEST_PLAN(10);
	RUN(each_alone_empty_and_abc);
	RUN(all_in_one_pass);
	RUN(big_buffer_one_shot_and_uneven_pieces);
	RUN(final_restarts_for_the_next_file);
	RUN(c4_left_padding);
	RUN(result_match);
	RUN(new_refuses_empty_and_unknown_sets);
	RUN(names);
	RUN(list_parse);
	RUN(list_parse_errors);
	return test_summary();
}
