/* syncer.c: syncfs() in a worker thread, dirty-state readings in the
 * caller's thread.
 *
 * syncfs() blocks until the filesystem's data is on the device and gives
 * no progress; the kernel's counters do.  So a worker makes the calls
 * (one round: every filesystem in turn) and writes its result into a pipe
 * when the round ends; the caller polls that pipe with a timeout, which
 * both paces its display and wakes it the moment the round ends, so the
 * tool adds no latency to the sync it shows.  The caller reads debugfs bdi
 * stats and /sys/block/DISK/{stat,inflight} through lib/dirty.
 *
 * The worker is a process of its own (forked twice, so init reaps it), not
 * a thread: syncfs cannot be interrupted, and a thread of ours inside it
 * would hold our whole process, and the user's prompt, until the kernel
 * had written everything.  Given up (syncer_free during a round), the
 * worker goes on alone and the kernel finishes the writeback. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/clock.h"
#include "util/debug.h"
#include "base/grow.h"
#include "dirty/dirty.h"
#include "io/fs_sync.h"
#include "unmount/syncer.h"

struct syncer {
	int *fds;
	size_t n_fds;
	char **bdis, **disks;   /* distinct, non-empty */
	size_t n_bdis, n_disks, cap_bdis, cap_disks;
	int result_fd;          /* the running round's pipe: its result, or -1 */
	unsigned started, finished; /* rounds */
	int error;
	size_t error_index;

	struct syncer_reading first;
};

/* What a round's worker writes: one record, then end of file. */
struct round_result {
	int error;
	size_t index;
};

/* The lowest of out and s->fds at or above lo; -1 when none. */
static int next_kept(const struct syncer *s, int out, int lo)
{
	int k = out >= lo ? out : -1;

	for (size_t i = 0; i < s->n_fds; i++)
		if (s->fds[i] >= lo && (k < 0 || s->fds[i] < k))
			k = s->fds[i];
	return k;
}

/* In the worker process: only system calls (fork of a threaded process).
 * Every fd but its own is closed first: a pipe the caller writes to (its
 * standard output into `| tee`) must end when the caller does. */
static _Noreturn void worker(const struct syncer *s, int out)
{
	struct round_result res = { 0, 0 };

	for (int lo = 0, k; lo >= 0; lo = k < 0 ? -1 : k + 1) {
		k = next_kept(s, out, lo);
		if (k != lo)
			close_range((unsigned)lo, k < 0 ? ~0U : (unsigned)k - 1, 0);
	}

	for (size_t i = 0; i < s->n_fds; i++) {
		int r = fs_sync(s->fds[i]);

		if (r < 0 && !res.error)
			res = (struct round_result){ r, i };
	}
	/* closed before the word: the caller unmounts once it has it */
	for (size_t i = 0; i < s->n_fds; i++)
		close(s->fds[i]);
	/* EPIPE (the caller gave up): nobody to tell */
	if (write(out, &res, sizeof(res)) < 0)
		_exit(1);
	_exit(0);
}

static int start_round(struct syncer *s)
{
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		/* the middle process exits at once: the worker is init's child,
		 * never a zombie of a caller that gave it up */
		close(p[0]);
		if (fork() == 0)
			worker(s, p[1]);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		int r = -errno;

		close(p[0]);
		return r;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		int r = -errno;

		close(p[0]);
		return r;
	}
	s->result_fd = p[0];
	s->started++;
	s->error = 0;
	DEBUG(DEBUG_UNMOUNT, "syncer: round %u started on %zu filesystems", s->started, s->n_fds);
	return 0;
}

static int add_distinct(char ***list, size_t *n, size_t *cap, const char *name)
{
	if (!name || !*name)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], name) == 0)
			return 0;
	if (GROW(*list, *cap, *n + 1, 4) < 0 || !((*list)[*n] = strdup(name)))
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

	r = open_mounts(s, mountpoints, n_mounts);
	for (size_t i = 0; r >= 0 && i < n_sources; i++) {
		r = add_distinct(&s->bdis, &s->n_bdis, &s->cap_bdis, sources[i].bdi);
		if (r >= 0)
			r = add_distinct(&s->disks, &s->n_disks, &s->cap_disks, sources[i].disk);
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
	s->result_fd = -1;
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

/* Take the running round's result if it has come: true when the round
 * has ended.  A worker that died without a word ended with EIO. */
static bool reap(struct syncer *s)
{
	struct round_result res;
	ssize_t n;

	if (s->result_fd < 0)
		return true;
	n = read(s->result_fd, &res, sizeof(res));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n != (ssize_t)sizeof(res))
		res = (struct round_result){ n < 0 ? -errno : -EIO, 0 };
	close(s->result_fd);
	s->result_fd = -1;
	s->finished++;
	s->error = res.error;
	s->error_index = res.index;
	return true;
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
	struct pollfd p = { .fd = s->result_fd, .events = POLLIN };
	struct syncer_reading now;
	int r;

	if (s->result_fd >= 0) {
		r = poll(&p, 1, timeout_ms);
		if (r < 0)
			return -errno;
		if (r > 0)
			reap(s);
	}
	r = read_counters(s, s->first.estimate, &now);
	if (r < 0)
		return r;
	ret->error = s->error;
	ret->error_index = s->error_index;
	syncer_compute(&s->first, &now, s->started == s->finished, tolerance(s), ret);
	ret->round = s->started;
	return 0;
}

int syncer_again(struct syncer *s)
{
	if (!reap(s))
		return -EBUSY;
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
	/* a round still running goes on without us */
	if (s->result_fd >= 0)
		close(s->result_fd);
	for (size_t i = 0; i < s->n_fds; i++)
		close(s->fds[i]);
	free(s->fds);
	free_names(s->bdis, s->n_bdis);
	free_names(s->disks, s->n_disks);
	free(s);
}
