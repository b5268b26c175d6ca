/* sigbus_guard.c: see sigbus_guard.h. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "util/sigbus_guard.h"

static __thread sigjmp_buf *guard_jump;
static __thread uintptr_t guard_lo, guard_hi;
static struct sigaction previous;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int install_err;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	if (guard_jump && a >= guard_lo && a < guard_hi)
		siglongjmp(*guard_jump, 1);
	/* not ours: as if we were not there */
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, si, uc);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		/* returning re-runs the access, which faults again with the
		 * old action (the default: the process ends) */
		sigaction(SIGBUS, &previous, NULL);
	}
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &previous) < 0)
		install_err = -errno;
}

int sigbus_guarded(const void *addr, size_t len, void (*fn)(void *ctx), void *ctx)
{
	sigjmp_buf jump;

	pthread_once(&once, install);
	if (install_err)
		return install_err;
	if (sigsetjmp(jump, 1)) {
		guard_jump = NULL;
		return -EFAULT;
	}
	guard_lo = (uintptr_t)addr;
	guard_hi = (uintptr_t)addr + len;
	guard_jump = &jump;
	fn(ctx);
	guard_jump = NULL;
	return 0;
}
