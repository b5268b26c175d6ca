/* mhl_format.c: names, hash strings, paths, dates and file names of ASC MHL v2. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/chvalid.h>
#include <libxml/parser.h>

#include "mhl/mhl_format.h"
#include "base/utf8.h"

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_setup(void)
{
	xmlInitParser();
}

void mhl_xml_init(void)
{
	pthread_once(&xml_once, xml_setup);
}

static const char *const format_names[MHL_FORMAT_COUNT] = {
	[MHL_MD5] = "md5",	 [MHL_SHA1] = "sha1", [MHL_C4] = "c4",
	[MHL_XXH64] = "xxh64", [MHL_XXH3] = "xxh3", [MHL_XXH128] = "xxh128",
};
/* hex digits per format; 0: not hex (c4) */
static const unsigned char hex_length[MHL_FORMAT_COUNT] = {
	[MHL_MD5] = 32, [MHL_SHA1] = 40, [MHL_XXH64] = 16, [MHL_XXH3] = 16, [MHL_XXH128] = 32,
};
static const char *const action_names[MHL_ACTION_COUNT] = {
	[MHL_ORIGINAL] = "original",
	[MHL_VERIFIED] = "verified",
	[MHL_FAILED] = "failed",
};

const char *mhl_format_name(enum mhl_hash_format f)
{
	return (unsigned)f < MHL_FORMAT_COUNT ? format_names[f] : NULL;
}

int mhl_format_from_name(const char *name)
{
	for (int f = 0; f < MHL_FORMAT_COUNT; f++)
		if (strcmp(name, format_names[f]) == 0)
			return f;
	return -1;
}

const char *mhl_action_name(enum mhl_action a)
{
	return (unsigned)a < MHL_ACTION_COUNT ? action_names[a] : NULL;
}

int mhl_action_from_name(const char *name)
{
	for (int a = 0; a < MHL_ACTION_COUNT; a++)
		if (strcmp(name, action_names[a]) == 0)
			return a;
	return -1;
}

/* The C4 ID alphabet: base58 without 0, O, I and l. */
static const char c4_alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

bool mhl_hash_valid(enum mhl_hash_format f, const char *s)
{
	size_t len = strlen(s);

	if ((unsigned)f >= MHL_FORMAT_COUNT)
		return false;
	if (f == MHL_C4) {
		if (len != 90 || s[0] != 'c' || s[1] != '4')
			return false;
		for (size_t i = 2; i < len; i++)
			if (!strchr(c4_alphabet, s[i]))
				return false;
		return true;
	}
	if (len != hex_length[f])
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

void mhl_hash_normalize(char *s)
{
	/* only hex strings: a C4 ID is case sensitive and starts with "c4" */
	if (s[0] == 'c' && s[1] == '4' && strlen(s) == 90)
		return;
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

bool mhl_text_valid(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		uint32_t c;

		i += utf8_decode(s + i, n - i, &c);
		/* xmlIsChar: XML 1.0's Char production (no C0 control but tab, newline and
		 * carriage return; no U+FFFE, U+FFFF) */
		if (c == UTF8_INVALID || !xmlIsChar(c))
			return false;
	}
	return true;
}

bool mhl_path_valid(const char *path)
{
	const char *c = path;

	if (!*path || !mhl_text_valid(path))
		return false;
	/* each component between slashes: not empty, not ".", not ".." */
	for (;;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!end)
			return true;
		c = end + 1;
	}
}

void mhl_date_format(time_t t, char buf[MHL_DATE_MAX])
{
	struct tm tm;
	long off;

	if (!localtime_r(&t, &tm)) {
		snprintf(buf, MHL_DATE_MAX, "1970-01-01T00:00:00+00:00");
		return;
	}
	off = tm.tm_gmtoff / 60;
	snprintf(buf, MHL_DATE_MAX, "%04d-%02d-%02dT%02d:%02d:%02d%c%02ld:%02ld", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, off < 0 ? '-' : '+',
		 labs(off) / 60, labs(off) % 60);
}

/* n decimal digits at *s, advanced; -1 when they are not there */
static long digits(const char **s, int n)
{
	long v = 0;

	for (int i = 0; i < n; i++, (*s)++) {
		if (!isdigit((unsigned char)**s))
			return -1;
		v = v * 10 + (**s - '0');
	}
	return v;
}

bool mhl_date_parse(const char *s, struct timespec *ret)
{
	struct tm tm = {0};
	long y, mo, d, h, mi, sec, nsec = 0, off = 0;
	time_t t;

	if ((y = digits(&s, 4)) < 0 || *s++ != '-' || (mo = digits(&s, 2)) < 1 || mo > 12 ||
	    *s++ != '-' || (d = digits(&s, 2)) < 1 || d > 31 || *s++ != 'T' ||
	    (h = digits(&s, 2)) < 0 || h > 24 || *s++ != ':' || (mi = digits(&s, 2)) < 0 ||
	    mi > 59 || *s++ != ':' || (sec = digits(&s, 2)) < 0 || sec > 60)
		return false;
	if (*s == '.') {
		int n = 0;

		for (s++; isdigit((unsigned char)*s); s++, n++)
			if (n < 9)
				nsec = nsec * 10 + (*s - '0');
		if (n == 0)
			return false;
		for (; n < 9; n++)
			nsec *= 10;
	}
	if (*s == 'Z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		int sign = *s++ == '-' ? -1 : 1;
		long oh, om;

		if ((oh = digits(&s, 2)) < 0 || oh > 14 || *s++ != ':' || (om = digits(&s, 2)) < 0 ||
		    om > 59)
			return false;
		off = sign * (oh * 3600 + om * 60);
	}
	if (*s)
		return false;
	tm.tm_year = (int)(y - 1900);
	tm.tm_mon = (int)(mo - 1);
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)sec;
	t = timegm(&tm);
	if (t == (time_t)-1 && !(y == 1969 && mo == 12 && d == 31))
		return false;
	ret->tv_sec = t - off;
	ret->tv_nsec = nsec;
	return true;
}

int mhl_generation_file_name(unsigned sequence, const char *root_name, time_t t, char *buf,
			     size_t size)
{
	struct tm tm;
	int n;

	if (sequence == 0 || !*root_name || strchr(root_name, '/') || !mhl_text_valid(root_name) ||
	    !gmtime_r(&t, &tm))
		return -EINVAL;
	n = snprintf(buf, size, "%04u_%s_%04d-%02d-%02d_%02d%02d%02dZ.mhl", sequence, root_name,
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

unsigned mhl_generation_number(const char *file_name)
{
	size_t len = strlen(file_name), n = 0;
	unsigned long v = 0;

	while (isdigit((unsigned char)file_name[n])) {
		v = v * 10 + (unsigned long)(file_name[n] - '0');
		if (v > 999999999)
			return 0;
		n++;
	}
	if (n < 4 || file_name[n] != '_' || len < n + 5 || strcmp(file_name + len - 4, ".mhl") != 0 ||
	    strchr(file_name, '/'))
		return 0;
	return (unsigned)v;
}
