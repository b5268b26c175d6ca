/* text_cols.c: see text_cols.h. */
#include <stdint.h>
#include <string.h>

#include "common/quote.h"
#include "common/text_cols.h"

static size_t code_point_cols(uint32_t c)
{
	if (c >= 0x300 && c <= 0x36f)
		return 0;
	if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) ||
	    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
	    (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd))
		return 2;
	return 1;
}

size_t text_char(const char *s, bool *unsafe, size_t *cols)
{
	uint32_t c;
	size_t n = quote_char(s, strnlen(s, 4), &c);

	*unsafe = quote_unsafe(c);
	*cols = *unsafe ? 1 : code_point_cols(c);
	return n;
}

size_t text_cols(const char *s)
{
	size_t cols = 0, w;
	bool u;

	while (*s) {
		s += text_char(s, &u, &w);
		cols += w;
	}
	return cols;
}

const char *text_tail(const char *s, size_t cols)
{
	size_t total = text_cols(s), w, n;
	bool u;

	while (*s && total > cols) {
		s += text_char(s, &u, &w);
		total -= w;
	}
	while (*s && (n = text_char(s, &u, &w)) && w == 0)
		s += n;
	return s;
}

void text_line_reset(struct text_line *l)
{
	l->len = 0;
	l->cols = 0;
}

void text_line_add(struct text_line *l, const char *s, size_t bytes, size_t cols)
{
	if (l->len + bytes >= TEXT_LINE_BYTES)
		return;
	memcpy(l->buf + l->len, s, bytes);
	l->len += bytes;
	l->cols += cols;
}

void text_line_str(struct text_line *l, const char *s)
{
	text_line_add(l, s, strlen(s), strlen(s));
}

void text_line_fill(struct text_line *l, char c, size_t n)
{
	while (n-- > 0)
		text_line_add(l, &c, 1, 1);
}

void text_line_name(struct text_line *l, const char *name, size_t max)
{
	size_t w;
	bool unsafe;

	if (text_cols(name) > max) {
		text_line_str(l, "...");
		name = text_tail(name, max - 3);
	}
	while (*name) {
		size_t n = text_char(name, &unsafe, &w);

		if (unsafe)
			text_line_add(l, "?", 1, 1);
		else
			text_line_add(l, name, n, w);
		name += n;
	}
}
