/* mount.h: the mount table, read through libmount (the only module that
 * includes <libmount.h> for reading; unmounting lives in unmount.c).
 * Reads $sysroot/proc/self/mountinfo. */
#ifndef SAFECP_MOUNT_H
#define SAFECP_MOUNT_H

#include <stddef.h>

struct mount_entry {
	char *target;
	char *fstype;
	char *source;
	char *options;  /* VFS options, then fs options, comma-joined */
	unsigned major, minor;
	int id;
};

/* The mount whose mount point is the longest prefix of the absolute path
 * (which is resolved with realpath when the sysroot is real). */
int mount_find_for_path(const char *path, struct mount_entry *ret);

/* All mounts, in mountinfo order. */
int mount_list(struct mount_entry **ret, size_t *ret_n);

void mount_entry_done(struct mount_entry *e);
void mount_list_free(struct mount_entry *list, size_t n);

#endif
