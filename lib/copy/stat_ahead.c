/* stat_ahead.c: see stat_ahead.h.  One job at a time: the caller writes
 * it, bumps posted, does its own half, and waits until finished equals
 * posted.  Each side spins up to SPIN_S, then sleeps on a futex; a
 * sleeper says so first (the *_sleeps flags, all seq_cst), so a waker
 * makes the system call only when someone sleeps. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "copy/stat_ahead.h"
#include "util/thread_signals.h"

/* below this many names a window is not worth a hand-off */
#define STAT_AHEAD_MIN 32
/* seconds: longer than the walk's work between two windows */
#define SPIN_S 200e-6

struct stat_job {
	int dirfd, flags;
	char *const *names;
	struct stat *st;
	int *err;
	size_t from, to;
};

struct stat_ahead {
	pthread_t thread;
	struct stat_job job;
	_Atomic uint32_t posted, finished;
	_Atomic bool helper_sleeps, caller_sleeps, stop;
	bool started, failed; /* the helper: started at the first big window */
};

static void stat_range(const struct stat_job *j)
{
	for (size_t i = j->from; i < j->to; i++)
		j->err[i] = fstatat(j->dirfd, j->names[i], &j->st[i], j->flags) < 0 ? errno : 0;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Until *addr != val: spin, then sleep with *sleeps set. */
static void wait_change(_Atomic uint32_t *addr, uint32_t val, _Atomic bool *sleeps)
{
	double start = clock_monotonic();

	for (unsigned i = 1; atomic_load(addr) == val; i++) {
		cpu_relax();
		if (i % 256 == 0 && clock_monotonic() - start > SPIN_S)
			break;
	}
	while (atomic_load(addr) == val) {
		atomic_store(sleeps, true);
		if (atomic_load(addr) == val)
			futex_wait(addr, val);
		atomic_store(sleeps, false);
	}
}

static void publish(_Atomic uint32_t *addr, uint32_t val, _Atomic bool *sleeps)
{
	atomic_store(addr, val);
	if (atomic_load(sleeps))
		futex_wake(addr);
}

static void *helper(void *arg)
{
	struct stat_ahead *s = arg;
	uint32_t seen = 0;

	for (;;) {
		wait_change(&s->posted, seen, &s->helper_sleeps);
		seen = atomic_load(&s->posted);
		if (atomic_load(&s->stop))
			break;
		stat_range(&s->job);
		publish(&s->finished, seen, &s->caller_sleeps);
	}
	return NULL;
}

static bool one_cpu(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < 2;
}

int stat_ahead_new(struct stat_ahead **ret)
{
	*ret = NULL;
	if (one_cpu())
		return 0;
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

/* A tree of a few small directories never starts the thread. */
static bool helper_running(struct stat_ahead *s)
{
	sigset_t old;

	if (!s->started && !s->failed) {
		thread_signals_block(&old);
		s->started = pthread_create(&s->thread, NULL, helper, s) == 0;
		s->failed = !s->started;
		thread_signals_restore(&old);
	}
	return s->started;
}

void stat_ahead_run(struct stat_ahead *s, int dirfd, char *const *names, size_t n, int flags,
		    struct stat *st, int *err)
{
	struct stat_job mine = { dirfd, flags, names, st, err, 0, n };
	uint32_t seq;

	if (!s || n < STAT_AHEAD_MIN || !helper_running(s)) {
		stat_range(&mine);
		return;
	}
	mine.to = n / 2;
	s->job = mine;
	s->job.from = n / 2;
	s->job.to = n;
	seq = atomic_load(&s->posted) + 1;
	publish(&s->posted, seq, &s->helper_sleeps);
	stat_range(&mine);
	wait_change(&s->finished, seq - 1, &s->caller_sleeps);
}

void stat_ahead_free(struct stat_ahead *s)
{
	if (!s)
		return;
	if (s->started) {
		atomic_store(&s->stop, true);
		publish(&s->posted, atomic_load(&s->posted) + 1, &s->helper_sleeps);
		pthread_join(s->thread, NULL);
	}
	free(s);
}
