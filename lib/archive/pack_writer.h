/* pack_writer.h: an archive written through libarchive, its bytes handed
 * to the caller as they come.
 *
 * The part's only job is libarchive (the only includer of <archive.h>
 * and <archive_entry.h>): the caller adds entries (a header, then a
 * regular file's bytes) and every byte of the archive comes out of
 * out(), in order, unpadded: the last block is not filled up to the
 * format's blocking (archive_write_set_bytes_in_last_block(1)), so the
 * archive is exactly as long as its content needs.  Nothing here opens a
 * file or knows where the bytes go.
 *
 * Formats: tar is pax (names of any length, nanosecond times, sizes past
 * 8 GiB), optionally gzip, xz or zstd compressed; zip is deflate, with
 * Zip64 extensions where an entry needs them (libarchive adds them from
 * the size given in the header) and times to DOS's 2 seconds plus the
 * extended-timestamp field's 1 second. */
#ifndef SAFECP_PACK_WRITER_H
#define SAFECP_PACK_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum pack_format {
	PACK_TAR,
	PACK_TAR_GZ,
	PACK_TAR_XZ,
	PACK_TAR_ZST,
	PACK_ZIP,
	PACK_FORMATS
};

/* "tar", "tar.gz", "tar.xz", "tar.zst", "zip": the name and the file
 * extension, the same word. */
const char *pack_format_name(enum pack_format f);
/* The format of that name: 0, or -EINVAL. */
int pack_format_from_name(const char *name, enum pack_format *ret);

/* An upper bound of the bytes one entry adds to an archive of format f
 * (headers, name, data and its padding; a compressed format's
 * compressor may grow incompressible data a little, counted too), and of
 * the bytes every archive has (end records, a compressor's frame). */
uint64_t pack_bound_entry(enum pack_format f, size_t path_len, uint64_t data_bytes);
uint64_t pack_bound_end(enum pack_format f, uint64_t entries_bound);

/* Where the archive's bytes go: all len bytes are taken; 0 or -errno. */
typedef int (*pack_out_fn)(void *ctx, const void *buf, size_t len);

struct pack_writer;

/* 0, -ENOMEM, or -ENOTSUP when this libarchive lacks the filter. */
int pack_writer_new(enum pack_format f, pack_out_fn out, void *ctx, struct pack_writer **ret);

/* The next entry: path (bytes, as named in the archive), st (mode, size,
 * times, owner; the type from st_mode: directory, regular file or
 * symlink), link the symlink's target.  A regular file's st_size bytes
 * follow through pack_writer_data().  0 or -errno. */
int pack_writer_header(struct pack_writer *w, const char *path, const struct stat *st,
		       const char *link);

/* len more bytes of the current regular file. 0 or -errno. */
int pack_writer_data(struct pack_writer *w, const void *buf, size_t len);

/* The archive's end: every byte is out() when it returns 0; -errno. */
int pack_writer_close(struct pack_writer *w);

void pack_writer_free(struct pack_writer *w);

#endif
