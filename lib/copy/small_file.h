/* small_file.h: a small file the copy writes besides the data (a
 * checksum list, a manifest), written the way the engine writes a copy:
 * under a temporary name (dest_file.h) in its directory, made
 * durable, renamed over its final name, and the directory synced; a
 * pulled stick leaves the old file or the new one, never part of one. */
#ifndef SAFECP_SMALL_FILE_H
#define SAFECP_SMALL_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Write len bytes of buf as name in dirfd, mode (less the umask).  A
 * symlink at name is replaced, not followed.  0 or -errno (nothing is
 * left under the temporary name). */
int small_file_write(int dirfd, const char *name, const void *buf, size_t len, mode_t mode);

#endif
