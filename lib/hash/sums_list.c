/* sums_list.c: checksum list lines (see sums_list.h for the formats). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash/sums_list.h"

enum line_style {
	STYLE_GNU,    /* HEX  NAME, coreutils' escaping */
	STYLE_GNU_RAW, /* HEX  NAME, never escaped (xxhsum) */
	STYLE_TAG,    /* XXH3 (NAME) = HEX */
	STYLE_NONE,
};

static enum line_style style_of(enum checksum_alg alg)
{
	switch (alg) {
	case CHECKSUM_XXH128:
	case CHECKSUM_XXH64:
		return STYLE_GNU_RAW;
	case CHECKSUM_XXH3:
		return STYLE_TAG;
	case CHECKSUM_MD5:
	case CHECKSUM_SHA1:
	case CHECKSUM_SHA256:
		return STYLE_GNU;
	default:
		return STYLE_NONE;
	}
}

static bool needs_escape(char c)
{
	return c == '\\' || c == '\n' || c == '\r';
}

enum sums_line_problem sums_line_check(enum checksum_alg alg, const char *name)
{
	switch (style_of(alg)) {
	case STYLE_NONE:
		return SUMS_LINE_NO_FORMAT;
	case STYLE_GNU:
		return SUMS_LINE_OK;
	default:
		return strpbrk(name, "\\\n\r") ? SUMS_LINE_UNLISTABLE : SUMS_LINE_OK;
	}
}

/* NAME as coreutils writes it in an escaped line: '\' LF CR as \\ \n \r. */
static char *put_escaped(char *p, const char *name)
{
	for (; *name; name++) {
		if (!needs_escape(*name)) {
			*p++ = *name;
			continue;
		}
		*p++ = '\\';
		*p++ = *name == '\\' ? '\\' : *name == '\n' ? 'n' : 'r';
	}
	return p;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* The line's length; *RET_ESCAPED: whether it is a coreutils escaped line. */
static size_t line_len(enum line_style style, size_t digest_len, const char *name,
		       bool *ret_escaped)
{
	size_t name_len = strlen(name), extra = 0;

	if (style == STYLE_GNU)
		for (const char *c = name; *c; c++)
			extra += needs_escape(*c);
	*ret_escaped = extra > 0;
	if (style == STYLE_TAG)
		return strlen("XXH3 (") + name_len + strlen(") = ") + digest_len + 1;
	return (extra ? 1 : 0) + digest_len + 2 + name_len + extra + 1;
}

int sums_line_format(enum checksum_alg alg, const char *digest, const char *name, char *buf,
		     size_t size, size_t *ret_len)
{
	enum sums_line_problem problem = sums_line_check(alg, name);
	if (problem != SUMS_LINE_OK)
		return problem;
	size_t digest_len = strlen(digest);
	if (!*name || digest_len != checksum_text_len(alg))
		return -EINVAL;

	enum line_style style = style_of(alg);
	bool escaped;
	size_t len = line_len(style, digest_len, name, &escaped);
	*ret_len = len;
	if (size <= len)
		return -ENOBUFS;

	char *p = buf;
	if (style == STYLE_TAG) {
		p = put(p, "XXH3 (", 6);
		p = put(p, name, strlen(name));
		p = put(p, ") = ", 4);
		p = put(p, digest, digest_len);
	} else {
		if (escaped)
			*p++ = '\\';
		p = put(p, digest, digest_len);
		p = put(p, "  ", 2);
		p = escaped ? put_escaped(p, name) : put(p, name, strlen(name));
	}
	*p++ = '\n';
	*p = '\0';
	return 0;
}

int sums_line_alloc(enum checksum_alg alg, const char *digest, const char *name,
		    char **ret_line)
{
	size_t len = 0;
	int r = sums_line_format(alg, digest, name, NULL, 0, &len);
	if (r != -ENOBUFS)
		return r; /* a problem kind or -EINVAL: never 0 with no room */
	char *line = malloc(len + 1);
	if (!line)
		return -ENOMEM;
	r = sums_line_format(alg, digest, name, line, len + 1, &len);
	if (r != 0) {
		free(line);
		return r;
	}
	*ret_line = line;
	return 0;
}

/* Copies N hex digits at P, lowercased, into DIGEST; false if one is not hex. */
static bool take_hex(char *digest, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)p[i]))
			return false;
		digest[i] = (char)tolower((unsigned char)p[i]);
	}
	digest[n] = '\0';
	return true;
}

/* NAME of an escaped line, unescaped into a new string; NULL with *RET_ERR. */
static char *unescape(const char *p, size_t n, int *ret_err)
{
	char *out = malloc(n + 1), *o = out;

	if (!out) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\\') {
			*o++ = p[i];
			continue;
		}
		char c = ++i < n ? p[i] : '\0';
		if (c != '\\' && c != 'n' && c != 'r') {
			free(out);
			*ret_err = -EINVAL;
			return NULL;
		}
		*o++ = c == '\\' ? '\\' : c == 'n' ? '\n' : '\r';
	}
	*o = '\0';
	return out;
}

static int parse_tag(const char *line, size_t len, size_t hex_len, char *digest,
		     char **ret_name)
{
	static const char head[] = "XXH3 (", mid[] = ") = ";
	size_t hl = strlen(head), ml = strlen(mid);

	if (len < hl + 1 + ml + hex_len || memcmp(line, head, hl) != 0 ||
	    memcmp(line + len - hex_len - ml, mid, ml) != 0 ||
	    !take_hex(digest, line + len - hex_len, hex_len))
		return -EINVAL;
	char *name = strndup(line + hl, len - hex_len - ml - hl);
	if (!name)
		return -ENOMEM;
	*ret_name = name;
	return 0;
}

static int parse_gnu(enum line_style style, const char *line, size_t len, size_t hex_len,
		     char *digest, char **ret_name)
{
	bool escaped = style == STYLE_GNU && len > 0 && line[0] == '\\';
	int err = -EINVAL;

	if (style == STYLE_GNU && len > 0 && line[len - 1] == '\r')
		len--; /* coreutils reads DOS lines too */
	if (escaped) {
		line++;
		len--;
	}
	if (len < hex_len + 3 || !take_hex(digest, line, hex_len) || line[hex_len] != ' ' ||
	    (line[hex_len + 1] != ' ' && line[hex_len + 1] != '*'))
		return -EINVAL;
	const char *p = line + hex_len + 2;
	size_t n = len - hex_len - 2;
	char *name = escaped ? unescape(p, n, &err) : strndup(p, n);
	if (!name)
		return escaped ? err : -ENOMEM;
	*ret_name = name;
	return 0;
}

int sums_line_parse(enum checksum_alg alg, const char *line, size_t len,
		    char digest[CHECKSUM_TEXT_MAX], char **ret_name)
{
	enum line_style style = style_of(alg);
	size_t hex_len = checksum_text_len(alg);

	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (memchr(line, '\n', len) || memchr(line, '\0', len))
		return -EINVAL;
	switch (style) {
	case STYLE_TAG:
		return parse_tag(line, len, hex_len, digest, ret_name);
	case STYLE_GNU:
	case STYLE_GNU_RAW:
		return parse_gnu(style, line, len, hex_len, digest, ret_name);
	default:
		return -EINVAL;
	}
}
