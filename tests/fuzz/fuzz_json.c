/* fuzz_json.c: the JSON-lines writer (cmd/json.c).  The input's NUL-separated parts
 * (NULs inside a value come from the first byte of the input: when odd, the whole rest
 * is one value with its NULs) become a key and string values, in an object holding an
 * array, with numbers built from the input bytes.  A small validator of its own (RFC
 * 8259 grammar, RFC 3629 UTF-8) then checks the line: valid JSON, one line, and every
 * string value decodes to its input when that was valid UTF-8, or to valid UTF-8 when
 * it was not. */
#include <assert.h>
#include <math.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "common/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Length of the valid UTF-8 sequence at s, 0 when there is none (RFC 3629 table). */
static size_t utf8_len(const uint8_t *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
		return 0; /* overlong */
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static bool utf8_valid(const uint8_t *s, size_t n)
{
	for (size_t i = 0, l; i < n; i += l)
		if (!(l = utf8_len(s + i, n - i)))
			return false;
	return true;
}

/* ---- a validating reader for one line ---------------------------------- */

struct rd {
	const uint8_t *p, *end;
	uint8_t *str;        /* the last string decoded */
	size_t str_len;
};

static void fail(const char *why, const struct rd *r)
{
	fprintf(stderr, "fuzz_json: invalid output (%s) at offset ...%.40s\n", why, (const char *)r->p);
	abort();
}

static void put_cp(struct rd *r, uint32_t cp)
{
	uint8_t *o = r->str + r->str_len;

	if (cp < 0x80) {
		o[0] = cp, r->str_len += 1;
	} else if (cp < 0x800) {
		o[0] = 0xc0 | cp >> 6, o[1] = 0x80 | (cp & 0x3f), r->str_len += 2;
	} else if (cp < 0x10000) {
		o[0] = 0xe0 | cp >> 12, o[1] = 0x80 | (cp >> 6 & 0x3f), o[2] = 0x80 | (cp & 0x3f);
		r->str_len += 3;
	} else {
		o[0] = 0xf0 | cp >> 18, o[1] = 0x80 | (cp >> 12 & 0x3f);
		o[2] = 0x80 | (cp >> 6 & 0x3f), o[3] = 0x80 | (cp & 0x3f);
		r->str_len += 4;
	}
}

static uint32_t hex4(struct rd *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++, r->p++) {
		int c = r->p < r->end ? *r->p : 0;

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v << 4 | (uint32_t)(c - 'A' + 10);
		else
			fail("bad \\u escape", r);
	}
	return v;
}

static void string(struct rd *r)
{
	r->str_len = 0;
	if (r->p >= r->end || *r->p++ != '"')
		fail("string expected", r);
	for (;;) {
		size_t l;

		if (r->p >= r->end)
			fail("unterminated string", r);
		if (*r->p == '"') {
			r->p++;
			return;
		}
		if (*r->p < 0x20)
			fail("raw control character", r);
		if (*r->p == '\\') {
			uint32_t cp;

			r->p++;
			if (r->p >= r->end)
				fail("dangling backslash", r);
			switch (*r->p++) {
			case '"': put_cp(r, '"'); break;
			case '\\': put_cp(r, '\\'); break;
			case '/': put_cp(r, '/'); break;
			case 'b': put_cp(r, '\b'); break;
			case 'f': put_cp(r, '\f'); break;
			case 'n': put_cp(r, '\n'); break;
			case 'r': put_cp(r, '\r'); break;
			case 't': put_cp(r, '\t'); break;
			case 'u':
				cp = hex4(r);
				if (cp >= 0xd800 && cp <= 0xdbff) {
					uint32_t lo;

					if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
						fail("lone high surrogate", r);
					r->p += 2;
					lo = hex4(r);
					if (lo < 0xdc00 || lo > 0xdfff)
						fail("bad low surrogate", r);
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xdc00 && cp <= 0xdfff) {
					fail("lone low surrogate", r);
				}
				put_cp(r, cp);
				break;
			default:
				fail("unknown escape", r);
			}
			continue;
		}
		l = utf8_len(r->p, (size_t)(r->end - r->p));
		if (!l)
			fail("invalid UTF-8", r);
		memcpy(r->str + r->str_len, r->p, l);
		r->str_len += l;
		r->p += l;
	}
}

static void number(struct rd *r)
{
	const uint8_t *s = r->p;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p >= r->end || *r->p < '0' || *r->p > '9')
		fail("digit expected", r);
	if (*r->p == '0')
		r->p++;
	else
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			fail("digit after '.' expected", r);
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	assert(r->p > s);
}

static bool literal(struct rd *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) >= n && memcmp(r->p, word, n) == 0) {
		r->p += n;
		return true;
	}
	return false;
}

/* Values in the order written; strings are checked against want[] in turn. */
struct expect {
	const uint8_t *want[8];
	size_t want_len[8];
	size_t n, next;
};

static void check_string(struct rd *r, struct expect *e)
{
	const uint8_t *w;
	size_t wl;

	assert(e->next < e->n);
	w = e->want[e->next];
	wl = e->want_len[e->next++];
	if (utf8_valid(w, wl)) {
		if (r->str_len != wl || memcmp(r->str, w, wl) != 0) {
			fprintf(stderr, "fuzz_json: a valid UTF-8 string did not come back intact\n");
			abort();
		}
	} else {
		assert(utf8_valid(r->str, r->str_len));
	}
}

static void value(struct rd *r, struct expect *e, int depth);

static void members(struct rd *r, struct expect *e, int depth, bool object)
{
	char close = object ? '}' : ']';

	if (r->p < r->end && *r->p == close) {
		r->p++;
		return;
	}
	for (;;) {
		if (object) {
			string(r);
			check_string(r, e);
			if (r->p >= r->end || *r->p++ != ':')
				fail("':' expected", r);
		}
		value(r, e, depth + 1);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return;
		}
		fail("',' or end of container expected", r);
	}
}

static void value(struct rd *r, struct expect *e, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		fail("too deep", r);
	if (r->p >= r->end)
		fail("value expected", r);
	switch (*r->p) {
	case '{': r->p++; members(r, e, depth, true); return;
	case '[': r->p++; members(r, e, depth, false); return;
	case '"': string(r); check_string(r, e); return;
	default:
		if (literal(r, "true") || literal(r, "false") || literal(r, "null"))
			return;
		number(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct expect e = { .n = 0 };
	const uint8_t *part;
	size_t len, out_len = 0, total = size;
	char *out = NULL;
	FILE *f = open_memstream(&out, &out_len);
	struct json j;
	struct rd r;
	uint64_t u = 0;
	double d;
	bool whole = size && (data[0] & 1);

	if (!f)
		abort();
	memcpy(&u, data, size < sizeof(u) ? size : sizeof(u));
	memcpy(&d, &u, sizeof(d));
	json_init(&j, f);
	json_object_begin(&j);
	json_kv_u64(&j, "u", u);
	e.want[e.n] = (const uint8_t *)"u", e.want_len[e.n++] = 1;
	json_key(&j, "i");
	json_i64(&j, (int64_t)u);
	e.want[e.n] = (const uint8_t *)"i", e.want_len[e.n++] = 1;
	json_kv_double(&j, "d", d, (int)(u % 10));
	e.want[e.n] = (const uint8_t *)"d", e.want_len[e.n++] = 1;
	if (whole) {
		json_key(&j, "v");
		e.want[e.n] = (const uint8_t *)"v", e.want_len[e.n++] = 1;
		json_string_len(&j, (const char *)data, size);
		e.want[e.n] = data, e.want_len[e.n++] = size;
	} else {
		/* the key is a C string: its part ends at the first NUL */
		char *key = NULL;

		if (fuzz_next_part(&data, &size, &part, &len)) {
			key = fuzz_strndup(part, len);
			json_key(&j, key);
			e.want[e.n] = part, e.want_len[e.n++] = len;
		} else {
			json_key(&j, "k");
			e.want[e.n] = (const uint8_t *)"k", e.want_len[e.n++] = 1;
		}
		json_array_begin(&j);
		while (e.n < 8 && fuzz_next_part(&data, &size, &part, &len)) {
			json_string_len(&j, (const char *)part, len);
			e.want[e.n] = part, e.want_len[e.n++] = len;
		}
		json_null(&j);
		json_bool(&j, true);
		json_array_end(&j);
		free(key);
	}
	json_object_end(&j);
	json_line_end(&j);
	fclose(f);

	/* one line, ending in its only newline */
	assert(out_len > 0 && out[out_len - 1] == '\n');
	assert(memchr(out, '\n', out_len) == out + out_len - 1);
	/* decoded strings are at most as long as their input, plus U+FFFD (3 bytes) per byte */
	r = (struct rd){ .p = (const uint8_t *)out, .end = (const uint8_t *)out + out_len - 1 };
	r.str = malloc(3 * total + 16);
	if (!r.str)
		abort();
	value(&r, &e, 0);
	if (r.p != r.end)
		fail("junk after the document", &r);
	assert(e.next == e.n);
	free(r.str);
	free(out);
	return 0;
}
