/* unpack_data.c: the archives' file data for the feed (unpack_data.h).
 *
 * State: each archive open at most once (the reader of each goes only
 * forward), the index of the last header read in it, the spool, and for
 * the entry being read either the archive's block libarchive last gave
 * (its offset in the entry and what is left of it) or where its bytes
 * start in the spool, and how many bytes of the entry were handed out.
 * A block is copied out as the caller's buffers take it; a gap before
 * it, or after the last one, is zeros.
 *
 * Which entries go to the spool is known before the first read: walking
 * the tree in write order, an entry whose header is at or before the
 * furthest header already needed in its archive would take a step back
 * (unpack_tree.h), so it is copied out when the reader passes it, and
 * read from the spool when its turn comes.  Each archive is read once,
 * and the spool holds at most the bytes of those entries. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "archive/unpack_data.h"
#include "archive/unpack_open.h"
#include "base/cleanup.h"

#define SPOOL_BLOCK (256u << 10)

/* One archive's reader: opened when first needed, then read forward. */
struct arch {
	struct unpack_source src;
	size_t header;          /* ar_index of the last header read, SIZE_MAX: none */
	bool broken;            /* a read failed: libarchive cannot go on */
	bool opened;            /* once: a second open is a reopen */
};

struct unpack_data {
	const struct unpack_list *l;
	struct arch *ar;        /* one per archive of l */
	size_t *base;           /* list index of each archive's first entry */
	size_t reopens;
	/* the spool: per list entry, whether it goes there, and where it is */
	bool *spool_want;
	int64_t *spool_at;      /* offset in the spool, or -1 */
	int *spool_err;         /* why it could not be spooled, or 0 */
	char *spool_dir;
	int spool_fd;
	int64_t spool_end;
	uint64_t spool_bytes;   /* what the spool will hold, all told */
	char *spool_buf;
	/* the entry being read */
	const struct unpack_entry *e;
	struct arch *cur;       /* its archive, or NULL: it is in the spool */
	int64_t from;           /* in the spool: where its bytes start */
	bool sparse;
	const char *blk;        /* what is left of the last block */
	size_t blk_left;
	int64_t blk_off;        /* its offset in the entry */
	int64_t pos;            /* bytes handed out */
	bool blocks_done;       /* ARCHIVE_EOF seen */
};

static bool is_data(const struct unpack_entry *e)
{
	return e->type == UNPACK_FILE || e->type == UNPACK_HARDLINK;
}

/* spool_want of every entry the write order reaches after its header. */
static void plan_spool(struct unpack_data *d, const struct unpack_tree *t)
{
	const struct unpack_list *l = d->l;
	size_t *furthest = malloc((l->n_archives ? l->n_archives : 1) * sizeof(*furthest));

	if (!furthest) { /* no spool: steps back reopen, as they always may */
		return;
	}
	for (unsigned a = 0; a < l->n_archives; a++)
		furthest[a] = SIZE_MAX;
	for (size_t i = 0; i < t->n_nodes; i++) {
		size_t e = t->nodes[i].entry;
		const struct unpack_entry *x;

		if (e == UNPACK_IMPLIED || !is_data(&l->entries[e]))
			continue;
		x = &l->entries[l->entries[e].data_from];
		if (furthest[x->archive] != SIZE_MAX && x->ar_index <= furthest[x->archive]) {
			if (!d->spool_want[x->index] && x->size > 0)
				d->spool_bytes += (uint64_t)x->size;
			d->spool_want[x->index] = true;
		} else {
			furthest[x->archive] = x->ar_index;
		}
	}
	free(furthest);
}

int unpack_data_new(const struct unpack_list *l, const struct unpack_tree *t,
		    const char *spool_dir, struct unpack_data **ret)
{
	struct unpack_data *d = calloc(1, sizeof(*d));
	size_t n = l->n_entries ? l->n_entries : 1, na = l->n_archives ? l->n_archives : 1;

	*ret = NULL;
	if (!d)
		return -ENOMEM;
	d->l = l;
	d->spool_fd = -1;
	d->ar = calloc(na, sizeof(*d->ar));
	d->base = calloc(na, sizeof(*d->base));
	d->spool_want = calloc(n, sizeof(*d->spool_want));
	d->spool_at = malloc(n * sizeof(*d->spool_at));
	d->spool_err = calloc(n, sizeof(*d->spool_err));
	d->spool_dir = strdup(spool_dir ? spool_dir : "/var/tmp");
	for (size_t a = 0; d->ar && a < na; a++) { /* before any free: fd 0 is not ours */
		d->ar[a].src.fd = -1;
		d->ar[a].header = SIZE_MAX;
	}
	if (!d->ar || !d->base || !d->spool_want || !d->spool_at || !d->spool_err ||
	    !d->spool_dir) {
		unpack_data_free(d);
		return -ENOMEM;
	}
	for (size_t a = 0; a < na; a++)
		d->base[a] = SIZE_MAX;
	for (size_t i = l->n_entries; i-- > 0;) {
		d->spool_at[i] = -1;
		d->base[l->entries[i].archive] = i;
	}
	if (t)
		plan_spool(d, t);
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
	struct arch *a = &d->ar[archive];
	int r;

	if (a->opened)
		d->reopens++;
	unpack_source_close(&a->src);
	a->broken = false;
	a->header = SIZE_MAX;
	a->opened = true;
	if (archive >= d->l->n_archives || d->l->pins[archive] < 0)
		return -ESTALE;
	r = unpack_source_open(d->l->pins[archive], &a->src);
	if (r < 0) {
		unpack_source_close(&a->src);
		return r == -EILSEQ ? -ESTALE : r;
	}
	return 0;
}

/* The header the first pass saw as entry t? */
static bool same_header(struct archive_entry *ae, const struct unpack_entry *t)
{
	const char *p = archive_entry_pathname(ae);

	return p && strcmp(p, t->raw) == 0 && !archive_entry_hardlink(ae) &&
	       archive_entry_filetype(ae) == AE_IFREG && archive_entry_size(ae) == t->size;
}

static void start_entry(struct unpack_data *d, struct arch *a, const struct unpack_entry *t,
			struct archive_entry *ae)
{
	d->e = t;
	d->cur = a;
	d->sparse = ae && archive_entry_sparse_count(ae) > 0;
	d->blk = NULL;
	d->blk_left = 0;
	d->blk_off = d->pos = 0;
	d->blocks_done = false;
}

static ssize_t read_archive(struct unpack_data *d, char *out, size_t len, bool *end);

static int spool_open(struct unpack_data *d)
{
	if (d->spool_fd >= 0)
		return 0;
	/* unnamed: gone when closed, whatever happens to us */
	d->spool_fd = open(d->spool_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (d->spool_fd < 0)
		return -errno;
	d->spool_buf = malloc(SPOOL_BLOCK);
	return d->spool_buf ? 0 : -ENOMEM;
}

static int spool_write(struct unpack_data *d, const char *b, size_t n, int64_t at)
{
	while (n) {
		ssize_t w = pwrite(d->spool_fd, b, n, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
		at += w;
	}
	return 0;
}

/* Copy entry t, whose header ae is the one just read in a, to the spool.
 * A failure of the entry is kept for when it is asked for; returns
 * -errno only when the archive cannot go on (or on cancel). */
static int spool_entry(struct unpack_data *d, struct arch *a, const struct unpack_entry *t,
		       struct archive_entry *ae, const atomic_bool *cancel)
{
	int64_t at = d->spool_end;
	bool end = false;
	int r = same_header(ae, t) ? spool_open(d) : -ESTALE;

	start_entry(d, a, t, ae);
	while (r == 0 && !end) {
		ssize_t n;

		if (cancel && atomic_load(cancel))
			return -ECANCELED;
		n = read_archive(d, d->spool_buf, SPOOL_BLOCK, &end);
		if (n < 0)
			r = (int)n;
		else
			r = spool_write(d, d->spool_buf, (size_t)n, at + d->pos - n);
	}
	d->e = NULL;
	if (r < 0) {
		d->spool_err[t->index] = r;
		return a->broken ? r : 0;
	}
	d->spool_at[t->index] = at;
	d->spool_end = at + t->size;
	return 0;
}

static int from_spool(struct unpack_data *d, const struct unpack_entry *t)
{
	if (d->spool_err[t->index])
		return d->spool_err[t->index];
	start_entry(d, NULL, t, NULL);
	d->from = d->spool_at[t->index];
	return 0;
}

int unpack_data_open(struct unpack_data *d, size_t idx, const atomic_bool *cancel)
{
	const struct unpack_entry *t = &d->l->entries[d->l->entries[idx].data_from];
	struct archive_entry *ae = NULL;
	struct arch *a = &d->ar[t->archive];
	int r;

	d->e = NULL;
	if (d->spool_at[t->index] >= 0 || d->spool_err[t->index])
		return from_spool(d, t);
	if (!a->src.a || a->broken || (a->header != SIZE_MAX && a->header >= t->ar_index)) {
		r = reopen(d, t->archive);
		if (r < 0)
			return r;
	}
	for (;;) {
		const struct unpack_entry *h;

		if (cancel && atomic_load(cancel))
			return -ECANCELED;
		r = archive_read_next_header(a->src.a, &ae);
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			a->broken = true;
			return r == ARCHIVE_EOF ? -ESTALE : archive_err(a->src.a, EIO);
		}
		a->header = a->header == SIZE_MAX ? 0 : a->header + 1;
		if (a->header == t->ar_index)
			break;
		h = &d->l->entries[d->base[t->archive] + a->header];
		if (d->spool_want[h->index] && d->spool_at[h->index] < 0 &&
		    !d->spool_err[h->index] && (r = spool_entry(d, a, h, ae, cancel)) < 0)
			return r;
	}
	if (!same_header(ae, t))
		return -ESTALE;
	if (d->spool_want[t->index]) { /* asked for again later: keep it */
		r = spool_entry(d, a, t, ae, cancel);
		return r < 0 ? r : from_spool(d, t);
	}
	start_entry(d, a, t, ae);
	return 0;
}

/* The next block, or blocks_done.  0 or -errno. */
static int next_block(struct unpack_data *d)
{
	const void *b;
	size_t n;
	la_int64_t off;
	int r = archive_read_data_block(d->cur->src.a, &b, &n, &off);

	if (r == ARCHIVE_EOF) {
		d->blocks_done = true;
		return 0;
	}
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
		d->cur->broken = true;
		return archive_err(d->cur->src.a, EIO);
	}
	/* a warning about an entry's data ("ZIP bad CRC", a truncated
	 * entry) is that entry's error: what was read is not its bytes */
	if (r == ARCHIVE_WARN)
		return -EBADMSG;
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

static ssize_t read_archive(struct unpack_data *d, char *out, size_t len, bool *end)
{
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

static ssize_t read_spool(struct unpack_data *d, char *out, size_t len, bool *end)
{
	size_t want = (size_t)MIN((int64_t)len, d->e->size - d->pos), got = 0;

	while (got < want) {
		ssize_t n = pread(d->spool_fd, out + got, want - got, d->from + d->pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
		d->pos += n;
	}
	*end = d->pos == d->e->size;
	return (ssize_t)got;
}

ssize_t unpack_data_read(struct unpack_data *d, void *buf, size_t len, bool *end)
{
	*end = false;
	if (!d->e)
		return -EINVAL;
	return d->cur ? read_archive(d, buf, len, end) : read_spool(d, buf, len, end);
}

size_t unpack_data_reopens(const struct unpack_data *d)
{
	return d->reopens;
}

uint64_t unpack_data_spool_bytes(const struct unpack_data *d)
{
	return d->spool_bytes;
}

int unpack_data_spool_room(const struct unpack_data *d, uint64_t *ret_free)
{
	struct statvfs sv;

	*ret_free = 0;
	if (!d->spool_bytes)
		return 0;
	if (statvfs(d->spool_dir, &sv) < 0)
		return -errno;
	*ret_free = (uint64_t)sv.f_bavail * sv.f_frsize;
	return *ret_free < d->spool_bytes ? -ENOSPC : 0;
}

const char *unpack_data_spool_dir(const struct unpack_data *d)
{
	return d->spool_dir;
}

void unpack_data_free(struct unpack_data *d)
{
	if (!d)
		return;
	for (unsigned a = 0; d->ar && a < (d->l->n_archives ? d->l->n_archives : 1); a++)
		unpack_source_close(&d->ar[a].src);
	if (d->spool_fd >= 0)
		close(d->spool_fd);
	free(d->ar);
	free(d->base);
	free(d->spool_want);
	free(d->spool_at);
	free(d->spool_err);
	free(d->spool_dir);
	free(d->spool_buf);
	free(d);
}
