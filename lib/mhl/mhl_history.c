/* mhl_history.c: DEST/ascmhl read from the stick: the chain, then the newest
 * generation it names.
 *
 * Each file is looked at with fstatat(AT_SYMLINK_NOFOLLOW) before it is opened, so a
 * device node or fifo planted there is never opened (opening a tape or a fifo has
 * effects of its own), then opened with O_NOFOLLOW and checked again to be the same
 * regular file; it is read whole, up to MHL_READ_MAX_BYTES. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mhl/mhl_read.h"
#include "base/cleanup.h"

struct mhl_history {
	struct mhl_chain *chain;
	struct mhl_manifest *newest;
	char *bytes;
	size_t len;
};

static enum mhl_read_kind fail(struct mhl_read_problem *why, enum mhl_read_kind kind,
			       const char *file, int err)
{
	if (why) {
		memset(why, 0, sizeof(*why));
		why->kind = kind;
		why->err = err;
		snprintf(why->file, sizeof(why->file), "%s", file);
	}
	return kind;
}

/* The whole of dirfd/name, a regular file of at most MHL_READ_MAX_BYTES. */
static enum mhl_read_kind slurp(int dirfd, const char *name, char **ret, size_t *ret_len,
				struct mhl_read_problem *why)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat before, st;
	size_t len = 0;

	if (fstatat(dirfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0)
		return fail(why, MHL_READ_IO, name, errno);
	if (!S_ISREG(before.st_mode))
		return fail(why, MHL_READ_NOT_REGULAR, name, 0);
	if (before.st_size > (off_t)MHL_READ_MAX_BYTES)
		return fail(why, MHL_READ_TOO_BIG, name, 0);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(why, errno == ELOOP ? MHL_READ_NOT_REGULAR : MHL_READ_IO, name, errno);
	if (fstat(fd, &st) < 0)
		return fail(why, MHL_READ_IO, name, errno);
	if (!S_ISREG(st.st_mode) || st.st_ino != before.st_ino || st.st_dev != before.st_dev)
		return fail(why, MHL_READ_NOT_REGULAR, name, 0);
	if (!(buf = malloc((size_t)st.st_size + 1)))
		return fail(why, MHL_READ_NO_MEMORY, name, ENOMEM);
	/* read one byte more than fstat said: a file that grows is noticed, not cut */
	for (;;) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(why, MHL_READ_IO, name, errno);
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > (size_t)st.st_size)
			return fail(why, MHL_READ_TOO_BIG, name, 0);
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return MHL_READ_OK;
}

void mhl_history_free(struct mhl_history *h)
{
	if (!h)
		return;
	mhl_chain_free(h->chain);
	mhl_manifest_free(h->newest);
	free(h->bytes);
	free(h);
}

enum mhl_read_kind mhl_history_read(const char *dest, struct mhl_history **ret,
				    struct mhl_read_problem *why)
{
	_cleanup_close_ int destfd = -1, dirfd = -1;
	_cleanup_free_ char *chain = NULL;
	struct mhl_history *h;
	const struct mhl_link *newest;
	enum mhl_read_kind k;
	size_t len;

	destfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (destfd < 0)
		return fail(why, MHL_READ_IO, "", errno);
	dirfd = openat(destfd, MHL_FOLDER, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0 && errno == ENOENT)
		return fail(why, MHL_READ_NO_HISTORY, "", ENOENT);
	if (dirfd < 0)
		return fail(why, errno == ELOOP || errno == ENOTDIR ? MHL_READ_NOT_REGULAR : MHL_READ_IO,
			    "", errno);
	k = slurp(dirfd, MHL_CHAIN_FILE, &chain, &len, why);
	if (k == MHL_READ_IO && why && why->err == ENOENT)
		return fail(why, MHL_READ_NO_HISTORY, MHL_CHAIN_FILE, ENOENT);
	if (k != MHL_READ_OK)
		return k;
	if (!(h = calloc(1, sizeof(*h))))
		return fail(why, MHL_READ_NO_MEMORY, "", ENOMEM);
	k = mhl_chain_parse(chain, len, &h->chain, why);
	if (k == MHL_READ_OK) {
		newest = mhl_chain_link(h->chain, mhl_chain_count(h->chain) - 1);
		k = slurp(dirfd, newest->path, &h->bytes, &h->len, why);
		if (k == MHL_READ_OK)
			k = mhl_manifest_parse(h->bytes, h->len, newest->path, &h->newest, why);
	}
	if (k != MHL_READ_OK) {
		mhl_history_free(h);
		return k;
	}
	*ret = h;
	return MHL_READ_OK;
}

const struct mhl_chain *mhl_history_chain(const struct mhl_history *h)
{
	return h->chain;
}

const struct mhl_manifest *mhl_history_newest(const struct mhl_history *h)
{
	return h->newest;
}

const struct mhl_link *mhl_history_newest_link(const struct mhl_history *h)
{
	return mhl_chain_link(h->chain, mhl_chain_count(h->chain) - 1);
}

const void *mhl_history_bytes(const struct mhl_history *h, size_t *ret_len)
{
	*ret_len = h->len;
	return h->bytes;
}

unsigned mhl_history_next_sequence(const struct mhl_history *h)
{
	return mhl_history_newest_link(h)->sequence + 1;
}
