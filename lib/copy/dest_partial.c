/* dest_partial.c: a large destination file as a resumable partial (the
 * part of dest_file.h that says so).
 *
 * Order is what makes a partial safe to resume after a yank: the
 * record's header is durable under its name (temporary, fsync, rename,
 * directory fsync) before the first byte of data; a digest line is
 * appended only after the chunk it describes is durable (fdatasync of
 * the data: on ext4 an O_DIRECT or sync_file_range write is on the device
 * but the extent that maps it is not, until the journal commits), and
 * the line itself is then made durable.  So after any crash the record
 * claims at most what the device holds. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "copy/dest_file.h"
#include "copy/partial_digests.h"
#include "copy/partial_record.h"
#include "copy/partial_state.h"
#include "io/writer.h"

struct dest_partial {
	int rec_fd;              /* the record, appended to */
	uint64_t rec_end;        /* its length */
	char rec[PARTIAL_NAME_MAX];
	uint64_t chunk;
	uint64_t n_chunks;       /* whole chunks in the file */
	uint64_t recorded;       /* chunks the record lists */
	bool stalled;            /* no more lines: a digest or a write failed */
	struct partial_key key;  /* this machine's note of it */
	char *state_dir;
};

static void partial_free(struct dest_partial *p)
{
	if (!p)
		return;
	if (p->rec_fd >= 0)
		close(p->rec_fd);
	free(p->state_dir);
	free(p);
}

/* The record's text (header, and n digest lines), malloc'd. */
static int record_text(const struct partial_record *rec, size_t n, char **ret, size_t *len)
{
	char *h = NULL, *t;
	size_t hl = 0;
	int r = partial_record_header(rec, &h, &hl);

	if (r < 0)
		return r;
	t = realloc(h, hl + n * PARTIAL_DIGEST_LINE + 1);
	if (!t) {
		free(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		partial_record_digest_line(rec->digests[i], t + hl + i * PARTIAL_DIGEST_LINE);
	*ret = t;
	*len = hl + n * PARTIAL_DIGEST_LINE;
	return 0;
}

/* pwrite at a length kept here: no O_APPEND, which a FUSE daemon may
 * not serve. */
static int pwrite_all(int fd, const char *buf, size_t len, uint64_t at)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, buf, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* text under the record's name, durable, through a temporary of ours;
 * the fd, open for appending at p->rec_end, in p->rec_fd. */
static int record_put(struct dest_files *fs, int dirfd, struct dest_partial *p,
		      const char *text, size_t len)
{
	char tmp[STALE_TEMP_NAME_MAX];
	int fd, r;

	stale_temp_name(tmp, fs->pid, ++fs->seq);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = pwrite_all(fd, text, len, 0);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, p->rec) < 0)
		r = -errno;
	close(fd);
	if (r < 0) {
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	/* appended to by its new name: fusefat writes a file renamed while
	 * open into a directory entry it no longer has ("~2" beside a name
	 * cut to "HASH.rec") */
	fd = openat(dirfd, p->rec, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	p->rec_fd = fd;
	p->rec_end = len;
	return 0;
}

/* The partial open on fd: noted in this machine's state, its record
 * written, and both names durable. */
static int start(struct dest_files *fs, struct dest_file *f, const struct dest_resume *res,
		 int fd, struct dest_partial *p)
{
	_cleanup_free_ char *text = NULL;
	uint64_t header;
	size_t len;
	int r = record_text(res->rec, res->rec->n, &text, &len);

	if (r == 0)
		r = partial_record_header_digest(res->rec, &header);
	if (r < 0)
		return r;
	p->state_dir = strdup(res->state_dir);
	if (!p->state_dir)
		return -ENOMEM;
	partial_key_of(fd, res->fs_uuid, header, res->stable_ino, &p->key);
	r = partial_state_add(p->state_dir, &p->key);
	if (r == 0)
		r = record_put(fs, f->dirfd, p, text, len);
	if (r == 0 && fsync(f->dirfd) < 0)
		r = -errno;
	return r;
}

/* The partial the session checked, still the same file and ours. */
static int reopen(int dirfd, const char *name, const struct dest_resume *res)
{
	int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_dev != res->dev ||
	    st.st_ino != res->ino || st.st_uid != geteuid() || st.st_nlink != 1 ||
	    (uint64_t)st.st_size < res->from) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int dest_file_open_partial(struct dest_files *fs, struct dest_file *f, const struct dest_open *how,
			   const struct dest_resume *res)
{
	const struct partial_record *rec = res->rec;
	char data[PARTIAL_NAME_MAX];
	struct dest_partial *p = calloc(1, sizeof(*p));
	int fd, r;

	if (!p)
		return -ENOMEM;
	p->rec_fd = -1;
	p->chunk = rec->chunk;
	p->n_chunks = rec->size / rec->chunk;
	p->recorded = res->from / rec->chunk;
	partial_names(f->name, data, p->rec);
	fd = res->from ? reopen(f->dirfd, data, res)
		       : openat(f->dirfd, data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
	if (fd < 0) {
		partial_free(p);
		return fd == -1 ? -errno : fd;
	}
	/* one writer at a time: the stale scan leaves a locked partial alone */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		goto fail_early;
	}
	r = writer_resume(fd, res->from, how->plan, how->size, how->bdev_fd, how->hooks, &f->w);
	if (r < 0)
		goto fail_early;
	snprintf(f->tmp, sizeof(f->tmp), "%s", data);
	f->partial = p;
	r = start(fs, f, res, writer_fd(f->w), p);
	if (r < 0) {
		/* as if never opened: the caller may open f again */
		dest_file_remove(f);
		writer_free(f->w);
		f->w = NULL;
	}
	return r;
fail_early:
	if (!res->from)
		(void)unlinkat(f->dirfd, data, 0);
	partial_free(p);
	return r;
}

/* Chunks [p->recorded, k) as digest lines, durable; false when the
 * record cannot grow any more. */
static bool append_lines(struct dest_partial *p, const struct partial_digests *d, size_t idx,
			 uint64_t k)
{
	char buf[64 * PARTIAL_DIGEST_LINE];

	while (p->recorded < k) {
		size_t n = 0;
		uint64_t v;

		for (; p->recorded + n < k && n < 64; n++) {
			if (!partial_digests_get(d, idx, p->recorded + n, &v))
				return false;
			partial_record_digest_line(v, buf + n * PARTIAL_DIGEST_LINE);
		}
		if (pwrite_all(p->rec_fd, buf, n * PARTIAL_DIGEST_LINE, p->rec_end) < 0 ||
		    fdatasync(p->rec_fd) < 0)
			return false;
		p->recorded += n;
		p->rec_end += n * PARTIAL_DIGEST_LINE;
	}
	return true;
}

void dest_file_partial_note(struct dest_file *f, const struct partial_digests *d, size_t idx)
{
	struct dest_partial *p = f->partial;
	uint64_t k;
	int settled;

	if (!p || p->stalled)
		return;
	k = writer_confirmed(f->w) / p->chunk;
	if (k > p->n_chunks)
		k = p->n_chunks;
	if (k <= p->recorded)
		return;
	/* sync-window confirms only what its fdatasync (and device sync)
	 * made durable; the others confirm data whose mapping may not be */
	/* a chunk that ends in a hole is kept only with the file's length,
	 * which no window of sync-window made durable */
	settled = writer_settle_size(f->w);
	if (settled < 0 || ((settled > 0 || writer_strategy(f->w) != STRATEGY_SYNC_WINDOW) &&
			    fdatasync(writer_fd(f->w)) < 0)) {
		p->stalled = true;
		return;
	}
	if (!append_lines(p, d, idx, k))
		p->stalled = true;
}

uint64_t dest_file_stop(struct dest_file *f)
{
	uint64_t kept;

	/* a partial whose record lists nothing keeps nothing of use */
	if (!f->partial || f->partial->recorded == 0) {
		dest_file_remove(f);
		return 0;
	}
	/* the names stay: the next run's */
	kept = f->partial->recorded * f->partial->chunk;
	writer_close(f->w);
	f->tmp[0] = '\0';
	partial_free(f->partial);
	f->partial = NULL;
	return kept;
}

void dest_partial_forget(struct dest_file *f)
{
	struct dest_partial *p = f->partial;

	if (!p)
		return;
	if (p->rec_fd >= 0)
		close(p->rec_fd);
	p->rec_fd = -1;
	(void)unlinkat(f->dirfd, p->rec, 0);
	(void)partial_state_remove(p->state_dir, &p->key);
	partial_free(p);
	f->partial = NULL;
}
