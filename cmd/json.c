/* json.c: the JSON-lines writer behind every tool's --json.
 *
 * Strings: RFC 8259 escapes for '"', '\\' and the control characters
 * (short forms where JSON has them, \u00XX otherwise, DEL included so a
 * terminal showing the line is never driven by it).  UTF-8 is validated
 * byte by byte against the well-formed ranges of Unicode table 3-7 (no
 * overlongs, no surrogates, nothing past U+10FFFF); each byte that does
 * not start a well-formed sequence becomes one U+FFFD.  File names on
 * Linux are bytes, and a replacement character is kinder to a script than
 * a parser error on the whole line. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Comma and nesting bookkeeping before any value or key. */
static void before_item(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	/* deeper than JSON_MAX_DEPTH is a caller bug; stay in bounds */
	if (j->depth == 0 || j->depth > JSON_MAX_DEPTH)
		return;
	if (j->has_items[j->depth - 1])
		fputc(',', j->f);
	j->has_items[j->depth - 1] = true;
}

static void open_container(struct json *j, char c)
{
	before_item(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH)
		j->has_items[j->depth] = false;
	j->depth++;
}

static void close_container(struct json *j, char c)
{
	if (j->depth > 0)
		j->depth--;
	fputc(c, j->f);
}

void json_object_begin(struct json *j)
{
	open_container(j, '{');
}

void json_object_end(struct json *j)
{
	close_container(j, '}');
}

void json_array_begin(struct json *j)
{
	open_container(j, '[');
}

void json_array_end(struct json *j)
{
	close_container(j, ']');
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes
 * available), or 0 when the lead byte does not start one. */
static size_t utf8_valid_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */

	/* the second byte's range is what rules out overlongs,
	 * surrogates (ED A0..BF) and code points past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;

	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void write_escape(FILE *f, unsigned char c)
{
	switch (c) {
	case '"': fputs("\\\"", f); break;
	case '\\': fputs("\\\\", f); break;
	case '\b': fputs("\\b", f); break;
	case '\f': fputs("\\f", f); break;
	case '\n': fputs("\\n", f); break;
	case '\r': fputs("\\r", f); break;
	case '\t': fputs("\\t", f); break;
	default: fprintf(f, "\\u%04x", c); break;
	}
}

static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c == 0x7f;
}

void json_string_len(struct json *j, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0; /* run: start of bytes to copy verbatim */

	before_item(j);
	fputc('"', j->f);
	while (i < len) {
		size_t n = needs_escape(p[i]) ? 0 : utf8_valid_len(p + i, len - i);

		if (n > 0) {
			i += n;
			continue;
		}
		fwrite(p + run, 1, i - run, j->f);
		if (needs_escape(p[i]))
			write_escape(j->f, p[i]);
		else
			fputs("\xef\xbf\xbd", j->f); /* U+FFFD */
		run = ++i;
	}
	fwrite(p + run, 1, i - run, j->f);
	fputc('"', j->f);
}

void json_string(struct json *j, const char *s)
{
	if (!s)
		json_null(j);
	else
		json_string_len(j, s, strlen(s));
}

void json_key(struct json *j, const char *key)
{
	json_string(j, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_u64(struct json *j, uint64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, double v, int decimals)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	before_item(j);
	fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, bool v)
{
	before_item(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	before_item(j);
	fputs("null", j->f);
}

void json_line_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
	j->depth = 0;
	j->after_key = false;
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_double(struct json *j, const char *key, double v, int decimals)
{
	json_key(j, key);
	json_double(j, v, decimals);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_null(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}
