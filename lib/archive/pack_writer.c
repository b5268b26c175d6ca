/* pack_writer.c: libarchive's writer with callbacks instead of a file.
 *
 * archive_write_open2() with a write callback that hands every block to
 * the caller's out(); blocks of 64 KiB (fewer calls than the 10 KiB
 * default), the last one not padded.
 *
 * Names are bytes, and safecp sets no locale.  libarchive takes a name's
 * charset from the locale (nl_langinfo, the thread's), so each header is
 * written under C.UTF-8 (uselocale: this thread only): a UTF-8 name goes
 * into pax's path record as it is and gets zip's UTF-8 flag, which
 * readers on other systems need to show it.  A name that is not UTF-8
 * is written in the C locale: pax stores its bytes (hdrcharset=BINARY,
 * with a warning that is not an error: ARCHIVE_WARN is success here),
 * zip without the flag. */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "archive/pack_writer.h"
#include "base/size.h"
#include "base/utf8.h"

#define BLOCK (64 * 1024)

struct pack_writer {
	struct archive *a;
	struct archive_entry *e;
	pack_out_fn out;
	void *ctx;
	int out_err;      /* out()'s error, which libarchive only sees as -1 */
	locale_t utf8;    /* C.UTF-8 for the headers, or 0 where there is none */
	bool discard;     /* given up on: nothing more goes out (pack_writer_free) */
	bool discard_ok;  /* zip: a discarded write succeeds (see pack_writer_free) */
};

static const char *const names[PACK_FORMATS] = {
	[PACK_TAR] = "tar",
	[PACK_TAR_GZ] = "tar.gz",
	[PACK_TAR_XZ] = "tar.xz",
	[PACK_TAR_ZST] = "tar.zst",
	[PACK_ZIP] = "zip",
};

const char *pack_format_name(enum pack_format f)
{
	return (unsigned)f < PACK_FORMATS ? names[f] : "unknown";
}

int pack_format_from_name(const char *name, enum pack_format *ret)
{
	for (unsigned f = 0; f < PACK_FORMATS; f++)
		if (strcmp(name, names[f]) == 0) {
			*ret = (enum pack_format)f;
			return 0;
		}
	return -EINVAL;
}

static bool pack_format_compressed(enum pack_format f)
{
	return f != PACK_TAR;
}

/* tar: a 512-byte header, a pax extended header before it (its own
 * header and records: path, times to the nanosecond, size; a long name
 * twice, in the path record and cut in the ustar name), data padded to
 * 512.  zip: a local header with the name and extra fields (Zip64,
 * timestamps, unix ids), a data descriptor, and the central directory's
 * copy of the header and name.  Deflate's stored blocks add 5 bytes per
 * 64 KiB at worst; gzip's, xz's and zstd's are alike, so a compressed
 * format counts data/64 more, with room to spare. */
uint64_t pack_bound_entry(enum pack_format f, size_t path_len, uint64_t data_bytes)
{
	uint64_t b;

	if (f == PACK_ZIP)
		b = 30 + 46 + 2 * (uint64_t)path_len + 2 * 64 + 24 + data_bytes + data_bytes / 64 + 64;
	else
		b = 3 * 512 + round_up_u64(2 * (uint64_t)path_len + 256, 512) +
		    round_up_u64(data_bytes, 512);
	if (pack_format_compressed(f) && f != PACK_ZIP)
		b += b / 64;
	return b;
}

/* tar: two zero blocks; zip: the Zip64 end records and the end record;
 * a compressor's headers and frames. */
uint64_t pack_bound_end(enum pack_format f, uint64_t entries_bound)
{
	uint64_t end = f == PACK_ZIP ? 56 + 20 + 22 : 1024;

	if (pack_format_compressed(f))
		end += 64 * 1024 + (entries_bound + end) / 64;
	return end;
}

static int error_of(struct pack_writer *w)
{
	int e = archive_errno(w->a);

	if (w->out_err)
		return w->out_err;
	return e > 0 ? -e : -EIO;
}

static la_ssize_t write_cb(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct pack_writer *w = ctx;
	int r;

	if (w->discard && w->discard_ok)
		return (la_ssize_t)len;
	r = w->discard ? -ECANCELED : w->out(w->ctx, buf, len);

	if (r < 0) {
		w->out_err = r;
		archive_set_error(a, -r, "output");
		return -1;
	}
	return (la_ssize_t)len;
}

static int set_format(struct archive *a, enum pack_format f)
{
	int r = f == PACK_ZIP ? archive_write_set_format_zip(a) : archive_write_set_format_pax(a);

	if (r == ARCHIVE_OK && f == PACK_TAR_GZ)
		r = archive_write_add_filter_gzip(a);
	else if (r == ARCHIVE_OK && f == PACK_TAR_XZ)
		r = archive_write_add_filter_xz(a);
	else if (r == ARCHIVE_OK && f == PACK_TAR_ZST)
		r = archive_write_add_filter_zstd(a);
	if (r < ARCHIVE_WARN)
		return -ENOTSUP;
	if (archive_write_set_bytes_per_block(a, BLOCK) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK)
		return -EINVAL;
	return 0;
}

int pack_writer_new(enum pack_format f, pack_out_fn out, void *ctx, struct pack_writer **ret)
{
	struct pack_writer *w;
	int r;

	if ((unsigned)f >= PACK_FORMATS)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->out = out;
	w->ctx = ctx;
	w->discard_ok = f == PACK_ZIP;
	w->utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	w->a = archive_write_new();
	w->e = archive_entry_new();
	r = w->a && w->e ? set_format(w->a, f) : -ENOMEM;
	if (r == 0 && archive_write_open2(w->a, w, NULL, write_cb, NULL, NULL) != ARCHIVE_OK)
		r = error_of(w);
	if (r < 0) {
		pack_writer_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

int pack_writer_header(struct pack_writer *w, const char *path, const struct stat *st,
		       const char *link)
{
	bool utf8 = w->utf8 && utf8_valid(path, strlen(path)) &&
		    (!link || utf8_valid(link, strlen(link)));
	locale_t old = utf8 ? uselocale(w->utf8) : (locale_t)0;
	int r;

	archive_entry_clear(w->e);
	archive_entry_copy_pathname(w->e, path);
	archive_entry_copy_stat(w->e, st);
	/* no hard links: each file is whole (safecp's tree has none) */
	archive_entry_set_nlink(w->e, S_ISDIR(st->st_mode) ? 2 : 1);
	if (!S_ISREG(st->st_mode))
		archive_entry_set_size(w->e, 0);
	if (S_ISLNK(st->st_mode))
		archive_entry_copy_symlink(w->e, link);
	r = archive_write_header(w->a, w->e) < ARCHIVE_WARN ? error_of(w) : 0;
	if (utf8)
		uselocale(old);
	return r;
}

int pack_writer_data(struct pack_writer *w, const void *buf, size_t len)
{
	while (len > 0) {
		la_ssize_t n = archive_write_data(w->a, buf, len);

		if (n <= 0)
			return n == 0 ? -EIO : error_of(w);
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

int pack_writer_close(struct pack_writer *w)
{
	return archive_write_close(w->a) < ARCHIVE_WARN ? error_of(w) : 0;
}

void pack_writer_free(struct pack_writer *w)
{
	if (!w)
		return;
	/* A writer given up on: nothing more goes out.  Not archive_write_fail():
	 * libarchive frees its output buffer only in the close that free does,
	 * which a fatal state skips.  That close first pads the entry being
	 * written with zeros up to its size: the first write failing stops it
	 * (a compressor's output fills a block after a few hundred MiB of
	 * zeros at most).  Zip pads nothing, but its entry's deflate state is
	 * ended only by a finish whose writes succeed (libarchive 3.6 leaks it
	 * otherwise): there the discarded writes succeed. */
	w->discard = true;
	if (w->a)
		archive_write_free(w->a);
	archive_entry_free(w->e);
	if (w->utf8)
		freelocale(w->utf8);
	free(w);
}
