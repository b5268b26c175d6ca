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
	char *path;       /* for messages */
	const char *name; /* its name in the directory, inside path */
	size_t dir;       /* the caller's key of that directory (a plan entry) */
	uint64_t bytes;   /* allocated: st_blocks * 512, what removing it frees */
};

struct stale_temps {
	struct stale_temp *v;
	size_t n;
	uint64_t bytes;
};

/* Append the stale temporaries of the directory open on dirfd (regular
 * files and symlinks named like ours, of dead PIDs, owned by this user,
 * with one link) to *list, each with
 * key dir and a path made from dir_path; none when this process may not
 * remove names from it.  Returns 0, or -errno when the directory cannot
 * be read (the list keeps what it had). */
int stale_temps_find_at(int dfd, const char *dir_path, size_t dir,
			struct stale_temps *list);

/* The same for the directory at path (opened without following a final
 * symlink), key 0. */
int stale_temps_find(const char *path, struct stale_temps *list);

/* Remove t (found in the directory now open on dirfd) if it is still a
 * regular file or symlink: 0, or -errno (-ENOENT: already gone). */
int stale_temp_remove(int dfd, const struct stale_temp *t);

void stale_temps_free(struct stale_temps *list);

#endif
