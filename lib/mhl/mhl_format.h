/* mhl_format.h: the words of ASC MHL v2 (the ASC's Media Hash List, as the reference
 * tool ascmhl of github.com/ascmitc/mhl writes it) that both the writer and the reader
 * use: the hash formats, the actions, the folder and file names, dates, and which
 * relative paths a manifest may hold.
 *
 * The names below are data (element and attribute values of the format), not prose. */
#ifndef SAFECP_MHL_FORMAT_H
#define SAFECP_MHL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define MHL_NAMESPACE "urn:ASC:MHL:v2.0"
#define MHL_DIRECTORY_NAMESPACE "urn:ASC:MHL:DIRECTORY:v2.0"
#define MHL_FOLDER "ascmhl"
#define MHL_CHAIN_FILE "ascmhl_chain.xml"

/* The hash formats of the ASC MHL schema, in the order its <hash> element lists them
 * (md5, sha1, c4, xxh64, xxh3, xxh128; the schema's xxh32 is left out: the ASC tools
 * no longer write it), so that iterating the enum writes elements in schema order. */
enum mhl_hash_format {
	MHL_MD5,
	MHL_SHA1,
	MHL_C4,
	MHL_XXH64,
	MHL_XXH3,
	MHL_XXH128,
	MHL_FORMAT_COUNT,
};

/* Longest hash string of any format: a C4 ID is 90 characters. */
#define MHL_HASH_MAX 90

enum mhl_action {
	MHL_ORIGINAL, /* first hash of this file in the history */
	MHL_VERIFIED, /* hashed again and equal to an earlier generation's */
	MHL_FAILED,   /* hashed again and different */
	MHL_ACTION_COUNT,
};

/* The element name of a format ("xxh128") and the format of an element name (-1 when
 * it names none of them). */
const char *mhl_format_name(enum mhl_hash_format f);
int mhl_format_from_name(const char *name);
const char *mhl_action_name(enum mhl_action a);
int mhl_action_from_name(const char *name);

/* Whether s is a well-formed hash string of format f: lower-case hex of the format's
 * length, or "c4" and 88 base58 characters. Upper-case hex is accepted (some tools
 * write it); mhl_hash_normalize() lowers it in place. */
bool mhl_hash_valid(enum mhl_hash_format f, const char *s);
void mhl_hash_normalize(char *s);

/* A relative path a manifest may list: not empty, no leading or trailing '/', no empty,
 * "." or ".." component, valid UTF-8 of characters XML 1.0 can carry (no C0 control
 * but tab, newline and carriage return; no U+FFFE/U+FFFF). A name that fails cannot be
 * listed at all: it could not be read back, or it would point outside the root. */
bool mhl_path_valid(const char *path);
/* The character part alone (for names that are not paths: the root folder, the tool,
 * the host, ignore patterns). */
bool mhl_text_valid(const char *s);

/* "2026-12-01T15:21:57+01:00": ISO 8601 in local time with its UTC offset, whole
 * seconds (the reference writes the same; nanoseconds are dropped). */
#define MHL_DATE_MAX 64 /* room for any int the compiler imagines in a field */
void mhl_date_format(time_t t, char buf[MHL_DATE_MAX]);
/* The instant of an xs:dateTime ("...Z", "...+HH:MM", fractional seconds allowed, a
 * missing offset read as UTC); false when s is not one. */
bool mhl_date_parse(const char *s, struct timespec *ret);

/* "0003_A001_2026-12-01_152157Z.mhl": the generation number in at least 4 digits, the
 * root folder's name, the time in UTC. -ENAMETOOLONG when it does not fit in size,
 * -EINVAL for a sequence of 0 or a root name that is empty, holds '/' or is not text. */
int mhl_generation_file_name(unsigned sequence, const char *root_name, time_t t, char *buf,
			     size_t size);
/* The generation number at the start of a manifest file name ("0003_..." -> 3), 0 when
 * the name does not have the form above's "NNNN_*.mhl" (at least 4 digits). */
unsigned mhl_generation_number(const char *file_name);

/* libxml2's global setup, once per process (pthread_once): libxml2 2.9 sets itself up
 * lazily on first use, which races when two destinations' threads start at once. Every
 * lib/mhl function that calls libxml2 calls this first; calling it from main() before
 * any thread starts is allowed and costs nothing after the first time. */
void mhl_xml_init(void);

#endif
