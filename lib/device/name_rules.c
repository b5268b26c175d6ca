/* name_rules.c: the name rules of FAT, exFAT and NTFS, and the renaming.
 *
 * Owns the one place that knows these rules (see name_rules.h for the
 * list and why they are the same for the three families) and the only
 * user of libunistring: UTF-8 decoding and the simple uppercase mapping
 * behind the case-insensitive key.  The up-case tables of exFAT and NTFS
 * map UTF-16 units one to one, so characters outside the BMP are never
 * folded and special casings (ß -> SS) never apply: uc_toupper of each
 * BMP code point is the same relation, give or take a few titlecase
 * digraphs where it joins names the table would keep apart (a refusal
 * too many, never a lost file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unicase.h>
#include <unistr.h>

#include "device/name_rules.h"

const char *name_fs_id(enum name_fs fs)
{
	switch (fs) {
	case NAME_FS_POSIX: return "posix";
	case NAME_FS_FAT: return "fat";
	case NAME_FS_EXFAT: return "exfat";
	case NAME_FS_NTFS: return "ntfs";
	case NAME_FS_FUSEBLK: return "fuseblk";
	case NAME_FS_FUSEFAT: return "fusefat";
	}
	return "posix";
}

bool name_fs_folds_case(enum name_fs fs)
{
	return fs != NAME_FS_POSIX;
}

const char *name_problem_id(enum name_problem p)
{
	switch (p) {
	case NAME_OK: return "ok";
	case NAME_EMPTY: return "empty";
	case NAME_BAD_ENCODING: return "encoding";
	case NAME_BAD_CHAR: return "character";
	case NAME_TOO_LONG: return "too-long";
	case NAME_TRAILING: return "trailing";
	case NAME_RESERVED: return "reserved";
	}
	return "unknown";
}

static bool windows(enum name_fs fs)
{
	return fs != NAME_FS_POSIX;
}

static bool bad_char(enum name_fs fs, unsigned char c)
{
	if (c == '\0' || c == '/')
		return true;
	if (fs == NAME_FS_FUSEFAT && c >= 0x80)
		return true;
	return windows(fs) && (c < 0x20 || strchr("\"*:<>?\\|", c));
}

/* UTF-16 code units of valid UTF-8 s: one per code point, two above the BMP. */
static size_t utf16_units(const char *s, size_t len)
{
	size_t units = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) != 0x80)
			units += c >= 0xf0 ? 2 : 1;
	}
	return units;
}

static bool fits(enum name_fs fs, const char *s, size_t len)
{
	return len <= NAME_MAX_BYTES && (!windows(fs) || utf16_units(s, len) <= NAME_MAX_UNITS);
}

static bool is_trailing(char c)
{
	return c == '.' || c == ' ';
}

/* The device word at the start of name (3 to 5 bytes), or 0.  The word is
 * a device when the part before the first '.', without trailing spaces,
 * is exactly it: "con", "CON.txt", "con .txt"; not "console". */
static size_t device_word(const char *name, size_t len)
{
	static const char *const three[] = { "CON", "PRN", "AUX", "NUL" };
	static const char *const sup[] = { "\xc2\xb9", "\xc2\xb2", "\xc2\xb3" }; /* ¹²³ */
	size_t base = 0, w = 0;

	while (base < len && name[base] != '.')
		base++;
	while (base > 0 && name[base - 1] == ' ')
		base--;
	for (size_t i = 0; i < 4 && !w; i++)
		if (base >= 3 && strncasecmp(name, three[i], 3) == 0)
			w = 3;
	if (!w && base >= 4 && (strncasecmp(name, "COM", 3) == 0 || strncasecmp(name, "LPT", 3) == 0)) {
		if (name[3] >= '1' && name[3] <= '9')
			w = 4;
		for (size_t i = 0; i < 3 && !w; i++)
			if (base >= 5 && memcmp(name + 3, sup[i], 2) == 0)
				w = 5;
	}
	return w && w == base ? w : 0;
}

enum name_problem name_check(enum name_fs fs, const char *name, size_t len,
			     unsigned char *ret_char)
{
	if (len == 0)
		return NAME_EMPTY;
	if (windows(fs) && u8_check((const uint8_t *)name, len))
		return NAME_BAD_ENCODING;
	for (size_t i = 0; i < len; i++)
		if (bad_char(fs, (unsigned char)name[i])) {
			if (ret_char)
				*ret_char = (unsigned char)name[i];
			return NAME_BAD_CHAR;
		}
	if (!fits(fs, name, len))
		return NAME_TOO_LONG;
	if (!windows(fs))
		return (len == 1 && name[0] == '.') || (len == 2 && memcmp(name, "..", 2) == 0)
		       ? NAME_TRAILING : NAME_OK;
	if (is_trailing(name[len - 1]))
		return NAME_TRAILING;
	return device_word(name, len) ? NAME_RESERVED : NAME_OK;
}

/* Bytes of the extension of s (from its last '.'), 0 when it has none. */
static size_t extension(const char *s, size_t len)
{
	for (size_t i = len; i-- > 1;)
		if (s[i] == '.')
			return len - i <= NAME_EXT_MAX ? len - i : 0;
	return 0;
}

/* Largest cut <= want that falls on a character boundary of s: at most 3
 * bytes back (a character is at most 4), so that the bytes of a POSIX
 * name that is not UTF-8 are cut where asked. */
static size_t boundary(const char *s, size_t want)
{
	for (size_t back = 0; back < 3 && want > 0; back++, want--)
		if (((unsigned char)s[want] & 0xc0) != 0x80)
			return want;
	return want;
}

/* Cut s (valid UTF-8, *len bytes) to NAME_MAX_BYTES at a character
 * boundary, keeping its extension.  A UTF-8 character is never more
 * UTF-16 units than bytes (1 unit for 1-3 bytes, 2 for 4), so a name
 * within NAME_MAX_BYTES is within NAME_MAX_UNITS too. */
static void shorten(char *s, size_t *len)
{
	size_t ext = extension(s, *len), stem;

	if (*len <= NAME_MAX_BYTES)
		return;
	stem = boundary(s, NAME_MAX_BYTES - ext);
	memmove(s + stem, s + *len - ext, ext);
	*len = stem + ext;
}

/* Step 1: valid UTF-8 without refused characters, at most room bytes
 * (a character is never split). */
static size_t replace_chars(enum name_fs fs, const char *name, size_t len, char *out,
			    size_t room)
{
	size_t o = 0, i = 0;

	while (i < len) {
		ucs4_t uc;
		int n = windows(fs) ? u8_mbtoucr(&uc, (const uint8_t *)name + i, len - i) : 1;

		if (n < 0 || (n == 1 && bad_char(fs, (unsigned char)name[i])) ||
		    (n > 1 && fs == NAME_FS_FUSEFAT)) {
			if (o + 1 > room)
				break;
			out[o++] = '_';
			i += n > 1 ? (size_t)n : 1;
			continue;
		}
		if (o + (size_t)n > room)
			break;
		memcpy(out + o, name + i, (size_t)n);
		o += (size_t)n;
		i += (size_t)n;
	}
	return o;
}

/* Steps 2-4 on buf (valid UTF-8, n bytes, room for one more byte than
 * NAME_MAX_BYTES): cut, strip the end, mark a device word.  Inserting the
 * '_' can make a 255-byte name too long; the next round cuts its end,
 * far from the device word at its start, so two rounds always do. */
static size_t finish(enum name_fs fs, char *buf, size_t n)
{
	for (int round = 0; round < 3; round++) {
		size_t w;

		shorten(buf, &n);
		while (windows(fs) && n > 0 && is_trailing(buf[n - 1]))
			n--;
		if (n == 0)
			buf[n++] = '_';
		w = windows(fs) ? device_word(buf, n) : 0;
		if (!w)
			break;
		memmove(buf + w + 1, buf + w, n - w);
		buf[w] = '_';
		n++;
	}
	return n;
}

size_t name_map(enum name_fs fs, const char *name, size_t len, char out[NAME_BUF])
{
	char buf[2 * NAME_BUF + NAME_EXT_MAX];
	size_t n, raw_ext = 0, ext = 0;
	char tail[NAME_EXT_MAX];

	/* the head of a long name is cut here already: keep its extension */
	if (len > NAME_MAX_BYTES) {
		raw_ext = extension(name, len);
		ext = replace_chars(fs, name + len - raw_ext, raw_ext, tail, sizeof(tail));
	}
	n = replace_chars(fs, name, len - raw_ext, buf, 2 * NAME_BUF);
	memcpy(buf + n, tail, ext);
	n += ext;
	n = finish(fs, buf, n);
	if (!windows(fs) && ((n == 1 && buf[0] == '.') || (n == 2 && memcmp(buf, "..", 2) == 0)))
		memset(buf, '_', n);
	memcpy(out, buf, n);
	out[n] = '\0';
	return n;
}

size_t name_numbered(enum name_fs fs, const char *name, unsigned long n, char out[NAME_BUF])
{
	size_t len = strnlen(name, NAME_MAX_BYTES), ext = extension(name, len), stem = len - ext;
	char suffix[32];
	size_t sl = (size_t)snprintf(suffix, sizeof(suffix), " (%lu)", n);

	(void)fs; /* within NAME_MAX_BYTES is within every family's limit */
	if (stem + sl + ext > NAME_MAX_BYTES)
		stem = boundary(name, NAME_MAX_BYTES - sl - ext);
	memcpy(out, name, stem);
	memcpy(out + stem, suffix, sl);
	memcpy(out + stem + sl, name + len - ext, ext);
	out[stem + sl + ext] = '\0';
	return stem + sl + ext;
}

char *name_key(enum name_fs fs, const char *name, size_t len)
{
	/* an uppercase BMP character takes at most 3 bytes, its lowercase at
	 * least 1, an invalid byte is kept as it is */
	char *key = malloc(3 * len + 1);
	size_t o = 0, i = 0;

	if (!key)
		return NULL;
	while (i < len) {
		ucs4_t uc;
		int n = name_fs_folds_case(fs) ?
			u8_mbtoucr(&uc, (const uint8_t *)name + i, len - i) : -1;

		if (n < 0) {
			key[o++] = name[i++];
			continue;
		}
		if (uc < 0x10000)
			uc = uc_toupper(uc);
		o += (size_t)u8_uctomb((uint8_t *)key + o, uc, 4);
		i += (size_t)n;
	}
	key[o] = '\0';
	return key;
}
