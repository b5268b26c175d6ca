/* test_utf8.c: lib/util/utf8, the decoder quoting and ASC MHL share. */
#include "mhl/mhl_format.h"
#include "base/utf8.h"
#include "test.h"

/* The length decoded, and the code point in *cp. */
static size_t dec(const char *s, size_t n, uint32_t *cp)
{
	return utf8_decode(s, n, cp);
}

TEST(well_formed)
{
	uint32_t c;

	CHECK_INT(dec("a", 1, &c), 1);
	CHECK_U64(c, 'a');
	CHECK_INT(dec("\xc2\x80", 2, &c), 2);
	CHECK_U64(c, 0x80);
	CHECK_INT(dec("\xe0\xa0\x80", 3, &c), 3);
	CHECK_U64(c, 0x800);
	CHECK_INT(dec("\xed\x9f\xbf", 3, &c), 3);
	CHECK_U64(c, 0xd7ff);
	CHECK_INT(dec("\xf0\x90\x80\x80", 4, &c), 4);
	CHECK_U64(c, 0x10000);
	CHECK_INT(dec("\xf4\x8f\xbf\xbf", 4, &c), 4);
	CHECK_U64(c, 0x10ffff);
}

TEST(ill_formed_is_one_byte)
{
	static const struct { const char *s; size_t n; } bad[] = {
		{ "\x80", 1 },             /* a continuation byte */
		{ "\xc0\xaf", 2 },         /* overlong '/' */
		{ "\xc1\xbf", 2 },
		{ "\xe0\x9f\xbf", 3 },     /* overlong, 3 bytes */
		{ "\xed\xa0\x80", 3 },     /* surrogate U+D800 */
		{ "\xf0\x8f\xbf\xbf", 4 }, /* overlong, 4 bytes */
		{ "\xf4\x90\x80\x80", 4 }, /* U+110000 */
		{ "\xf5\x80\x80\x80", 4 },
		{ "\xe6\x97", 2 },         /* cut short by n */
		{ "\xe6\x97\xa5", 2 },
		{ "\xe6\x97(", 3 },        /* not a continuation */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t c = 0;
		size_t n = dec(bad[i].s, bad[i].n, &c);

		if (n != 1 || c != UTF8_INVALID)
			FAIL_AT("case %zu: length %zu, code point %#x", i, n, (unsigned)c);
	}
}

/* Whole strings: one bad byte anywhere, a sequence cut at the end, and an
 * embedded NUL within n (a byte like any other) decide. */
TEST(valid_strings)
{
	CHECK(utf8_valid("", 0));
	CHECK(utf8_valid("caf\xc3\xa9 \xf0\x9f\x93\xb7", 10));
	CHECK(utf8_valid("a\0b", 3));
	CHECK(!utf8_valid("caf\xc3", 4));
	CHECK(!utf8_valid("ab\xff", 3));
	CHECK(!utf8_valid("\xed\xa0\x80x", 4));
	CHECK(utf8_valid("ab\xff", 2)); /* n bounds what is looked at */
}

TEST(mhl_text_agrees)
{
	CHECK(mhl_text_valid("caf\xc3\xa9 \xf0\x9f\x93\xb7"));
	CHECK(!mhl_text_valid("\xed\xa0\x80"));
	CHECK(!mhl_text_valid("a\xe6\x97"));
	CHECK(!mhl_text_valid("a\x01"));       /* no C0 control in XML */
	CHECK(!mhl_text_valid("\xef\xbf\xbe")); /* U+FFFE */
	CHECK(mhl_text_valid(""));
}

/* The one rule quote() and --unpack share. */
TEST(unsafe_characters)
{
	static const uint32_t bad[] = { 0x00, 0x1b, 0x1f, 0x7f, 0x80, 0x9b, 0x9f, 0x061c, 0x200b,
					0x200f, 0x2028, 0x202e, 0x2060, 0x206f, 0xfeff,
					UTF8_INVALID };
	static const uint32_t good[] = { 0x20, 'a', 0x7e, 0xa0, 0xe9, 0x061b, 0x200a, 0x2010,
					 0x2027, 0x202f, 0x205f, 0x2070, 0xfefe, 0x1f4f7 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(utf8_unsafe(bad[i]));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(!utf8_unsafe(good[i]));
	CHECK(!utf8_has_unsafe("caf\xc3\xa9 \xf0\x9f\x93\xb7", 10));
	CHECK(utf8_has_unsafe("x\xc2\x9b" "2Jy", 6));        /* U+009B, CSI */
	CHECK(utf8_has_unsafe("gpj.\xe2\x80\xae" "exe", 10)); /* U+202E */
	CHECK(utf8_has_unsafe("a\x9b", 2));                     /* a raw 0x9b */
	CHECK(utf8_has_unsafe("a\nb", 3));
	CHECK(!utf8_has_unsafe("a\nb", 1));                     /* n bounds it */
}

int main(void)
{
	TEST_PLAN(5);
	RUN(unsafe_characters);
	RUN(well_formed);
	RUN(ill_formed_is_one_byte);
	RUN(valid_strings);
	RUN(mhl_text_agrees);
	return test_summary();
}
