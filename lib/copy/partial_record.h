/* partial_record.h: the record beside a resumable partial (issue 27).
 *
 * A copy of a large file that stops (a kill, a yank, Ctrl-C, a full
 * stick) keeps what was durable on the device: a hidden file named
 * ".safecp-part-HASH" in the destination directory (HASH: the final
 * name's XXH3, so the next copy of that name finds it) and, beside it,
 * ".safecp-part-HASH.rec", this record of what the partial is a prefix
 * of.  The record is text, read from the stick as untrusted input:
 *
 *     safecp-partial 1
 *     name NAME           the final name, bytes outside '!'..'~' and '%' as %XX
 *     source-name NAME    the source file's own name, escaped the same way
 *     size BYTES          the source's size
 *     mtime SEC.NSEC      the source's mtime, nine digits of nanoseconds
 *     source DEV INO      the source's st_dev and st_ino
 *     chunk BYTES         the bytes each digest below covers
 *     nonce HEX32         random, per partial: what this machine's state knows it by
 *     digests
 *     HEX16               XXH3 of chunk i of what was written, one line per chunk
 *
 * The header is written whole, made durable and renamed into place
 * before any data; a digest line is appended (and made durable) only
 * after the chunk it describes is durable in the partial.  A crash can
 * tear the last line: the digests end at the first line that is not
 * exactly 16 lowercase hex digits and a newline.  So the record claims at
 * most what the device holds; what it claims is believed only as far as
 * the source's own bytes give the same digests. */
#ifndef SAFECP_PARTIAL_RECORD_H
#define SAFECP_PARTIAL_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ".safecp-part-" 16 hex ".rec" and a NUL */
#define PARTIAL_NAME_MAX 40

/* The smallest digest chunk: a file no larger is copied whole, as before
 * (a kill leaves nothing of it). */
#define PARTIAL_CHUNK_MIN (16ULL << 20)

/* A record longer than this is not read: at most PARTIAL_DIGESTS_MAX
 * digest lines and a header. */
#define PARTIAL_DIGESTS_MAX 65536
#define PARTIAL_RECORD_MAX (8192 + 17 * PARTIAL_DIGESTS_MAX)

struct partial_record {
	char name[NAME_MAX + 1];        /* the final name */
	char source_name[NAME_MAX + 1]; /* the source's own name */
	uint64_t size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	uint64_t dev, ino;
	uint64_t chunk;
	uint8_t nonce[16];
	uint64_t *digests;  /* n of them; n * chunk <= size */
	size_t n;
};

/* The partial's and the record's names for a file to be named name. */
void partial_names(const char *name, char data[PARTIAL_NAME_MAX], char rec[PARTIAL_NAME_MAX]);

/* True when name is a partial's (data) or a record's name; *record says
 * which.  Pure. */
bool partial_name_parse(const char *name, bool *record);

/* The digest chunk for a file of size bytes: PARTIAL_CHUNK_MIN, doubled
 * until the record stays within PARTIAL_DIGESTS_MAX lines.  A function
 * of the size alone, not of the device: the same stick on another port,
 * whose requests are of another size, goes on from the same record.  0
 * when no such chunk exists (one past 1 GiB: a file past 64 TiB). */
uint64_t partial_chunk_for(uint64_t size);

/* The durable prefix the record claims: n chunks, never past size. */
uint64_t partial_record_claimed(const struct partial_record *r);

/* r's header (the digests are appended later), malloc'd in *ret with its
 * length.  0, -ENAMETOOLONG (a name past NAME_MAX) or -ENOMEM. */
int partial_record_header(const struct partial_record *r, char **ret, size_t *ret_len);

/* The XXH3 of r's header, as partial_record_header() writes it: what
 * this machine's state knows the record by.  0 or -ENOMEM. */
int partial_record_header_digest(const struct partial_record *r, uint64_t *ret);

/* The line for one digest: 16 hex digits and a newline, no NUL. */
#define PARTIAL_DIGEST_LINE 17
void partial_record_digest_line(uint64_t digest, char line[PARTIAL_DIGEST_LINE]);

/* Parse len bytes of a record.  0 with *ret filled (its digests the
 * caller's to free with partial_record_free), -EBADMSG when the header is
 * not exactly the form above or the digests claim more than the size,
 * -EFBIG past PARTIAL_RECORD_MAX, -ENOMEM. */
int partial_record_parse(const char *text, size_t len, struct partial_record *ret);

void partial_record_free(struct partial_record *r);

#endif
