/* utf8.h: one UTF-8 decoder for every check of names and text, and the
 * one rule for which characters are unsafe in a name.
 *
 * Well formed means Unicode's table 3-7: the second byte's range rules out
 * overlong forms, surrogates and code points past U+10FFFF.  Quoting in
 * cmd/ and ASC MHL's XML text in lib/mhl both decode through it, so a name
 * one of them takes for UTF-8 the other takes too. */
#ifndef SAFECP_UTF8_H
#define SAFECP_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTF8_INVALID UINT32_MAX

/* The character at s (n > 0 bytes available): one well-formed sequence,
 * whose length is returned with its code point in *cp, or a byte that
 * starts none: returns 1 with *cp = UTF8_INVALID. */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);

/* Are the n bytes at s well-formed UTF-8, every one of them? */
bool utf8_valid(const char *s, size_t n);

/* Is the character cp (or UTF8_INVALID, a byte that is not UTF-8) unsafe
 * in a name: one that drives a terminal or makes the name look like
 * another?  C0 controls and DEL, C1 controls (U+0080-U+009F), invalid
 * bytes, and the invisible and bidirectional format characters (U+061C,
 * U+200B-U+200F, U+2028-U+202E, U+2060-U+206F, U+FEFF).  quote() in cmd/
 * escapes these; --unpack refuses names that hold one. */
bool utf8_unsafe(uint32_t cp);

/* Does any character of the n bytes at s pass utf8_unsafe()? */
bool utf8_has_unsafe(const char *s, size_t n);

#endif
