/* partial_record.c: see partial_record.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/size.h"
#include "copy/partial_record.h"
#include "hash/chunk_hash.h"
#include "util/parse.h"

#define PREFIX ".safecp-part-"
#define REC_SUFFIX ".rec"
#define MAGIC "safecp-partial 1\n"
#define CHUNK_MAX (1ULL << 30)

void partial_names(const char *name, char data[PARTIAL_NAME_MAX], char rec[PARTIAL_NAME_MAX])
{
	unsigned long long h = chunk_hash(name, strlen(name));

	snprintf(data, PARTIAL_NAME_MAX, PREFIX "%016llx", h);
	snprintf(rec, PARTIAL_NAME_MAX, PREFIX "%016llx" REC_SUFFIX, h);
}

/* c is a lowercase hex digit: its value */
static unsigned nibble(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);
}

static bool lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool partial_name_parse(const char *name, bool *record)
{
	size_t p = strlen(PREFIX);

	if (strncmp(name, PREFIX, p) != 0 || !lower_hex(name + p, 16))
		return false;
	if (name[p + 16] == '\0')
		*record = false;
	else if (strcmp(name + p + 16, REC_SUFFIX) == 0)
		*record = true;
	else
		return false;
	return true;
}

uint64_t partial_chunk_for(uint64_t size)
{
	uint64_t c = PARTIAL_CHUNK_MIN;

	while (c <= CHUNK_MAX && size / c > PARTIAL_DIGESTS_MAX)
		c *= 2;
	return c <= CHUNK_MAX ? c : 0;
}

uint64_t partial_record_claimed(const struct partial_record *r)
{
	uint64_t b = (uint64_t)r->n * r->chunk;

	return b < r->size ? b : r->size;
}

/* ------------------------------------------------------------ writing */

static bool plain(unsigned char c)
{
	return c > ' ' && c <= '~' && c != '%';
}

/* name escaped into out (3 * NAME_MAX + 1 bytes) */
static void escape(const char *name, char *out)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		out += plain(*p) ? (*out = (char)*p, 1) : sprintf(out, "%%%02X", *p);
	*out = '\0';
}

int partial_record_header(const struct partial_record *r, char **ret, size_t *ret_len)
{
	char name[3 * NAME_MAX + 1], source[3 * NAME_MAX + 1], nonce[33];
	char *t = NULL;
	int n;

	if (strlen(r->name) > NAME_MAX || strlen(r->source_name) > NAME_MAX ||
	    !r->name[0] || !r->source_name[0])
		return -ENAMETOOLONG;
	escape(r->name, name);
	escape(r->source_name, source);
	for (int i = 0; i < 16; i++)
		sprintf(nonce + 2 * i, "%02x", r->nonce[i]);
	n = asprintf(&t, MAGIC "name %s\nsource-name %s\nsize %llu\nmtime %lld.%09u\n"
			     "source %llu %llu\nchunk %llu\nnonce %s\ndigests\n",
		     name, source, (unsigned long long)r->size, (long long)r->mtime_sec,
		     (unsigned)r->mtime_nsec, (unsigned long long)r->dev,
		     (unsigned long long)r->ino, (unsigned long long)r->chunk, nonce);
	if (n < 0)
		return -ENOMEM;
	*ret = t;
	*ret_len = (size_t)n;
	return 0;
}

int partial_record_header_digest(const struct partial_record *r, uint64_t *ret)
{
	char *t = NULL;
	size_t len = 0;
	int e = partial_record_header(r, &t, &len);

	if (e == 0)
		*ret = chunk_hash(t, len);
	free(t);
	return e;
}

void partial_record_digest_line(uint64_t digest, char line[PARTIAL_DIGEST_LINE])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 15; i >= 0; i--, digest >>= 4)
		line[i] = hex[digest & 15];
	line[16] = '\n';
}

/* ------------------------------------------------------------ reading */

/* The parser's place in the text. */
struct cursor {
	const char *p, *end;
};

/* The next line's text after "key ", NUL-terminated in buf (its
 * newline dropped); false when the line is not "key VALUE\n". */
static bool field(struct cursor *c, const char *key, char *buf, size_t cap)
{
	size_t k = strlen(key), n;
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));

	if (!nl || (size_t)(nl - c->p) <= k + 1 || strncmp(c->p, key, k) != 0 || c->p[k] != ' ')
		return false;
	n = (size_t)(nl - c->p) - k - 1;
	if (n >= cap || memchr(c->p + k + 1, '\0', n))
		return false;
	memcpy(buf, c->p + k + 1, n);
	buf[n] = '\0';
	c->p = nl + 1;
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* An escaped name back into out (NAME_MAX + 1): only the form escape()
 * writes, no '/', not empty, not "." or "..". */
static bool unescape(const char *s, char *out)
{
	size_t n = 0;

	for (; *s; n++) {
		unsigned char c = (unsigned char)*s;
		int hi, lo;

		if (n == NAME_MAX)
			return false;
		if (c == '%') {
			hi = hexval(s[1]);
			lo = hi < 0 ? -1 : hexval(s[2]);
			if (lo < 0 || (hi == 0 && lo == 0) || plain((unsigned char)(hi * 16 + lo)))
				return false;
			c = (unsigned char)(hi * 16 + lo);
			s += 3;
		} else if (plain(c)) {
			s++;
		} else {
			return false;
		}
		if (c == '/')
			return false;
		out[n] = (char)c;
	}
	out[n] = '\0';
	return n > 0 && strcmp(out, ".") != 0 && strcmp(out, "..") != 0;
}

static bool number_field(struct cursor *c, const char *key, uint64_t *ret)
{
	char buf[32];

	return field(c, key, buf, sizeof(buf)) && parse_u64(buf, ret, NULL) == 0;
}

static bool mtime_field(struct cursor *c, struct partial_record *r)
{
	char buf[48];
	const char *s = buf, *end;
	uint64_t sec, nsec;
	bool neg;

	if (!field(c, "mtime", buf, sizeof(buf)))
		return false;
	neg = *s == '-';
	s += neg;
	if (parse_u64(s, &sec, &end) != 0 || *end != '.' || strlen(end + 1) != 9 ||
	    parse_u64(end + 1, &nsec, NULL) != 0 || sec > INT64_MAX)
		return false;
	r->mtime_sec = neg ? -(int64_t)sec : (int64_t)sec;
	r->mtime_nsec = (uint32_t)nsec;
	return true;
}

static bool source_field(struct cursor *c, struct partial_record *r)
{
	char buf[48];
	const char *end;

	return field(c, "source", buf, sizeof(buf)) && parse_u64(buf, &r->dev, &end) == 0 &&
	       *end == ' ' && parse_u64(end + 1, &r->ino, NULL) == 0;
}

static bool nonce_field(struct cursor *c, struct partial_record *r)
{
	char buf[40];

	if (!field(c, "nonce", buf, sizeof(buf)) || strlen(buf) != 32 || !lower_hex(buf, 32))
		return false;
	for (int i = 0; i < 16; i++)
		r->nonce[i] = (uint8_t)(nibble(buf[2 * i]) * 16 + nibble(buf[2 * i + 1]));
	return true;
}

static bool header(struct cursor *c, struct partial_record *r)
{
	char name[3 * NAME_MAX + 1];
	size_t m = strlen(MAGIC);

	if ((size_t)(c->end - c->p) < m || memcmp(c->p, MAGIC, m) != 0)
		return false;
	c->p += m;
	if (!field(c, "name", name, sizeof(name)) || !unescape(name, r->name) ||
	    !field(c, "source-name", name, sizeof(name)) || !unescape(name, r->source_name) ||
	    !number_field(c, "size", &r->size) || !mtime_field(c, r) || r->mtime_nsec > 999999999 ||
	    !source_field(c, r) || !number_field(c, "chunk", &r->chunk) || !nonce_field(c, r))
		return false;
	if (r->chunk < PARTIAL_CHUNK_MIN || r->chunk > CHUNK_MAX || r->chunk % 4096)
		return false;
	if ((size_t)(c->end - c->p) < 8 || memcmp(c->p, "digests\n", 8) != 0)
		return false;
	c->p += 8;
	return true;
}

/* The digest lines, up to the first that is not whole; more of them
 * than the file has chunks is no record of it. */
static int digests(struct cursor *c, struct partial_record *r)
{
	size_t most = (size_t)((c->end - c->p) / PARTIAL_DIGEST_LINE);
	uint64_t d;

	r->digests = calloc(most ? most : 1, sizeof(*r->digests));
	if (!r->digests)
		return -ENOMEM;
	for (; r->n < most; r->n++, c->p += PARTIAL_DIGEST_LINE) {
		if (c->p[16] != '\n' || !lower_hex(c->p, 16))
			break;
		d = 0;
		for (int i = 0; i < 16; i++)
			d = d * 16 + nibble(c->p[i]);
		r->digests[r->n] = d;
	}
	return r->n > r->size / r->chunk ? -EBADMSG : 0;
}

int partial_record_parse(const char *text, size_t len, struct partial_record *ret)
{
	struct cursor c = { text, text + len };
	struct partial_record r = { 0 };
	int e;

	if (len > PARTIAL_RECORD_MAX)
		return -EFBIG;
	if (!header(&c, &r))
		return -EBADMSG;
	e = digests(&c, &r);
	if (e < 0) {
		partial_record_free(&r);
		return e;
	}
	*ret = r;
	return 0;
}

void partial_record_free(struct partial_record *r)
{
	if (!r)
		return;
	free(r->digests);
	r->digests = NULL;
	r->n = 0;
}
