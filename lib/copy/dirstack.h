/* dirstack.h: the open directories on the way to the entry being copied.
 *
 * The engine (destination side) and the reader (source side) walk the
 * plan in its pre-order and reach every entry from its parent
 * directory's fd by name, never by path, so a symlink planted anywhere
 * below the operands is never followed.  A dirstack holds the current
 * path of directories as fds.  Only the first frame and the
 * DIRSTACK_OPEN deepest stay open (a 2000-level tree must not exhaust
 * RLIMIT_NOFILE); a closed frame is reopened from its nearest open
 * ancestor, name by name, without following symlinks (unless follow),
 * and must have the identity (st_dev, st_ino) it had when pushed. */
#ifndef SAFECP_DIRSTACK_H
#define SAFECP_DIRSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define DIRSTACK_OPEN 32

struct dir_frame {
	size_t idx;       /* the caller's key: a plan entry */
	const char *name; /* in the parent frame's directory; borrowed */
	int fd;           /* -1 while closed for depth */
	dev_t dev;
	ino_t ino;
};

struct dirstack {
	struct dir_frame *f;
	size_t depth, cap;
	bool follow;      /* reopen through symlinks (cp -L) */
};

void dirstack_init(struct dirstack *s, bool follow);

/* Open directory name in dfd without following a symlink (but with
 * follow), and only if it is (dev, ino): the fd, -ESTALE for another
 * directory, or -errno (-ENOTDIR for a symlink or a file). */
int dirstack_open_checked(int dfd, const char *name, bool follow, dev_t dev, ino_t ino);

/* Push the directory open on fd (taken over, also on failure) as the
 * child of the top frame.  Returns 0 or -errno. */
int dirstack_push(struct dirstack *s, size_t idx, const char *name, int fd);

/* True when the frame with key idx is on the stack. */
bool dirstack_has(const struct dirstack *s, size_t idx);

/* The key of the top frame, (size_t)-1 when the stack is empty. */
size_t dirstack_top(const struct dirstack *s);

/* Pop the top frame.  Its fd goes to popped(), which owns it from then
 * on (-1 when a frame closed for depth could not be reopened), or is
 * closed when popped is NULL. */
void dirstack_pop(struct dirstack *s, void (*popped)(void *ctx, size_t idx, int fd), void *ctx);

/* Pop and close the frames above the one with key idx (all of them
 * when idx is not on the stack). */
void dirstack_pop_to(struct dirstack *s, size_t idx);

/* The fd of the frame with key idx, reopened if it was closed for
 * depth: >= 0 (owned by the stack), -ENOENT when idx is not on the
 * stack, -ESTALE when the directory found is another one, or -errno. */
int dirstack_fd(struct dirstack *s, size_t idx);

/* Close every frame. */
void dirstack_free(struct dirstack *s);

#endif
