/* size.c: parsing and formatting byte counts. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/size.h"

/* Single letters and "iB" suffixes are binary, case-insensitive; a
 * letter followed by a bare "B" is decimal, as in dd(1). */
static int parse_unit(const char *s, uint64_t *ret)
{
	static const char letters[] = "KMGTPE";
	const char *l;
	uint64_t mult = 1;

	if (*s == '\0' || strcmp(s, "B") == 0) {
		*ret = 1;
		return 0;
	}
	l = strchr(letters, toupper((unsigned char)s[0]));
	if (!l)
		return -EINVAL;
	if (s[1] == '\0' || strcasecmp(s + 1, "iB") == 0) {
		*ret = 1ULL << (10 * (l - letters + 1));
		return 0;
	}
	if (strcmp(s + 1, "B") == 0) {
		for (const char *p = letters; p <= l; p++)
			mult *= 1000;
		*ret = mult;
		return 0;
	}
	return -EINVAL;
}

int size_parse(const char *s, uint64_t *ret)
{
	char *end;
	double num;
	uint64_t mult;
	unsigned long long whole;

	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -EINVAL; /* no signs: sizes are never negative */

	errno = 0;
	whole = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end == '.') {
		errno = 0;
		num = strtod(s, &end);
		if (errno || !isfinite(num))
			return -EINVAL;
	} else {
		num = -1; /* exact integer path */
	}
	while (isspace((unsigned char)*end))
		end++;
	if (parse_unit(end, &mult) < 0)
		return -EINVAL;

	if (num >= 0) {
		long double v = (long double)num * mult;

		if (v >= 18446744073709551616.0L)
			return -ERANGE;
		*ret = (uint64_t)(v + 0.5L);
		return 0;
	}
	if (mult && whole > UINT64_MAX / mult)
		return -ERANGE;
	*ret = whole * mult;
	return 0;
}

const char *size_format(char *buf, size_t size, uint64_t bytes)
{
	static const char *const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	/* three significant digits; rounding may carry into the next unit */
	if (v >= 999.5 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (v < 9.995)
		snprintf(buf, size, "%.2f %s", v, names[u]);
	else if (v < 99.95)
		snprintf(buf, size, "%.1f %s", v, names[u]);
	else
		snprintf(buf, size, "%.0f %s", v, names[u]);
	return buf;
}
