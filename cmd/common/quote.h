/* quote.h: names in human-readable lines, quoted so that no name can
 * drive the terminal and every name can be pasted back into a shell.
 *
 * Every message that carries a name (a path, a device, a mount point, a
 * process name, a link target) prints it through quote():
 *
 *	cli_error("cannot open %s: %s", quote(path), strerror(errno));
 *
 * The form is GNU's shell-escape-always quoting (ls, cp): the name in
 * single quotes, a quote inside as '\'' and everything unsafe as $'...'
 * pieces outside the single quotes, so bash and zsh turn the printed
 * text back into the exact bytes:
 *
 *	photo.jpg        'photo.jpg'
 *	it's             'it'\''s'
 *	a<newline>b      'a'$'\n''b'
 *	<ESC>[31m        $'\e''[31m'
 *	x<U+202E>y       'x'$'\xe2\x80\xae''y'
 *
 * Unsafe (utf8_unsafe(), util/utf8.h: --unpack refuses names with these
 * too): C0 controls and DEL, C1 controls (U+0080-U+009F), bytes that
 * are not well-formed UTF-8 (overlongs, surrogates, past U+10FFFF, stray
 * continuation bytes: also a raw 0x9b, which 8-bit terminals take for
 * CSI), and the invisible and bidirectional format characters that make a
 * name look like another (U+061C, U+200B-U+200F, U+2028-U+202E,
 * U+2060-U+206F, U+FEFF).  Non-ASCII escapes are written as bytes (\xHH),
 * never \uXXXX, which bash expands differently per locale.  UTF-8 is
 * decoded here, not by the C library, so the output does not depend on
 * LC_ALL.
 *
 * quote() and quote_bare() return one of QUOTE_SLOTS rotating buffers of
 * the calling thread, grown to fit any name: up to QUOTE_SLOTS of them
 * can appear in one printf.  A pointer stays valid until the same thread
 * has made QUOTE_SLOTS more calls; keep a name longer with quote_dup(). */
#ifndef SAFECP_QUOTE_H
#define SAFECP_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/utf8.h"

#define QUOTE_SLOTS 8

enum quote_style {
	QUOTE_ALWAYS,   /* always quoted: messages, "cannot open 'x'" */
	QUOTE_IF_NEEDED /* bare when the name is all safe and has no quote: table cells */
};

/* Quoted s in the calling thread's next rotating buffer.  NULL gives
 * "(none)"; out of memory gives a fixed text saying so, never a cut name. */
const char *quote(const char *s);
/* QUOTE_IF_NEEDED: "/media/usb" stays bare, "a\nb" becomes 'a'$'\n''b'. */
const char *quote_bare(const char *s);
/* Malloc'd; NULL when out of memory. */
char *quote_dup(const char *s, enum quote_style style);

/* The quoting of exactly len bytes (which may hold NULs) into buf, like
 * snprintf: at most size bytes with the terminating NUL; returns the
 * length of the whole quoted form, so a return >= size means cut. */
size_t quote_mem(char *buf, size_t size, const char *s, size_t len, enum quote_style style);

/* The classification the quoting uses, for renderers that mark unsafe
 * characters their own way (the progress bar shows '?'): the character
 * at s (n > 0 bytes available) is one well-formed UTF-8 sequence, whose
 * length is returned with its code point in *cp, or an invalid byte:
 * returns 1 with *cp = QUOTE_INVALID. */
#define QUOTE_INVALID UTF8_INVALID
size_t quote_char(const char *s, size_t n, uint32_t *cp);
/* Whether a code point (or QUOTE_INVALID) is escaped in quoted names. */
bool quote_unsafe(uint32_t cp);
/* Whether s holds only well-formed UTF-8: JSON adds a *_b64 field when not. */
bool quote_utf8_valid(const char *s, size_t len);

#endif
