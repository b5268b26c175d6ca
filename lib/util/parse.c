/* parse.c: digits, device numbers and blank-separated fields (parse.h).
 *
 * The digit loop is written out rather than left to strtoull(): that one
 * call would bring its sign, its white space and its errno back, and the
 * overflow test here is one comparison per digit. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "util/parse.h"

static int digit_value(char c, unsigned base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	else
		return -1;
	return (unsigned)v < base ? v : -1;
}

/* The one loop: digits of base up to max, where the number stops. */
static int parse_digits(const char *s, unsigned base, uint64_t max, uint64_t *ret,
			const char **end)
{
	uint64_t v = 0;
	const char *p = s;
	int d;

	if (digit_value(*p, base) < 0)
		return -EINVAL;
	for (; (d = digit_value(*p, base)) >= 0; p++) {
		if (v > (max - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	if (end)
		*end = p;
	else if (*p)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *ret, const char **end)
{
	return parse_digits(s, 10, UINT64_MAX, ret, end);
}

int parse_uint(const char *s, unsigned *ret, const char **end)
{
	uint64_t v;
	int r = parse_digits(s, 10, UINT_MAX, &v, end);

	if (r == 0)
		*ret = (unsigned)v;
	return r;
}

static int devnum(const char *s, unsigned base, unsigned *ret_major, unsigned *ret_minor,
		  const char **end)
{
	uint64_t maj, min;
	const char *p;
	int r;

	r = parse_digits(s, base, UINT_MAX, &maj, &p);
	if (r < 0)
		return r;
	if (*p != ':')
		return -EINVAL;
	r = parse_digits(p + 1, base, UINT_MAX, &min, end);
	if (r < 0)
		return r;
	*ret_major = (unsigned)maj;
	*ret_minor = (unsigned)min;
	return 0;
}

int parse_devnum(const char *s, unsigned *ret_major, unsigned *ret_minor, const char **end)
{
	return devnum(s, 10, ret_major, ret_minor, end);
}

int parse_devnum_hex(const char *s, unsigned *ret_major, unsigned *ret_minor, const char **end)
{
	return devnum(s, 16, ret_major, ret_minor, end);
}

const char *parse_skip_blanks(const char *s)
{
	return s + strspn(s, " \t");
}

size_t parse_fields(char *line, char **ret, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		ret[n++] = p;
		if (n == max)
			break; /* the rest of the line is the last field */
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
	}
	return n;
}

void parse_unescape_octal(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

int kv_table_lookup(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 &&
		    (p[klen] == ':' || p[klen] == ' ' || p[klen] == '\t')) {
			const char *end;
			uint64_t n;

			if (parse_u64(parse_skip_blanks(p + klen + (p[klen] == ':')), &n, &end) < 0)
				return -EINVAL;
			end = parse_skip_blanks(end);
			/* meminfo and bdi stats say "kB" and mean KiB */
			if (strncmp(end, "kB", 2) == 0)
				n *= 1024;
			*ret = n;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}
