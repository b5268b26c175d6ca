/* test_parse.c: lib/util/parse, above all what it refuses. */
#include <errno.h>

#include "base/cleanup.h"
#include "util/parse.h"
#include "test.h"

/* The value, or a sentinel that says what failed and that nothing was stored. */
static uint64_t u64(const char *s)
{
	uint64_t v = 777;
	int r = parse_u64(s, &v, NULL);

	if (r < 0)
		return r == -ERANGE ? 1000001 : (v == 777 ? 1000000 : 1000002);
	return v;
}

TEST(u64_digits)
{
	CHECK_U64(u64("0"), 0);
	CHECK_U64(u64("4096"), 4096);
	CHECK_U64(u64("007"), 7);
	CHECK_U64(u64("18446744073709551615"), UINT64_MAX);
}

TEST(u64_refuses_malformed)
{
	CHECK_U64(u64(""), 1000000);
	CHECK_U64(u64("-1"), 1000000); /* strtoull: 2^64 - 1 */
	CHECK_U64(u64("+1"), 1000000);
	CHECK_U64(u64(" 1"), 1000000); /* blanks are the caller's to skip */
	CHECK_U64(u64("\n1"), 1000000);
	CHECK_U64(u64("12x"), 1000000);
	CHECK_U64(u64("12 "), 1000000);
	CHECK_U64(u64("0x10"), 1000000);
	CHECK_U64(u64("1.5"), 1000000);
}

TEST(u64_refuses_overflow)
{
	CHECK_U64(u64("18446744073709551616"), 1000001);
	CHECK_U64(u64("18446744073709551620"), 1000001);
	CHECK_U64(u64("99999999999999999999999"), 1000001);
}

TEST(u64_end)
{
	const char *s = "123 kB", *end = NULL;
	uint64_t v = 0;

	CHECK_INT(parse_u64(s, &v, &end), 0);
	CHECK_U64(v, 123);
	CHECK(end == s + 3);
	end = NULL;
	CHECK_INT(parse_u64("x", &v, &end), -EINVAL);
	CHECK(end == NULL);
	CHECK_U64(v, 123);
}

TEST(uint_range)
{
	unsigned v = 5;

	CHECK_INT(parse_uint("4294967295", &v, NULL), 0);
	CHECK_U64(v, 4294967295u);
	CHECK_INT(parse_uint("4294967296", &v, NULL), -ERANGE);
	CHECK_INT(parse_uint("-1", &v, NULL), -EINVAL);
	CHECK_U64(v, 4294967295u);
}

/* The error, and "maj:min" in buf: "777:777" when nothing was stored. */
static int devnum(const char *s, char *buf, size_t size)
{
	unsigned maj = 777, min = 777;
	int r = parse_devnum(s, &maj, &min, NULL);

	snprintf(buf, size, "%u:%u", maj, min);
	return r;
}

TEST(devnum_good)
{
	char b[32];

	CHECK_INT(devnum("8:0", b, sizeof(b)), 0);
	CHECK_STR(b, "8:0");
	CHECK_INT(devnum("259:65536", b, sizeof(b)), 0);
	CHECK_STR(b, "259:65536");
	CHECK_INT(devnum("4294967295:4294967295", b, sizeof(b)), 0);
	CHECK_STR(b, "4294967295:4294967295");
}

TEST(devnum_refuses_malformed)
{
	static const char *const junk[] = {
		"", "8", "8:", ":0", ":", "8:0x", "8:0 ", " 8:0", "8: 0", "8 :0", "-8:0", "8:-0",
		"+8:0", "8:+0", "8.0", "8:0:0", "0x8:0", "a:b",
	};
	char b[32];

	for (size_t i = 0; i < ARRAY_SIZE(junk); i++) {
		int r = devnum(junk[i], b, sizeof(b));

		if (r != -EINVAL || strcmp(b, "777:777") != 0)
			FAIL_AT("\"%s\": %d, %s", junk[i], r, b);
	}
}

TEST(devnum_refuses_overflow)
{
	char b[32];

	CHECK_INT(devnum("4294967296:0", b, sizeof(b)), -ERANGE);
	CHECK_INT(devnum("8:4294967296", b, sizeof(b)), -ERANGE);
	CHECK_STR(b, "777:777");
}

TEST(devnum_end_and_hex)
{
	const char *s = "8:0x", *end = NULL;
	unsigned maj = 0, min = 0;

	CHECK_INT(parse_devnum(s, &maj, &min, &end), 0);
	CHECK(end == s + 3);
	CHECK_INT(parse_devnum_hex("fd:01", &maj, &min, NULL), 0);
	CHECK_INT(maj, 253);
	CHECK_INT(min, 1);
	CHECK_INT(parse_devnum_hex("FD:1a", &maj, &min, NULL), 0);
	CHECK_INT(min, 26);
	CHECK_INT(parse_devnum_hex("fd:", &maj, &min, NULL), -EINVAL);
	CHECK_INT(parse_devnum_hex("fg:01", &maj, &min, NULL), -EINVAL);
	CHECK_INT(parse_devnum_hex("100000000:0", &maj, &min, NULL), -ERANGE);
	CHECK_INT(parse_devnum("fd:01", &maj, &min, NULL), -EINVAL);
}

TEST(fields_split)
{
	char line[] = "  a  b\tc  ", rest[] = "1 2  /a b (deleted)", empty[] = " \t ";
	char *f[4];

	CHECK_INT(parse_fields(line, f, ARRAY_SIZE(f)), 3);
	CHECK_STR(f[0], "a");
	CHECK_STR(f[1], "b");
	CHECK_STR(f[2], "c");
	/* the last field is the rest of the line, blanks and all */
	CHECK_INT(parse_fields(rest, f, 3), 3);
	CHECK_STR(f[1], "2");
	CHECK_STR(f[2], "/a b (deleted)");
	CHECK_INT(parse_fields(empty, f, ARRAY_SIZE(f)), 0);
}

TEST(unescape_octal)
{
	char s[] = "/media/my\\040stick\\011x\\\\y\\08\\0401", t[] = "\\04";

	parse_unescape_octal(s);
	CHECK_STR(s, "/media/my stick\tx\\\\y\\08 1");
	parse_unescape_octal(t);
	CHECK_STR(t, "\\04");
}

TEST(kv_refuses_malformed)
{
	uint64_t v = 777;

	CHECK_INT(kv_table_lookup("Dirty:     12 kB\n", "Dirty", &v), 0);
	CHECK_U64(v, 12 * 1024);
	CHECK_INT(kv_table_lookup("nr_dirty 3\n", "nr_dirty", &v), 0);
	CHECK_U64(v, 3);
	v = 777;
	CHECK_INT(kv_table_lookup("Dirty:    -1 kB\n", "Dirty", &v), -EINVAL);
	CHECK_INT(kv_table_lookup("Dirty:\n5 kB\n", "Dirty", &v), -EINVAL); /* not the next line's */
	CHECK_INT(kv_table_lookup("Dirty:  18446744073709551616\n", "Dirty", &v), -EINVAL);
	CHECK_INT(kv_table_lookup("Dirty:  kB\n", "Dirty", &v), -EINVAL);
	CHECK_U64(v, 777);
}

int main(void)
{
	TEST_PLAN(12);
	RUN(u64_digits);
	RUN(u64_refuses_malformed);
	RUN(u64_refuses_overflow);
	RUN(u64_end);
	RUN(uint_range);
	RUN(devnum_good);
	RUN(devnum_refuses_malformed);
	RUN(devnum_refuses_overflow);
	RUN(devnum_end_and_hex);
	RUN(fields_split);
	RUN(unescape_octal);
	RUN(kv_refuses_malformed);
	return test_summary();
}
