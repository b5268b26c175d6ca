/* holders.h: who keeps a filesystem or a block device busy, from /proc.
 *
 * Like `fuser -m`: every process's cwd, root, open files and memory maps
 * are checked against a mount; a block device is held by processes that
 * have the node itself open (a FUSE daemon, mkfs, a VM) and by other mount
 * namespaces that still mount it (doc/kernel.md 7: umount succeeds in ours,
 * the superblock lives on in theirs).  All reads go through sysroot, so
 * the scan runs on fixture /proc trees in unit tests. */
#ifndef SAFECP_HOLDERS_H
#define SAFECP_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum holder_how {
	HOLDER_CWD,        /* working directory inside the mount */
	HOLDER_ROOT,       /* root directory (chroot) inside it */
	HOLDER_FILE,       /* an open file */
	HOLDER_MAP,        /* a memory-mapped file: a program, a library */
	HOLDER_DEVICE,     /* the block device node itself is open */
	HOLDER_NAMESPACE,  /* mounted in the process's mount namespace */
};

/* "cwd", "root", "file", "map", "device", "namespace": the JSON words */
const char *holder_how_name(enum holder_how how);

struct holder {
	pid_t pid;
	char command[32];     /* /proc/PID/comm */
	enum holder_how how;
	char *path;           /* the file, directory or mount point */
};

/* A process we may not inspect: which, and why. */
struct holder_denied {
	pid_t pid;
	int error;            /* -EACCES or -EPERM */
	char command[32];     /* /proc/PID/comm, "?" when unreadable too */
};

struct holder_list {
	struct holder *items; /* sorted by pid, then how, then path */
	size_t n, cap;        /* cap: room in items (util/grow.h) */
	size_t unreadable;    /* processes we may not inspect (not root) */
	struct holder_denied *denied; /* n_denied of them, by pid (all, but */
	size_t n_denied;              /* after ENOMEM in a copy: none) */
	size_t cap_denied;
};

/* What identifies a mount.  On the real root a link matches when statx()
 * of it reports this mount id (STATX_MNT_ID, Linux 5.8) or, without it,
 * one of the device numbers; under a sysroot (and when statx fails) when
 * the link's text lies at or below mountpoint. */
struct holders_mount {
	const char *mountpoint;
	int mnt_id;                  /* mountinfo field 1; 0: unknown */
	unsigned sb_major, sb_minor; /* mountinfo MAJ:MIN */
	unsigned st_major, st_minor; /* st_dev of the mount point (btrfs
				      * subvolumes differ from mountinfo) */
};

/* Processes using the mount: cwd, root, open files, maps. */
int holders_of_mount(const struct holders_mount *m, struct holder_list *ret);

/* Processes with the device node open (HOLDER_DEVICE), and one process
 * per other mount namespace in which the device is mounted
 * (HOLDER_NAMESPACE, path = its mount point there).  devnode is the
 * "/dev/..." name, used to match mountinfo sources and, under a sysroot,
 * fd links. */
int holders_of_device(unsigned major, unsigned minor, const char *devnode,
		      struct holder_list *ret);

/* Whether two lists name the same processes the same way (to tell a
 * waiting user only when something changed). */
bool holder_list_equal(const struct holder_list *a, const struct holder_list *b);

/* A deep copy (the paths too). */
int holder_list_copy(const struct holder_list *from, struct holder_list *ret);

void holder_list_done(struct holder_list *l);

/* Exposed for tests: whether path lies at or below dir ("/a/b" in "/a",
 * not in "/ab"); a " (deleted)" suffix is ignored. */
bool holders_path_within(const char *path, const char *dir);

#endif
