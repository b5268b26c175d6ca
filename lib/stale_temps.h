/* stale_temps.h: the hidden temporary files safecp writes where a
 * filesystem has no O_TMPFILE (FAT, exFAT, FUSE), and finding the ones a
 * dead copy left behind.
 *
 * A copy that is killed (-9, a crash, the power) cannot remove its
 * temporary; the next copy into the same directory can.  A temporary is
 * stale when the PID in its name is not a live process on this machine.
 * A live PID keeps its file, even if that process is no longer safecp:
 * PIDs are reused, and leaving a dead file is safer than removing a live
 * one.  A copy from another PID namespace into the same directory at the
 * same time would look dead: that case is not handled. */
#ifndef SAFECP_STALE_TEMPS_H
#define SAFECP_STALE_TEMPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ".safecp-PID-SEQ.tmp": fits in 48 bytes with any PID and SEQ. */
#define STALE_TEMP_NAME_MAX 48

/* Writes the temporary name of this process's seq-th file into buf
 * (STALE_TEMP_NAME_MAX bytes). */
void stale_temp_name(char *buf, pid_t pid, unsigned long seq);

/* True when name is exactly a temporary name; *pid gets its PID.  Pure:
 * digits only, no sign, no leading zero, PID > 0. */
bool stale_temp_parse(const char *name, pid_t *pid);

struct stale_temp {
	char *path;
	uint64_t bytes; /* allocated: st_blocks * 512, what removing it frees */
};

struct stale_temps {
	struct stale_temp *v;
	size_t n;
	uint64_t bytes;
};

/* Append the stale temporaries of directory dir (regular files and
 * symlinks named like ours, of dead PIDs) to *list; none when this
 * process may not remove names from dir.  Returns 0, or -errno when the
 * directory cannot be read (the list keeps what it had). */
int stale_temps_find(const char *dir, struct stale_temps *list);

void stale_temps_free(struct stale_temps *list);

#endif
