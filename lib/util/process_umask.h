/* process_umask.h: the process's umask, read without changing it.
 *
 * umask(2) can only be read by setting it: umask(0) then umask(old)
 * leaves a window in which another thread's new file gets mode 0666, and
 * two threads doing it at once can leave the process at 0.  Linux shows
 * the mask in /proc/self/status (4.7 and later); that is read instead. */
#ifndef SAFECP_PROCESS_UMASK_H
#define SAFECP_PROCESS_UMASK_H

#include <sys/types.h>

/* The umask from /proc/self/status; where that cannot be read, from
 * umask(2) set and restored under a lock of this module's (safe among
 * callers of this function, not against others). */
mode_t process_umask(void);

/* The "Umask:" line of a /proc/PID/status text of len bytes: 0 and the
 * mask in *ret, or -ENOENT when there is none or it is malformed. */
int process_umask_parse(const char *status, size_t len, mode_t *ret);

#endif
