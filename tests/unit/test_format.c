/* test_format.c: the one human form of durations, rates and sizes
 * (cmd/common/format.h, lib/util/size.h), at the edges where a
 * rounding or a unit switch goes wrong. */
#include <math.h>

#include "common/format.h"
#include "base/size.h"
#include "test.h"

TEST(duration)
{
	char b[FORMAT_DURATION_MAX];

	CHECK_STR(format_duration(b, sizeof(b), 0), "0:00");
	CHECK_STR(format_duration(b, sizeof(b), 0.3), "0:01"); /* never 0:00 while running */
	CHECK_STR(format_duration(b, sizeof(b), 24), "0:24");
	CHECK_STR(format_duration(b, sizeof(b), 59), "0:59");
	CHECK_STR(format_duration(b, sizeof(b), 59.6), "1:00");
	CHECK_STR(format_duration(b, sizeof(b), 185), "3:05");
	CHECK_STR(format_duration(b, sizeof(b), 3599), "59:59");
	/* rounded up first, so the hour format, not "60:00" */
	CHECK_STR(format_duration(b, sizeof(b), 3599.5), "1:00:00");
	CHECK_STR(format_duration(b, sizeof(b), 3600), "1:00:00");
	CHECK_STR(format_duration(b, sizeof(b), 3723), "1:02:03");
	CHECK_STR(format_duration(b, sizeof(b), 7620), "2:07:00");
	CHECK_STR(format_duration(b, sizeof(b), 99 * 3600 + 3599), "99:59:59");
	CHECK_STR(format_duration(b, sizeof(b), 100 * 3600), ">99:59:59");
	CHECK_STR(format_duration(b, sizeof(b), 1e300), ">99:59:59");
	CHECK_STR(format_duration(b, sizeof(b), INFINITY), ">99:59:59");
}

TEST(duration_unknown)
{
	char b[FORMAT_DURATION_MAX];

	CHECK_STR(format_duration(b, sizeof(b), -1), "?");
	CHECK_STR(format_duration(b, sizeof(b), -0.001), "?");
	CHECK_STR(format_duration(b, sizeof(b), NAN), "?");
	CHECK_STR(format_duration(b, sizeof(b), -INFINITY), "?");
}

TEST(rate)
{
	char b[FORMAT_RATE_MAX];

	CHECK_STR(format_rate(b, sizeof(b), 0), "0 B/s");
	CHECK_STR(format_rate(b, sizeof(b), 0.4), "0 B/s");
	CHECK_STR(format_rate(b, sizeof(b), 99.6), "100 B/s"); /* nearest, not truncated */
	CHECK_STR(format_rate(b, sizeof(b), 1023), "1023 B/s");
	CHECK_STR(format_rate(b, sizeof(b), 1024), "1.00 KiB/s");
	CHECK_STR(format_rate(b, sizeof(b), 12.3 * 1048576), "12.3 MiB/s");
	CHECK_STR(format_rate(b, sizeof(b), 19.8 * 1048576), "19.8 MiB/s");
	CHECK_STR(format_rate(b, sizeof(b), 150.0 * 1048576), "150 MiB/s");
	CHECK_STR(format_rate(b, sizeof(b), 1023.9 * 1048576), "1.00 GiB/s");
}

TEST(rate_unknown)
{
	char b[FORMAT_RATE_MAX];

	CHECK_STR(format_rate(b, sizeof(b), -1), "?");
	CHECK_STR(format_rate(b, sizeof(b), NAN), "?");
	CHECK_STR(format_rate(b, sizeof(b), INFINITY), "?");
	CHECK_STR(format_rate(b, sizeof(b), 1e30), "?");
}

/* Sizes are lib's size_format(); rates are built on it, so one check
 * that both agree on the unit switch. */
TEST(size)
{
	char b[SIZE_FORMAT_MAX];

	CHECK_STR(size_format(b, sizeof(b), 0), "0 B");
	CHECK_STR(size_format(b, sizeof(b), 1023), "1023 B");
	CHECK_STR(size_format(b, sizeof(b), 1024), "1.00 KiB");
	CHECK_STR(size_format(b, sizeof(b), 543ULL << 20), "543 MiB");
	CHECK_STR(size_format(b, sizeof(b), 1ULL << 30), "1.00 GiB");
	CHECK_STR(size_format(b, sizeof(b), 999ULL << 20), "999 MiB");
	/* three digits: 1000 MiB would be four, so the next unit */
	CHECK_STR(size_format(b, sizeof(b), 1000ULL << 20), "0.98 GiB");
	CHECK_STR(size_format(b, sizeof(b), (1ULL << 30) - 1), "1.00 GiB");
}

/* A buffer too small cuts, never overflows. */
TEST(short_buffers)
{
	char b[4];

	CHECK_STR(format_duration(b, sizeof(b), 3723), "1:0");
	CHECK_STR(format_rate(b, sizeof(b), 12.3 * 1048576), "12.");
}

int main(void)
{
	TEST_PLAN(6);
	RUN(duration);
	RUN(duration_unknown);
	RUN(rate);
	RUN(rate_unknown);
	RUN(size);
	RUN(short_buffers);
	return test_summary();
}
