/* source_open.h: a source file opened as the plan saw it, for every
 * reader of the source tree (reader.c's file feed, the pack feed).
 *
 * The file is opened from its directory's fd by name, without following
 * a symlink (but with -L, or an operand without -r), O_PATH first (a
 * device node a symlink leads to is never opened for real), then
 * reopened for reading through /proc without blocking (O_NONBLOCK: a
 * FIFO swapped in cannot hang the read) or becoming a controlling tty;
 * it must be the regular file the tree saw (st_dev, st_ino). */
#ifndef SAFECP_SOURCE_OPEN_H
#define SAFECP_SOURCE_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "copy/source_tree.h"

/* Open e (an entry of t) from dfd, the fd of its parent directory
 * (AT_FDCWD for an operand, opened by its path): 0 with *ret_fd, 1 when
 * what is there is not the tree's regular file (nothing open), -errno. */
int source_open(const struct source_tree *t, const struct source_entry *e, int dfd,
		int *ret_fd);

/* path (relative to dfd, AT_FDCWD for the cwd) opened as source_open()
 * opens a file: O_PATH, a symlink in its last component followed only
 * when follow, and then only a regular file reopened for reading through
 * /proc (a device node or FIFO a name leads to is never opened for real).
 * The readable fd, with its fstat in *ret_st (the caller checks it is the
 * file it means: the reopen is of that very inode); -ESTALE when it is
 * not a regular file, or the -errno of openat or the reopen.  For other
 * readers of known paths (identical.c). */
int source_open_regular(int dfd, const char *path, bool follow, struct stat *ret_st);

/* source_open() of e from its parent's frame on dirs, the directories
 * on the way to it (AT_FDCWD for an operand): as source_open(), or the
 * -errno of a parent that cannot be had. */
struct dirstack;
int source_open_in(const struct source_tree *t, struct dirstack *dirs,
		   const struct source_entry *e, int *ret_fd);

/* Enter directory entry idx of t: dirs popped to its parent, the
 * directory opened from there as the tree saw it (dirstack.h) and
 * pushed.  0 or -errno. */
int source_enter_dir(const struct source_tree *t, struct dirstack *dirs, size_t idx);

/* e (an entry of t) as an O_PATH fd, for its metadata (copy_meta.c),
 * from a thread that has no directory fds: reached by its path
 * (source_path()), following a final symlink only as source_open() does,
 * and checked to be the inode the tree saw (type, st_dev, st_ino): a
 * path swapped since leads elsewhere and is refused (-ESTALE), so what
 * is read is the tree's file whatever its names do.  The fd, or -errno. */
int source_open_meta(const struct source_tree *t, const struct source_entry *e);

/* Still the file the tree saw, as it was then (identity, size, mtime,
 * ctime)? */
bool source_unchanged(int fd, const struct source_entry *seen);

/* pread until len bytes, EOF or an error: the count, or -errno. */
ssize_t source_pread_full(int fd, void *buf, size_t len, uint64_t off);

/* The same, but content with need bytes (<= len): a read that brought
 * them and not the rest is not tried again (the rest is a probe past
 * the expected end, and a second pread would only see EOF again). */
ssize_t source_pread_least(int fd, void *buf, size_t len, size_t need, uint64_t off);

#endif
