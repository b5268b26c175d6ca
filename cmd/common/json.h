/* json.h: a tiny JSON-lines writer for the tools' --json output.
 *
 * The writer tracks nesting and commas so callers emit values in order:
 *
 *	json_object_begin(j);
 *	json_key(j, "t"); json_double(j, t, 3);
 *	json_key(j, "devices"); json_array_begin(j); ... json_array_end(j);
 *	json_object_end(j);
 *	json_line_end(j);
 *
 * Output is compact (no spaces), one document per line, so consumers can
 * read it with `jq -c` or line by line.  Strings are escaped per RFC 8259;
 * bytes that are not valid UTF-8 are replaced by U+FFFD so every line is
 * valid JSON whatever a file name holds.  Write errors are left in the
 * FILE for close_stdout() to report. */
#ifndef SAFECP_JSON_H
#define SAFECP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool has_items[JSON_MAX_DEPTH]; /* a comma goes before the next item */
	bool after_key;                 /* a value completes "key": */
};

void json_init(struct json *j, FILE *f);

void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);

/* Inside an object: the key of the next value. */
void json_key(struct json *j, const char *key);

/* NULL writes null. */
void json_string(struct json *j, const char *s);
/* Exactly len bytes, which may hold NULs (written as \u0000). */
void json_string_len(struct json *j, const char *s, size_t len);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
/* Fixed point with `decimals` digits after the point (0-9); NaN and
 * infinities, which JSON cannot hold, are written as null. */
void json_double(struct json *j, double v, int decimals);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* Ends the document at depth 0 with a newline and flushes, so a reader
 * at the other end of a pipe sees each line as it is written.  A failed
 * flush leaves errno and the stream's error flag for the caller. */
void json_line_end(struct json *j);

/* Key and value in one call, for the common flat fields. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_double(struct json *j, const char *key, double v, int decimals);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_null(struct json *j, const char *key);

/* A name (path, mount point, device, command): "key":"..." as
 * json_kv_string(), exact for every name that is valid UTF-8 (control
 * characters escaped, never replaced).  A name that is not valid UTF-8
 * keeps its lossy string (U+FFFD for each bad byte) and gains a sibling
 * "key_b64" holding its raw bytes in standard base64, so a script can
 * recover the exact name.  NULL writes null and no sibling. */
void json_kv_name(struct json *j, const char *key, const char *name);
/* An array of names under key; when any is not valid UTF-8, a sibling
 * "key_b64" array of the same length: base64 for those, null for the
 * others. */
void json_kv_names(struct json *j, const char *key, char *const *names, size_t n);

#endif
