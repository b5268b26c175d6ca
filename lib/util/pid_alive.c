/* pid_alive.c: see pid_alive.h. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "util/pid_alive.h"

bool pid_alive(pid_t pid)
{
	return pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH;
}
