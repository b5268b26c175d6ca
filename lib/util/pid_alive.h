/* pid_alive.h: is a process that left something behind still running?
 *
 * Used where a file names the process that owns it (a temporary's name,
 * a partial's entry in this machine's state): a live PID keeps its file,
 * even if that process is no longer safecp, since PIDs are reused and
 * leaving a dead file is safer than removing a live one. */
#ifndef SAFECP_PID_ALIVE_H
#define SAFECP_PID_ALIVE_H

#include <stdbool.h>
#include <sys/types.h>

/* True for this process, and for any PID kill(pid, 0) does not answer
 * with ESRCH (EPERM: it exists, it is just not ours to signal). */
bool pid_alive(pid_t pid);

#endif
