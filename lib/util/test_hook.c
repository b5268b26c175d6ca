/* test_hook.c: see test_hook.h.  Built only with -Dtest_hooks=true. */
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/test_hook.h"

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
}
