/* thread_signals.h: the library's threads take no asynchronous signal.
 *
 * A thread inherits its creator's mask, so a thread started between
 * thread_signals_block() and thread_signals_restore() blocks every
 * signal but the faults the kernel raises in the faulting thread itself
 * (SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGSYS; a blocked fault
 * kills the process, and sigbus_guard.h needs SIGBUS).  SIGINT and the
 * rest then reach the caller's threads, and no system call of ours ends
 * in EINTR because of them. */
#ifndef SAFECP_THREAD_SIGNALS_H
#define SAFECP_THREAD_SIGNALS_H

#include <signal.h>

/* Block them in the calling thread; *old: its mask before. */
void thread_signals_block(sigset_t *old);
void thread_signals_restore(const sigset_t *old);

#endif
