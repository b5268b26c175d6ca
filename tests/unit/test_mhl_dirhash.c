/* test_mhl_dirhash.c: folder hashes against the reference tool's own figures, and the
 * bytes behind hash strings (hex, and a C4 ID back to its SHA-512).
 *
 * The figures are those of the reference's tests/test_dirhash.py: a root holding
 * Stuff.txt ("stuff\n") and A/A1.txt ("A1\n"), in xxh64. The digest is libxxhash's,
 * passed in as safecp's lib/hash will pass its own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "test.h"
#include "mhl/mhl_dirhash.h"

static int xxh64_digest(enum mhl_hash_format f, const void *data, size_t len,
			char out[MHL_HASH_MAX + 1], void *arg)
{
	int *calls = arg;

	if (f != MHL_XXH64)
		return -ENOTSUP;
	(*calls)++;
	snprintf(out, MHL_HASH_MAX + 1, "%016llx", (unsigned long long)XXH64(data, len, 0));
	return 0;
}

static void xxh64_of(const char *s, char out[MHL_HASH_MAX + 1])
{
	snprintf(out, MHL_HASH_MAX + 1, "%016llx", (unsigned long long)XXH64(s, strlen(s), 0));
}

TEST(reference_figures)
{
	struct mhl_dirhash *a = NULL, *root = NULL;
	char a1[MHL_HASH_MAX + 1], stuff[MHL_HASH_MAX + 1];
	char ac[MHL_HASH_MAX + 1], as[MHL_HASH_MAX + 1], rc[MHL_HASH_MAX + 1], rs[MHL_HASH_MAX + 1];
	int calls = 0;

	xxh64_of("A1\n", a1);
	xxh64_of("stuff\n", stuff);
	CHECK_INT(mhl_dirhash_new(MHL_XXH64, xxh64_digest, &calls, &a), 0);
	CHECK_INT(mhl_dirhash_new(MHL_XXH64, xxh64_digest, &calls, &root), 0);
	if (!a || !root)
		return;
	CHECK_INT(mhl_dirhash_add_file(a, "A1.txt", a1), 0);
	CHECK_INT(mhl_dirhash_result(a, ac, as), 0);
	CHECK_STR(ac, "d3904ee76bba3d2a");
	CHECK_STR(as, "3fbe33b2924e26aa");
	/* A first: its hashes sort after Stuff.txt's (d3.. > 94.., d2.. > 38..), so the
	 * figures come out only if the sums sort */
	CHECK_INT(mhl_dirhash_add_folder(root, "A", ac, as), 0);
	CHECK_INT(mhl_dirhash_add_file(root, "Stuff.txt", stuff), 0);
	CHECK_INT(mhl_dirhash_result(root, rc, rs), 0);
	CHECK_STR(rc, "ca56d22f064fdf1b");
	CHECK_STR(rs, "2ccca3899111eabb");
	CHECK(calls > 0);
	CHECK_INT(mhl_dirhash_add_file(root, "a/b", stuff), -EINVAL);
	CHECK_INT(mhl_dirhash_add_file(root, "", stuff), -EINVAL);
	CHECK_INT(mhl_dirhash_add_file(root, "x", "0123"), -EINVAL);
	CHECK_INT(mhl_dirhash_add_folder(root, "x", ac, "zz"), -EINVAL);
	mhl_dirhash_free(a);
	mhl_dirhash_free(root);
}

TEST(empty_folder_is_the_hash_of_nothing)
{
	struct mhl_dirhash *d = NULL;
	char c[MHL_HASH_MAX + 1], s[MHL_HASH_MAX + 1], none[MHL_HASH_MAX + 1];
	int calls = 0;

	xxh64_of("", none);
	CHECK_INT(mhl_dirhash_new(MHL_XXH64, xxh64_digest, &calls, &d), 0);
	if (!d)
		return;
	CHECK_INT(mhl_dirhash_result(d, c, s), 0);
	CHECK_STR(c, none);
	CHECK_STR(s, none);
	mhl_dirhash_free(d);
	CHECK_INT(mhl_dirhash_new(MHL_FORMAT_COUNT, xxh64_digest, &calls, &d), -EINVAL);
}

TEST(hash_bytes)
{
	/* the C4 ID of "a" and the SHA-512 of "a" it encodes */
	static const char c4[] = "c41dF3bGD8iqVcrJJQpS6fEsVgg9iKeNHGCCEhK2C2cGYRm2dx8xeFU1wKbkBsCWdefaz82KeyfbBf8Pfkpm4C56cc";
	static const char sha512[] = "1f40fc92da241694750979ee6cf582f2d5d7d28e18335de05abc54d0560e0f53"
				     "02860c652bf08d560252aa5e74210546f369fbbbce8c12cfc7957b2652fe9a75";
	static const char empty_c4[] = "c459dsjfscH38cYeXXYogktxf4Cd9ibshE3BHUo6a58hBXmRQdZrAkZzsWcbWtDg5oQstpDuni4Hirj75GEmTc1sFT";
	unsigned char out[64];
	char hex[129];

	CHECK_INT(mhl_hash_bytes(MHL_C4, c4, out), 64);
	for (int i = 0; i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
	CHECK_STR(hex, sha512);
	CHECK_INT(mhl_hash_bytes(MHL_C4, empty_c4, out), 64);
	CHECK(out[0] == 0xcf && out[1] == 0x83 && out[63] == 0x3e); /* SHA-512 of "": cf83...f927da3e */
	/* 88 'z's: 58^88 - 1 is more than 512 bits */
	{
		char big[91] = "c4";

		memset(big + 2, 'z', 88);
		big[90] = '\0';
		CHECK_INT(mhl_hash_bytes(MHL_C4, big, out), -EINVAL);
	}
	CHECK_INT(mhl_hash_bytes(MHL_XXH128, "00FF0123456789abcdef0123456789ab", out), 16);
	CHECK(out[0] == 0x00 && out[1] == 0xff && out[15] == 0xab);
	CHECK_INT(mhl_hash_bytes(MHL_MD5, "00ff", out), -EINVAL);
}

int main(void)
{
	TEST_PLAN(3);
	RUN(reference_figures);
	RUN(empty_folder_is_the_hash_of_nothing);
	RUN(hash_bytes);
	return test_summary();
}
