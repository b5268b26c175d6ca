/* format.c: durations and rates for people (format.h).
 *
 * Durations round up before the unit is chosen, so 3599.5 s becomes
 * "1:00:00", never "60:00".  Rates round to the nearest byte: the three
 * significant digits of size_format() hide the rest.  A rate past 2^63
 * bytes/s (infinity, a clock that stood still) is no rate at all. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "common/format.h"
#include "base/size.h"

#define DURATION_LIMIT (99.0 * 3600 + 59 * 60 + 59)

const char *format_duration(char *buf, size_t size, double seconds)
{
	unsigned long long s;

	if (!(seconds >= 0)) { /* also NaN */
		snprintf(buf, size, "?");
		return buf;
	}
	if (seconds > DURATION_LIMIT) {
		snprintf(buf, size, ">99:59:59");
		return buf;
	}
	s = (unsigned long long)ceil(seconds);
	if (s >= 3600)
		snprintf(buf, size, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, size, "%llu:%02llu", s / 60, s % 60);
	return buf;
}

const char *format_rate(char *buf, size_t size, double bytes_per_s)
{
	char s[SIZE_FORMAT_MAX];

	if (!(bytes_per_s >= 0) || bytes_per_s >= 0x1p63) {
		snprintf(buf, size, "?");
		return buf;
	}
	snprintf(buf, size, "%s/s", size_format(s, sizeof(s), (uint64_t)(bytes_per_s + 0.5)));
	return buf;
}
