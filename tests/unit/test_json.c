/* test_json.c: the JSON-lines writer: structure, commas, escapes, UTF-8
 * repair and number formats, compared byte for byte. */
#include <math.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "common/json.h"
#include "test.h"

/* The writer's output for one document built by fn. */
static char *render(void (*fn)(struct json *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	if (!f)
		return NULL;
	json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

/* One string value rendered alone. */
static char *render_string(const char *s, size_t len)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	struct json j;

	if (!f)
		return NULL;
	json_init(&j, f);
	json_string_len(&j, s, len);
	fclose(f);
	return buf;
}

#define CHECK_STRING(in, expected) \
	do { \
		_cleanup_free_ char *_out = render_string((in), sizeof(in) - 1); \
		CHECK_STR(_out, (expected)); \
	} while (0)

static void nested_doc(struct json *j)
{
	json_object_begin(j);
	json_kv_u64(j, "a", 1);
	json_key(j, "list");
	json_array_begin(j);
	json_u64(j, 1);
	json_object_begin(j);
	json_object_end(j);
	json_array_begin(j);
	json_array_end(j);
	json_null(j);
	json_array_end(j);
	json_kv_string(j, "s", "x");
	json_kv_bool(j, "yes", true);
	json_kv_bool(j, "no", false);
	json_kv_null(j, "none");
	json_key(j, "o");
	json_object_begin(j);
	json_kv_string(j, "missing", NULL);
	json_object_end(j);
	json_object_end(j);
	json_line_end(j);
}

TEST(structure_and_commas)
{
	_cleanup_free_ char *out = render(nested_doc);

	CHECK_STR(out, "{\"a\":1,\"list\":[1,{},[],null],\"s\":\"x\",\"yes\":true,"
		       "\"no\":false,\"none\":null,\"o\":{\"missing\":null}}\n");
}

static void two_lines(struct json *j)
{
	for (int i = 0; i < 2; i++) {
		json_object_begin(j);
		json_kv_u64(j, "i", (uint64_t)i);
		json_object_end(j);
		json_line_end(j);
	}
}

TEST(each_line_is_a_fresh_document)
{
	_cleanup_free_ char *out = render(two_lines);

	CHECK_STR(out, "{\"i\":0}\n{\"i\":1}\n");
}

static void numbers(struct json *j)
{
	json_array_begin(j);
	json_u64(j, UINT64_MAX);
	json_i64(j, INT64_MIN);
	json_double(j, 1.23456, 3);
	json_double(j, 0.5, 0); /* printf rounds half to even */
	json_double(j, 2.5, 0);
	json_double(j, 1712345678.1234, 3);
	json_double(j, -0.25, 2);
	json_double(j, NAN, 3);
	json_double(j, INFINITY, 1);
	json_double(j, -INFINITY, 1);
	json_double(j, 1.0, 20); /* clamped to 9 decimals */
	json_array_end(j);
}

TEST(numbers)
{
	_cleanup_free_ char *out = render(numbers);

	CHECK_STR(out, "[18446744073709551615,-9223372036854775808,1.235,0,2,"
		       "1712345678.123,-0.25,null,null,null,1.000000000]");
}

TEST(escapes)
{
	CHECK_STRING("plain", "\"plain\"");
	CHECK_STRING("", "\"\"");
	CHECK_STRING("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	CHECK_STRING("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	CHECK_STRING("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	CHECK_STRING("a\0b", "\"a\\u0000b\"");
	CHECK_STRING("\x1b[2J", "\"\\u001b[2J\"");
}

TEST(valid_utf8_passes_through)
{
	CHECK_STRING("caf\xc3\xa9", "\"caf\xc3\xa9\"");              /* U+00E9 */
	CHECK_STRING("\xe2\x82\xac", "\"\xe2\x82\xac\"");            /* U+20AC */
	CHECK_STRING("\xf0\x9f\x93\xb7", "\"\xf0\x9f\x93\xb7\"");    /* U+1F4F7 */
	CHECK_STRING("\xef\xbf\xbd", "\"\xef\xbf\xbd\"");            /* U+FFFD */
	CHECK_STRING("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");    /* U+10FFFF */
	CHECK_STRING("\xed\x9f\xbf", "\"\xed\x9f\xbf\"");            /* U+D7FF */
}

#define FFFD "\xef\xbf\xbd"

TEST(invalid_utf8_becomes_replacement_per_byte)
{
	CHECK_STRING("a\xff" "b", "\"a" FFFD "b\"");                 /* never valid */
	CHECK_STRING("\x80", "\"" FFFD "\"");                        /* lone continuation */
	CHECK_STRING("\xc0\xaf", "\"" FFFD FFFD "\"");               /* overlong '/' */
	CHECK_STRING("\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\"");      /* overlong, 3 bytes */
	CHECK_STRING("\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"");      /* surrogate D800 */
	CHECK_STRING("\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\""); /* > U+10FFFF */
	CHECK_STRING("\xf5\x80", "\"" FFFD FFFD "\"");
	CHECK_STRING("\xc3", "\"" FFFD "\"");                        /* truncated at end */
	CHECK_STRING("\xe2\x82", "\"" FFFD FFFD "\"");
	CHECK_STRING("\xc3" "a", "\"" FFFD "a\"");                   /* cut by ASCII */
	CHECK_STRING("\xe2\x82\n", "\"" FFFD FFFD "\\n\"");          /* cut by a control char */
}

static void key_escaping(struct json *j)
{
	json_object_begin(j);
	json_kv_string(j, "k\"ey", "v\xff");
	json_object_end(j);
}

TEST(keys_are_escaped_too)
{
	_cleanup_free_ char *out = render(key_escaping);

	CHECK_STR(out, "{\"k\\\"ey\":\"v" FFFD "\"}");
}

int main(void)
{
	TEST_PLAN(7);
	RUN(structure_and_commas);
	RUN(each_line_is_a_fresh_document);
	RUN(numbers);
	RUN(escapes);
	RUN(valid_utf8_passes_through);
	RUN(invalid_utf8_becomes_replacement_per_byte);
	RUN(keys_are_escaped_too);
	return test_summary();
}
