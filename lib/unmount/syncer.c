/* syncer.c: syncfs() in a worker thread, dirty-state readings in the
 * caller's thread.
 *
 * syncfs() blocks until the filesystem's data is on the device and gives
 * no progress; the kernel's counters do.  So a worker thread makes the
 * calls (one round: every filesystem in turn) and signals an eventfd when
 * the round ends; the caller polls that eventfd with a timeout, which
 * both paces its display and wakes it the moment the round ends, so the
 * tool adds no latency to the sync it shows.  The caller reads debugfs bdi
 * stats and /sys/block/DISK/{stat,inflight} through lib/dirty.  A signal
 * interrupts only the wait: syncfs cannot be cancelled, and the kernel
 * finishes the writeback whatever we do.
 *
 * Shared state (round counters, error) is under one mutex; the fds are
 * written before the thread starts and read-only while it runs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/clock.h"
#include "util/debug.h"
#include "dirty/dirty.h"
#include "io/fs_sync.h"
#include "unmount/syncer.h"

struct syncer {
	int *fds;
	size_t n_fds;
	char **bdis, **disks;   /* distinct, non-empty */
	size_t n_bdis, n_disks;
	int efd;                /* the worker's "round finished" */

	pthread_t thread;
	bool joinable;
	pthread_mutex_t lock;
	unsigned started, finished; /* rounds */
	int error;
	size_t error_index;

	struct syncer_reading first;
};

static void *worker(void *arg)
{
	struct syncer *s = arg;
	uint64_t one = 1;
	int error = 0;
	size_t index = 0;

	for (size_t i = 0; i < s->n_fds; i++) {
		int r = fs_sync(s->fds[i]);

		if (r < 0 && !error) {
			error = r;
			index = i;
		}
	}
	pthread_mutex_lock(&s->lock);
	s->finished++;
	s->error = error;
	s->error_index = index;
	pthread_mutex_unlock(&s->lock);
	if (write(s->efd, &one, sizeof(one)) < 0) {
		/* cannot fail for a counter below 2^64-1; the poll timeout
		 * would still see the round finished */
	}
	return NULL;
}

static int start_round(struct syncer *s)
{
	int r;

	pthread_mutex_lock(&s->lock);
	s->started++;
	s->error = 0;
	pthread_mutex_unlock(&s->lock);
	r = pthread_create(&s->thread, NULL, worker, s);
	if (r != 0) {
		pthread_mutex_lock(&s->lock);
		s->started--;
		pthread_mutex_unlock(&s->lock);
		return -r;
	}
	s->joinable = true;
	DEBUG(DEBUG_UNMOUNT, "syncer: round %u started on %zu filesystems", s->started, s->n_fds);
	return 0;
}

static int add_distinct(char ***list, size_t *n, const char *name)
{
	char **grown;

	if (!name || !*name)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], name) == 0)
			return 0;
	grown = realloc(*list, (*n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*list = grown;
	grown[*n] = strdup(name);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The system figures are read at the start and, without debugfs, every
 * time: the estimate needs them, the exact path does not. */
static int read_counters(struct syncer *s, bool with_system, struct syncer_reading *ret)
{
	struct syncer_reading rd = { 0 };
	struct dirty_system sys = { 0 };
	struct dirty_device d;
	int r;

	if (with_system && dirty_system_read(&sys) == 0)
		rd.sys_pending = sys.dirty + sys.writeback + sys.writeback_tmp;
	for (size_t i = 0; i < s->n_bdis; i++) {
		r = dirty_device_read_with(s->bdis[i], NULL, with_system ? &sys : NULL, &d);
		if (r < 0)
			return r;
		rd.pending += dirty_device_pending(&d);
		rd.estimate |= d.source == DIRTY_SOURCE_ESTIMATE;
	}
	for (size_t i = 0; i < s->n_disks; i++) {
		r = dirty_device_read_with(NULL, s->disks[i], NULL, &d);
		if (r < 0)
			return r;
		rd.sectors += d.sectors_written;
		rd.inflight += d.inflight_reads + d.inflight_writes;
	}
	/* the clock after the counters: a reading never claims, at its
	 * time, more progress than the device had made by then */
	rd.t_mono = clock_monotonic();
	rd.t_real = clock_realtime();
	*ret = rd;
	return 0;
}

static int open_mounts(struct syncer *s, char *const *mountpoints, size_t n)
{
	s->fds = malloc((n ? n : 1) * sizeof(int));
	if (!s->fds)
		return -ENOMEM;
	for (; s->n_fds < n; s->n_fds++) {
		int fd = open(mountpoints[s->n_fds], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			return -errno;
		s->fds[s->n_fds] = fd;
	}
	return 0;
}

static int syncer_setup(struct syncer *s, char *const *mountpoints, size_t n_mounts,
			const struct syncer_source *sources, size_t n_sources)
{
	int r;

	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0)
		return -errno;
	r = open_mounts(s, mountpoints, n_mounts);
	for (size_t i = 0; r >= 0 && i < n_sources; i++) {
		r = add_distinct(&s->bdis, &s->n_bdis, sources[i].bdi);
		if (r >= 0)
			r = add_distinct(&s->disks, &s->n_disks, sources[i].disk);
	}
	if (r < 0)
		return r;
	r = read_counters(s, true, &s->first);
	if (r < 0)
		return r;
	if (s->first.estimate)
		DEBUG(DEBUG_UNMOUNT, "syncer: no debugfs, estimating from %llu B system-wide",
		      (unsigned long long)s->first.sys_pending);
	return start_round(s);
}

int syncer_start(char *const *mountpoints, size_t n_mounts,
		 const struct syncer_source *sources, size_t n_sources,
		 struct syncer **ret)
{
	struct syncer *s;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->efd = -1;
	pthread_mutex_init(&s->lock, NULL);
	r = syncer_setup(s, mountpoints, n_mounts, sources, n_sources);
	if (r < 0) {
		syncer_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void syncer_compute(const struct syncer_reading *start, const struct syncer_reading *now,
		    bool synced, uint64_t tolerance, struct syncer_figures *ret)
{
	uint64_t written = 0, left;
	bool clean;

	/* a counter that went backwards (a device re-created) counts nothing */
	if (now->sectors > start->sectors)
		written = (now->sectors - start->sectors) * 512;
	if (!now->estimate) {
		/* Pages leave writeback only when the filesystem's completion
		 * work has run (xfs ends ioends in a workqueue), which can lag
		 * the device's own sector counter by 100 MB at 60 MiB/s: what
		 * the device completed since the start bounds what is left. */
		left = now->pending;
		if (start->pending > written)
			left = MIN(left, start->pending - written);
		clean = synced && now->pending <= tolerance && now->inflight == 0;
	} else {
		left = start->sys_pending > written ? start->sys_pending - written : 0;
		clean = synced && now->inflight == 0;
	}
	ret->t_mono = now->t_mono;
	ret->t_real = now->t_real;
	/* within the counters' error of nothing is nothing */
	ret->bytes_left = clean ? 0 : left;
	ret->bytes_written = written;
	ret->estimate = now->estimate;
	ret->synced = synced;
	ret->clean = clean;
}

/* Reap a round that has ended (or is about to: finished is counted just
 * before the eventfd write), and drain its signal. */
static void reap(struct syncer *s)
{
	uint64_t v;

	if (s->joinable) {
		pthread_join(s->thread, NULL);
		s->joinable = false;
	}
	if (read(s->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing to drain */
	}
}

static bool round_running(struct syncer *s)
{
	bool running;

	pthread_mutex_lock(&s->lock);
	running = s->started != s->finished;
	pthread_mutex_unlock(&s->lock);
	return running;
}

static uint64_t tolerance(const struct syncer *s)
{
	return 2 * dirty_percpu_error() * (s->n_bdis ? s->n_bdis : 1);
}

void syncer_first(const struct syncer *s, struct syncer_figures *ret)
{
	*ret = (struct syncer_figures){ .round = 1 };
	syncer_compute(&s->first, &s->first, false, tolerance(s), ret);
}

int syncer_poll(struct syncer *s, int timeout_ms, struct syncer_figures *ret)
{
	struct pollfd p = { .fd = s->efd, .events = POLLIN };
	struct syncer_reading now;
	unsigned started, finished;
	int r;

	if (s->joinable) {
		r = poll(&p, 1, timeout_ms);
		if (r < 0)
			return -errno;
		if (r > 0)
			reap(s);
	}
	r = read_counters(s, s->first.estimate, &now);
	if (r < 0)
		return r;
	pthread_mutex_lock(&s->lock);
	started = s->started;
	finished = s->finished;
	ret->error = s->error;
	ret->error_index = s->error_index;
	pthread_mutex_unlock(&s->lock);
	syncer_compute(&s->first, &now, started == finished, tolerance(s), ret);
	ret->round = started;
	return 0;
}

int syncer_again(struct syncer *s)
{
	if (round_running(s))
		return -EBUSY;
	reap(s);
	return start_round(s);
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void syncer_free(struct syncer *s)
{
	if (!s)
		return;
	if (s->joinable)
		pthread_join(s->thread, NULL);
	for (size_t i = 0; i < s->n_fds; i++)
		close(s->fds[i]);
	free(s->fds);
	free_names(s->bdis, s->n_bdis);
	free_names(s->disks, s->n_disks);
	if (s->efd >= 0)
		close(s->efd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
