/* test_unpack_rules.c: --unpack's first pass (lib/archive/unpack_list.h).
 *
 * The rules on lists made by hand (each rule, and the pairs of entries
 * the known extraction bugs use), then unpack_scan_memory() on tar and
 * zip archives written here with libarchive, so the types, modes, links
 * and sizes the scan reads are the ones a real archive holds. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/unpack_list.h"
#include "test.h"

#define F UNPACK_FILE
#define D UNPACK_DIR
#define L UNPACK_SYMLINK
#define H UNPACK_HARDLINK

static struct unpack_list *list;

static void add(const char *raw, enum unpack_type t, mode_t perm, const char *link)
{
	if (!list)
		list = unpack_list_new();
	CHECK_INT(unpack_list_add(list, raw, t, perm, t == F ? 10 : 0, true, link), 0);
}

static void check(void)
{
	CHECK_INT(unpack_rules_check(list), 0);
}

static void done(void)
{
	unpack_list_free(list);
	list = NULL;
}

#define REFUSED(i, kind) CHECK_STR(unpack_refusal_name(list->entries[i].refusal), unpack_refusal_name(kind))

/* One entry alone, refused (or not) for kind. */
static enum unpack_refusal alone(const char *raw, enum unpack_type t, mode_t perm, const char *link)
{
	enum unpack_refusal r;

	add(raw, t, perm, link);
	check();
	r = list->entries[0].refusal;
	done();
	return r;
}

TEST(own_paths)
{
	CHECK_INT(alone("a/b.txt", F, 0644, NULL), UNPACK_OK);
	CHECK_INT(alone("/etc/passwd", F, 0644, NULL), UNPACK_ABSOLUTE);
	CHECK_INT(alone("/", D, 0755, NULL), UNPACK_ABSOLUTE);
	CHECK_INT(alone("../x", F, 0644, NULL), UNPACK_DOTDOT);
	CHECK_INT(alone("a/../../x", F, 0644, NULL), UNPACK_DOTDOT);
	CHECK_INT(alone("a/..", D, 0755, NULL), UNPACK_DOTDOT);
	CHECK_INT(alone("a//b", F, 0644, NULL), UNPACK_EMPTY_PART);
	CHECK_INT(alone("a//", D, 0755, NULL), UNPACK_EMPTY_PART);
	CHECK_INT(alone("", F, 0644, NULL), UNPACK_EMPTY_PART);
	CHECK_INT(alone("a\033[2Jb", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("tab\there", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("del\177", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("caf\xc3\xa9", F, 0644, NULL), UNPACK_OK); /* UTF-8 is the plan's */
	char longname[300];
	memset(longname, 'n', 256);
	longname[256] = '\0';
	CHECK_INT(alone(longname, F, 0644, NULL), UNPACK_TOO_LONG);
	longname[255] = '\0';
	CHECK_INT(alone(longname, F, 0644, NULL), UNPACK_OK);
}

TEST(normalised)
{
	add("./", D, 0755, NULL);
	add("./a/", D, 0755, NULL);
	add("./a/./b", F, 0644, NULL);
	add(".", D, 0755, NULL);
	check();
	CHECK(list->entries[0].top && !list->entries[0].path);
	CHECK_INT(list->entries[0].refusal, UNPACK_OK);
	CHECK_STR(list->entries[1].path, "a");
	CHECK_STR(list->entries[2].path, "a/b");
	CHECK(list->entries[3].top);
	CHECK_INT(list->n_refused, 0);
	CHECK_U64(list->total_bytes, 10);
	done();
}

TEST(types_and_modes)
{
	CHECK_INT(alone("dev", UNPACK_CHAR_DEVICE, 0644, NULL), UNPACK_SPECIAL);
	CHECK_INT(alone("blk", UNPACK_BLOCK_DEVICE, 0644, NULL), UNPACK_SPECIAL);
	CHECK_INT(alone("fifo", UNPACK_FIFO, 0644, NULL), UNPACK_SPECIAL);
	CHECK_INT(alone("sock", UNPACK_SOCKET, 0644, NULL), UNPACK_SPECIAL);
	CHECK_INT(alone("what", UNPACK_OTHER, 0644, NULL), UNPACK_SPECIAL);
	CHECK_INT(alone("suid", F, 04755, NULL), UNPACK_SETID);
	CHECK_INT(alone("sgid", F, 02755, NULL), UNPACK_SETID);
	CHECK_INT(alone("sgid-dir", D, 02775, NULL), UNPACK_SETID);
	CHECK_INT(alone("sticky", D, 01777, NULL), UNPACK_SETID);
	CHECK_INT(alone("exec", F, 0755, NULL), UNPACK_OK);
	list = unpack_list_new();
	CHECK_INT(unpack_list_add(list, "nosize", F, 0644, 0, false, NULL), 0);
	CHECK_INT(unpack_list_add(list, "negative", F, 0644, -5, true, NULL), 0);
	CHECK_INT(unpack_list_add(list, "secret", F, 0644, 5, true, NULL), 0);
	list->entries[2].encrypted = true;
	check();
	REFUSED(0, UNPACK_SIZE);
	REFUSED(1, UNPACK_SIZE);
	REFUSED(2, UNPACK_ENCRYPTED);
	CHECK_U64(list->total_bytes, 0);
	done();
}

TEST(symlink_targets)
{
	CHECK_INT(alone("l", L, 0777, "target"), UNPACK_OK);
	CHECK_INT(alone("a/l", L, 0777, "../b/c"), UNPACK_OK);
	CHECK_INT(alone("a/b/l", L, 0777, "../../c"), UNPACK_OK);
	CHECK_INT(alone("a/l", L, 0777, "./x/./y"), UNPACK_OK);
	CHECK_INT(alone("l", L, 0777, "/etc/passwd"), UNPACK_LINK_ESCAPES);
	CHECK_INT(alone("l", L, 0777, ".."), UNPACK_LINK_ESCAPES);
	CHECK_INT(alone("a/l", L, 0777, "../../x"), UNPACK_LINK_ESCAPES);
	CHECK_INT(alone("l", L, 0777, ""), UNPACK_LINK_ESCAPES);
	CHECK_INT(alone("l", L, 0777, NULL), UNPACK_LINK_ESCAPES);
	/* ".." after a name: with b -> "." it climbs further than it reads */
	CHECK_INT(alone("d/l", L, 0777, "b/../.."), UNPACK_LINK_ESCAPES);
	CHECK_INT(alone("d/l", L, 0777, "b/.."), UNPACK_LINK_ESCAPES);
	CHECK_INT(alone("l", L, 0777, "x\ny"), UNPACK_CONTROL_BYTE);
}

/* a symlink, then a file through it; also the symlink later */
TEST(through_symlink)
{
	add("link", L, 0777, "sub");
	add("link/file", F, 0644, NULL);
	add("d/f", F, 0644, NULL);
	add("d", L, 0777, "elsewhere");
	add("dd/x/y/z", F, 0644, NULL);
	add("dd/x", L, 0777, "y");
	check();
	REFUSED(0, UNPACK_OK);
	REFUSED(1, UNPACK_THROUGH_LINK);
	CHECK_U64(list->entries[1].other, 0);
	REFUSED(2, UNPACK_THROUGH_LINK);
	CHECK_U64(list->entries[2].other, 3);
	REFUSED(4, UNPACK_THROUGH_LINK);
	CHECK_INT(list->n_refused, 3);
	done();
}

/* CVE-2021-31566: a directory, then a symlink of the same name, then
 * entries (and metadata) meant to land through it */
TEST(directory_replaced_by_symlink)
{
	add("dir/", D, 0755, NULL);
	add("dir", L, 0777, "../../victim");
	add("dir/file", F, 0644, NULL);
	add("x", F, 0644, NULL);
	add("x", L, 0777, "y");
	add("e/", D, 0755, NULL);
	add("e", L, 0777, "f");
	add("e/g", F, 0644, NULL);
	add("d2/", D, 0700, NULL);
	add("d2", D, 0755, NULL);
	check();
	REFUSED(0, UNPACK_OK);
	REFUSED(1, UNPACK_LINK_ESCAPES); /* also a duplicate: its own rules come first */
	REFUSED(2, UNPACK_OK);        /* into the real directory: dir is no link */
	REFUSED(3, UNPACK_OK);
	REFUSED(4, UNPACK_DUPLICATE);
	CHECK_U64(list->entries[4].other, 3);
	REFUSED(6, UNPACK_DUPLICATE);
	CHECK_U64(list->entries[6].other, 5);
	REFUSED(7, UNPACK_OK);
	REFUSED(9, UNPACK_OK);
	CHECK(list->entries[9].repeat);
	CHECK_U64(list->entries[9].other, 8);
	CHECK(!list->entries[8].repeat);
	done();
}

TEST(through_file)
{
	add("f", F, 0644, NULL);
	add("f/g", F, 0644, NULL);
	check();
	REFUSED(1, UNPACK_THROUGH_FILE);
	done();
}

TEST(hardlinks)
{
	add("a", F, 0644, NULL);
	add("h1", H, 0644, "a");
	add("h2", H, 0644, "./h1");
	add("h3", H, 0644, "later");
	add("later", F, 0644, NULL);
	add("h4", H, 0644, "/etc/shadow");
	add("h5", H, 0644, "../outside");
	add("h6", H, 0644, "missing");
	add("s", L, 0777, "a");
	add("h7", H, 0644, "s");
	add("bad", F, 04755, NULL);
	add("h8", H, 0644, "bad");
	add("h9", H, 0644, "h9");
	add("h10", H, 0644, NULL);
	check();
	REFUSED(1, UNPACK_OK);
	CHECK_U64(list->entries[1].data_from, 0);
	CHECK_INT(list->entries[1].size, 10);
	REFUSED(2, UNPACK_OK);
	CHECK_U64(list->entries[2].data_from, 0);
	CHECK_STR(list->entries[2].link, "h1");
	REFUSED(3, UNPACK_HARDLINK_LATER);
	CHECK_U64(list->entries[3].other, 4);
	REFUSED(5, UNPACK_HARDLINK_OUTSIDE);
	REFUSED(6, UNPACK_HARDLINK_OUTSIDE);
	REFUSED(7, UNPACK_HARDLINK_OUTSIDE);
	REFUSED(9, UNPACK_HARDLINK_OUTSIDE);
	REFUSED(11, UNPACK_HARDLINK_OUTSIDE);
	REFUSED(12, UNPACK_HARDLINK_LATER);
	REFUSED(13, UNPACK_HARDLINK_OUTSIDE);
	/* a, h1, h2, later: 4 files of 10 bytes */
	CHECK_U64(list->total_bytes, 40);
	done();
}

/* Two archives are one list: a link from the first and a file through it
 * from the second meet on the destination; a hardlink reaches into its
 * own archive only; a directory in both is one. */
TEST(several_archives)
{
	list = unpack_list_new();
	CHECK_INT(unpack_list_add_archive(list, "one.tar"), 0);
	add("d/", D, 0755, NULL);
	add("link", L, 0777, "d");
	add("f", F, 0644, NULL);
	CHECK_INT(unpack_list_add_archive(list, "two.tar"), 0);
	add("d/", D, 0755, NULL);
	add("link/x", F, 0644, NULL);
	add("h", H, 0644, "f");
	add("f", F, 0644, NULL);
	check();
	CHECK_INT(list->entries[3].archive, 1);
	CHECK_INT(list->entries[3].ar_index, 0);
	CHECK_INT(list->entries[5].ar_index, 2);
	CHECK(list->entries[3].repeat);
	REFUSED(4, UNPACK_THROUGH_LINK);
	REFUSED(5, UNPACK_HARDLINK_OUTSIDE);
	REFUSED(6, UNPACK_DUPLICATE);
	CHECK_U64(list->entries[6].other, 2);
	done();
}

/* Archives written with libarchive, read back by the scan. */
static char *buf;
static size_t used;

static struct archive *writer(int format, int filter)
{
	struct archive *a = archive_write_new();

	archive_write_set_format(a, format);
	if (filter)
		archive_write_add_filter(a, filter);
	free(buf);
	buf = malloc(1 << 20);
	archive_write_open_memory(a, buf, 1 << 20, &used);
	return a;
}

static void put(struct archive *a, const char *path, mode_t type, mode_t perm, const char *link,
		const char *data)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_mtime(e, 1700000000, 123456789);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, link);
	else if (link)
		archive_entry_set_hardlink(e, link);
	archive_entry_set_size(e, data ? (la_int64_t)strlen(data) : 0);
	CHECK_INT(archive_write_header(a, e), ARCHIVE_OK);
	if (data)
		archive_write_data(a, data, strlen(data));
	archive_entry_free(e);
}

static void scan_written(struct archive *a)
{
	CHECK_INT(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	CHECK_INT(unpack_scan_memory(buf, used, &list), 0);
}

TEST(scan_tar)
{
	struct archive *a = writer(ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE, ARCHIVE_FILTER_ZSTD);

	put(a, "top/", AE_IFDIR, 0755, NULL, NULL);
	put(a, "top/hello.txt", AE_IFREG, 0644, NULL, "hello\n");
	put(a, "top/hard", AE_IFREG, 0644, "top/hello.txt", NULL);
	put(a, "top/link", AE_IFLNK, 0777, "hello.txt", NULL);
	put(a, "top/fifo", AE_IFIFO, 0644, NULL, NULL);
	put(a, "top/suid", AE_IFREG, 04755, NULL, "x");
	put(a, "../evil", AE_IFREG, 0644, NULL, "x");
	scan_written(a);
	CHECK_INT(list->n_entries, 7);
	CHECK(list->format && strstr(list->format, "pax"));
	CHECK_INT(list->entries[0].type, D);
	CHECK_INT(list->entries[1].type, F);
	CHECK_INT(list->entries[1].size, 6);
	CHECK(list->entries[1].mtime_known);
	CHECK_INT(list->entries[1].mtime.tv_sec, 1700000000);
	CHECK_INT(list->entries[1].mtime.tv_nsec, 123456789);
	CHECK_INT(list->entries[2].type, H);
	CHECK_U64(list->entries[2].data_from, 1);
	CHECK_INT(list->entries[3].type, L);
	CHECK_STR(list->entries[3].link, "hello.txt");
	REFUSED(4, UNPACK_SPECIAL);
	REFUSED(5, UNPACK_SETID);
	REFUSED(6, UNPACK_DOTDOT);
	CHECK_INT(list->n_refused, 3);
	CHECK_U64(list->total_bytes, 12);
	done();
}

TEST(scan_zip)
{
	struct archive *a = writer(ARCHIVE_FORMAT_ZIP, 0);

	put(a, "z/", AE_IFDIR, 0755, NULL, NULL);
	put(a, "z/a.txt", AE_IFREG, 0644, NULL, "abc");
	put(a, "/abs", AE_IFREG, 0644, NULL, "abc");
	scan_written(a);
	CHECK_INT(list->n_entries, 3);
	CHECK(list->format && strstr(list->format, "ZIP"));
	CHECK_INT(list->entries[1].size, 3);
	CHECK(list->entries[1].size_known);
	REFUSED(2, UNPACK_ABSOLUTE);
	done();
}

TEST(scan_failures)
{
	static const char junk[] = "this is not an archive, not even close to one at all";

	CHECK(unpack_scan_memory(junk, sizeof(junk), &list) < 0);
	CHECK_INT(list->error, UNPACK_SCAN_FORMAT);
	done();
	CHECK(unpack_scan("/nonexistent/x.tar", &list) < 0);
	CHECK_INT(list->error, UNPACK_SCAN_OPEN);
	CHECK_INT(list->err, 2);
	done();
	CHECK(unpack_scan("/dev/null", &list) < 0);
	CHECK_INT(list->error, UNPACK_SCAN_OPEN);
	done();
	/* a tar cut short in its second header */
	struct archive *a = writer(ARCHIVE_FORMAT_TAR_USTAR, 0);
	put(a, "one", AE_IFREG, 0644, NULL, "1");
	put(a, "two", AE_IFREG, 0644, NULL, "2");
	CHECK_INT(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	memset(buf + 1024 + 148, 'x', 8); /* the second header's checksum */
	CHECK(unpack_scan_memory(buf, used, &list) < 0);
	CHECK_INT(list->error, UNPACK_SCAN_CORRUPT);
	CHECK(list->detail != NULL);
	done();
	free(buf);
	buf = NULL;
}

/* Names past PATH_MAX or NAME_MAX are refused as listed and kept only as
 * a prefix; the names the list keeps add up to UNPACK_MAX_NAME_BYTES. */
TEST(long_names)
{
	size_t big = 1u << 20;
	char *name = malloc(big + 1), *comp = malloc(NAME_MAX + 4);

	/* components of 99 bytes: only the lengths below are too long */
	for (size_t i = 0; i < big; i++)
		name[i] = i % 100 == 99 ? '/' : 'a';
	name[big] = '\0';
	add(name, F, 0644, NULL);
	name[PATH_MAX] = '\0';                      /* PATH_MAX bytes: one too many */
	add(name, F, 0644, NULL);
	memset(comp, 'b', NAME_MAX + 3);           /* one component past NAME_MAX */
	memcpy(comp, "d/", 2);
	comp[NAME_MAX + 3] = '\0';
	add(comp, F, 0644, NULL);
	add("ok", L, 0777, name);                  /* a link target of PATH_MAX bytes */
	name[PATH_MAX - 1] = '\0';                  /* the longest path and target */
	add(name, F, 0644, NULL);
	add("ok2", L, 0777, name);
	check();
	for (size_t i = 0; i < 4; i++) {
		REFUSED(i, UNPACK_TOO_LONG);
		CHECK(list->entries[i].cut);
		CHECK(strlen(list->entries[i].raw) <= UNPACK_NAME_PREFIX);
	}
	CHECK_U64(list->entries[0].raw_len, big);
	CHECK_U64(list->entries[1].raw_len, PATH_MAX);
	CHECK(strlen(list->entries[3].link) <= UNPACK_NAME_PREFIX);
	CHECK(!list->entries[4].cut && !list->entries[5].cut);
	REFUSED(4, UNPACK_OK);
	CHECK_U64(strlen(list->entries[5].link), PATH_MAX - 1);
	CHECK_U64(list->name_bytes, 3 * UNPACK_NAME_PREFIX + 2 + UNPACK_NAME_PREFIX +
		  (PATH_MAX - 1) + 3 + (PATH_MAX - 1));
	done();
	/* the cap: paths of PATH_MAX - 1 bytes until the list holds no more */
	list = unpack_list_new();
	for (size_t i = 0, n = UNPACK_MAX_NAME_BYTES / (PATH_MAX - 1); i < n; i++) {
		char head[16];

		snprintf(head, sizeof(head), "%08zu", i);
		memcpy(name, head, 8);
		CHECK_INT(unpack_list_add(list, name, F, 0644, 0, true, NULL), 0);
	}
	CHECK_INT(unpack_list_add(list, name, F, 0644, 0, true, NULL), -EFBIG);
	CHECK(list->name_bytes <= UNPACK_MAX_NAME_BYTES);
	done();
	free(name);
	free(comp);
}

/* C1 controls, bidi and invisible characters, bytes not UTF-8 (L5). */
TEST(unsafe_characters)
{
	CHECK_INT(alone("x\xc2\x9b" "2Jy", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("gpj.\xe2\x80\xae" "exe", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("a\xe2\x80\x8b" "b", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("bom\xef\xbb\xbf", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("latin1-caf\xe9", F, 0644, NULL), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("ok", L, 0777, "\xe2\x81\xa6x"), UNPACK_CONTROL_BYTE);
	CHECK_INT(alone("caf\xc3\xa9/\xf0\x9f\x93\xb7.jpg", F, 0644, NULL), UNPACK_OK);
}

/* gzip decoded here: a member's trailer is checked, also in memory (M3),
 * and a first header no reader knows is "not an archive", one the tar
 * reader cannot take is damage (L6). */
TEST(scan_gzip_and_first_header)
{
	struct archive *a = writer(ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE, ARCHIVE_FILTER_GZIP);

	put(a, "one", AE_IFREG, 0644, NULL, "1111111111");
	put(a, "two", AE_IFREG, 0644, NULL, "2222222222");
	scan_written(a);
	CHECK_INT(list->n_entries, 2);
	done();
	buf[used - 8] ^= 0x01; /* the trailer's CRC-32 */
	CHECK(unpack_scan_memory(buf, used, &list) < 0);
	CHECK_INT(list->error, UNPACK_SCAN_CORRUPT);
	CHECK_INT(list->n_entries, 2);
	CHECK(list->detail && strstr(list->detail, "incorrect data check"));
	done();
	buf[used - 8] ^= 0x01;
	buf[used - 1] ^= 0x01; /* the trailer's length */
	CHECK(unpack_scan_memory(buf, used, &list) < 0);
	CHECK_INT(list->error, UNPACK_SCAN_CORRUPT);
	done();
	CHECK(unpack_scan_memory(buf, used - 4, &list) < 0); /* cut short */
	CHECK_INT(list->error, UNPACK_SCAN_CORRUPT);
	done();
	/* a GNU long name past libarchive's 1 MiB: its first header fails */
	a = writer(ARCHIVE_FORMAT_TAR_GNUTAR, 0);
	archive_write_free(a);
	free(buf);
	used = 3 << 20;
	buf = calloc(1, used);
	memcpy(buf, "././@LongLink", 13);
	memcpy(buf + 100, "0000644", 7);
	memcpy(buf + 124, "00014000000", 11); /* 3 MiB */
	buf[156] = 'L';
	memcpy(buf + 257, "ustar  ", 8);
	{
		unsigned sum = 0;

		memset(buf + 148, ' ', 8);
		for (int i = 0; i < 512; i++)
			sum += (unsigned char)buf[i];
		snprintf(buf + 148, 8, "%06o", sum);
	}
	CHECK(unpack_scan_memory(buf, used, &list) < 0);
	CHECK_INT(list->error, UNPACK_SCAN_CORRUPT);
	CHECK_INT(list->n_entries, 0);
	done();
	free(buf);
	buf = NULL;
}

int main(void)
{
	RUN(own_paths);
	RUN(normalised);
	RUN(types_and_modes);
	RUN(symlink_targets);
	RUN(through_symlink);
	RUN(directory_replaced_by_symlink);
	RUN(through_file);
	RUN(hardlinks);
	RUN(several_archives);
	RUN(scan_tar);
	RUN(scan_zip);
	RUN(scan_failures);
	RUN(long_names);
	RUN(unsafe_characters);
	RUN(scan_gzip_and_first_header);
	return test_summary();
}
