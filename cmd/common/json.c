/* json.c: the JSON-lines writer behind every tool's --json.
 *
 * Strings: RFC 8259 escapes for '"', '\\' and the control characters
 * (short forms where JSON has them, \u00XX otherwise), and \uXXXX for
 * DEL, C1 and the bidi and invisible controls too (cmd/quote.h's
 * classes), so a terminal showing the line is never driven by it; the
 * escapes decode to the same code points, so names stay exact.  UTF-8 is
 * validated by quote_char() against the well-formed ranges (no overlongs,
 * no surrogates, nothing past U+10FFFF); each byte that does not start a
 * well-formed sequence becomes one U+FFFD.  File names on
 * Linux are bytes, and a replacement character is kinder to a script than
 * a parser error on the whole line; json_kv_name() adds the exact bytes
 * in base64 beside such a name (glibc's b64_ntop, from libresolv). */
#include <inttypes.h>
#include <math.h>
#include <resolv.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/quote.h"

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

void json_string_len(struct json *j, const char *s, size_t len)
{
	size_t i = 0, run = 0, n; /* run: start of bytes to copy verbatim */
	uint32_t c;

	before_item(j);
	fputc('"', j->f);
	while (i < len) {
		n = quote_char(s + i, len - i, &c);
		if (!quote_unsafe(c) && c != '"' && c != '\\') {
			i += n;
			continue;
		}
		fwrite(s + run, 1, i - run, j->f);
		if (c == QUOTE_INVALID)
			fputs("\xef\xbf\xbd", j->f); /* U+FFFD */
		else if (c < 0x80)
			write_escape(j->f, (unsigned char)c);
		else
			fprintf(j->f, "\\u%04x", (unsigned)c); /* C1, bidi: all in the BMP */
		run = i += n;
	}
	fwrite(s + run, 1, i - run, j->f);
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

/* Standard base64 (RFC 4648, with padding) of len bytes as a JSON string. */
static void json_base64(struct json *j, const char *s, size_t len)
{
	size_t size = (len + 2) / 3 * 4 + 1;
	char *b = malloc(size);

	if (b && b64_ntop((const unsigned char *)s, len, b, size) >= 0)
		json_string(j, b);
	else
		json_null(j); /* out of memory: the lossy string is all there is */
	free(b);
}

void json_kv_name(struct json *j, const char *key, const char *name)
{
	size_t len = name ? strlen(name) : 0;
	char *k;

	json_kv_string(j, key, name);
	if (!name || quote_utf8_valid(name, len) || asprintf(&k, "%s_b64", key) < 0)
		return;
	json_key(j, k);
	json_base64(j, name, len);
	free(k);
}

void json_kv_names(struct json *j, const char *key, char *const *names, size_t n)
{
	bool exact = true;
	char *k;

	json_key(j, key);
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		json_string(j, names[i]);
		exact = exact && quote_utf8_valid(names[i], strlen(names[i]));
	}
	json_array_end(j);
	if (exact || asprintf(&k, "%s_b64", key) < 0)
		return;
	json_key(j, k);
	json_array_begin(j);
	for (size_t i = 0; i < n; i++)
		if (quote_utf8_valid(names[i], strlen(names[i])))
			json_null(j);
		else
			json_base64(j, names[i], strlen(names[i]));
	json_array_end(j);
	free(k);
}
