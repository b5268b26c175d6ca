/* test_hook.c: see test_hook.h.  Built only with -Dtest_hooks=true. */
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/test_hook.h"

/* A test that sends SIGINT (TERM, HUP) while the process is stopped means
 * "stop here": the tools block those signals and take them in the main
 * thread, which may run after this thread when the process goes on.  Wait
 * until none is pending, 5 s at most, and a little longer for the main
 * thread to cancel the job, so this thread sees it cancelled. */
static void signals_taken(void)
{
	const struct timespec ms = { 0, 1000000 }, settle = { 0, 50000000 };
	bool waited = false;

	for (int i = 0; i < 5000; i++) {
		sigset_t pending;

		sigpending(&pending);
		if (!sigismember(&pending, SIGINT) && !sigismember(&pending, SIGTERM) &&
		    !sigismember(&pending, SIGHUP))
			break;
		waited = true;
		nanosleep(&ms, NULL);
	}
	if (waited)
		nanosleep(&settle, NULL);
}

void test_hook(const char *point, const char *path)
{
	static atomic_bool paused;
	const char *want = getenv("SAFECP_TEST_PAUSE");
	size_t n;

	if (!want || atomic_load(&paused))
		return;
	n = strcspn(want, ":");
	if (strlen(point) != n || strncmp(want, point, n) != 0)
		return;
	if (want[n] == ':' && (!path || !strstr(path, want + n + 1)))
		return;
	if (atomic_exchange(&paused, true))
		return;
	raise(SIGSTOP);
	signals_taken();
}
