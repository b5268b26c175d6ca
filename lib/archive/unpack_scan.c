/* unpack_scan.c: the first pass over an archive: every header read once,
 * no data (libarchive skips it: tar reads past it, the seekable zip
 * reader takes the central directory and seeks), each turned into an
 * entry of the list, then the rules (unpack_rules.c).
 *
 * Names are taken as libarchive gives them in the current locale's
 * multibyte form; where it cannot convert one it warns (ARCHIVE_WARN)
 * and gives the bytes as stored, which is what we write. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive/unpack_list.h"
#include "archive/unpack_open.h"

static enum unpack_type type_of(struct archive_entry *ae)
{
	if (archive_entry_hardlink(ae))
		return UNPACK_HARDLINK;
	switch (archive_entry_filetype(ae)) {
	case AE_IFREG:
		return UNPACK_FILE;
	case AE_IFDIR:
		return UNPACK_DIR;
	case AE_IFLNK:
		return UNPACK_SYMLINK;
	case AE_IFCHR:
		return UNPACK_CHAR_DEVICE;
	case AE_IFBLK:
		return UNPACK_BLOCK_DEVICE;
	case AE_IFIFO:
		return UNPACK_FIFO;
	case AE_IFSOCK:
		return UNPACK_SOCKET;
	default:
		return UNPACK_OTHER;
	}
}

static int fail(struct unpack_list *l, enum unpack_scan_error e, int err, struct archive *a)
{
	const char *text = a ? archive_error_string(a) : NULL;

	l->error = e;
	l->err = err;
	if (text && !l->detail)
		l->detail = strdup(text);
	return err ? -err : -EINVAL;
}

static int add_entry(struct unpack_list *l, struct archive_entry *ae)
{
	enum unpack_type t = type_of(ae);
	const char *path = archive_entry_pathname(ae);
	const char *link = t == UNPACK_HARDLINK ? archive_entry_hardlink(ae) :
			   t == UNPACK_SYMLINK ? archive_entry_symlink(ae) : NULL;
	struct unpack_entry *e;
	int r;

	r = unpack_list_add(l, path ? path : "", t, archive_entry_perm(ae), archive_entry_size(ae),
			    archive_entry_size_is_set(ae) != 0, link);
	if (r < 0)
		return r;
	e = &l->entries[l->n_entries - 1];
	e->mtime_known = archive_entry_mtime_is_set(ae) != 0;
	if (e->mtime_known)
		e->mtime = (struct timespec){archive_entry_mtime(ae), archive_entry_mtime_nsec(ae)};
	e->encrypted = archive_entry_is_encrypted(ae) != 0;
	return 0;
}

/* Did the first header fail because no reader knows the format?  Only
 * then is the file "not an archive"; a header the chosen reader could
 * not take (a 4 MB name: "Special header too large"), the first one
 * too, is damage.  archive_format() is no sign (the tar reader sets it
 * once a header is read), so the text of archive_read.c's
 * choose_format(), the one place that gives it, is: libarchive's texts
 * are not translated. */
static bool unrecognised(struct archive *a)
{
	const char *text = archive_error_string(a);

	return !text || strcmp(text, "Unrecognized archive format") == 0;
}

static int scan(struct unpack_source *src, int open_result, struct unpack_list *l)
{
	struct archive_entry *ae;
	int r;

	if (open_result == -EILSEQ)
		return fail(l, UNPACK_SCAN_FORMAT, archive_errno(src->a) > 0 ? archive_errno(src->a) : 0,
			    src->a);
	if (open_result < 0)
		return fail(l, open_result == -ENOMEM ? UNPACK_SCAN_OK : UNPACK_SCAN_OPEN,
			    -open_result, NULL);
	for (;;) {
		r = archive_read_next_header(src->a, &ae);
		if (r == ARCHIVE_EOF) /* gzip: its last trailer is checked past the end */
			return unpack_source_finish(src) < 0 ?
			       fail(l, UNPACK_SCAN_CORRUPT, EBADMSG, src->a) : 0;
		/* RETRY: a damaged header. */
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			return fail(l, l->n_entries || !unrecognised(src->a) ? UNPACK_SCAN_CORRUPT :
				    UNPACK_SCAN_FORMAT,
				    archive_errno(src->a) > 0 ? archive_errno(src->a) : 0, src->a);
		if (!l->format && archive_format_name(src->a)) {
			l->format = strdup(archive_format_name(src->a));
			if (!l->format)
				return -ENOMEM;
		}
		r = add_entry(l, ae);
		if (r == -E2BIG)
			return fail(l, UNPACK_SCAN_TOO_MANY, E2BIG, NULL);
		if (r == -EFBIG)
			return fail(l, UNPACK_SCAN_NAMES, EFBIG, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

int unpack_list_scan(struct unpack_list *l, const char *path)
{
	struct unpack_source src;
	int r = unpack_list_add_archive(l, path);

	if (r < 0)
		return r;
	l->error = UNPACK_SCAN_OK;
	l->err = 0;
	free(l->detail);
	l->detail = NULL;
	r = unpack_source_pin(path, &l->pins[l->n_archives - 1]);
	if (r == 0)
		r = unpack_source_open(l->pins[l->n_archives - 1], &src);
	else
		src = (struct unpack_source){ .fd = -1 };
	r = scan(&src, r, l);
	unpack_source_close(&src);
	return r;
}

int unpack_scan(const char *path, struct unpack_list **ret)
{
	struct unpack_list *l = unpack_list_new();
	int r;

	*ret = l;
	if (!l)
		return -ENOMEM;
	r = unpack_list_scan(l, path);
	return r < 0 ? r : unpack_rules_check(l);
}

int unpack_scan_memory(const void *buf, size_t len, struct unpack_list **ret)
{
	struct unpack_source src;
	struct unpack_list *l = unpack_list_new();
	int r;

	*ret = l;
	if (!l)
		return -ENOMEM;
	r = unpack_list_add_archive(l, "(memory)");
	if (r < 0)
		return r;
	r = unpack_source_open_memory(buf, len, &src);
	r = scan(&src, r, l);
	unpack_source_close(&src);
	return r < 0 ? r : unpack_rules_check(l);
}
