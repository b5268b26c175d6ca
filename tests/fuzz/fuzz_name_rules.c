/* fuzz_name_rules.c: lib/name_rules.c on arbitrary bytes taken as a name,
 * for every family.  Invariants: the check never crashes; the mapped name
 * passes the check, is at most NAME_MAX_BYTES without a NUL in it, maps
 * to itself (idempotent), and is the input itself when the input passed;
 * a numbered variant passes the check too and, when nothing had to be cut
 * for it, has another collision key (a cut one may come back to the name
 * itself, "x... (2)" numbered 2: plan_names then tries the next number). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/name_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "fuzz_name_rules: %s failed\n", #cond); \
			abort(); \
		} \
	} while (0)

static void one_family(enum name_fs fs, const char *name, size_t len, unsigned long n)
{
	char out[NAME_BUF], again[NAME_BUF], num[NAME_BUF], suffix[32];
	enum name_problem p = name_check(fs, name, len, NULL);
	size_t ol = name_map(fs, name, len, out), al, nl;
	char *k1, *k2;

	REQUIRE(ol > 0 && ol <= NAME_MAX_BYTES && strlen(out) == ol);
	REQUIRE(name_check(fs, out, ol, NULL) == NAME_OK);
	if (p == NAME_OK)
		REQUIRE(ol == len && memcmp(out, name, len) == 0);
	al = name_map(fs, out, ol, again);
	REQUIRE(al == ol && memcmp(again, out, ol) == 0);
	nl = name_numbered(fs, out, n, num);
	REQUIRE(nl <= NAME_MAX_BYTES && strlen(num) == nl);
	REQUIRE(name_check(fs, num, nl, NULL) == NAME_OK);
	k1 = name_key(fs, out, ol);
	k2 = name_key(fs, num, nl);
	REQUIRE(k1 && k2);
	if (nl == ol + (size_t)snprintf(suffix, sizeof(suffix), " (%lu)", n))
		REQUIRE(strcmp(k1, k2) != 0);
	free(k1);
	free(k2);
	free(name_key(fs, name, len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum name_fs all[] = { NAME_FS_POSIX, NAME_FS_FAT, NAME_FS_EXFAT,
					    NAME_FS_NTFS, NAME_FS_FUSEBLK, NAME_FS_FUSEFAT };
	unsigned long n = 2 + (size ? data[0] : 0) * 1000UL;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		one_family(all[i], (const char *)data, size, n);
	return 0;
}
