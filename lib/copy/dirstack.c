/* dirstack.c: see dirstack.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/grow.h"
#include "copy/dirstack.h"

void dirstack_init(struct dirstack *s, bool follow)
{
	*s = (struct dirstack){ .follow = follow };
}

bool dirstack_has(const struct dirstack *s, size_t idx)
{
	for (size_t i = s->depth; i-- > 0;)
		if (s->f[i].idx == idx)
			return true;
	return false;
}

int dirstack_push(struct dirstack *s, size_t idx, const char *name, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	if (GROW(s->f, s->cap, s->depth + 1, 16) < 0) {
		close(fd);
		return -ENOMEM;
	}
	s->f[s->depth++] = (struct dir_frame){ idx, name, fd, st.st_dev, st.st_ino };
	/* frame 0 stays open: it is where every reopening starts */
	if (s->depth > DIRSTACK_OPEN + 1) {
		struct dir_frame *old = &s->f[s->depth - 1 - DIRSTACK_OPEN];

		if (old->fd >= 0) {
			close(old->fd);
			old->fd = -1;
		}
	}
	return 0;
}

int dirstack_open_checked(int dfd, const char *name, bool follow, dev_t dev, ino_t ino)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK |
				   (follow ? 0 : O_NOFOLLOW));
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Reopen frame k from the nearest open frame below it; the frames in
 * between are opened only on the way, so the count of open fds stays
 * bounded however deep the tree. */
static int reopen(struct dirstack *s, size_t k)
{
	size_t j = k, from;
	int cur;

	while (j > 0 && s->f[j].fd < 0)
		j--;
	from = j;
	cur = s->f[j].fd;
	if (cur < 0)
		return -EBADF;
	for (; j < k; j++) {
		const struct dir_frame *c = &s->f[j + 1];
		int next = dirstack_open_checked(cur, c->name, s->follow, c->dev, c->ino);

		if (j != from)
			close(cur);
		if (next < 0)
			return next;
		cur = next;
	}
	s->f[k].fd = cur;
	return cur;
}

int dirstack_fd(struct dirstack *s, size_t idx)
{
	for (size_t k = s->depth; k-- > 0;)
		if (s->f[k].idx == idx)
			return s->f[k].fd >= 0 ? s->f[k].fd : reopen(s, k);
	return -ENOENT;
}

size_t dirstack_top(const struct dirstack *s)
{
	return s->depth ? s->f[s->depth - 1].idx : (size_t)-1;
}

void dirstack_pop(struct dirstack *s, void (*popped)(void *ctx, size_t idx, int fd), void *ctx)
{
	struct dir_frame *top;

	if (s->depth == 0)
		return;
	top = &s->f[s->depth - 1];
	if (popped && top->fd < 0)
		reopen(s, s->depth - 1);
	if (popped)
		popped(ctx, top->idx, top->fd);
	else if (top->fd >= 0)
		close(top->fd);
	s->depth--;
}

void dirstack_pop_to(struct dirstack *s, size_t idx)
{
	while (s->depth > 0 && s->f[s->depth - 1].idx != idx)
		dirstack_pop(s, NULL, NULL);
}

void dirstack_free(struct dirstack *s)
{
	dirstack_pop_to(s, (size_t)-1);
	free(s->f);
	*s = (struct dirstack){ 0 };
}
