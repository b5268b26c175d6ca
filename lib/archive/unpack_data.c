/* unpack_data.c: the archives' file data for the feed (unpack_data.h).
 *
 * State: the open archive, the index of the last header read in it, and
 * for the entry being read the block libarchive last gave (its offset
 * in the entry and what is left of it) and how many bytes of the entry
 * were handed out.  A block is copied out as the caller's buffers take
 * it; a gap before it, or after the last one, is zeros. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive/unpack_data.h"
#include "archive/unpack_open.h"
#include "util/cleanup.h"

struct unpack_data {
	const struct unpack_list *l;
	struct unpack_source src;
	unsigned archive;       /* which one src is, when src.a */
	size_t header;          /* ar_index of the last header read, SIZE_MAX: none */
	size_t reopens;
	bool broken;            /* a read failed: libarchive cannot go on */
	/* the entry being read */
	const struct unpack_entry *e;
	bool sparse;
	const char *blk;        /* what is left of the last block */
	size_t blk_left;
	int64_t blk_off;        /* its offset in the entry */
	int64_t pos;            /* bytes handed out */
	bool blocks_done;       /* ARCHIVE_EOF seen */
};

int unpack_data_new(const struct unpack_list *l, struct unpack_data **ret)
{
	struct unpack_data *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->l = l;
	d->src.fd = -1;
	d->header = SIZE_MAX;
	*ret = d;
	return 0;
}

static int archive_err(struct archive *a, int fallback)
{
	int e = archive_errno(a);

	return e > 0 ? -e : -fallback;
}

static int reopen(struct unpack_data *d, unsigned archive)
{
	int r;

	if (d->src.a)
		d->reopens++;
	unpack_source_close(&d->src);
	d->broken = false;
	d->header = SIZE_MAX;
	r = unpack_source_open(d->l->archives[archive], &d->src);
	if (r < 0) {
		unpack_source_close(&d->src);
		return r == -EILSEQ ? -ESTALE : r;
	}
	d->archive = archive;
	return 0;
}

/* The header the first pass saw as entry t? */
static bool same_header(struct archive_entry *ae, const struct unpack_entry *t)
{
	const char *p = archive_entry_pathname(ae);

	return p && strcmp(p, t->raw) == 0 && !archive_entry_hardlink(ae) &&
	       archive_entry_filetype(ae) == AE_IFREG && archive_entry_size(ae) == t->size;
}

int unpack_data_open(struct unpack_data *d, size_t idx, const atomic_bool *cancel)
{
	const struct unpack_entry *t = &d->l->entries[d->l->entries[idx].data_from];
	struct archive_entry *ae = NULL;
	int r;

	if (!d->src.a || d->broken || d->archive != t->archive ||
	    (d->header != SIZE_MAX && d->header >= t->ar_index)) {
		r = reopen(d, t->archive);
		if (r < 0)
			return r;
	}
	while (d->header == SIZE_MAX || d->header < t->ar_index) {
		if (cancel && atomic_load(cancel))
			return -ECANCELED;
		r = archive_read_next_header(d->src.a, &ae);
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			d->broken = true;
			return r == ARCHIVE_EOF ? -ESTALE : archive_err(d->src.a, EIO);
		}
		d->header = d->header == SIZE_MAX ? 0 : d->header + 1;
	}
	if (!same_header(ae, t))
		return -ESTALE;
	d->e = t;
	d->sparse = archive_entry_sparse_count(ae) > 0;
	d->blk = NULL;
	d->blk_left = 0;
	d->blk_off = d->pos = 0;
	d->blocks_done = false;
	return 0;
}

/* The next block, or blocks_done.  0 or -errno. */
static int next_block(struct unpack_data *d)
{
	const void *b;
	size_t n;
	la_int64_t off;
	int r = archive_read_data_block(d->src.a, &b, &n, &off);

	if (r == ARCHIVE_EOF) {
		d->blocks_done = true;
		return 0;
	}
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
		d->broken = true;
		return archive_err(d->src.a, EIO);
	}
	if (off < d->pos || (uint64_t)off + n > (uint64_t)d->e->size)
		return -EBADMSG; /* more than the header said, or going back */
	d->blk = b;
	d->blk_left = n;
	d->blk_off = off;
	return 0;
}

/* A hole: zeros up to the entry's offset `to`, as many as room takes. */
static size_t put_zeros(struct unpack_data *d, char *out, size_t room, int64_t to)
{
	size_t z = (size_t)MIN((int64_t)room, to - d->pos);

	memset(out, 0, z);
	d->pos += (int64_t)z;
	return z;
}

ssize_t unpack_data_read(struct unpack_data *d, void *buf, size_t len, bool *end)
{
	char *out = buf;
	size_t got = 0;
	int r;

	*end = false;
	while (got < len) {
		if (!d->blk_left && !d->blocks_done && (r = next_block(d)) < 0)
			return r;
		if (d->blk_left && d->blk_off > d->pos) { /* a hole before the block */
			got += put_zeros(d, out + got, len - got, d->blk_off);
		} else if (d->blk_left) {
			size_t c = MIN(len - got, d->blk_left);

			memcpy(out + got, d->blk, c);
			d->blk += c;
			d->blk_left -= c;
			d->blk_off += (int64_t)c;
			got += c;
			d->pos += (int64_t)c;
		} else if (d->pos < d->e->size) { /* blocks done: the tail */
			if (!d->sparse)
				return -EBADMSG;
			got += put_zeros(d, out + got, len - got, d->e->size);
		} else {
			break;
		}
	}
	/* at the size: the end, once libarchive agrees there is no more */
	if (d->pos == d->e->size && !d->blk_left && !d->blocks_done && (r = next_block(d)) < 0)
		return r;
	if (d->pos == d->e->size && !d->blk_left && d->blocks_done)
		*end = true;
	else if (d->pos == d->e->size && d->blk_left)
		return -EBADMSG;
	return (ssize_t)got;
}

size_t unpack_data_reopens(const struct unpack_data *d)
{
	return d->reopens;
}

void unpack_data_free(struct unpack_data *d)
{
	if (!d)
		return;
	unpack_source_close(&d->src);
	free(d);
}
