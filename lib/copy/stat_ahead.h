/* stat_ahead.h: the walk's fstatat of a directory's names, on two cores.
 *
 * Walking a million files is a million fstatat calls: the kernel's path
 * lookups, which scale across cores (RCU), are most of the walk's time.
 * A directory's names are known at once (getdents), so a window of them
 * is stated before the walk visits them: the calling thread takes the
 * first half, a helper thread the second.  The two meet by spinning for
 * a moment before they sleep: a directory of a hundred names is ~100 µs
 * of stats, and a futex wake-up costs as much as the half it hands over
 * (measured: the hand-off by condition variable alone made the walk 1.05x
 * slower, bench/results/issue28-walk-ahead.md).  Small windows, and
 * machines with one CPU, stay in the calling thread. */
#ifndef SAFECP_STAT_AHEAD_H
#define SAFECP_STAT_AHEAD_H

#include <stddef.h>
#include <sys/stat.h>

struct stat_ahead;

/* A helper, its thread started by the first window big enough to share
 * (it takes no asynchronous signal).  0 or -ENOMEM; none (*ret NULL, 0)
 * with one CPU.  Without one, or its thread, stat_ahead_run() works
 * alone. */
int stat_ahead_new(struct stat_ahead **ret);

/* st[i] of names[i] in directory dirfd (fstatat with flags), err[i] its
 * errno or 0, for i < n. */
void stat_ahead_run(struct stat_ahead *s, int dirfd, char *const *names, size_t n, int flags,
		    struct stat *st, int *err);

/* Stop and join the helper; NULL is fine. */
void stat_ahead_free(struct stat_ahead *s);

#endif
