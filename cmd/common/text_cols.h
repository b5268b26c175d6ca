/* text_cols.h: how many terminal columns a name takes, and a line built
 * to a width, for the progress bar and dirtystat's screen.
 *
 * Columns are counted per code point: two for the common East Asian wide
 * ranges, none for combining accents (names written by macOS come
 * decomposed), one otherwise; that covers what cameras and desktops
 * write without depending on the process locale.  A character
 * quote_unsafe() flags (C0, DEL, C1, invalid UTF-8, bidi and invisible
 * controls) is one column: the caller shows '?' in its place. */
#ifndef SAFECP_TEXT_COLS_H
#define SAFECP_TEXT_COLS_H

#include <stdbool.h>
#include <stddef.h>

/* One displayed character at s (not at its NUL): its bytes, whether to
 * show '?' instead, and its columns. */
size_t text_char(const char *s, bool *unsafe, size_t *cols);

/* The columns of s. */
size_t text_cols(const char *s);

/* The longest end of s that takes at most cols columns and does not
 * start with a combining accent: where "..." + the end of a path goes. */
const char *text_tail(const char *s, size_t cols);

/* A line built to a width: bytes and the columns they take.  Whole
 * characters only; what does not fit TEXT_LINE_BYTES is left out. */
#define TEXT_LINE_BYTES 16384

struct text_line {
	char buf[TEXT_LINE_BYTES];
	size_t len, cols;
};

void text_line_reset(struct text_line *l);
void text_line_add(struct text_line *l, const char *s, size_t bytes, size_t cols);
/* Our own ASCII parts. */
void text_line_str(struct text_line *l, const char *s);
void text_line_fill(struct text_line *l, char c, size_t n);
/* An untrusted name in at most max columns, its start dropped for "...",
 * each unsafe character shown as '?'. */
void text_line_name(struct text_line *l, const char *name, size_t max);

#endif
