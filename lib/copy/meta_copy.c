/* meta_copy.c: extended attributes and ACLs through libattr and libacl
 * (meta_copy.h says why both, and why by /proc/self/fd names). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <acl/libacl.h>
#include <attr/error_context.h>
#include <attr/libattr.h>

#include "copy/meta_copy.h"

/* The libraries report through an error_context: ours keeps the errno of
 * the first report and prints nothing.  libattr sets errno to ENOTSUP
 * before its one report of attributes the destination refused as such. */
struct first_error {
	struct error_context ctx;
	int err;
};

static void keep_first(struct error_context *ctx, const char *fmt, ...)
{
	struct first_error *f = (struct first_error *)((char *)ctx -
						       offsetof(struct first_error, ctx));

	(void)fmt;
	if (!f->err)
		f->err = errno ? errno : EIO;
}

/* The /proc link of fd, which the kernel resolves to fd's own inode. */
static void proc_name(char buf[32], int fd)
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

static int result(int r, const struct first_error *f)
{
	int err = f->err ? f->err : EIO;

	if (r == 0)
		return 0;
	return err == ENOTSUP || err == EOPNOTSUPP ? -EOPNOTSUPP : -err;
}

int meta_copy_xattrs(int src, int dst)
{
	struct first_error f = { .ctx = { .error = keep_first } };
	char s[32], d[32];
	int rfd, r;

	proc_name(s, src);
	proc_name(d, dst);
	/* attr_copy_file() takes the l-variants (llistxattr...), which on a
	 * /proc/self/fd link read the link's own attributes: the source is
	 * reopened readable through it instead (that very inode; never a
	 * FIFO's wait or a tty's: the caller's fd is a file or directory) */
	rfd = open(s, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (rfd < 0)
		return -errno;
	/* check NULL: libattr's attr_copy_check_permissions, as cp's */
	r = result(attr_copy_fd(s, rfd, d, dst, NULL, &f.ctx), &f);
	close(rfd);
	return r;
}

int meta_copy_acl(int src, int dst)
{
	struct first_error f = { .ctx = { .error = keep_first } };
	char s[32], d[32];

	proc_name(s, src);
	proc_name(d, dst);
	return result(perm_copy_file(s, d, &f.ctx), &f);
}
