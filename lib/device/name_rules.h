/* name_rules.h: which file names a destination filesystem can hold, and
 * the deterministic renaming that makes any name fit.
 *
 * FAT (vfat), exFAT and NTFS keep names as UTF-16 and are read by Windows,
 * so they share one rule set (the Win32 rules, which the Linux drivers
 * enforce in part: vfat and exfat-fuse refuse the characters below,
 * ntfs-3g with windows_names refuses all of it):
 *   - valid UTF-8 (the names are converted to UTF-16);
 *   - none of the control characters U+0000-U+001F nor " * / : < > ? \ |;
 *   - no trailing '.' or ' ' (Windows strips them, the Linux vfat and
 *     exfat drivers strip trailing dots: the name would become another);
 *   - not a DOS device name: CON PRN AUX NUL COM1-9 LPT1-9 (and COM¹²³,
 *     LPT¹²³), in any case, also with an extension ("nul.txt");
 *   - at most 255 bytes (Linux NAME_MAX) and 255 UTF-16 code units;
 *   - names that differ only in case are one name: the key is the simple
 *     Unicode uppercase of each BMP code point (libunistring's
 *     uc_toupper), as the filesystems' up-case tables do.
 * Other filesystems (NAME_FS_POSIX) take any byte but NUL and '/', up to
 * 255 bytes, and are case-sensitive.
 *
 * Pure: no system calls, no allocation but name_key(), so unit tests and
 * the fuzzer drive it directly.  Names are (pointer, length): the fuzzer
 * feeds NUL and '/' too, which every family refuses. */
#ifndef SAFECP_NAME_RULES_H
#define SAFECP_NAME_RULES_H

#include <stdbool.h>
#include <stddef.h>


enum name_fs {
	NAME_FS_POSIX = 0, /* ext4, xfs, btrfs, tmpfs...: bytes, case-sensitive */
	NAME_FS_FAT,       /* vfat, msdos, fusefat */
	NAME_FS_EXFAT,     /* in-kernel exfat, exfat-fuse */
	NAME_FS_NTFS,      /* ntfs-3g, ntfs3 */
	NAME_FS_FUSEBLK,   /* fuseblk whose type blkid could not tell (no root):
			    * exfat-fuse or ntfs-3g, the same rules */
	NAME_FS_FUSEFAT,   /* fusefat: FAT's rules and ASCII only (it cannot
			    * create a name with a byte above 0x7f, and a
			    * rename to one removes the file: doc/kernel.md 1.5) */
};

/* "posix", "fat", "exfat", "ntfs", "fuseblk", "fusefat": for JSON and tests. */
const char *name_fs_id(enum name_fs fs);

/* Are names that differ only in case one name there? */
bool name_fs_folds_case(enum name_fs fs);

#define NAME_MAX_BYTES 255 /* Linux NAME_MAX, every family */
#define NAME_MAX_UNITS 255 /* UTF-16 code units: FAT LFN, exFAT, NTFS */
#define NAME_BUF (NAME_MAX_BYTES + 1) /* a mapped name and its NUL */

enum name_problem {
	NAME_OK = 0,
	NAME_EMPTY,
	NAME_BAD_ENCODING, /* not valid UTF-8 (Windows families only) */
	NAME_BAD_CHAR,     /* a character the family refuses: *ret_char */
	NAME_TOO_LONG,     /* over NAME_MAX_BYTES or NAME_MAX_UNITS */
	NAME_TRAILING,     /* ends in '.' or ' ' (POSIX: "." and "..") */
	NAME_RESERVED,     /* a DOS device name, with or without extension */
};

/* "empty", "encoding", "character", "too-long", "trailing", "reserved" */
const char *name_problem_id(enum name_problem p);

/* The first problem of name (len bytes) on fs, in the order of the enum;
 * for NAME_BAD_CHAR *ret_char (may be NULL) gets the offending byte. */
enum name_problem name_check(enum name_fs fs, const char *name, size_t len,
			     unsigned char *ret_char);

/* The --rename-invalid mapping, into out (NAME_BUF bytes, NUL-terminated);
 * returns the length.  In this order, until the name passes name_check:
 * each byte of an invalid UTF-8 sequence and each refused character
 * becomes '_' (fusefat: each character outside ASCII too); a name that is too long is cut at a character boundary,
 * keeping its extension (the part from the last '.', when that is not
 * the first byte and is at most NAME_EXT_MAX bytes); trailing dots and
 * spaces are removed (nothing left: "_"); a device name gets '_' after
 * the device word ("con.txt" -> "con_.txt").  A valid name maps to
 * itself, so the mapping is idempotent.  POSIX: NUL and '/' become '_',
 * "." and ".." become "_" and "__". */
#define NAME_EXT_MAX 16
size_t name_map(enum name_fs fs, const char *name, size_t len, char out[NAME_BUF]);

/* A valid name with " (n)" before its extension ("a.jpg" 2 -> "a (2).jpg"),
 * the part before it cut to fit; the result passes name_check.  Returns
 * its length. */
size_t name_numbered(enum name_fs fs, const char *name, unsigned long n, char out[NAME_BUF]);

/* The collision key (malloc'd, NUL-terminated; NULL when out of memory):
 * two names clash on fs iff their keys are equal.  Case-sensitive
 * families: the name itself. */
char *name_key(enum name_fs fs, const char *name, size_t len);

#endif
