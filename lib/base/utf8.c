/* utf8.c: decode one UTF-8 character, well formed or one invalid byte;
 * which characters are unsafe in names. */
#include "base/utf8.h"

size_t utf8_decode(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;
	uint32_t c;

	*cp = UTF8_INVALID;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 1; /* continuation byte, C0/C1 overlong lead, F5..FF */
	}
	/* the second byte's range, table 3-7 */
	if (s[0] == 0xe0)
		lo = 0xa0; /* E0 80..9F would be overlong */
	else if (s[0] == 0xed)
		hi = 0x9f; /* ED A0..BF are surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90; /* F0 80..8F would be overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* F4 90.. is past U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 1;
	for (size_t i = 1; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 1;
		c = (c << 6) | (s[i] & 0x3f);
	}
	*cp = c;
	return len;
}

bool utf8_valid(const char *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0, len; i < n; i += len) {
		len = utf8_decode(s + i, n - i, &cp);
		if (cp == UTF8_INVALID)
			return false;
	}
	return true;
}

bool utf8_unsafe(uint32_t c)
{
	if (c == UTF8_INVALID || c < 0x20 || (c >= 0x7f && c < 0xa0))
		return true;
	/* format characters: invisible, or reordering what follows them */
	return c == 0x061c || (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x206f) || c == 0xfeff;
}

bool utf8_has_unsafe(const char *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0, len; i < n; i += len) {
		len = utf8_decode(s + i, n - i, &cp);
		if (utf8_unsafe(cp))
			return true;
	}
	return false;
}
