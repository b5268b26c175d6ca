/* test_quote.c: the name sanitiser (cmd/quote.h): the quoted form of
 * plain names, quotes and every unsafe class, the bare style, long names,
 * the rotating buffers, and the *_b64 fields the JSON writer adds. */
#include <limits.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "common/json.h"
#include "common/quote.h"
#include "test.h"

#define Q(in, want) CHECK_STR(quote(in), want)
#define QB(in, want) CHECK_STR(quote_bare(in), want)

TEST(plain_names)
{
	Q("photo.jpg", "'photo.jpg'");
	Q("/media/usb/DCIM/IMG 0042.JPG", "'/media/usb/DCIM/IMG 0042.JPG'");
	Q("", "''");
	Q("$HOME `x` \\ \"y\" *", "'$HOME `x` \\ \"y\" *'");
	Q("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\xb7", "'caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\xb7'");
	Q("\xc2\xa0nbsp", "'\xc2\xa0nbsp'"); /* U+00A0 is past C1: printable */
	CHECK_STR(quote(NULL), "(none)");
}

TEST(single_quotes)
{
	Q("it's", "'it'\\''s'");
	Q("'", "\\'");
	Q("''", "\\'\\'");
	Q("'a'", "\\''a'\\'");
	Q("a\n'", "'a'$'\\n'\\'");
}

TEST(c0_and_del)
{
	Q("a\nb", "'a'$'\\n''b'");
	Q("\nb", "$'\\n''b'");
	Q("a\n", "'a'$'\\n'");
	Q("\x1b[31mred", "$'\\e''[31mred'");
	Q("\a\b\t\v\f\r", "$'\\a\\b\\t\\v\\f\\r'");
	Q("x\x01\x1f\x7fy", "'x'$'\\x01\\x1f\\x7f''y'");
	Q("\x1b]0;x\a", "$'\\e'']0;x'$'\\a'");
}

TEST(c1)
{
	/* as UTF-8 (U+009B CSI, U+0080, U+009F) and as raw bytes */
	Q("x\xc2\x9by", "'x'$'\\xc2\\x9b''y'");
	Q("\xc2\x80\xc2\x9f", "$'\\xc2\\x80\\xc2\\x9f'");
	Q("x\x9by", "'x'$'\\x9b''y'");
	Q("\x80\x9f", "$'\\x80\\x9f'");
}

TEST(invalid_utf8)
{
	Q("\xff", "$'\\xff'");
	Q("a\xfe\xff" "b", "'a'$'\\xfe\\xff''b'");
	Q("\xc0\xaf", "$'\\xc0\\xaf'");             /* overlong '/' */
	Q("\xe0\x80\xaf", "$'\\xe0\\x80\\xaf'");     /* overlong, 3 bytes */
	Q("\xed\xa0\x80", "$'\\xed\\xa0\\x80'");     /* surrogate U+D800 */
	Q("\xf4\x90\x80\x80", "$'\\xf4\\x90\\x80\\x80'"); /* U+110000 */
	Q("\xe6\x97", "$'\\xe6\\x97'");              /* cut short */
	Q("\xe6\x97" "a", "$'\\xe6\\x97''a'");
	Q("\xf0\x9f\x93\xb7\xf0\x9f", "'\xf0\x9f\x93\xb7'$'\\xf0\\x9f'");
}

TEST(bidi_and_invisible)
{
	Q("a\xe2\x80\xae" "b", "'a'$'\\xe2\\x80\\xae''b'"); /* U+202E */
	Q("\xe2\x80\x8b", "$'\\xe2\\x80\\x8b'");           /* U+200B */
	Q("\xe2\x80\x8f", "$'\\xe2\\x80\\x8f'");           /* U+200F */
	Q("\xe2\x80\xaa", "$'\\xe2\\x80\\xaa'");           /* U+202A */
	Q("\xe2\x81\xa6\xe2\x81\xa9", "$'\\xe2\\x81\\xa6\\xe2\\x81\\xa9'"); /* U+2066, U+2069 */
	Q("\xef\xbb\xbfx", "$'\\xef\\xbb\\xbf''x'");       /* U+FEFF */
	Q("\xe2\x80\xa8", "$'\\xe2\\x80\\xa8'");           /* U+2028 */
	Q("\xe2\x80\x8a", "'\xe2\x80\x8a'");               /* U+200A hair space: shown */
	Q("\xe2\x80\xaf", "'\xe2\x80\xaf'");               /* U+202F: shown */
}

TEST(bare_style)
{
	QB("/media/usb", "/media/usb");
	QB("/media/my stick", "/media/my stick");
	QB("sdb1", "sdb1");
	QB("", "''");
	QB("it's", "'it'\\''s'");
	QB("/m/a\nb", "'/m/a'$'\\n''b'");
	QB("/m/\xc2\x9b", "'/m/'$'\\xc2\\x9b'");
	QB("$'\\n'", "'$'\\''\\n'\\'");
}

/* Every quoted form holds no control byte and is valid UTF-8. */
static bool clean(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return quote_utf8_valid(s, strlen(s));
}

TEST(long_names)
{
	size_t n = 3 * PATH_MAX;
	_cleanup_free_ char *plain = malloc(n + 1), *bad = malloc(n + 1), *want = malloc(4 * n + 8);
	const char *q;

	if (!plain || !bad || !want)
		return;
	memset(plain, 'a', n);
	plain[n] = '\0';
	q = quote(plain);
	CHECK_INT(strlen(q), n + 2);
	CHECK(q[0] == '\'' && q[n + 1] == '\'' && strspn(q + 1, "a") == n);
	/* the worst case: an unsafe byte between safe ones costs 9 bytes,
	 * '$'\xff'' and the safe one 1 */
	for (size_t i = 0; i < n; i++)
		bad[i] = i % 2 ? 'a' : '\xff';
	bad[n] = '\0';
	q = quote(bad);
	CHECK_INT(strlen(q), n / 2 * 10);
	CHECK(clean(q));
	CHECK(strncmp(q, "$'\\xff''a'$'\\xff''a'", 20) == 0);
	CHECK_STR(q + strlen(q) - 11, "'$'\\xff''a'");
}

TEST(rotating_buffers)
{
	char a[QUOTE_SLOTS][8];
	const char *q[QUOTE_SLOTS];

	for (int i = 0; i < QUOTE_SLOTS; i++) {
		snprintf(a[i], sizeof(a[i]), "n%d", i);
		q[i] = quote(a[i]);
	}
	for (int i = 0; i < QUOTE_SLOTS; i++) {
		char want[16];

		snprintf(want, sizeof(want), "'n%d'", i);
		CHECK_STR(q[i], want);
	}
}

TEST(quote_mem_cut)
{
	char buf[8];
	size_t n = quote_mem(buf, sizeof(buf), "a\nbcdef", 7, QUOTE_ALWAYS);

	CHECK_INT(n, strlen("'a'$'\\n''bcdef'"));
	CHECK_STR(buf, "'a'$'\\n");
	/* NULs inside a length-counted name */
	n = quote_mem(buf, sizeof(buf), "a\0b", 3, QUOTE_ALWAYS);
	CHECK_INT(n, strlen("'a'$'\\x00''b'"));
	_cleanup_free_ char *d = quote_dup("x\ty", QUOTE_ALWAYS);
	CHECK_STR(d, "'x'$'\\t''y'");
}

TEST(classification)
{
	uint32_t c;

	CHECK_INT(quote_char("\xc2\x9b", 2, &c), 2);
	CHECK_U64(c, 0x9b);
	CHECK(quote_unsafe(c));
	CHECK_INT(quote_char("\x9b", 1, &c), 1);
	CHECK(c == QUOTE_INVALID && quote_unsafe(c));
	CHECK_INT(quote_char("\xe6\x97\xa5", 3, &c), 3);
	CHECK_U64(c, 0x65e5);
	CHECK(!quote_unsafe(c));
	CHECK_INT(quote_char("\xe6\x97\xa5", 2, &c), 1); /* not enough bytes */
	CHECK(c == QUOTE_INVALID);
	CHECK(quote_utf8_valid("caf\xc3\xa9\n", 6));
	CHECK(!quote_utf8_valid("caf\xe9", 4));
}

static char *render_name(const char *key, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	if (!f)
		return NULL;
	json_init(&j, f);
	json_object_begin(&j);
	json_kv_name(&j, key, name);
	json_object_end(&j);
	fclose(f);
	return buf;
}

static char *render_names(char *const *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	if (!f)
		return NULL;
	json_init(&j, f);
	json_object_begin(&j);
	json_kv_names(&j, "mountpoints", v, n);
	json_object_end(&j);
	fclose(f);
	return buf;
}

TEST(json_b64)
{
	_cleanup_free_ char *a = render_name("file", "a\nb\x1b");
	_cleanup_free_ char *b = render_name("file", "x\xff");
	_cleanup_free_ char *c = render_name("path", NULL);
	_cleanup_free_ char *d = render_name("file", "\xc3\xa9\xc2\x9b");
	char *v[] = { (char *)"/media/ok", (char *)"/media/\xfe" };
	_cleanup_free_ char *e = render_names(v, 2);
	_cleanup_free_ char *g = render_names(v, 1);

	CHECK_STR(a, "{\"file\":\"a\\nb\\u001b\"}");
	CHECK_STR(b, "{\"file\":\"x\xef\xbf\xbd\",\"file_b64\":\"eP8=\"}");
	CHECK_STR(c, "{\"path\":null}");
	/* valid UTF-8: exact (C1 as an escape of the same code point), no b64 */
	CHECK_STR(d, "{\"file\":\"\xc3\xa9\\u009b\"}");
	CHECK_STR(e, "{\"mountpoints\":[\"/media/ok\",\"/media/\xef\xbf\xbd\"],"
		     "\"mountpoints_b64\":[null,\"L21lZGlhL/4=\"]}");
	CHECK_STR(g, "{\"mountpoints\":[\"/media/ok\"]}");
}

int main(void)
{
	RUN(plain_names);
	RUN(single_quotes);
	RUN(c0_and_del);
	RUN(c1);
	RUN(invalid_utf8);
	RUN(bidi_and_invisible);
	RUN(bare_style);
	RUN(long_names);
	RUN(rotating_buffers);
	RUN(quote_mem_cut);
	RUN(classification);
	RUN(json_b64);
	return test_summary();
}
