/* mount_umount.c: unmounting through libmount.
 *
 * One libmount context per filesystem; mnt_context_umount() does lookup,
 * permission checks (restricted users: fstab user/users/owner, FUSE
 * user_id), helpers and the utab update; mnt_context_get_excode() turns
 * the outcome into umount(8)'s words, which we hand back as libmount's
 * string and a -errno (the syscall's errno when it ran). */
#include <errno.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/mount_umount.h"
#include "base/cleanup.h"
#include "util/debug.h"

static inline void context_freep(struct libmnt_context **c)
{
	mnt_free_context(*c);
}

/* The errno behind a failed mnt_context_umount(): the syscall's when it
 * was called, else the library's own (negative) code; MNT_ERR_* codes
 * (5000+) are not errnos and become -EIO. */
static int umount_errno(struct libmnt_context *cxt, int rc)
{
	int e;

	if (mnt_context_syscall_called(cxt)) {
		e = mnt_context_get_syscall_errno(cxt);
		if (e)
			return -e;
	}
	if (mnt_context_helper_executed(cxt))
		return -EIO; /* umount.<type> said no; its words are in the message */
	/* restricted user, target not in mountinfo: libmount says "not mounted" */
	if (rc == -EPERM && !mnt_context_tab_applied(cxt))
		return -EINVAL;
	if (rc < 0 && rc > -4096)
		return rc;
	return -EIO;
}

int mount_umount(const char *mountpoint, unsigned flags, char **ret_message)
{
	_cleanup_(context_freep) struct libmnt_context *cxt = NULL;
	char buf[BUFSIZ] = "";
	int rc, ex, r;

	if (ret_message)
		*ret_message = NULL;
	cxt = mnt_new_context();
	if (!cxt)
		return -ENOMEM;
	if (flags & MOUNT_UMOUNT_LAZY)
		mnt_context_enable_lazy(cxt, 1);
	if (flags & MOUNT_UMOUNT_CHECK) {
		mnt_context_enable_fake(cxt, 1);
		mnt_context_disable_mtab(cxt, 1);
		mnt_context_disable_helpers(cxt, 1);
	}
	r = mnt_context_set_target(cxt, mountpoint);
	if (r < 0)
		return r;
	rc = mnt_context_umount(cxt);
	ex = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));
	DEBUG(DEBUG_UNMOUNT, "umount %s%s: rc %d excode %d '%s'", mountpoint,
	      flags & MOUNT_UMOUNT_CHECK ? " (check)" : "", rc, ex, buf);
	if (ex == MNT_EX_SUCCESS)
		return 0;
	r = umount_errno(cxt, rc);
	if (ret_message && buf[0]) {
		*ret_message = strdup(buf);
		if (!*ret_message)
			return -ENOMEM;
	}
	return r;
}
