/* reader.c: the read-ahead thread and its ring of aligned buffers.
 *
 * Slots are filled and released strictly in order, so the ring is two
 * counters: `ready` chunks published and not yet taken, `used` slots
 * published and not yet released.  The producer may fill slot `head`
 * while used < n.
 *
 * Sources are read with POSIX_FADV_SEQUENTIAL (larger readahead); a file
 * that was not in the page cache before we read it is dropped behind us
 * with POSIX_FADV_DONTNEED, so copying a card does not evict the rest of
 * the system's cache, while a file the user had cached stays cached. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirty/cachestat.h"
#include "util/cleanup.h"
#include "util/debug.h"
#include "copy/dirstack.h"
#include "copy/reader.h"
#include "util/test_hook.h"

#define DROP_BACK (2u << 20) /* the largest page cache folio on x86-64 */

struct reader {
	const struct plan *plan;
	size_t chunk;
	unsigned n;
	void **bufs;
	struct reader_chunk *slots;
	atomic_bool *cancel;

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t more;   /* a chunk was published, or the end */
	pthread_cond_t room;   /* a slot was released, or stop */
	unsigned head, tail, used, ready;
	bool finished, stop;
	size_t skip_from, skip_to; /* reader_skip(): under lock */

	struct dirstack dirs;  /* the source directories, reader thread only */
	size_t bad_dir_end;    /* files before this index lie under a directory */
	int bad_dir_err;       /*   that could not be opened, with this error */
};

static bool should_stop(struct reader *r)
{
	return r->stop || (r->cancel && atomic_load(r->cancel));
}

/* Wait for a free slot; false when told to stop. */
static bool wait_room(struct reader *r)
{
	bool ok;

	pthread_mutex_lock(&r->lock);
	while (r->used == r->n && !should_stop(r))
		pthread_cond_wait(&r->room, &r->lock);
	ok = !should_stop(r);
	pthread_mutex_unlock(&r->lock);
	return ok;
}

static void publish(struct reader *r, const struct reader_chunk *c)
{
	pthread_mutex_lock(&r->lock);
	r->slots[r->head] = *c;
	r->head = (r->head + 1) % r->n;
	r->used++;
	r->ready++;
	pthread_cond_signal(&r->more);
	pthread_mutex_unlock(&r->lock);
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* DONTNEED skips a large folio that is not wholly inside the range, and
 * one may straddle two chunks: each drop reaches back over the previous
 * chunk's end, and the last one to the end of the file. */
static void drop_pages(int fd, uint64_t off, size_t len, bool last)
{
	uint64_t from = off > DROP_BACK ? off - DROP_BACK : 0;

	posix_fadvise(fd, (off_t)from, last ? 0 : (off_t)(off + len - from), POSIX_FADV_DONTNEED);
}

static bool was_cached(int fd)
{
	struct file_cache fc;

	return cachestat_fd(fd, 0, 0, &fc) == 0 && fc.cached > 0;
}

static bool skipped(struct reader *r, size_t idx)
{
	bool skip;

	pthread_mutex_lock(&r->lock);
	skip = idx >= r->skip_from && idx < r->skip_to;
	pthread_mutex_unlock(&r->lock);
	return skip;
}

/* Publish a chunk that ends the file; false when told to stop. */
static bool publish_end(struct reader *r, struct reader_chunk *c, int err, bool changed)
{
	if (!wait_room(r))
		return false;
	c->slot = r->head;
	c->buf = r->bufs[c->slot];
	c->len = 0;
	c->err = err;
	c->changed = changed;
	c->last = true;
	publish(r, c);
	return true;
}

static bool same_times(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Still the file the plan saw, as it was then? */
static bool unchanged(int fd, const struct stat *plan)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == plan->st_dev &&
	       st.st_ino == plan->st_ino && st.st_size == plan->st_size &&
	       same_times(&st.st_mtim, &plan->st_mtim) && same_times(&st.st_ctim, &plan->st_ctim);
}

/* A readable fd of the regular file the O_PATH fd names: through /proc,
 * so it is that inode whatever its name leads to by now.  (Without /proc
 * safecp does not get this far: the target is found in mountinfo.) */
static int reopen_for_reading(int path_fd)
{
	char proc[48];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path_fd);
	return open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

/* The fd of the directory holding entry idx (AT_FDCWD for an operand),
 * or -errno. */
static int parent_fd(struct reader *r, const struct plan_entry *e)
{
	return e->parent == PLAN_TOP ? AT_FDCWD : dirstack_fd(&r->dirs, e->parent);
}

/* Open entry idx's source into *ret_fd: 0, 1 when what is there is not
 * the plan's regular file (nothing open), or -errno. */
static int open_source(struct reader *r, const struct plan_entry *e, int *ret_fd)
{
	const struct plan_options *o = &r->plan->opts;
	bool follow = e->parent == PLAN_TOP ? o->follow_symlinks || !o->recursive
					    : o->follow_symlinks;
	const char *name = e->parent == PLAN_TOP ? e->src : e->src_name;
	int dfd = parent_fd(r, e), fd;
	struct stat st;

	if (dfd < 0 && dfd != AT_FDCWD)
		return dfd;
	test_hook("source-open", e->src);
	/* O_PATH first: opening a device node a symlink leads to (-L, or an
	 * operand) has effects of its own (a tty, a tape, a watchdog) */
	fd = openat(dfd, name, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_dev != e->st.st_dev ||
	    st.st_ino != e->st.st_ino) {
		close(fd);
		return 1;
	}
	*ret_fd = reopen_for_reading(fd);
	close(fd);
	if (*ret_fd < 0)
		return -errno;
	if (fstat(*ret_fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != e->st.st_ino ||
	    st.st_dev != e->st.st_dev) {
		close(*ret_fd);
		*ret_fd = -1;
		return 1;
	}
	return 0;
}

/* Read one file into the ring, never more than the plan's size; false
 * when told to stop. */
static bool read_file(struct reader *r, size_t idx)
{
	const struct plan_entry *e = &r->plan->entries[idx];
	uint64_t left = (uint64_t)e->st.st_size;
	struct reader_chunk c = { .entry = idx };
	_cleanup_close_ int fd = -1;
	bool drop_behind;
	char probe;
	int rc;

	if (idx < r->bad_dir_end)
		return publish_end(r, &c, r->bad_dir_err, false);
	rc = open_source(r, e, &fd);
	if (rc != 0)
		return publish_end(r, &c, rc < 0 ? rc : 0, rc == 1);
	/* a file that fits one read gains nothing from a larger readahead */
	if (left > r->chunk)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	drop_behind = !was_cached(fd);
	for (;;) {
		size_t want = (size_t)MIN(left, (uint64_t)r->chunk);
		ssize_t n;

		if (skipped(r, idx))
			return publish_end(r, &c, -ECANCELED, false);
		if (!wait_room(r))
			return false;
		c.slot = r->head;
		c.buf = r->bufs[c.slot];
		n = read_full(fd, c.buf, want);
		c.err = n < 0 ? (int)n : 0;
		c.len = n < 0 ? 0 : (size_t)n;
		left -= c.len;
		/* short of the plan's size: it shrank; at it: one byte more
		 * means it grew, and then its times and size must be the plan's */
		c.last = n < 0 || (size_t)n < want || left == 0;
		if (c.last && n >= 0 && (size_t)n == want)
			n = read_full(fd, &probe, 1);
		if (n < 0)
			c.err = (int)n;
		else if (c.last)
			c.changed = (size_t)c.len < want || n > 0 || !unchanged(fd, &e->st);
		if (n >= 0 && drop_behind)
			drop_pages(fd, c.offset, c.len, c.last);
		publish(r, &c);
		if (c.last)
			return true;
		c.offset += c.len;
	}
}

/* Make the source directory of entry idx the top of the stack: opened
 * from its parent's fd by name, and the one the plan walked.  Files
 * below one that cannot be opened get its error. */
static void enter_dir(struct reader *r, size_t idx)
{
	const struct plan_entry *e = &r->plan->entries[idx];
	int dfd, fd, err;

	dirstack_pop_to(&r->dirs, e->parent);
	dfd = parent_fd(r, e);
	fd = dfd < 0 && dfd != AT_FDCWD ? dfd
		: dirstack_open_checked(dfd, e->parent == PLAN_TOP ? e->src : e->src_name,
					r->plan->opts.follow_symlinks, e->st.st_dev, e->st.st_ino);
	err = fd < 0 ? fd : dirstack_push(&r->dirs, idx, e->src_name, fd);
	if (err < 0 && e->end > r->bad_dir_end) {
		r->bad_dir_end = e->end;
		r->bad_dir_err = err;
	}
}

static void *reader_thread(void *arg)
{
	struct reader *r = arg;

	for (size_t i = 0; i < r->plan->n_entries; i++) {
		const struct plan_entry *e = &r->plan->entries[i];

		if (e->type == PLAN_DIR && i >= r->bad_dir_end)
			enter_dir(r, i);
		if (e->type != PLAN_FILE || e->skip_existing)
			continue;
		if (i >= r->bad_dir_end)
			dirstack_pop_to(&r->dirs, e->parent);
		if (skipped(r, i) ? !publish_end(r, &(struct reader_chunk){ .entry = i },
						  -ECANCELED, false)
				  : !read_file(r, i))
			break;
	}
	dirstack_free(&r->dirs);
	pthread_mutex_lock(&r->lock);
	r->finished = true;
	pthread_cond_broadcast(&r->more);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static int alloc_ring(struct reader *r, const struct write_plan *wp)
{
	r->n = wp->ring_slots ? wp->ring_slots : 3;
	r->chunk = wp->chunk;
	r->bufs = calloc(r->n, sizeof(*r->bufs));
	r->slots = calloc(r->n, sizeof(*r->slots));
	if (!r->bufs || !r->slots)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n; i++) {
		int e = posix_memalign(&r->bufs[i], MAX(wp->mem_align, 4096), r->chunk);

		if (e)
			return -e;
	}
	return 0;
}

int reader_start(const struct plan *p, const struct write_plan *wp,
		 atomic_bool *cancel, struct reader **ret)
{
	struct reader *r = calloc(1, sizeof(*r));
	int e;

	if (!r)
		return -ENOMEM;
	r->plan = p;
	r->cancel = cancel;
	dirstack_init(&r->dirs, p->opts.follow_symlinks);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->more, NULL);
	pthread_cond_init(&r->room, NULL);
	e = alloc_ring(r, wp);
	if (e == 0) {
		e = -pthread_create(&r->thread, NULL, reader_thread, r);
		r->started = e == 0;
	}
	if (e < 0) {
		reader_free(r);
		return e;
	}
	DEBUG(DEBUG_COPY, "reader: %u slots of %zu bytes", r->n, r->chunk);
	*ret = r;
	return 0;
}

int reader_next(struct reader *r, struct reader_chunk *ret)
{
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	while (r->ready == 0 && !r->finished && !should_stop(r))
		pthread_cond_wait(&r->more, &r->lock);
	if (r->ready > 0) {
		*ret = r->slots[r->tail];
		r->tail = (r->tail + 1) % r->n;
		r->ready--;
	} else {
		rc = should_stop(r) ? -ECANCELED : 1;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void reader_skip(struct reader *r, size_t from, size_t to)
{
	pthread_mutex_lock(&r->lock);
	r->skip_from = from;
	r->skip_to = to;
	pthread_mutex_unlock(&r->lock);
}

void reader_release(struct reader *r, const struct reader_chunk *c)
{
	(void)c; /* slots come back in order; the count is enough */
	pthread_mutex_lock(&r->lock);
	r->used--;
	pthread_cond_signal(&r->room);
	pthread_mutex_unlock(&r->lock);
}

void reader_free(struct reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->room);
	pthread_cond_broadcast(&r->more);
	pthread_mutex_unlock(&r->lock);
	if (r->started)
		pthread_join(r->thread, NULL);
	for (unsigned i = 0; r->bufs && i < r->n; i++)
		free(r->bufs[i]);
	free(r->bufs);
	free(r->slots);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->more);
	pthread_cond_destroy(&r->room);
	free(r);
}
