/* test_name_rules.c: every rule of lib/name_rules.c for each family, the
 * --rename-invalid mapping and its invariants (a mapped name passes the
 * check, mapping is idempotent, never too long), the numbered variants
 * and the collision key. */
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "device/fs_traits.h"
#include "device/name_rules.h"
#include "test.h"

static const enum name_fs win[] = { NAME_FS_FAT, NAME_FS_EXFAT, NAME_FS_NTFS, NAME_FS_FUSEBLK };

static enum name_problem check(enum name_fs fs, const char *s)
{
	return name_check(fs, s, strlen(s), NULL);
}

static const char *map(enum name_fs fs, const char *s)
{
	static char out[NAME_BUF];

	name_map(fs, s, strlen(s), out);
	return out;
}

TEST(family_of_mounts)
{
	CHECK_INT(fs_traits_lookup(FS_VFAT, "vfat", NULL)->names, NAME_FS_FAT);
	CHECK_INT(fs_traits_lookup(FS_VFAT, "msdos", NULL)->names, NAME_FS_FAT);
	CHECK_INT(fs_traits_lookup(FS_EXFAT, "exfat", "exfat")->names, NAME_FS_EXFAT);
	CHECK_INT(fs_traits_lookup(FS_FUSEBLK, "fuseblk", "exfat")->names, NAME_FS_EXFAT);
	CHECK_INT(fs_traits_lookup(FS_FUSEBLK, "fuseblk", "ntfs")->names, NAME_FS_NTFS);
	CHECK_INT(fs_traits_lookup(FS_FUSEBLK, "fuseblk", "vfat")->names, NAME_FS_FUSEFAT); /* fusefat -o blkdev */
	CHECK_INT(fs_traits_lookup(FS_FUSEBLK, "fuseblk", NULL)->names, NAME_FS_FUSEBLK);
	CHECK_INT(fs_traits_lookup(FS_FUSE, "fuse.fusefat", NULL)->names, NAME_FS_FUSEFAT);
	CHECK_INT(fs_traits_lookup(FS_FUSE, "fuse.sshfs", NULL)->names, NAME_FS_POSIX);
	CHECK_INT(fs_traits_lookup(FS_OTHER, "ntfs3", "ntfs")->names, NAME_FS_NTFS);
	CHECK_INT(fs_traits_lookup(FS_EXT4, "ext4", "ext4")->names, NAME_FS_POSIX);
	CHECK_INT(fs_traits_lookup(FS_NOBLOCK, "tmpfs", NULL)->names, NAME_FS_POSIX);
	CHECK(!name_fs_folds_case(NAME_FS_POSIX));
	CHECK(name_fs_folds_case(NAME_FS_EXFAT));
	CHECK_STR(name_fs_id(NAME_FS_NTFS), "ntfs");
}

TEST(refused_characters)
{
	const char *bad = "\"*/:<>?\\|";
	unsigned char ch = 0;
	char name[8];

	for (size_t f = 0; f < ARRAY_SIZE(win); f++) {
		for (const char *b = bad; *b; b++) {
			snprintf(name, sizeof(name), "a%cb", *b);
			CHECK_INT(name_check(win[f], name, 3, &ch), NAME_BAD_CHAR);
			CHECK_INT(ch, (unsigned char)*b);
		}
		for (int c = 1; c < 0x20; c++) {
			name[0] = 'x';
			name[1] = (char)c;
			CHECK_INT(name_check(win[f], name, 2, &ch), NAME_BAD_CHAR);
			CHECK_INT(ch, c);
		}
		CHECK_INT(name_check(win[f], "a\0b", 3, NULL), NAME_BAD_CHAR);
		CHECK_INT(check(win[f], "a\x7f" "b"), NAME_OK);
		CHECK_INT(check(win[f], "été +-=[];,'#~!@$%^&()"), NAME_OK);
		CHECK_INT(check(win[f], " leading space"), NAME_OK);
		CHECK_INT(check(win[f], ".hidden"), NAME_OK);
	}
	CHECK_INT(check(NAME_FS_POSIX, "a:b?*<>|\\\"\x01"), NAME_OK);
	CHECK_INT(name_check(NAME_FS_POSIX, "a/b", 3, &ch), NAME_BAD_CHAR);
	CHECK_INT(ch, '/');
	CHECK_INT(name_check(NAME_FS_POSIX, "a\0b", 3, NULL), NAME_BAD_CHAR);
}

TEST(encoding)
{
	for (size_t f = 0; f < ARRAY_SIZE(win); f++) {
		CHECK_INT(check(win[f], "caf\xe9"), NAME_BAD_ENCODING);   /* Latin-1 */
		CHECK_INT(check(win[f], "\xc0\xaf"), NAME_BAD_ENCODING);  /* overlong '/' */
		CHECK_INT(check(win[f], "\xed\xa0\x80"), NAME_BAD_ENCODING); /* a surrogate */
		CHECK_INT(check(win[f], "\xe2\x82"), NAME_BAD_ENCODING);  /* cut short */
		CHECK_INT(check(win[f], "\xf0\x9f\x93\xb7.jpg"), NAME_OK); /* 📷 */
	}
	CHECK_INT(check(NAME_FS_POSIX, "caf\xe9"), NAME_OK);
}

TEST(trailing_dots_and_spaces)
{
	for (size_t f = 0; f < ARRAY_SIZE(win); f++) {
		CHECK_INT(check(win[f], "x."), NAME_TRAILING);
		CHECK_INT(check(win[f], "x "), NAME_TRAILING);
		CHECK_INT(check(win[f], "x. ."), NAME_TRAILING);
		CHECK_INT(check(win[f], "."), NAME_TRAILING);
		CHECK_INT(check(win[f], ".."), NAME_TRAILING);
		CHECK_INT(check(win[f], "x.y"), NAME_OK);
	}
	CHECK_INT(check(NAME_FS_POSIX, "x. "), NAME_OK);
	CHECK_INT(check(NAME_FS_POSIX, "."), NAME_TRAILING);
	CHECK_INT(check(NAME_FS_POSIX, ".."), NAME_TRAILING);
	CHECK_INT(check(NAME_FS_POSIX, "..."), NAME_OK);
	CHECK_INT(check(NAME_FS_POSIX, ""), NAME_EMPTY);
	CHECK_INT(check(NAME_FS_EXFAT, ""), NAME_EMPTY);
}

TEST(reserved_device_names)
{
	const char *dev[] = { "CON", "prn", "Aux", "nul", "COM1", "com9", "LPT1", "lpt9",
			      "con.txt", "NUL.tar.gz", "con .txt", "COM\xc2\xb9", "lpt\xc2\xb3.x" };
	const char *ok[] = { "CONSOLE", "con_", "COM0", "COM10", "LPT", "nul-x", "xcon", "COM",
			     "aux_.txt", "_con", "COM\xc2\xb4" };

	for (size_t f = 0; f < ARRAY_SIZE(win); f++) {
		for (size_t i = 0; i < ARRAY_SIZE(dev); i++)
			if (check(win[f], dev[i]) != NAME_RESERVED)
				FAIL_AT("%s: '%s' not reserved", name_fs_id(win[f]), dev[i]);
		for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
			if (check(win[f], ok[i]) != NAME_OK)
				FAIL_AT("%s: '%s' refused", name_fs_id(win[f]), ok[i]);
	}
	CHECK_INT(check(NAME_FS_POSIX, "CON"), NAME_OK);
}

TEST(length_in_bytes_and_units)
{
	char name[600];

	memset(name, 'a', sizeof(name));
	CHECK_INT(name_check(NAME_FS_EXFAT, name, 255, NULL), NAME_OK);
	CHECK_INT(name_check(NAME_FS_POSIX, name, 255, NULL), NAME_OK);
	CHECK_INT(name_check(NAME_FS_EXFAT, name, 256, NULL), NAME_TOO_LONG);
	CHECK_INT(name_check(NAME_FS_POSIX, name, 256, NULL), NAME_TOO_LONG);
	/* 85 three-byte characters: 255 bytes, 85 units; 86 are too many bytes */
	for (int i = 0; i < 86; i++)
		memcpy(name + 3 * i, "\xe2\x82\xac", 3); /* € */
	CHECK_INT(name_check(NAME_FS_NTFS, name, 255, NULL), NAME_OK);
	CHECK_INT(name_check(NAME_FS_NTFS, name, 258, NULL), NAME_TOO_LONG);
}

TEST(map_each_rule)
{
	for (size_t f = 0; f < ARRAY_SIZE(win); f++) {
		CHECK_STR(map(win[f], "a:b.jpg"), "a_b.jpg");
		CHECK_STR(map(win[f], "what?*.txt"), "what__.txt");
		CHECK_STR(map(win[f], "tab\there"), "tab_here");
		CHECK_STR(map(win[f], "caf\xe9.txt"), "caf_.txt");
		CHECK_STR(map(win[f], "x."), "x");
		CHECK_STR(map(win[f], "report. . "), "report");
		CHECK_STR(map(win[f], "..."), "_");
		CHECK_STR(map(win[f], "CON"), "CON_");
		CHECK_STR(map(win[f], "con.txt"), "con_.txt");
		CHECK_STR(map(win[f], "nul."), "nul_");   /* stripped, then a device */
		CHECK_STR(map(win[f], "COM\xc2\xb9.x"), "COM\xc2\xb9_.x");
		CHECK_STR(map(win[f], "fine name.jpg"), "fine name.jpg");
	}
	CHECK_STR(map(NAME_FS_POSIX, "a:b."), "a:b.");
	CHECK_STR(map(NAME_FS_POSIX, "."), "_");
	CHECK_STR(map(NAME_FS_POSIX, ".."), "__");
}

TEST(map_shortens_keeping_the_extension)
{
	char name[400], out[NAME_BUF];
	size_t n;

	memset(name, 'x', 300);
	memcpy(name + 300, ".jpeg", 6);
	n = name_map(NAME_FS_EXFAT, name, 305, out);
	CHECK_INT(n, 255);
	CHECK_STR(out + 250, ".jpeg");
	/* a cut never splits a character: 100 x "é" (200 bytes) + 100 'y' */
	for (int i = 0; i < 100; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	memset(name + 200, 'y', 100);
	memcpy(name + 300, ".txt", 5);
	n = name_map(NAME_FS_FAT, name, 304, out);
	CHECK(n <= 255);
	CHECK_STR(out + n - 4, ".txt");
	CHECK_INT(check(NAME_FS_FAT, out), NAME_OK);
	/* é all the way: the cut lands inside one */
	for (int i = 0; i < 150; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	name[300] = '\0';
	n = name_map(NAME_FS_NTFS, name, 300, out);
	CHECK_INT(n, 254);
	CHECK_INT(check(NAME_FS_NTFS, out), NAME_OK);
	/* POSIX names are bytes: 300 UTF-8 continuation bytes are cut where
	 * asked, not backed off to nothing (found by fuzz_name_rules) */
	memset(name, 0xac, 300);
	name[300] = '.';
	n = name_map(NAME_FS_POSIX, name, 301, out);
	CHECK(n >= 250);
	CHECK_INT(name_check(NAME_FS_POSIX, out, n, NULL), NAME_OK);
	/* a long extension is not one: the name is just cut */
	memset(name, 'a', 200);
	name[200] = '.';
	memset(name + 201, 'b', 100);
	n = name_map(NAME_FS_EXFAT, name, 301, out);
	CHECK_INT(n, 255);
	CHECK_INT(out[254], 'b');
}

TEST(map_invariants)
{
	const char *samples[] = { "a:b", "CON", "con.", "x. ", "...", " ", "\x01\x02", "\xff\xfe",
				  "a\0b", "aux .txt", "\xc2\xb9", "com\xc2\xb9", "ok.jpg", "/", "",
				  "lpt1.", "\xe2\x82" };
	const enum name_fs all[] = { NAME_FS_POSIX, NAME_FS_FAT, NAME_FS_EXFAT, NAME_FS_NTFS,
				     NAME_FS_FUSEBLK, NAME_FS_FUSEFAT };
	char once[NAME_BUF], twice[NAME_BUF];

	for (size_t f = 0; f < ARRAY_SIZE(all); f++)
		for (size_t i = 0; i < ARRAY_SIZE(samples); i++) {
			/* "a\0b" with its NUL */
			size_t len = strlen(samples[i]) + (samples[i][0] == 'a' && !samples[i][1] ? 2 : 0);
			size_t n = name_map(all[f], samples[i], len, once);

			if (name_check(all[f], once, n, NULL) != NAME_OK)
				FAIL_AT("%s: map('%s') = '%s' is refused", name_fs_id(all[f]),
					samples[i], once);
			name_map(all[f], once, n, twice);
			if (strcmp(once, twice) != 0)
				FAIL_AT("%s: map not idempotent on '%s'", name_fs_id(all[f]), once);
		}
}

TEST(numbered_variants)
{
	char out[NAME_BUF], name[300];
	size_t n;

	name_numbered(NAME_FS_EXFAT, "a.jpg", 2, out);
	CHECK_STR(out, "a (2).jpg");
	name_numbered(NAME_FS_EXFAT, "README", 13, out);
	CHECK_STR(out, "README (13)");
	name_numbered(NAME_FS_EXFAT, "a.tar.gz", 3, out);
	CHECK_STR(out, "a.tar (3).gz");
	name_numbered(NAME_FS_EXFAT, ".hidden", 2, out);
	CHECK_STR(out, ".hidden (2)");
	memset(name, 'z', 251);
	memcpy(name + 251, ".jpg", 5);
	n = name_numbered(NAME_FS_NTFS, name, 2, out);
	CHECK_INT(n, 255);
	CHECK_STR(out + 247, " (2).jpg");
	CHECK_INT(check(NAME_FS_NTFS, out), NAME_OK);
}

TEST(collision_keys)
{
	struct { const char *a, *b; bool same; } cases[] = {
		{ "A.JPG", "a.jpg", true },
		{ "été", "ÉTÉ", true },              /* Latin-1 */
		{ "Łódź", "łÓDŹ", true },            /* Latin Extended-A */
		{ "Ωμέγα", "ΩΜΈΓΑ", true },          /* Greek */
		{ "Москва", "МОСКВА", true },        /* Cyrillic */
		{ "straße", "STRASSE", false },      /* no special casing */
		{ "\xf0\x90\x90\xa8", "\xf0\x90\x90\x80", false }, /* Deseret: not in the BMP */
		{ "a.jpg", "a.jpeg", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *ka = name_key(NAME_FS_EXFAT, cases[i].a, strlen(cases[i].a));
		char *kb = name_key(NAME_FS_EXFAT, cases[i].b, strlen(cases[i].b));

		if ((strcmp(ka, kb) == 0) != cases[i].same)
			FAIL_AT("'%s' and '%s' %s", cases[i].a, cases[i].b,
				cases[i].same ? "differ" : "clash");
		free(ka);
		free(kb);
	}
	char *ka = name_key(NAME_FS_POSIX, "A", 1), *kb = name_key(NAME_FS_POSIX, "a", 1);

	CHECK(strcmp(ka, kb) != 0);
	free(ka);
	free(kb);
	ka = name_key(NAME_FS_FAT, "\xff" "a", 2);
	CHECK_STR(ka, "\xff" "A");
	free(ka);
}

/* fusefat: FAT's rules, and nothing outside ASCII; the mapping gives each
 * such character one '_' (not one per byte) and keeps the rest. */
TEST(fusefat_ascii_only)
{
	unsigned char ch = 0;
	char out[NAME_BUF];
	size_t n;

	CHECK_INT(fs_traits_lookup(FS_FUSEBLK, "fuseblk", "vfat")->names, NAME_FS_FUSEFAT);
	CHECK_STR(name_fs_id(NAME_FS_FUSEFAT), "fusefat");
	CHECK(name_fs_folds_case(NAME_FS_FUSEFAT));
	CHECK_INT(name_check(NAME_FS_FUSEFAT, "\xc3\xa9t\xc3\xa9", 6, &ch), NAME_BAD_CHAR);
	CHECK_INT(ch, 0xc3);
	CHECK_INT(check(NAME_FS_FUSEFAT, "a:b"), NAME_BAD_CHAR);
	CHECK_INT(check(NAME_FS_FUSEFAT, "caf\xe9"), NAME_BAD_ENCODING);
	CHECK_INT(check(NAME_FS_FUSEFAT, "CON.txt"), NAME_RESERVED);
	CHECK_INT(check(NAME_FS_FUSEFAT, "IMG_0001.JPG"), NAME_OK);
	CHECK_INT(check(NAME_FS_FAT, "\xc3\xa9t\xc3\xa9"), NAME_OK);
	n = name_map(NAME_FS_FUSEFAT, "\xc3\xa9t\xc3\xa9 \xe2\x82\xac.jpg", 13, out);
	CHECK_INT(n, 9);
	CHECK_STR(out, "_t_ _.jpg");
	CHECK_INT(check(NAME_FS_FUSEFAT, out), NAME_OK);
}

int main(void)
{
	TEST_PLAN(12);
	RUN(family_of_mounts);
	RUN(refused_characters);
	RUN(encoding);
	RUN(trailing_dots_and_spaces);
	RUN(reserved_device_names);
	RUN(length_in_bytes_and_units);
	RUN(map_each_rule);
	RUN(map_shortens_keeping_the_extension);
	RUN(map_invariants);
	RUN(numbered_variants);
	RUN(collision_keys);
	RUN(fusefat_ascii_only);
	return test_summary();
}
