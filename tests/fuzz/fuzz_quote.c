/* fuzz_quote.c: libFuzzer harness for the name sanitiser (cmd/quote.h).
 *
 * Quotes arbitrary bytes in both styles and checks what every message
 * relies on: the output holds no C0 byte, no DEL, no C1 control (raw or
 * as UTF-8), no bidi or invisible control, is valid UTF-8, and decodes
 * back to the input.  The decoder below reads the output as bash reads
 * the words quote() writes: '...' verbatim, $'...' with the escapes
 * quote() uses (\a \b \t \n \v \f \r \e, \xHH, \'), and \' between
 * pieces; anything else is a failure.  A name is a C string, so the
 * input is cut at its first NUL; quote_mem() of the whole input, NULs
 * included, is checked too.  quote_utf8_valid(), which decides the JSON
 * writer's *_b64 fields, is compared with the table 3-7 ranges written
 * out once more here. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/quote.h"

#define CHECK(c) \
	do { \
		if (!(c)) { \
			fprintf(stderr, "fuzz_quote: %s failed at line %d\n", #c, __LINE__); \
			abort(); \
		} \
	} while (0)

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The bytes bash makes of q; out holds at least strlen(q) bytes. */
static size_t unquote(const char *q, char *out)
{
	static const char named[] = "a\ab\bt\tn\nv\vf\fr\re\x1b";
	size_t n = 0;

	while (*q) {
		if (q[0] == '\\' && q[1] == '\'') {
			out[n++] = '\'';
			q += 2;
		} else if (q[0] == '\'') {
			for (q++; *q != '\''; q++) {
				CHECK(*q); /* unterminated */
				out[n++] = *q;
			}
			q++;
		} else if (q[0] == '$' && q[1] == '\'') {
			for (q += 2; *q != '\'';) {
				const char *e;

				CHECK(q[0] == '\\'); /* only escapes inside $'' */
				if (q[1] == 'x') {
					CHECK(hex(q[2]) >= 0 && hex(q[3]) >= 0);
					out[n++] = (char)(hex(q[2]) << 4 | hex(q[3]));
					q += 4;
					continue;
				}
				CHECK(q[1] && (e = strchr(named, q[1])) && (e - named) % 2 == 0);
				out[n++] = e[1];
				q += 2;
			}
			q++;
		} else {
			CHECK(!"text outside any quotes");
		}
	}
	return n;
}

/* Well-formed UTF-8 by Unicode table 3-7, written out independently. */
static bool utf8_ok(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned char b = s[i];
		size_t n;
		unsigned char lo = 0x80, hi = 0xbf;

		if (b < 0x80) {
			i++;
			continue;
		}
		if (b >= 0xc2 && b <= 0xdf)
			n = 2;
		else if (b >= 0xe0 && b <= 0xef)
			n = 3;
		else if (b >= 0xf0 && b <= 0xf4)
			n = 4;
		else
			return false;
		if (b == 0xe0)
			lo = 0xa0;
		if (b == 0xed)
			hi = 0x9f;
		if (b == 0xf0)
			lo = 0x90;
		if (b == 0xf4)
			hi = 0x8f;
		if (i + n > len || s[i + 1] < lo || s[i + 1] > hi)
			return false;
		for (size_t k = 2; k < n; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return false;
		i += n;
	}
	return true;
}

/* No C0, DEL, C1 (raw bytes cannot pass utf8_ok), bidi or BOM. */
static void check_clean(const char *q, size_t len)
{
	const unsigned char *s = (const unsigned char *)q;

	CHECK(utf8_ok(s, len));
	for (size_t i = 0; i < len; i++) {
		CHECK(s[i] >= 0x20 && s[i] != 0x7f);
		if (s[i] == 0xc2 && i + 1 < len)
			CHECK(s[i + 1] < 0x80 || s[i + 1] > 0x9f);
		if (s[i] == 0xe2 && i + 2 < len && s[i + 1] == 0x80)
			CHECK(!(s[i + 2] >= 0x8b && s[i + 2] <= 0x8f) &&
			      !(s[i + 2] >= 0xa8 && s[i + 2] <= 0xae));
		if (s[i] == 0xe2 && i + 2 < len && s[i + 1] == 0x81)
			CHECK(!(s[i + 2] >= 0xa0 && s[i + 2] <= 0xaf));
		if (s[i] == 0xd8 && i + 1 < len)
			CHECK(s[i + 1] != 0x9c); /* U+061C */
		if (s[i] == 0xef && i + 2 < len)
			CHECK(!(s[i + 1] == 0xbb && s[i + 2] == 0xbf));
	}
}

static void check_one(const char *name, size_t len, const char *q)
{
	size_t qlen = strlen(q);
	char *back = malloc(qlen + 1);

	CHECK(back);
	check_clean(q, qlen);
	CHECK(unquote(q, back) == len);
	CHECK(memcmp(back, name, len) == 0);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1);
	size_t len, need;
	char *buf;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	len = strlen(name);

	check_one(name, len, quote(name));
	if (len) /* bare names are plain text; quoted ones decode like quote()'s */
		CHECK(strcmp(quote_bare(name), name) == 0 || quote_bare(name)[0] == '\'' ||
		      quote_bare(name)[0] == '$' || quote_bare(name)[0] == '\\');
	if (strcmp(quote_bare(name), name) != 0)
		check_one(name, len, quote_bare(name));
	else
		check_clean(name, len);
	CHECK(quote_utf8_valid(name, len) == utf8_ok((const unsigned char *)name, len));

	/* length-counted, NULs included, and cut short: never past size */
	need = quote_mem(NULL, 0, (const char *)data, size, QUOTE_ALWAYS);
	buf = malloc(need + 1);
	CHECK(buf);
	CHECK(quote_mem(buf, need + 1, (const char *)data, size, QUOTE_ALWAYS) == need);
	CHECK(strlen(buf) <= need);
	if (!memchr(data, 0, size))
		CHECK(strlen(buf) == need && strcmp(buf, quote(name)) == 0);
	if (need > 3)
		CHECK(quote_mem(buf, need / 2, (const char *)data, size, QUOTE_ALWAYS) == need &&
		      strlen(buf) == need / 2 - 1);
	free(buf);
	free(name);
	return 0;
}
