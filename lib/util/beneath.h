/* beneath.h: paths resolved under a directory without leaving it.
 *
 * openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS: no "..", absolute path or symbolic link takes
 * the walk out of the directory, so a tree someone else controls (a
 * stick's, a list's) cannot send an open elsewhere. */
#ifndef SAFECP_UTIL_BENEATH_H
#define SAFECP_UTIL_BENEATH_H

#include <stdint.h>

/* rel beneath dirfd (rel "." is dirfd itself); flags are open(2)'s,
 * O_CLOEXEC added; also_resolve adds RESOLVE_ flags (RESOLVE_NO_XDEV).
 * A rename elsewhere under dirfd makes openat2 answer EAGAIN: the walk
 * is tried again a few times.  fd, or -errno: -EXDEV for a walk that
 * would leave dirfd (or cross a mount, with RESOLVE_NO_XDEV), -ELOOP for
 * a symbolic link on the way. */
int beneath_openat(int dirfd, const char *rel, uint64_t flags, uint64_t also_resolve);

/* path, which must be written as root or root/...: opened from root
 * (itself opened as given, links followed: the caller named it) with
 * beneath_openat() and RESOLVE_NO_XDEV, so neither a link, a "..", nor
 * a mount on the way leads out of root's filesystem.  fd or -errno;
 * -EXDEV also when path is not written under root. */
int beneath_open_path(const char *root, const char *path, uint64_t flags);

#endif
