/* resolve.h: from a TARGET to an unmount_target, and every refusal that
 * can be made before anything is written.
 *
 * A TARGET is a LABEL=/UUID=/PARTUUID=/PARTLABEL= tag (libblkid), a block
 * device (a partition: its mounts; a whole disk: the mounts of it and of
 * all its partitions), or a path, which stands for the mount it is on,
 * unless that is the root filesystem.  Before a byte is written we check
 * what would only fail at the end: the system-disk guards (guard.c),
 * libmount's permission check (a dry-run unmount) and, for power_off, that
 * the disk can be detached and that nothing outside the target is mounted
 * from it.  A refusal is a kind and the names it is about; the caller
 * words it. */
#ifndef SAFECP_UNMOUNT_RESOLVE_H
#define SAFECP_UNMOUNT_RESOLVE_H

#include <stdbool.h>

#include "device/target.h"
#include "unmount/backend.h"
#include "unmount/target.h"

struct unmount_resolve_options {
	bool system;     /* system mounts may be unmounted (never "/") */
	bool power_off;  /* the disk is to be powered off: check that it can be */
	bool force;      /* ... an SD card in a built-in reader too */
	/* the backend the job will use; NULL: the kernel's.  Another one
	 * (udisks) decides who may unmount and power off, makes the
	 * power-off plan and may find a tag libblkid cannot */
	const struct unmount_backend *be;
};

/* What stops a target, and the fields each kind fills (name always, but
 * for NO_MEMORY, MOUNT_TABLE and ROOT_FS).  error is a -errno. */
enum unmount_refusal_kind {
	UNMOUNT_REFUSAL_NONE = 0,
	/* finding the target */
	UNMOUNT_REFUSAL_NO_MEMORY,
	UNMOUNT_REFUSAL_MOUNT_TABLE,     /* error: the mount table cannot be read */
	UNMOUNT_REFUSAL_NO_ACCESS,       /* error: it cannot be stat()ed or found */
	UNMOUNT_REFUSAL_NO_DISK,         /* error: the device's disk is unknown */
	UNMOUNT_REFUSAL_NOT_MOUNTED,     /* a device or path with no mount */
	UNMOUNT_REFUSAL_TAG_NOT_FOUND,   /* no device has the tag */
	UNMOUNT_REFUSAL_TAG_AMBIGUOUS,   /* several devices have the tag: matches */
	UNMOUNT_REFUSAL_TAG_UNRESOLVED,  /* error */
	UNMOUNT_REFUSAL_TAG_IN_SYSROOT,  /* where: the captured tree, which has no blkid */
	UNMOUNT_REFUSAL_NO_MOUNT_FOUND,  /* error: the path's mount */
	UNMOUNT_REFUSAL_ROOT_FS,         /* the target is "/" */
	UNMOUNT_REFUSAL_ON_ROOT_FS,      /* the path lies on "/" */
	/* the running system (guard.c) */
	UNMOUNT_REFUSAL_ROOT,            /* device: "/" is among the filesystems */
	UNMOUNT_REFUSAL_SYSTEM,          /* name: a system mount, device */
	UNMOUNT_REFUSAL_ROOT_DISK,       /* name on device, on the disk of "/" */
	UNMOUNT_REFUSAL_SWAP_DISK,       /* name on device; other: the active swap, or NULL */
	UNMOUNT_REFUSAL_WHOLE_ROOT_DISK, /* the whole disk of "/"; where: "/"'s source */
	UNMOUNT_REFUSAL_POWER_OFF_ROOT,  /* its disk holds "/"; where: "/"'s source */
	UNMOUNT_REFUSAL_POWER_OFF_ROOT_WITH, /* other, a disk that goes with name, holds "/" (where) */
	UNMOUNT_REFUSAL_POWER_OFF_SWAP,  /* other: active swap on its disk */
	/* the unmount's permission (libmount's dry run) */
	UNMOUNT_REFUSAL_NOT_PERMITTED,   /* name: a mount point this user may not unmount */
	UNMOUNT_REFUSAL_GONE,            /* name: a mount point no longer mounted */
	/* the power-off */
	UNMOUNT_REFUSAL_NO_BLOCK_DEVICE, /* not on a block device */
	UNMOUNT_REFUSAL_NOT_ROOT,        /* only root powers off */
	UNMOUNT_REFUSAL_NO_PLAN,         /* error */
	UNMOUNT_REFUSAL_HELD,            /* name: the disk; other is held by where */
	UNMOUNT_REFUSAL_INTERNAL_READER, /* name: an SD card in a built-in reader */
	UNMOUNT_REFUSAL_FIXED_DISK,      /* name; transport: not a disk one unplugs */
	UNMOUNT_REFUSAL_OTHER_MOUNTED,   /* name: the disk; other is mounted on where */
	UNMOUNT_REFUSAL_NO_DRIVE,        /* name: the disk, which udisks cannot power off */
};

struct unmount_refusal {
	enum unmount_refusal_kind kind;
	int error;
	char *name, *device, *other, *where;  /* malloc'd, or NULL */
	enum transport transport;
	char **matches;    /* TAG_AMBIGUOUS: every device node with the tag */
	size_t n_matches;
};

/* 0 with *ret filled (free it with unmount_target_done), or < 0 with
 * *ret_refusal saying why (free it with unmount_refusal_done); *ret then
 * keeps only arg and device_target (whether arg named a device, so the
 * caller can say which).  arg is borrowed by *ret.  Under SAFECP_SYSROOT device names
 * are looked up in the captured tree, nothing is stat()ed and libmount's
 * permission check, which would ask this machine, is skipped. */
int unmount_target_resolve(const char *arg, const struct unmount_resolve_options *o,
			   struct unmount_target *ret, struct unmount_refusal *ret_refusal);

void unmount_refusal_done(struct unmount_refusal *r);

/* guard.c, for resolve.c: the running system's refusals. */
struct poweroff_plan;
int unmount_guard(const struct unmount_resolve_options *o, const struct unmount_target *t,
		  struct unmount_refusal *ret);
/* The plan's disks: none holds "/" or has active swap. */
int unmount_guard_power_off(const struct unmount_target *t, const struct poweroff_plan *p,
			    struct unmount_refusal *ret);
/* Fills *ret; returns error, or -EPERM without one. */
int unmount_refuse(struct unmount_refusal *ret, enum unmount_refusal_kind kind, int error,
		   const char *name, const char *device, const char *other, const char *where);

#endif
