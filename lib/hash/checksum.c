/* checksum.c: one pass, several digests (see checksum.h).
 *
 * Every update goes straight to the libraries' own streaming functions, which
 * take pieces of any size; nothing here touches the bytes. xxh128 and xxh3 share
 * one XXH3 state: libxxhash documents that the 128-bit reset and update "have the
 * same meaning" as the 64-bit ones, so one accumulation yields both digests and
 * the two cost the CPU of one. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <xxhash.h>

#include "hash/checksum.h"

static const struct {
	const char *name;
	size_t text_len;
} algs[CHECKSUM_ALG_COUNT] = {
	[CHECKSUM_XXH128] = { "xxh128", 32 },
	[CHECKSUM_XXH3] = { "xxh3", 16 },
	[CHECKSUM_XXH64] = { "xxh64", 16 },
	[CHECKSUM_MD5] = { "md5", 2 * MD5_DIGEST_SIZE },
	[CHECKSUM_SHA1] = { "sha1", 2 * SHA1_DIGEST_SIZE },
	[CHECKSUM_SHA256] = { "sha256", 2 * SHA256_DIGEST_SIZE },
	[CHECKSUM_C4] = { "c4", 90 },
};

struct checksum_state {
	checksum_set algs;
	XXH3_state_t *xxh3; /* xxh128 and xxh3 */
	XXH64_state_t *xxh64;
	struct md5_ctx md5;
	struct sha1_ctx sha1;
	struct sha256_ctx sha256;
	struct sha512_ctx sha512; /* c4 */
};

static bool has(const struct checksum_state *s, enum checksum_alg alg)
{
	return s->algs & CHECKSUM_BIT(alg);
}

static bool uses_xxh3(checksum_set set)
{
	return set & (CHECKSUM_BIT(CHECKSUM_XXH128) | CHECKSUM_BIT(CHECKSUM_XXH3));
}

static int alg_from_span(const char *name, size_t len)
{
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		if (strlen(algs[a].name) == len && memcmp(algs[a].name, name, len) == 0)
			return a;
	return -1;
}

int checksum_alg_from_name(const char *name)
{
	return name ? alg_from_span(name, strlen(name)) : -1;
}

const char *checksum_alg_name(enum checksum_alg alg)
{
	return (unsigned)alg < CHECKSUM_ALG_COUNT ? algs[alg].name : NULL;
}

size_t checksum_text_len(enum checksum_alg alg)
{
	return (unsigned)alg < CHECKSUM_ALG_COUNT ? algs[alg].text_len : 0;
}

static int list_error(struct checksum_list_error *ret_err, enum checksum_list_problem kind,
		      size_t pos, size_t len)
{
	if (ret_err)
		*ret_err = (struct checksum_list_error){ .kind = kind, .pos = pos, .len = len };
	return -EINVAL;
}

int checksum_list_parse(const char *list, checksum_set allowed, checksum_set *ret_set,
			struct checksum_list_error *ret_err)
{
	checksum_set set = 0;
	size_t pos = 0;

	for (;;) {
		size_t len = strcspn(list + pos, ",");
		if (len == 0)
			return list_error(ret_err, CHECKSUM_LIST_EMPTY, pos, 0);
		int alg = alg_from_span(list + pos, len);
		if (alg < 0)
			return list_error(ret_err, CHECKSUM_LIST_UNKNOWN, pos, len);
		if (!(allowed & CHECKSUM_BIT(alg)))
			return list_error(ret_err, CHECKSUM_LIST_NOT_ALLOWED, pos, len);
		set |= CHECKSUM_BIT(alg);
		pos += len;
		if (list[pos] == '\0')
			break;
		pos++; /* the comma */
	}
	if (ret_err)
		*ret_err = (struct checksum_list_error){ .kind = CHECKSUM_LIST_OK };
	*ret_set = set;
	return 0;
}

struct checksum_state *checksum_new(checksum_set set)
{
	if (set == 0 || (set & ~CHECKSUM_SET_ALL))
		return NULL;
	struct checksum_state *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->algs = set;
	if ((uses_xxh3(set) && !(s->xxh3 = XXH3_createState())) ||
	    (has(s, CHECKSUM_XXH64) && !(s->xxh64 = XXH64_createState()))) {
		checksum_free(s);
		return NULL;
	}
	checksum_reset(s);
	return s;
}

void checksum_free(struct checksum_state *s)
{
	if (!s)
		return;
	XXH3_freeState(s->xxh3);
	XXH64_freeState(s->xxh64);
	free(s);
}

checksum_set checksum_algs(const struct checksum_state *s)
{
	return s->algs;
}

void checksum_reset(struct checksum_state *s)
{
	if (s->xxh3)
		XXH3_128bits_reset(s->xxh3);
	if (s->xxh64)
		XXH64_reset(s->xxh64, 0);
	if (has(s, CHECKSUM_MD5))
		md5_init(&s->md5);
	if (has(s, CHECKSUM_SHA1))
		sha1_init(&s->sha1);
	if (has(s, CHECKSUM_SHA256))
		sha256_init(&s->sha256);
	if (has(s, CHECKSUM_C4))
		sha512_init(&s->sha512);
}

void checksum_update(struct checksum_state *s, const void *buf, size_t len)
{
	if (len == 0)
		return;
	if (s->xxh3)
		XXH3_128bits_update(s->xxh3, buf, len);
	if (s->xxh64)
		XXH64_update(s->xxh64, buf, len);
	if (has(s, CHECKSUM_MD5))
		md5_update(&s->md5, len, buf);
	if (has(s, CHECKSUM_SHA1))
		sha1_update(&s->sha1, len, buf);
	if (has(s, CHECKSUM_SHA256))
		sha256_update(&s->sha256, len, buf);
	if (has(s, CHECKSUM_C4))
		sha512_update(&s->sha512, len, buf);
}

static void to_hex(char *out, const uint8_t *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

/* The C4 ID (SMPTE ST 2114, as ascmhl's hasher makes it): the SHA-512 digest read
 * as one big-endian number, written in base 58 with the alphabet below (no 0, O,
 * I, l), most significant digit first, left-padded with '1' (the alphabet's zero)
 * to 88 digits, after "c4". 58^88 > 2^512, so 88 digits always suffice. The
 * number is divided by 58 in place, 88 times: a 64-byte long division each. */
static void c4_text(char *out, const uint8_t digest[SHA512_DIGEST_SIZE])
{
	static const char alphabet[] =
		"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
	uint8_t n[SHA512_DIGEST_SIZE];

	memcpy(n, digest, sizeof(n));
	out[0] = 'c';
	out[1] = '4';
	for (int i = 89; i >= 2; i--) {
		unsigned rem = 0;
		for (size_t k = 0; k < sizeof(n); k++) {
			unsigned cur = rem << 8 | n[k];
			n[k] = (uint8_t)(cur / 58);
			rem = cur % 58;
		}
		out[i] = alphabet[rem];
	}
	out[90] = '\0';
}

void checksum_final(struct checksum_state *s, struct checksum_result *ret)
{
	uint8_t d[SHA512_DIGEST_SIZE];

	memset(ret, 0, sizeof(*ret));
	ret->algs = s->algs;
	if (has(s, CHECKSUM_XXH128)) {
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s->xxh3));
		to_hex(ret->text[CHECKSUM_XXH128], c.digest, sizeof(c.digest));
	}
	if (has(s, CHECKSUM_XXH3)) {
		XXH64_canonical_t c;
		XXH64_canonicalFromHash(&c, XXH3_64bits_digest(s->xxh3));
		to_hex(ret->text[CHECKSUM_XXH3], c.digest, sizeof(c.digest));
	}
	if (has(s, CHECKSUM_XXH64)) {
		XXH64_canonical_t c;
		XXH64_canonicalFromHash(&c, XXH64_digest(s->xxh64));
		to_hex(ret->text[CHECKSUM_XXH64], c.digest, sizeof(c.digest));
	}
	if (has(s, CHECKSUM_MD5)) {
		md5_digest(&s->md5, MD5_DIGEST_SIZE, d);
		to_hex(ret->text[CHECKSUM_MD5], d, MD5_DIGEST_SIZE);
	}
	if (has(s, CHECKSUM_SHA1)) {
		sha1_digest(&s->sha1, SHA1_DIGEST_SIZE, d);
		to_hex(ret->text[CHECKSUM_SHA1], d, SHA1_DIGEST_SIZE);
	}
	if (has(s, CHECKSUM_SHA256)) {
		sha256_digest(&s->sha256, SHA256_DIGEST_SIZE, d);
		to_hex(ret->text[CHECKSUM_SHA256], d, SHA256_DIGEST_SIZE);
	}
	if (has(s, CHECKSUM_C4)) {
		sha512_digest(&s->sha512, SHA512_DIGEST_SIZE, d);
		c4_text(ret->text[CHECKSUM_C4], d);
	}
	checksum_reset(s);
}

const char *checksum_result_text(const struct checksum_result *res, enum checksum_alg alg)
{
	if ((unsigned)alg >= CHECKSUM_ALG_COUNT || !(res->algs & CHECKSUM_BIT(alg)))
		return NULL;
	return res->text[alg];
}

bool checksum_result_match(const struct checksum_result *a, const struct checksum_result *b)
{
	checksum_set both = a->algs & b->algs;

	if (both == 0)
		return false;
	for (int alg = 0; alg < CHECKSUM_ALG_COUNT; alg++)
		if ((both & CHECKSUM_BIT(alg)) && strcmp(a->text[alg], b->text[alg]) != 0)
			return false;
	return true;
}

int checksum_text_of(enum checksum_alg alg, const void *buf, size_t len,
		     char out[CHECKSUM_TEXT_MAX])
{
	struct checksum_state *st = checksum_new(CHECKSUM_BIT(alg));
	struct checksum_result res;

	if (!st)
		return -ENOMEM;
	checksum_update(st, buf, len);
	checksum_final(st, &res);
	memcpy(out, res.text[alg], CHECKSUM_TEXT_MAX);
	checksum_free(st);
	return 0;
}
