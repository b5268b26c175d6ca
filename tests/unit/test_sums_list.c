/* test_sums_list.c: checksum list lines, byte for byte as xxhsum 0.8.1 and
 * coreutils 9.1 write them (the expected lines were taken from those tools'
 * output on files of these names); tests/bats/sums_lists.bats checks the
 * tools read them back. And lines read back: ours, and the forms the tools
 * also write or accept. */
#include <errno.h>
#include <stdlib.h>

#include "hash/sums_list.h"
#include "test.h"

#define H128 "06b05ab6733a618578af5f94892f3950"
#define H64 "44bc2cf5ad770999"
#define HXXH3 "78af5f94892f3950"
#define HMD5 "900150983cd24fb0d6963f7d28e17f72"
#define HSHA1 "a9993e364706816aba3e25717850c26c9cd0d89d"
#define HSHA256 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

/* ALG's line for NAME, malloc'd, or NULL (then *RET is the return value). */
static char *line(enum checksum_alg alg, const char *digest, const char *name, int *ret)
{
	char *l = NULL;
	int r = sums_line_alloc(alg, digest, name, &l);

	if (ret)
		*ret = r;
	return r == 0 ? l : NULL;
}

#define CHECK_LINE(alg, digest, name, want) \
	do { \
		char *_l = line(alg, digest, name, NULL); \
		CHECK_STR(_l, want); \
		free(_l); \
	} while (0)

TEST(plain_names)
{
	CHECK_LINE(CHECKSUM_XXH128, H128, "a b", H128 "  a b\n");
	CHECK_LINE(CHECKSUM_XXH64, H64, "dir/sub/clip.mxf", H64 "  dir/sub/clip.mxf\n");
	CHECK_LINE(CHECKSUM_XXH3, HXXH3, "a b", "XXH3 (a b) = " HXXH3 "\n");
	CHECK_LINE(CHECKSUM_MD5, HMD5, "a b", HMD5 "  a b\n");
	CHECK_LINE(CHECKSUM_SHA1, HSHA1, "a b", HSHA1 "  a b\n");
	CHECK_LINE(CHECKSUM_SHA256, HSHA256, "a b", HSHA256 "  a b\n");
}

/* Names the tools take as they are: spaces at either end, quotes, a star or
 * dash first, non-ASCII, bytes that are not UTF-8, a tab, ") = " inside. */
TEST(awkward_names_unescaped)
{
	static const char *names[] = {
		" lead", "trail ", "it's \"q\"", "*star", "-dash", "caf\xc3\xa9 \xc3\xbc",
		"bad\xff\xfe", "tab\tx", "d ir/(p) = q", "XXH3 (x) = 1",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char want[256];
		snprintf(want, sizeof(want), H128 "  %s\n", names[i]);
		CHECK_LINE(CHECKSUM_XXH128, H128, names[i], want);
		snprintf(want, sizeof(want), "XXH3 (%s) = " HXXH3 "\n", names[i]);
		CHECK_LINE(CHECKSUM_XXH3, HXXH3, names[i], want);
		snprintf(want, sizeof(want), HSHA256 "  %s\n", names[i]);
		CHECK_LINE(CHECKSUM_SHA256, HSHA256, names[i], want);
	}
}

/* coreutils 9.1: a name with '\', LF or CR makes an escaped line, '\' first. */
TEST(coreutils_escaping)
{
	CHECK_LINE(CHECKSUM_SHA256, HSHA256, "back\\slash", "\\" HSHA256 "  back\\\\slash\n");
	CHECK_LINE(CHECKSUM_SHA256, HSHA256, "new\nline", "\\" HSHA256 "  new\\nline\n");
	CHECK_LINE(CHECKSUM_SHA256, HSHA256, "cr\rx", "\\" HSHA256 "  cr\\rx\n");
	CHECK_LINE(CHECKSUM_MD5, HMD5, "a\\b\nc\rd\\", "\\" HMD5 "  a\\\\b\\nc\\rd\\\\\n");
	CHECK_LINE(CHECKSUM_SHA1, HSHA1, "\n", "\\" HSHA1 "  \\n\n");
	/* a name that only looks escaped is escaped once more */
	CHECK_LINE(CHECKSUM_SHA256, HSHA256, "x\\n", "\\" HSHA256 "  x\\\\n\n");
}

TEST(xxhash_lists_cannot_hold_backslash_lf_cr)
{
	static const char *names[] = { "back\\slash", "new\nline", "cr\rx", "\\", "end\n" };
	static const enum checksum_alg xx[] = { CHECKSUM_XXH128, CHECKSUM_XXH3, CHECKSUM_XXH64 };
	static const char *digest[] = { H128, HXXH3, H64 };

	for (size_t a = 0; a < 3; a++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			int r = 0;
			char *l = line(xx[a], digest[a], names[i], &r);
			CHECK(l == NULL);
			CHECK_INT(r, SUMS_LINE_UNLISTABLE);
			CHECK_INT(sums_line_check(xx[a], names[i]), SUMS_LINE_UNLISTABLE);
			free(l);
		}
	CHECK_INT(sums_line_check(CHECKSUM_SHA256, "new\nline"), SUMS_LINE_OK);
	CHECK_INT(sums_line_check(CHECKSUM_XXH128, "plain"), SUMS_LINE_OK);
}

TEST(c4_has_no_list)
{
	int r = 0;

	CHECK(line(CHECKSUM_C4, "c4x", "a", &r) == NULL);
	CHECK_INT(r, SUMS_LINE_NO_FORMAT);
	CHECK_INT(sums_line_check(CHECKSUM_C4, "a"), SUMS_LINE_NO_FORMAT);
	CHECK_INT(sums_line_check(CHECKSUM_ALG_COUNT, "a"), SUMS_LINE_NO_FORMAT);
}

TEST(bad_arguments)
{
	int r = 0;

	CHECK(line(CHECKSUM_SHA256, HSHA256, "", &r) == NULL);
	CHECK_INT(r, -EINVAL);
	CHECK(line(CHECKSUM_SHA256, H128, "a", &r) == NULL); /* 32 hex for a sha256 */
	CHECK_INT(r, -EINVAL);
	CHECK(line(CHECKSUM_XXH3, H128, "a", &r) == NULL);
	CHECK_INT(r, -EINVAL);
}

TEST(caller_buffer)
{
	char buf[128];
	size_t len = 0;
	const char *want = "\\" HMD5 "  a\\nb\n"; /* 1 + 32 + 2 + 4 + 1 = 40 */

	CHECK_INT(sums_line_format(CHECKSUM_MD5, HMD5, "a\nb", buf, sizeof(buf), &len), 0);
	CHECK_STR(buf, want);
	CHECK_INT(len, strlen(want));
	/* exactly the length: no room for the NUL */
	memset(buf, 'Z', sizeof(buf));
	len = 0;
	CHECK_INT(sums_line_format(CHECKSUM_MD5, HMD5, "a\nb", buf, 40, &len), -ENOBUFS);
	CHECK_INT(len, 40);
	CHECK(buf[0] == 'Z'); /* nothing written */
	CHECK_INT(sums_line_format(CHECKSUM_MD5, HMD5, "a\nb", buf, 41, &len), 0);
	CHECK_STR(buf, want);
	/* the tag form's length */
	CHECK_INT(sums_line_format(CHECKSUM_XXH3, HXXH3, "ab", buf, 1, &len), -ENOBUFS);
	CHECK_INT(len, strlen("XXH3 (ab) = " HXXH3 "\n"));
	/* a kind wins over a small buffer: nothing to make room for */
	CHECK_INT(sums_line_format(CHECKSUM_XXH64, H64, "a\\b", buf, 1, &len),
		  SUMS_LINE_UNLISTABLE);
}

/* Parses LINE (a C string) as ALG's; the name, malloc'd, or NULL with *RET. */
static char *parsed(enum checksum_alg alg, const char *line, char *digest, int *ret)
{
	char *name = NULL;
	int r = sums_line_parse(alg, line, strlen(line), digest, &name);

	if (ret)
		*ret = r;
	return r == 0 ? name : NULL;
}

#define CHECK_PARSE(alg, line, want_digest, want_name) \
	do { \
		char _d[CHECKSUM_TEXT_MAX] = ""; \
		char *_n = parsed(alg, line, _d, NULL); \
		CHECK_STR(_n, want_name); \
		CHECK_STR(_d, want_digest); \
		free(_n); \
	} while (0)

#define CHECK_NO_PARSE(alg, line) \
	do { \
		char _d[CHECKSUM_TEXT_MAX]; \
		int _r = 0; \
		char *_n = parsed(alg, line, _d, &_r); \
		CHECK(_n == NULL); \
		CHECK_INT(_r, -EINVAL); \
		free(_n); \
	} while (0)

/* Every line we make reads back as the name and digest it was made of. */
TEST(parse_round_trip)
{
	static const char *names[] = {
		"a b", " lead", "trail ", "it's \"q\"", "*star", "caf\xc3\xa9", "bad\xff",
		"tab\tx", "d ir/(p) = q", "XXH3 (x) = 1", "x) = ", "back\\slash", "new\nline",
		"cr\rx", "\\", "a\\nb", "end\r",
	};
	static const enum checksum_alg list_algs[] = {
		CHECKSUM_XXH128, CHECKSUM_XXH3, CHECKSUM_XXH64, CHECKSUM_MD5, CHECKSUM_SHA1,
		CHECKSUM_SHA256,
	};
	static const char *digests[] = { H128, HXXH3, H64, HMD5, HSHA1, HSHA256 };

	for (size_t a = 0; a < 6; a++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char *l = line(list_algs[a], digests[a], names[i], NULL);
			if (!l) /* unlistable here */
				continue;
			CHECK_PARSE(list_algs[a], l, digests[a], names[i]);
			free(l);
		}
}

/* Lines as the tools write or accept them, not only as we write them. */
TEST(parse_what_the_tools_accept)
{
	/* the binary-mode star, upper-case hex */
	CHECK_PARSE(CHECKSUM_XXH128, H128 " *star", H128, "star");
	CHECK_PARSE(CHECKSUM_SHA256, HSHA256 " *star\n", HSHA256, "star");
	CHECK_PARSE(CHECKSUM_XXH64, "44BC2CF5AD770999  a", H64, "a");
	CHECK_PARSE(CHECKSUM_XXH3, "XXH3 (a) = 78AF5F94892F3950\n", HXXH3, "a");
	/* a DOS line: coreutils drops the CR, xxhsum keeps it in the name */
	CHECK_PARSE(CHECKSUM_SHA256, HSHA256 "  star\r\n", HSHA256, "star");
	CHECK_PARSE(CHECKSUM_XXH128, H128 "  star\r\n", H128, "star\r");
	/* xxh3: the name runs to the ") = " before the digest */
	CHECK_PARSE(CHECKSUM_XXH3, "XXH3 (x) = y) = " HXXH3, HXXH3, "x) = y");
	CHECK_PARSE(CHECKSUM_XXH3, "XXH3 ()) = " HXXH3, HXXH3, ")");
	/* an unescaped coreutils line takes backslashes as they are */
	CHECK_PARSE(CHECKSUM_MD5, HMD5 "  a\\nb", HMD5, "a\\nb");
}

TEST(parse_rejects)
{
	CHECK_NO_PARSE(CHECKSUM_SHA256, "");
	CHECK_NO_PARSE(CHECKSUM_SHA256, "\n");
	CHECK_NO_PARSE(CHECKSUM_SHA256, HSHA256);
	CHECK_NO_PARSE(CHECKSUM_SHA256, HSHA256 "  ");    /* no name */
	CHECK_NO_PARSE(CHECKSUM_SHA256, HSHA256 "\tx");   /* not a space */
	CHECK_NO_PARSE(CHECKSUM_SHA256, HSHA256 " -x");   /* neither ' ' nor '*' */
	CHECK_NO_PARSE(CHECKSUM_SHA256, H128 "  x");      /* md5's length */
	CHECK_NO_PARSE(CHECKSUM_MD5, HSHA256 "  x");      /* too long: no space at 32 */
	CHECK_NO_PARSE(CHECKSUM_MD5, "g00150983cd24fb0d6963f7d28e17f72  x");
	CHECK_NO_PARSE(CHECKSUM_SHA1, "\\" HSHA1 "  a\\tb"); /* an escape coreutils lacks */
	CHECK_NO_PARSE(CHECKSUM_SHA1, "\\" HSHA1 "  a\\");   /* a lone backslash at the end */
	CHECK_NO_PARSE(CHECKSUM_SHA1, HSHA1 "  a\nb");       /* two lines */
	/* xxhsum 0.8.1 has no escaped lines, and no other xxh3 form */
	CHECK_NO_PARSE(CHECKSUM_XXH128, "\\" H128 "  back\\\\slash");
	CHECK_NO_PARSE(CHECKSUM_XXH3, HXXH3 "  a");
	CHECK_NO_PARSE(CHECKSUM_XXH3, "XXH3_" HXXH3 "  a");
	CHECK_NO_PARSE(CHECKSUM_XXH3, "XXH3 () = " HXXH3);  /* no name */
	CHECK_NO_PARSE(CHECKSUM_XXH3, "XXH3 (a) = " H64 "0"); /* 17 digits */
	CHECK_NO_PARSE(CHECKSUM_XXH3, "XXH64 (a) = " HXXH3);
	CHECK_NO_PARSE(CHECKSUM_XXH3, "XXH3 (a) - " HXXH3);
	CHECK_NO_PARSE(CHECKSUM_C4, "c4  a");
	/* a NUL inside the given length */
	char d[CHECKSUM_TEXT_MAX], *n = NULL;
	CHECK_INT(sums_line_parse(CHECKSUM_MD5, HMD5 "  a\0b", 37, d, &n), -EINVAL);
	free(n);
}

int main(void)
{
	TEST_PLAN(10);
	RUN(plain_names);
	RUN(awkward_names_unescaped);
	RUN(coreutils_escaping);
	RUN(xxhash_lists_cannot_hold_backslash_lf_cr);
	RUN(c4_has_no_list);
	RUN(bad_arguments);
	RUN(caller_buffer);
	RUN(parse_round_trip);
	RUN(parse_what_the_tools_accept);
	RUN(parse_rejects);
	return test_summary();
}
