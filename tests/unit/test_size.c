/* test_size.c: size parsing, formatting and rounding. */
#include <errno.h>

#include "base/size.h"
#include "test.h"

static uint64_t parsed(const char *s)
{
	uint64_t v = 12345;

	if (size_parse(s, &v) < 0)
		return UINT64_MAX;
	return v;
}

TEST(parse_plain_and_binary)
{
	CHECK_U64(parsed("0"), 0);
	CHECK_U64(parsed("4096"), 4096);
	CHECK_U64(parsed("8M"), 8ULL << 20);
	CHECK_U64(parsed("8m"), 8ULL << 20);
	CHECK_U64(parsed("8MiB"), 8ULL << 20);
	CHECK_U64(parsed("8 MiB"), 8ULL << 20);
	CHECK_U64(parsed("512k"), 512ULL << 10);
	CHECK_U64(parsed("1G"), 1ULL << 30);
	CHECK_U64(parsed("2TiB"), 2ULL << 40);
	CHECK_U64(parsed("100B"), 100);
}

TEST(parse_decimal_and_fractions)
{
	CHECK_U64(parsed("1kB"), 1000);
	CHECK_U64(parsed("20MB"), 20000000);
	CHECK_U64(parsed("1.5K"), 1536);
	CHECK_U64(parsed("0.5M"), 512ULL << 10);
	CHECK_U64(parsed(".5k"), 512);
}

TEST(parse_rejects_junk)
{
	uint64_t v;

	CHECK_INT(size_parse("", &v), -EINVAL);
	CHECK_INT(size_parse("-1", &v), -EINVAL);
	CHECK_INT(size_parse("M", &v), -EINVAL);
	CHECK_INT(size_parse("8X", &v), -EINVAL);
	CHECK_INT(size_parse("8MiBs", &v), -EINVAL);
	CHECK_INT(size_parse("8 M B", &v), -EINVAL);
	CHECK_INT(size_parse(NULL, &v), -EINVAL);
	CHECK_INT(size_parse("99999999999999999999", &v), -ERANGE);
	CHECK_INT(size_parse("17179869184G", &v), -ERANGE);
	CHECK_INT(size_parse("16E", &v), -ERANGE);
}

TEST(format)
{
	char b[SIZE_FORMAT_MAX];

	CHECK_STR(size_format(b, sizeof(b), 0), "0 B");
	CHECK_STR(size_format(b, sizeof(b), 1023), "1023 B");
	CHECK_STR(size_format(b, sizeof(b), 1024), "1.00 KiB");
	CHECK_STR(size_format(b, sizeof(b), 1536), "1.50 KiB");
	CHECK_STR(size_format(b, sizeof(b), 15 * 1048576ULL + 314573), "15.3 MiB");
	CHECK_STR(size_format(b, sizeof(b), 200 * 1048576ULL), "200 MiB");
	/* 1023.9 MiB rounds to 1024 MiB: carried into GiB instead */
	CHECK_STR(size_format(b, sizeof(b), 1073741824ULL - 100000), "1.00 GiB");
	CHECK_STR(size_format(b, sizeof(b), 1000ULL << 20), "0.98 GiB");
	CHECK_STR(size_format(b, sizeof(b), 1ULL << 30), "1.00 GiB");
	CHECK_STR(size_format(b, sizeof(b), UINT64_MAX), "16.0 EiB");
}

TEST(rounding)
{
	CHECK_U64(round_up_u64(0, 512), 0);
	CHECK_U64(round_up_u64(1, 512), 512);
	CHECK_U64(round_up_u64(512, 512), 512);
	CHECK_U64(round_up_u64(1000, 240 * 1024), 240 * 1024);
	CHECK_U64(round_down_u64(1000, 512), 512);
	CHECK_U64(round_down_u64(511, 512), 0);
	CHECK_U64(round_up_u64(4097, 4096), 8192); /* a mask */
	CHECK_U64(round_down_u64(300000, 240 * 1024), 240 * 1024); /* a division */
	CHECK_U64(round_up_u64(240 * 1024 + 1, 240 * 1024), 480 * 1024);
}

int main(void)
{
	TEST_PLAN(5);
	RUN(parse_plain_and_binary);
	RUN(parse_decimal_and_fractions);
	RUN(parse_rejects_junk);
	RUN(format);
	RUN(rounding);
	return test_summary();
}
