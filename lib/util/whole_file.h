/* whole_file.h: a small regular file read whole, of a size the caller bounds.
 *
 * For files the tools read back from a destination (checksum lists, ASC
 * MHL generations): never a FIFO or a device in a file's place, never
 * more than the caller can hold. */
#ifndef SAFECP_WHOLE_FILE_H
#define SAFECP_WHOLE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* path, relative to dirfd (or AT_FDCWD), into a malloc'd buffer with a
 * NUL after its len bytes.  flags are added to O_RDONLY | O_CLOEXEC |
 * O_NOCTTY | O_NONBLOCK (O_NONBLOCK: opening a FIFO does not wait for a
 * writer); O_NOFOLLOW, say.  0; -EINVAL when it is no regular file or is
 * larger than max; -ENOMEM; or the -errno of openat, fstat or read.  A
 * file that shrinks while it is read gives what was there. */
int whole_file_read_at(int dirfd, const char *path, int flags, uint64_t max, char **ret,
		       size_t *ret_len);

#endif
