/* sigbus_guard.h: read a file's mapping from user space without dying
 * when the file shrinks under it.
 *
 * A page of a mapping past the file's end raises SIGBUS when touched; the
 * owner of a source file can truncate it at any moment.  A guarded call
 * runs with a handler that, for a fault inside the range this thread
 * declared, jumps back out of the call (siglongjmp), which then returns
 * -EFAULT; any other SIGBUS goes to the handler that was there before
 * (or the default action: the process dies as it would have).  The
 * interrupted work is abandoned half done: the caller must reset what
 * it was computing.  One handler per process, installed on first use. */
#ifndef SAFECP_SIGBUS_GUARD_H
#define SAFECP_SIGBUS_GUARD_H

#include <stddef.h>

/* fn(ctx), with [addr, addr + len) guarded: 0, or -EFAULT when a fault in
 * the range cut it short, or -errno when the handler cannot be set. */
int sigbus_guarded(const void *addr, size_t len, void (*fn)(void *ctx), void *ctx);

#endif
