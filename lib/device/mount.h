/* mount.h: the mount table, read through libmount (the mount module: only
 * it includes <libmount.h>; unmounting is mount_umount.c).
 * Reads $sysroot/proc/self/mountinfo. */
#ifndef SAFECP_MOUNT_H
#define SAFECP_MOUNT_H

#include <stddef.h>

struct mount_entry {
	char *target;   /* mount point, "/media/usb" */
	char *fstype;   /* "ext4", "fuseblk", "fuse.sshfs" */
	char *source;   /* "/dev/sdb1", "tmpfs"; "" when mountinfo has none */
	char *options;  /* VFS options, then fs options, comma-joined */
	char *root;     /* path inside the fs that is mounted: "/", "/@home" */
	unsigned major, minor; /* mountinfo MAJ:MIN (sb->s_dev) */
	int id, parent_id;
};

/* Turn path into the absolute path the mount table speaks of.  With the
 * real root: realpath(), and when the last component does not exist yet
 * (a destination file) the realpath of its parent plus that name.  Under a
 * sysroot the path is taken as is (it must be absolute), only repeated
 * and trailing slashes are dropped.  -ENOENT when the parent is missing
 * too, -EINVAL for a relative path under a sysroot. */
int mount_resolve_path(const char *path, char **ret);

/* The mount that holds path (resolved with mount_resolve_path()): the
 * mount seen by walking the mount tree down the path's components, so a
 * stacked mount wins over the one below it and a mount hidden by a later
 * mount on a parent directory is skipped. */
int mount_find_for_path(const char *path, struct mount_entry *ret);

/* All mounts, in mountinfo order. */
int mount_list(struct mount_entry **ret, size_t *ret_n);

void mount_entry_done(struct mount_entry *e);
void mount_list_free(struct mount_entry *list, size_t n);

#endif
