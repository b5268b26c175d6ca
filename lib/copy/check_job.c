/* check_job.c: the thread that reads a copy back for check.h.
 *
 * Two passes over the entries: the sizes the reference does not give are
 * taken from the files first (metadata only, so the progress has a total
 * before the first block is read), then each file is opened beneath DIR,
 * checked to be regular and of the listed size, read back from the device
 * and its digest compared.  Outcomes are written before files_done passes
 * them (seq_cst atomics), so the poller reads each one once it is final.
 *
 * The queue (util/event_queue.h) carries only wake-ups: one per outcome
 * and one at the end, each pushed after the state it announces was
 * stored, and the poll returns events from that state (the next outcome
 * not yet returned, then the end).  So a poll never returns an event
 * twice, and the fd is readable while one waits: every record popped
 * belongs to an event already returned, hence fewer records are popped
 * than events are returned, and an event not yet returned still has its
 * record queued (a wake-up lost for want of memory delays it to the
 * next one). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/check.h"
#include "device/fs_traits.h"
#include "util/beneath.h"
#include "util/debug.h"
#include "util/event_queue.h"
#include "base/test_hook.h"
#include "util/thread_signals.h"

struct check_job {
	const struct check_list *list;
	int dir_fd;
	bool fuse;
	int bdev_fd;
	struct read_back rb;
	struct check_stats stats;
	struct check_outcome *outcomes;
	uint64_t *sizes; /* per entry: listed, else found in the first pass */
	atomic_bool cancel;
	atomic_bool finished;
	struct event_queue *events; /* wake-ups, see above */
	size_t returned;            /* outcomes check_job_poll() returned */
	bool end_returned;
	int result;
	pthread_t thread;
	bool started;
};

static enum check_result open_failure(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR: return CHECK_MISSING;
	case ELOOP: return CHECK_SYMLINK;
	case EXDEV: return CHECK_OUTSIDE;
	default: return CHECK_UNREADABLE;
	}
}

/* The first pass: a total for the progress. */
static void size_all(struct check_job *j)
{
	uint64_t total = 0;

	for (size_t i = 0; i < j->list->n && !atomic_load(&j->cancel); i++) {
		const struct check_entry *e = &j->list->entries[i];
		struct stat st;
		int fd;

		if (!e->has_size) {
			fd = beneath_openat(j->dir_fd, e->path, O_PATH, 0);
			j->sizes[i] = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
					      ? (uint64_t)st.st_size : 0;
			if (fd >= 0)
				close(fd);
		} else {
			j->sizes[i] = e->size;
		}
		total += j->sizes[i];
		atomic_store(&j->stats.bytes_total, total);
	}
	atomic_store(&j->stats.sized, true);
}

/* Reads the open regular file fd back and compares; the outcome in *o. */
static void compare(struct check_job *j, const struct check_entry *e, int fd,
		    struct check_outcome *o)
{
	struct checksum_result res;
	int r = read_back_file(&j->rb, fd, o->size, j->fuse, j->bdev_fd, CHECKSUM_BIT(e->alg),
			       &res, &o->how, &j->stats.bytes_done);

	if (r == -ECANCELED) {
		o->err = ECANCELED;
		return;
	}
	o->read = true;
	atomic_fetch_or(&j->stats.hows, 1u << o->how);
	if (r < 0) {
		o->result = CHECK_UNREADABLE;
		o->err = -r;
		return;
	}
	o->result = strcmp(checksum_result_text(&res, e->alg), e->digest) == 0 ? CHECK_MATCH
										: CHECK_DIFFERS;
}

static void check_one(struct check_job *j, const struct check_entry *e, struct check_outcome *o)
{
	struct stat st;
	int fd;

	*o = (struct check_outcome){ .result = CHECK_UNREADABLE };
	if (e->failed_before) {
		o->result = CHECK_FAILED_BEFORE;
		return;
	}
	fd = beneath_openat(j->dir_fd, e->path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
	if (fd < 0) {
		o->result = open_failure(-fd);
		o->err = -fd;
		return;
	}
	if (fstat(fd, &st) < 0) {
		o->err = errno;
	} else if (!S_ISREG(st.st_mode)) {
		o->result = CHECK_NOT_REGULAR;
	} else {
		o->size = (uint64_t)st.st_size;
		if (e->has_size && o->size != e->size) {
			o->result = CHECK_SIZE_DIFFERS;
		} else {
			test_hook("check", e->path);
			compare(j, e, fd, o);
		}
	}
	close(fd);
}

static void wake(struct check_job *j)
{
	char w = 0;

	(void)event_queue_push(j->events, &w); /* lost: the next one wakes */
}

static void *check_thread(void *arg)
{
	struct check_job *j = arg;
	uint64_t done = 0;

	size_all(j);
	for (size_t i = 0; i < j->list->n && !atomic_load(&j->cancel); i++) {
		struct check_outcome *o = &j->outcomes[i];

		atomic_store(&j->stats.current, i);
		check_one(j, &j->list->entries[i], o);
		if (o->err == ECANCELED)
			break;
		/* a file not read, or not the size first seen, still counts whole */
		done += j->sizes[i];
		atomic_store(&j->stats.bytes_done, done);
		if (o->read)
			atomic_fetch_add(&j->stats.bytes_read, o->size);
		atomic_fetch_add(&j->stats.count[o->result], 1);
		atomic_store(&j->stats.files_done, i + 1);
		wake(j);
		DEBUG(DEBUG_COPY, "check %s: %s", j->list->entries[i].path,
		      check_result_name(o->result));
	}
	j->result = atomic_load(&j->cancel) ? -ECANCELED : 0;
	atomic_store(&j->finished, true);
	wake(j);
	return NULL;
}

static int job_open(struct check_job *j, const char *dir, const struct target *t)
{
	const struct fs_traits *fs = fs_traits_of(t);
	int r;

	j->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dir_fd < 0)
		return -errno;
	j->fuse = fs->fuse;
	/* the daemon reads through the device's page cache (root only) */
	j->bdev_fd = read_back_device_open(t);
	j->outcomes = calloc(j->list->n ? j->list->n : 1, sizeof(*j->outcomes));
	j->sizes = calloc(j->list->n ? j->list->n : 1, sizeof(*j->sizes));
	if (!j->outcomes || !j->sizes)
		return -ENOMEM;
	r = read_back_init(&j->rb, 1 << 20);
	if (r < 0)
		return r;
	j->rb.cancel = &j->cancel;
	return event_queue_new(1, &j->events);
}

int check_job_start(const char *dir, const struct target *t, const struct check_list *l,
		    struct check_job **ret)
{
	struct check_job *j = calloc(1, sizeof(*j));
	int r;

	if (!j)
		return -ENOMEM;
	j->list = l;
	j->dir_fd = j->bdev_fd = -1;
	atomic_store(&j->stats.files_total, l->n);
	r = job_open(j, dir, t);
	if (r == 0) {
		sigset_t old;

		thread_signals_block(&old); /* its thread takes no signal */
		r = -pthread_create(&j->thread, NULL, check_thread, j);
		thread_signals_restore(&old);
	}
	j->started = r == 0;
	if (r < 0) {
		check_job_free(j);
		return r;
	}
	*ret = j;
	return 0;
}

const struct check_stats *check_job_stats(const struct check_job *j)
{
	return &j->stats;
}

const struct check_outcome *check_job_outcome(const struct check_job *j, size_t i)
{
	return &j->outcomes[i];
}

int check_job_fd(const struct check_job *j)
{
	return event_queue_fd(j->events);
}

/* The next event the stored state holds, if any. */
static bool next_event(struct check_job *j, struct check_event *ret)
{
	if (j->returned < atomic_load(&j->stats.files_done)) {
		*ret = (struct check_event){ .index = j->returned++ };
		return true;
	}
	if (!j->end_returned && atomic_load(&j->finished)) {
		j->end_returned = true;
		*ret = (struct check_event){ .end = true };
		return true;
	}
	return false;
}

int check_job_poll(struct check_job *j, int timeout_ms, struct check_event *ret)
{
	char w;
	int r;

	if (next_event(j, ret)) {
		(void)event_queue_pop(j->events, 0, &w); /* its wake-up, if queued yet */
		return 1;
	}
	r = event_queue_pop(j->events, timeout_ms, &w);
	if (r <= 0)
		return r;
	return next_event(j, ret) ? 1 : 0;
}

bool check_job_done(const struct check_job *j, int *result)
{
	if (!atomic_load(&j->finished))
		return false;
	if (result)
		*result = j->result;
	return true;
}

void check_job_cancel(struct check_job *j)
{
	atomic_store(&j->cancel, true);
}

void check_job_free(struct check_job *j)
{
	if (!j)
		return;
	if (j->started) {
		check_job_cancel(j);
		pthread_join(j->thread, NULL);
	}
	read_back_done(&j->rb);
	if (j->bdev_fd >= 0)
		close(j->bdev_fd);
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	event_queue_free(j->events, NULL);
	free(j->outcomes);
	free(j->sizes);
	free(j);
}
