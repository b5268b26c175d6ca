/* unpack_list.h: an archive's entries, read once and checked before the
 * first byte is written (safecp --unpack's first pass).
 *
 * unpack_scan() opens an archive with libarchive, enabling only what we
 * support (tar in its variants: ustar, pax, GNU, v7; zip, read through its
 * central directory; the gzip, bzip2, xz and zstd filters), reads every
 * header once without the data (tar: a pass over the file, cheap next to
 * a slow stick; zip: the central directory) and hands the list to
 * unpack_rules_check(), which marks each entry that may not be written
 * with the kind of refusal.  libarchive's ARCHIVE_EXTRACT_SECURE_* flags
 * live only in its own disk writer, which we do not use: these rules are
 * ours, and stricter.
 *
 * The rules (each refusal is an enum unpack_refusal on the entry, with
 * the entry's path as the archive spells it, for the command's words):
 * - a path is relative, at most PATH_MAX - 1 bytes, each component at
 *   most NAME_MAX bytes, and so is a link target (at most PATH_MAX - 1):
 *   checked as the header is listed, so a name past these is never kept
 *   whole (libarchive gives names up to 1 MiB: 1000 of them would be a
 *   gigabyte), only its first UNPACK_NAME_PREFIX bytes for the message;
 *   no ".." component; no empty one ("a//b");
 *   "." components are dropped ("./a" is "a") and one trailing '/' is a
 *   directory's; an entry that names the top itself ("./") is the
 *   destination and is left out, not refused;
 * - no character that utf8_unsafe() names (util/utf8.h: C0 and C1
 *   controls, DEL, the invisible and bidirectional format characters,
 *   bytes that are not well-formed UTF-8) in a path or a link target: a
 *   name that rewrites the user's terminal, or looks like another, is
 *   never a name anyone meant.  NUL cannot reach us: libarchive ends a
 *   name at it;
 * - regular files, directories, symlinks and hardlinks only: devices,
 *   FIFOs and sockets are refused, and so is a mode with setuid, setgid
 *   or sticky bits (refused, not stripped: the archive asked for them);
 * - a symlink's target is relative and not empty, its ".." components
 *   all lead (no "a/../.."), and there are no more of them than the
 *   link's directory is deep: a link that points out of DEST is the
 *   escape the next program to follow it makes.  ".." only in front
 *   keeps the check sound when the target passes through other links:
 *   each of those is checked the same way, and every ".." is taken from
 *   a real directory (a symlink "b" -> "." makes "b/../.." climb two
 *   levels where the words climb one);
 * - no entry's path passes through another entry that is not a
 *   directory: a symlink (from wherever in the archive it comes: a
 *   symlink then a file through it, CVE-2021-31566's directory replaced
 *   by a symlink) or a regular file;
 * - one entry per path: a second one is refused (a file then a symlink
 *   of the same name); a directory listed twice is one directory;
 * - a hardlink names an earlier, accepted regular file of its archive
 *   (a chain of hardlinks is followed to it); it is written as a copy
 *   of that file's bytes, so no destination filesystem needs links;
 * - sizes are known from the headers (tar: always; zip: the central
 *   directory) and not negative; the total is the plan's, which
 *   plan_check() caps at the destination's free space; an encrypted
 *   entry is refused.
 * What the destination filesystem cannot hold (FAT/exFAT/NTFS names,
 * case collisions) and what is already on the destination (a symlink
 * where a directory goes) are the plan's (plan_names.c, plan_view.c),
 * checked for an archive as for any copy. */
#ifndef SAFECP_UNPACK_LIST_H
#define SAFECP_UNPACK_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

enum unpack_type {
	UNPACK_FILE,
	UNPACK_DIR,
	UNPACK_SYMLINK,
	UNPACK_HARDLINK,
	UNPACK_CHAR_DEVICE,
	UNPACK_BLOCK_DEVICE,
	UNPACK_FIFO,
	UNPACK_SOCKET,
	UNPACK_OTHER,       /* a type libarchive reports that is none of these */
};

enum unpack_refusal {
	UNPACK_OK = 0,
	UNPACK_ABSOLUTE,     /* the path starts with '/' */
	UNPACK_DOTDOT,       /* a ".." component */
	UNPACK_EMPTY_PART,   /* an empty component ("a//b"), or an empty path */
	UNPACK_CONTROL_BYTE, /* a control, invisible or bidirectional character,
			      * or bytes not UTF-8, in the path or the link target */
	UNPACK_TOO_LONG,     /* path or link target past PATH_MAX - 1 or a
			      * component past NAME_MAX (raw and link: cut) */
	UNPACK_SPECIAL,      /* a device, FIFO, socket or unknown type (see type) */
	UNPACK_SETID,        /* setuid, setgid or sticky bits in the mode */
	UNPACK_LINK_ESCAPES, /* a symlink's target is absolute, empty or leaves DEST */
	UNPACK_THROUGH_LINK, /* the path passes through a symlink of the archive (other) */
	UNPACK_THROUGH_FILE, /* the path passes through a non-directory entry (other) */
	UNPACK_DUPLICATE,    /* an earlier entry has the same path (other) */
	UNPACK_HARDLINK_OUTSIDE, /* the hardlink's target is no accepted regular
				  * file of the archive (link: the target) */
	UNPACK_HARDLINK_LATER,   /* the hardlink's target comes later (other) */
	UNPACK_SIZE,         /* a regular file whose size is unknown or negative */
	UNPACK_ENCRYPTED,    /* the entry's data or metadata is encrypted */
};

/* "absolute", "dotdot", ...: for JSON events and tests. */
const char *unpack_refusal_name(enum unpack_refusal r);

struct unpack_entry {
	char *raw;          /* the path as the archive has it (messages); when
			     * cut, its first UNPACK_NAME_PREFIX bytes */
	size_t raw_len;     /* the length of the whole path in the archive */
	bool cut;           /* raw (and link) are prefixes: UNPACK_TOO_LONG */
	char *path;         /* checked and normalised: "a/b", no '/' at either end;
			     * NULL when the path itself is refused */
	enum unpack_type type;
	mode_t perm;        /* permission bits as the archive has them (07777) */
	int64_t size;       /* UNPACK_FILE: bytes; a hardlink: its target's */
	bool size_known;
	struct timespec mtime;
	bool mtime_known;
	char *link;         /* symlink target, or a hardlink's (normalised) */
	size_t index;       /* in the list: header order, archive after archive */
	unsigned archive;   /* which archive of the list holds it */
	size_t ar_index;    /* header order in that archive, from 0 */
	size_t data_from;   /* whose data it is: its own index, or a
			     * hardlink's final regular file */
	bool encrypted;
	bool top;           /* names the destination itself ("./"): left out */
	bool repeat;        /* a directory listed again: the same as other */
	enum unpack_refusal refusal;
	size_t other;       /* the entry the refusal is about, or SIZE_MAX */
};

/* Archive-level failures: the archive as a whole cannot be listed. */
enum unpack_scan_error {
	UNPACK_SCAN_OK = 0,
	UNPACK_SCAN_OPEN,        /* cannot open or read the file (err) */
	UNPACK_SCAN_FORMAT,      /* not an archive of a supported format or filter */
	UNPACK_SCAN_CORRUPT,     /* a header could not be read (detail) */
	UNPACK_SCAN_TOO_MANY,    /* more than UNPACK_MAX_ENTRIES entries */
	UNPACK_SCAN_NAMES,       /* more than UNPACK_MAX_NAME_BYTES of names */
};

/* A list this long (a zip central directory that claims millions of empty
 * files costs 46 bytes each) is refused rather than held in memory. */
#define UNPACK_MAX_ENTRIES 1000000u

/* The names the list keeps (paths and link targets, each under PATH_MAX)
 * add up to this at most: 10^6 entries of 4 KiB paths would be 8 GiB.
 * 256 MiB is 65536 entries at the longest, a million at 268 bytes. */
#define UNPACK_MAX_NAME_BYTES (256u << 20)

/* What is kept of a name too long to keep, for the message. */
#define UNPACK_NAME_PREFIX 64u

/* Several archives unpacked to one destination are one list, checked as
 * one: a symlink from the first and a file through it from the second
 * would meet on the destination. */
struct unpack_list {
	struct unpack_entry *entries; /* in archive order, archive after archive */
	size_t n_entries;
	size_t cap;
	size_t n_refused;
	uint64_t total_bytes;   /* sizes of the accepted regular files and hardlinks */
	size_t name_bytes;      /* bytes of raw and link kept, all entries */
	char *format;           /* libarchive's name of the format ("POSIX pax
				 * interchange format"): data, for messages */
	char **archives;        /* the archives' paths, as given */
	int *pins;              /* each archive held since its scan (an O_PATH
				 * fd, unpack_open.h), or -1 (in memory) */
	unsigned n_archives;
	size_t cap_archives, cap_pins; /* room in archives, pins (util/grow.h) */
	/* the scan's failure, when unpack_list_scan() returns < 0, of the
	 * last archive scanned */
	enum unpack_scan_error error;
	int err;                /* errno of it, or 0 */
	char *detail;           /* libarchive's own text for it, or NULL */
};

/* Append the headers of the archive at path to l, unchecked (call
 * unpack_rules_check() once every archive is in).  Returns 0, -ENOMEM,
 * or -EINVAL/-errno with l->error set. */
int unpack_list_scan(struct unpack_list *l, const char *path);

/* One archive: a new list in *ret (always allocated: free it with
 * unpack_list_free(), also after a failure, whose kind is in ret's
 * error), scanned and checked.  Returns 0 (entries may still be
 * refused: n_refused), -ENOMEM, or -EINVAL/-errno with ret->error set. */
int unpack_scan(const char *path, struct unpack_list **ret);

/* The same from bytes in memory (the fuzz harness and unit tests). */
int unpack_scan_memory(const void *buf, size_t len, struct unpack_list **ret);

/* An empty list; entries are added with unpack_list_add(), which copies
 * raw and link (link may be NULL) and numbers them, into the archive
 * last added with unpack_list_add_archive() (none: archive 0).  A path
 * or link target too long to write (see the rules) is kept as a prefix
 * and the entry marked cut.  unpack_list_add() returns 0, -ENOMEM,
 * -E2BIG (UNPACK_MAX_ENTRIES) or -EFBIG (UNPACK_MAX_NAME_BYTES). */
struct unpack_list *unpack_list_new(void);
int unpack_list_add_archive(struct unpack_list *l, const char *path);
int unpack_list_add(struct unpack_list *l, const char *raw, enum unpack_type type, mode_t perm,
		    int64_t size, bool size_known, const char *link);
void unpack_list_free(struct unpack_list *l);

/* Apply the rules above to every entry of l: fills path, refusal, other,
 * data_from, n_refused and total_bytes.  Pure (no system calls), so the
 * rules are tested on lists made by hand.  Returns 0 or -ENOMEM. */
int unpack_rules_check(struct unpack_list *l);

/* The entry that holds path (accepted, normalised), or NULL. */
const struct unpack_entry *unpack_list_find(const struct unpack_list *l, const char *path);

#endif
