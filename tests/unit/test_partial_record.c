/* test_partial_record.c: the record beside a resumable partial, written
 * and read back, and read as the untrusted text a stick can hold: a torn
 * last line, names that would escape the directory, a header out of
 * form, more digests than the file has chunks, a record past its bound. */
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "copy/partial_record.h"

#define MiB (1ULL << 20)

static struct partial_record sample(void)
{
	struct partial_record r = { .size = 100 * MiB, .mtime_sec = -5, .mtime_nsec = 7,
				    .dev = 2049, .ino = 1234567, .chunk = 16 * MiB };

	strcpy(r.name, "clip 100%\n\x01\xc3\xa9.mp4");
	strcpy(r.source_name, "C0001.MP4");
	for (int i = 0; i < 16; i++)
		r.nonce[i] = (uint8_t)(i * 17);
	return r;
}

/* sample()'s header and n digest lines i * 3 + 1, in a malloc'd text */
static char *sample_text(size_t n, size_t *len)
{
	struct partial_record r = sample();
	char *h = NULL;
	size_t hl = 0;

	CHECK_INT(partial_record_header(&r, &h, &hl), 0);
	h = realloc(h, hl + n * PARTIAL_DIGEST_LINE + 1);
	for (size_t i = 0; i < n; i++)
		partial_record_digest_line(i * 3 + 1, h + hl + i * PARTIAL_DIGEST_LINE);
	*len = hl + n * PARTIAL_DIGEST_LINE;
	h[*len] = '\0';
	return h;
}

TEST(round_trip)
{
	struct partial_record r = sample(), back;
	size_t len;
	char *t = sample_text(6, &len);

	CHECK(strstr(t, "name clip%20100%25%0A%01%C3%A9.mp4\n") != NULL);
	CHECK(strstr(t, "mtime -5.000000007\n") != NULL);
	CHECK(strstr(t, "nonce 00112233445566778899aabbccddeeff\n") != NULL);
	CHECK_INT(partial_record_parse(t, len, &back), 0);
	CHECK_STR(back.name, r.name);
	CHECK_STR(back.source_name, r.source_name);
	CHECK_U64(back.size, r.size);
	CHECK_INT(back.mtime_sec, -5);
	CHECK_INT(back.mtime_nsec, 7);
	CHECK_U64(back.dev, 2049);
	CHECK_U64(back.ino, 1234567);
	CHECK_U64(back.chunk, 16 * MiB);
	CHECK(memcmp(back.nonce, r.nonce, 16) == 0);
	CHECK_INT(back.n, 6);
	CHECK_U64(back.digests[5], 16);
	CHECK_U64(partial_record_claimed(&back), 96 * MiB);
	partial_record_free(&back);
	free(t);
}

TEST(a_torn_last_line_ends_the_digests)
{
	struct partial_record back;
	size_t len;
	char *t = sample_text(3, &len);

	/* half a line, then a line of garbage the length of a digest */
	CHECK_INT(partial_record_parse(t, len - 5, &back), 0);
	CHECK_INT(back.n, 2);
	partial_record_free(&back);
	t[len - 3] = 'X';
	CHECK_INT(partial_record_parse(t, len, &back), 0);
	CHECK_INT(back.n, 2);
	partial_record_free(&back);
	/* no digests at all is a record of nothing kept */
	CHECK_INT(partial_record_parse(t, len - 3 * PARTIAL_DIGEST_LINE, &back), 0);
	CHECK_INT(back.n, 0);
	CHECK_U64(partial_record_claimed(&back), 0);
	partial_record_free(&back);
	free(t);
}

TEST(more_digests_than_chunks_is_refused)
{
	struct partial_record back;
	size_t len;
	char *t = sample_text(7, &len); /* 100 MiB holds six whole 16 MiB chunks */

	CHECK_INT(partial_record_parse(t, len, &back), -EBADMSG);
	free(t);
}

/* sample()'s text with the first `from` replaced by `to` parses as want */
static void edited(const char *from, const char *to, int want)
{
	struct partial_record back;
	size_t len;
	char *t = sample_text(1, &len), *at = strstr(t, from), *u;
	int got;

	if (!at) {
		FAIL_AT("'%s' not in the sample", from);
		free(t);
		return;
	}
	u = malloc(len + strlen(to) + 1);
	sprintf(u, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
	got = partial_record_parse(u, strlen(u), &back);
	if (got != want)
		FAIL_AT("'%s' -> '%s' parsed as %d, not %d", from, to, got, want);
	if (got == 0)
		partial_record_free(&back);
	free(u);
	free(t);
}

TEST(hostile_headers_are_refused)
{
	edited("safecp-partial 1", "safecp-partial 2", -EBADMSG);
	edited("name clip", "name ..clip", 0);            /* a name, if odd */
	edited("name clip%20100%25%0A%01%C3%A9.mp4", "name ..", -EBADMSG);
	edited("name clip", "name a/clip", -EBADMSG);
	edited("name clip", "name a%2Fclip", -EBADMSG);   /* '/' is plain: never escaped */
	edited("name clip", "name %00clip", -EBADMSG);
	edited("name clip", "name %41clip", -EBADMSG);    /* 'A' escaped: not our form */
	edited("name clip", "name %e9clip", -EBADMSG);    /* lowercase hex */
	edited("name clip%20100%25%0A%01%C3%A9.mp4", "name ", -EBADMSG);
	edited("size 104857600", "size -1", -EBADMSG);
	edited("size 104857600", "size 18446744073709551616", -EBADMSG);
	edited("mtime -5.000000007", "mtime 5.0000000070", -EBADMSG);
	edited("mtime -5.000000007", "mtime 5.7", -EBADMSG);
	edited("mtime -5.000000007", "mtime 5.999999999", 0);
	edited("source 2049 1234567", "source 2049", -EBADMSG);
	edited("chunk 16777216", "chunk 4096", -EBADMSG);
	edited("chunk 16777216", "chunk 16777217", -EBADMSG);
	edited("nonce 0011", "nonce 00AA", -EBADMSG);
	edited("source-name C0001.MP4\nsize", "size", -EBADMSG); /* a line missing */
	edited("digests\n", "digest\n", -EBADMSG);
	edited("name clip", "name\tclip", -EBADMSG);
}

TEST(a_record_past_its_bound_is_not_read)
{
	struct partial_record back;
	char *big = calloc(1, PARTIAL_RECORD_MAX + 1);

	CHECK_INT(partial_record_parse(big, PARTIAL_RECORD_MAX + 1, &back), -EFBIG);
	free(big);
}

TEST(names)
{
	char d[PARTIAL_NAME_MAX], rec[PARTIAL_NAME_MAX], d2[PARTIAL_NAME_MAX];
	bool is_rec = true;

	partial_names("clip.mp4", d, rec);
	CHECK_INT(strlen(d), 29);
	CHECK(strncmp(rec, d, strlen(d)) == 0 && strcmp(rec + strlen(d), ".rec") == 0);
	CHECK(partial_name_parse(d, &is_rec) && !is_rec);
	CHECK(partial_name_parse(rec, &is_rec) && is_rec);
	partial_names("clip.mp5", d2, rec);
	CHECK(strcmp(d, d2) != 0);
	CHECK(!partial_name_parse(".safecp-part-0123456789abcdeF", &is_rec));
	CHECK(!partial_name_parse(".safecp-part-0123456789abcde", &is_rec));
	CHECK(!partial_name_parse(".safecp-part-0123456789abcdef.tmp", &is_rec));
	CHECK(!partial_name_parse(".safecp-part-0123456789abcdef.rec.x", &is_rec));
	CHECK(!partial_name_parse(".safecp-1-2.tmp", &is_rec));
}

TEST(chunk_sizes)
{
	CHECK_U64(partial_chunk_for(1ULL << 30), 16 * MiB);
	CHECK_U64(partial_chunk_for(1ULL << 40), 16 * MiB); /* 65536 digests */
	/* 2 TiB: 65536 digests of 32 MiB */
	CHECK_U64(partial_chunk_for(2ULL << 40), 32 * MiB);
	CHECK_U64(partial_chunk_for(65537ULL * 32 * MiB), 64 * MiB);
	CHECK_U64(partial_chunk_for(1ULL << 60), 0);
}

int main(void)
{
	RUN(round_trip);
	RUN(a_torn_last_line_ends_the_digests);
	RUN(more_digests_than_chunks_is_refused);
	RUN(hostile_headers_are_refused);
	RUN(a_record_past_its_bound_is_not_read);
	RUN(names);
	RUN(chunk_sizes);
	return test_summary();
}
