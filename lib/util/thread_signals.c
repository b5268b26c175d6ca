/* thread_signals.c: see thread_signals.h. */
#include <pthread.h>

#include "util/thread_signals.h"

void thread_signals_block(sigset_t *old)
{
	static const int faults[] = { SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
	sigset_t set;

	sigfillset(&set);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&set, faults[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void thread_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
