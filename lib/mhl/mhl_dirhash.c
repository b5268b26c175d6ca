/* mhl_dirhash.c: content and structure hashes of a folder from its children's hashes
 * (the algorithm is in mhl_dirhash.h). Each child's strings are kept until the result
 * is asked for, because both sums go over the hashes in sorted order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl/mhl_dirhash.h"
#include "base/grow.h"

struct mhl_dirhash {
	enum mhl_hash_format format;
	mhl_digest_fn digest;
	void *arg;
	char (*content)[MHL_HASH_MAX + 1];   /* the children's content hashes */
	char (*structure)[MHL_HASH_MAX + 1]; /* H(name + hash) of each child */
	size_t n, cap_content, cap_structure;
};

static const char c4_alphabet[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int mhl_hash_bytes(enum mhl_hash_format f, const char *s, unsigned char out[64])
{
	if (!mhl_hash_valid(f, s))
		return -EINVAL;
	if (f == MHL_C4) {
		/* base58, most significant digit first, into a 64-byte big-endian number:
		 * out = out * 58 + digit for each of the 88 digits after "c4" */
		memset(out, 0, 64);
		for (const char *p = s + 2; *p; p++) {
			unsigned carry = (unsigned)(strchr(c4_alphabet, *p) - c4_alphabet);

			for (int i = 63; i >= 0; i--) {
				carry += out[i] * 58u;
				out[i] = (unsigned char)carry;
				carry >>= 8;
			}
			if (carry) /* past 512 bits: not a SHA-512 */
				return -EINVAL;
		}
		return 64;
	}
	size_t n = strlen(s) / 2;

	for (size_t i = 0; i < n; i++)
		out[i] = (unsigned char)(hex_value(s[2 * i]) << 4 | hex_value(s[2 * i + 1]));
	return (int)n;
}

int mhl_dirhash_new(enum mhl_hash_format f, mhl_digest_fn digest, void *arg, struct mhl_dirhash **ret)
{
	struct mhl_dirhash *d;

	if ((unsigned)f >= MHL_FORMAT_COUNT || !digest)
		return -EINVAL;
	if (!(d = calloc(1, sizeof(*d))))
		return -ENOMEM;
	d->format = f;
	d->digest = digest;
	d->arg = arg;
	*ret = d;
	return 0;
}

void mhl_dirhash_free(struct mhl_dirhash *d)
{
	if (!d)
		return;
	free(d->content);
	free(d->structure);
	free(d);
}

/* One child: its content hash and the hash of its name with `own` (its content hash
 * for a file, its structure hash for a folder). */
static int add_child(struct mhl_dirhash *d, const char *name, const char *content, const char *own)
{
	unsigned char bytes[64];
	size_t nlen = strlen(name);
	unsigned char *buf;
	int n, r;

	if (!*name || strchr(name, '/') || !mhl_hash_valid(d->format, content))
		return -EINVAL;
	if ((n = mhl_hash_bytes(d->format, own, bytes)) < 0)
		return n;
	if (GROW(d->content, d->cap_content, d->n + 1, 16) < 0 ||
	    GROW(d->structure, d->cap_structure, d->n + 1, 16) < 0)
		return -ENOMEM;
	if (!(buf = malloc(nlen + (size_t)n)))
		return -ENOMEM;
	memcpy(buf, name, nlen);
	memcpy(buf + nlen, bytes, (size_t)n);
	r = d->digest(d->format, buf, nlen + (size_t)n, d->structure[d->n], d->arg);
	free(buf);
	if (r < 0)
		return r;
	snprintf(d->content[d->n], sizeof(d->content[d->n]), "%s", content);
	mhl_hash_normalize(d->content[d->n]);
	d->n++;
	return 0;
}

int mhl_dirhash_add_file(struct mhl_dirhash *d, const char *name, const char *content)
{
	return add_child(d, name, content, content);
}

int mhl_dirhash_add_folder(struct mhl_dirhash *d, const char *name, const char *content,
			   const char *structure)
{
	if (!mhl_hash_valid(d->format, structure))
		return -EINVAL;
	return add_child(d, name, content, structure);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* H(bytes of the n strings, sorted) into out. */
static int sum(struct mhl_dirhash *d, char (*list)[MHL_HASH_MAX + 1], char out[MHL_HASH_MAX + 1])
{
	unsigned char *buf = malloc(d->n * 64 + 1);
	size_t len = 0;
	int r;

	if (!buf)
		return -ENOMEM;
	if (d->n > 1) /* qsort(NULL, 0) is undefined */
		qsort(list, d->n, sizeof(*list), by_string);
	for (size_t i = 0; i < d->n; i++) {
		int n = mhl_hash_bytes(d->format, list[i], buf + len);

		if (n < 0) {
			free(buf);
			return n;
		}
		len += (size_t)n;
	}
	r = d->digest(d->format, buf, len, out, d->arg);
	free(buf);
	return r;
}

int mhl_dirhash_result(struct mhl_dirhash *d, char content[MHL_HASH_MAX + 1],
		       char structure[MHL_HASH_MAX + 1])
{
	int r = sum(d, d->content, content);

	return r < 0 ? r : sum(d, d->structure, structure);
}
