/* safecp/unmount.h: a stick unmounted only once what was cached for it
 * is on it, with the bytes left shown while the sync runs, then
 * optionally powered off.
 *
 *	struct safecp_unmount_backend *b;       once: the kernel as root,
 *	safecp_unmount_backend_new(SAFECP_UNMOUNT_VIA_AUTO, &b);  udisks2 else
 *	struct safecp_unmount *u;
 *	safecp_unmount_new("/media/usb", SAFECP_UNMOUNT_POWER_OFF, b, &u);
 *	if (safecp_unmount_prepare(u) == 0 && safecp_unmount_start(u) == 0)
 *		until SAFECP_UNMOUNT_EVENT_END:
 *			safecp_unmount_poll(u, 100, &ev) ... PROGRESS: ev.sync.bytes_left
 *	safecp_unmount_free(u);
 *	safecp_unmount_backend_free(b);
 *
 * A TARGET is a path (the mount it is on, never "/"), a device node (a
 * partition: its filesystems; a whole disk: those of it and of all its
 * partitions) or a LABEL=, UUID=, PARTLABEL= or PARTUUID= tag.  It is done
 * whole or not at all.  Everything that can be refused is refused before
 * anything is written (prepare): the system's own mounts, "/", a disk with
 * active swap, a user who may not unmount it, a disk that cannot be
 * powered off; a refusal is a kind with the names it is about.
 *
 * The steps, each only when it applies, each ending in one STEP_END
 * event with its outcome as kinds: FREE_CHECK (several filesystems: none
 * may be held before any is touched), SYNC (syncfs of every one, with the
 * bytes left from the device's own counters), UNMOUNT (one per filesystem,
 * innermost first; busy: BUSY events name the processes), RELEASE_CHECK
 * (per block device: nothing, in any mount namespace, holds it any more)
 * and POWER_OFF.  The first that fails ends the job; END comes last.
 *
 * The library runs the job in its own thread; the caller polls one queue
 * (safecp_unmount_fd() for its own poll loop).  It installs no signal
 * handler; a caller that wants Ctrl-C calls safecp_unmount_cancel(): a wait
 * stops at once, a running syncfs, unmount or power-off cannot be stopped
 * and the steps after it are not begun.  Errors are negative errno values
 * or kinds, never words.  doc/api.md holds the contract. */
#ifndef SAFECP_UNMOUNT_API_H
#define SAFECP_UNMOUNT_API_H

#include <stddef.h>
#include <stdint.h>

#include <safecp/safecp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- who carries the steps out ------------------------------------------ */

/* udisks2 lets a user without root unmount and power off what the desktop
 * would (polkit decides); as root the kernel's own calls need nobody. */
enum safecp_unmount_via {
	SAFECP_UNMOUNT_VIA_AUTO = 0, /* the kernel as root, udisks2 otherwise */
	SAFECP_UNMOUNT_VIA_UDISKS,   /* udisks2, also as root */
	SAFECP_UNMOUNT_VIA_KERNEL,   /* the kernel's calls, also without root */
};

/* Where udisks2, wanted, could not be had. */
enum safecp_udisks_failure {
	SAFECP_UDISKS_OK = 0,
	SAFECP_UDISKS_NO_BUS,    /* no system bus to connect to */
	SAFECP_UDISKS_NO_ANSWER, /* the bus is there, UDisks2 did not answer its ping:
				  * -ESRCH not on the bus; -EACCES or -EPERM the bus's
				  * policy refused this user; else a timeout */
};

struct safecp_unmount_backend;

/* Who unmounts: always one (the kernel's when udisks2, wanted, cannot be
 * had: safecp_unmount_backend_missing() says why).  Under a captured tree
 * ($SAFECP_SYSROOT, a test seam) always the kernel's: that tree is not
 * this machine.  0, or -errno (-EINVAL: a via this library does not know).
 * One backend serves the targets one after the other, never two at once. */
int safecp_unmount_backend_new(enum safecp_unmount_via via, struct safecp_unmount_backend **ret);
/* 1 when it is udisks2, 0 the kernel's. */
int safecp_unmount_backend_udisks(const struct safecp_unmount_backend *b);
/* Why udisks2 was wanted but is not used: a -errno and *ret_where; 0 when
 * it is used or was not wanted.  ret_where may be NULL. */
int safecp_unmount_backend_missing(const struct safecp_unmount_backend *b,
				   enum safecp_udisks_failure *ret_where);
/* After every job that uses it is freed.  NULL is fine. */
void safecp_unmount_backend_free(struct safecp_unmount_backend *b);

/* ---- one target ------------------------------------------------------------ */

struct safecp_unmount;

enum safecp_unmount_flags {
	SAFECP_UNMOUNT_POWER_OFF = 1 << 0, /* then power the disk off and detach it */
	SAFECP_UNMOUNT_FORCE = 1 << 1,     /* ... an SD card in a built-in reader too */
	SAFECP_UNMOUNT_SYSTEM = 1 << 2,    /* system mounts may be unmounted (never "/") */
	SAFECP_UNMOUNT_LAZY = 1 << 3,      /* detach even when busy (MNT_DETACH): data may
					    * be written after the job ends */
};

/* The job for target (copied) with these flags, through b (NULL: the
 * kernel's; borrowed until free).  0, or -errno (-EINVAL: a flag this
 * library does not know). */
int safecp_unmount_new(const char *target, unsigned flags, struct safecp_unmount_backend *b,
		       struct safecp_unmount **ret);
/* While busy, retry until free, for seconds (negative: no limit), instead
 * of failing at once.  -EBUSY after start. */
int safecp_unmount_set_wait(struct safecp_unmount *u, double seconds);

enum safecp_unmount_refusal_kind {
	SAFECP_UNMOUNT_REFUSED_OTHER = 0,     /* a kind this header does not name */
	/* finding the target */
	SAFECP_UNMOUNT_REFUSED_MOUNT_TABLE,   /* err: the mount table cannot be read */
	SAFECP_UNMOUNT_REFUSED_NO_ACCESS,     /* what; err: it cannot be stat()ed or found */
	SAFECP_UNMOUNT_REFUSED_NO_DISK,       /* what; err: the device's disk is unknown */
	SAFECP_UNMOUNT_REFUSED_NOT_MOUNTED,   /* what: a device or path with no mount */
	SAFECP_UNMOUNT_REFUSED_TAG_NOT_FOUND, /* what: no device has the tag */
	SAFECP_UNMOUNT_REFUSED_TAG_AMBIGUOUS, /* what; matches: every device that has it */
	SAFECP_UNMOUNT_REFUSED_TAG_UNRESOLVED, /* what; err */
	SAFECP_UNMOUNT_REFUSED_TAG_IN_SYSROOT, /* what; where: a captured tree, which has
						* no tags to look up */
	SAFECP_UNMOUNT_REFUSED_NO_MOUNT_FOUND, /* what; err: the path's mount */
	SAFECP_UNMOUNT_REFUSED_ROOT_FS,       /* what: the target is "/" */
	SAFECP_UNMOUNT_REFUSED_ON_ROOT_FS,    /* what: the path lies on "/" */
	/* the running system (unless SYSTEM, but "/" always) */
	SAFECP_UNMOUNT_REFUSED_ROOT,          /* device: "/" is among the filesystems */
	SAFECP_UNMOUNT_REFUSED_SYSTEM,        /* what, device: a system mount */
	SAFECP_UNMOUNT_REFUSED_ROOT_DISK,     /* what on device, on the disk of "/" */
	SAFECP_UNMOUNT_REFUSED_SWAP_DISK,     /* what on device; other: its disk's active
					       * swap, or NULL */
	SAFECP_UNMOUNT_REFUSED_WHOLE_ROOT_DISK, /* what: the whole disk of "/"; where:
						 * "/"'s source */
	SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT, /* what: its disk holds "/" (where) */
	SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT_WITH, /* what; other, a disk that goes
						     * with it, holds "/" (where) */
	SAFECP_UNMOUNT_REFUSED_POWER_OFF_SWAP, /* what; other: active swap on its disk */
	/* the user's permission */
	SAFECP_UNMOUNT_REFUSED_NOT_PERMITTED, /* what: a mount point this user may not unmount */
	SAFECP_UNMOUNT_REFUSED_GONE,          /* what: a mount point no longer mounted */
	/* the power-off */
	SAFECP_UNMOUNT_REFUSED_NO_BLOCK_DEVICE, /* what: not on a block device */
	SAFECP_UNMOUNT_REFUSED_NOT_ROOT,      /* what: only root powers off (no udisks2) */
	SAFECP_UNMOUNT_REFUSED_NO_PLAN,       /* what; err */
	SAFECP_UNMOUNT_REFUSED_HELD,          /* what: the disk; other is held by where */
	SAFECP_UNMOUNT_REFUSED_INTERNAL_READER, /* what: an SD card in a built-in reader
						 * (FORCE powers it off) */
	SAFECP_UNMOUNT_REFUSED_FIXED_DISK,    /* what; bus: not a disk one unplugs */
	SAFECP_UNMOUNT_REFUSED_OTHER_MOUNTED, /* what: the disk; other is mounted on where */
	SAFECP_UNMOUNT_REFUSED_NO_DRIVE,      /* what: udisks2 cannot power it off */
};

/* The bus of a disk. */
enum safecp_unmount_bus {
	SAFECP_UNMOUNT_BUS_UNKNOWN = 0,
	SAFECP_UNMOUNT_BUS_USB,
	SAFECP_UNMOUNT_BUS_MMC,
	SAFECP_UNMOUNT_BUS_SATA,
	SAFECP_UNMOUNT_BUS_NVME,
	SAFECP_UNMOUNT_BUS_VIRTIO,
	SAFECP_UNMOUNT_BUS_SCSI,
	SAFECP_UNMOUNT_BUS_LOOP,
	SAFECP_UNMOUNT_BUS_FIREWIRE,
	SAFECP_UNMOUNT_BUS_THUNDERBOLT,
};

struct safecp_unmount_refusal {
	enum safecp_unmount_refusal_kind kind;
	const char *name;     /* the kind as a stable identifier ("system-mount", ...) */
	int err;              /* a -errno, or 0 */
	const char *what;     /* the mount point, device or tag refused; NULL where
			       * the kind has none (MOUNT_TABLE) or memory ran out */
	const char *device, *other, *where; /* as the kind says, or NULL */
	enum safecp_unmount_bus bus;        /* FIXED_DISK */
	const char *const *matches;         /* TAG_AMBIGUOUS: device nodes */
	size_t n_matches;
};

/* Find the target's filesystems and disk, and refuse, writing nothing.
 * 0: ready; 1: refused (safecp_unmount_refusal()); -errno (-ENOMEM).
 * Once only: -EALREADY the second time. */
int safecp_unmount_prepare(struct safecp_unmount *u);
/* The refusal: 0, or -ENOENT when prepare refused nothing.  Its strings
 * are valid until free. */
int safecp_unmount_refusal(const struct safecp_unmount *u, struct safecp_unmount_refusal *ret);

/* What the target is; also after a refusal (arg, device and captured). */
struct safecp_unmount_target {
	const char *arg;          /* as given */
	int device;               /* it named a device: a node, or a tag */
	int whole_disk;           /* ... that is a whole disk */
	const char *devnode;      /* that device's node ("/dev/sdb1"), or NULL */
	size_t n_fs;              /* its filesystems (safecp_unmount_fs()) */
	int has_disk;             /* it is on a disk (one to power off) */
	int captured;             /* resolved in a captured tree ($SAFECP_SYSROOT, a
				   * test seam): the job checks, and does nothing */
	/* after END */
	const char *disk;         /* the disk powered off ("/dev/sdb"), or NULL */
	uint64_t bytes_written;   /* by the sync, as the device counted them */
	size_t n_unmounted;       /* filesystems the job unmounted */
};
int safecp_unmount_target(const struct safecp_unmount *u, struct safecp_unmount_target *ret);

/* One filesystem of the target, innermost first. */
struct safecp_unmount_fs {
	const char *mountpoint;
	const char *source;       /* as the mount table has it ("/dev/sdb1") */
	const char *fstype;
	const char *devnode;      /* its block device, or NULL */
	int mount_id;             /* the mount table's: the same for two paths on one mount */
	int unmounted;            /* after its UNMOUNT step: the job unmounted it */
};
/* Filesystem i: 0, or -ENOENT past the last.  Strings valid until free. */
int safecp_unmount_fs(const struct safecp_unmount *u, size_t i, struct safecp_unmount_fs *ret);

/* After prepare returned 0: runs the steps in the library's thread. */
int safecp_unmount_start(struct safecp_unmount *u);

/* ---- events ---------------------------------------------------------------- */

enum safecp_unmount_step_kind {
	SAFECP_UNMOUNT_STEP_FREE_CHECK = 0,
	SAFECP_UNMOUNT_STEP_SYNC,
	SAFECP_UNMOUNT_STEP_UNMOUNT,       /* fs */
	SAFECP_UNMOUNT_STEP_RELEASE_CHECK, /* devnode */
	SAFECP_UNMOUNT_STEP_POWER_OFF,
};

enum safecp_unmount_step_state {
	SAFECP_UNMOUNT_STEP_PENDING = 0,
	SAFECP_UNMOUNT_STEP_RUNNING,
	SAFECP_UNMOUNT_STEP_DONE,    /* result 0, or a note in why */
	SAFECP_UNMOUNT_STEP_FAILED,  /* result -errno; why */
};

/* What a step's result means beside its -errno. */
enum safecp_unmount_why {
	SAFECP_UNMOUNT_WHY_NONE = 0,
	SAFECP_UNMOUNT_WHY_CANCELLED,    /* -ECANCELED in the step: its wait, or its sync */
	SAFECP_UNMOUNT_WHY_NOT_BEGUN,    /* -ECANCELED before the step began */
	SAFECP_UNMOUNT_WHY_BUSY,         /* -EBUSY: BUSY events said who holds it */
	SAFECP_UNMOUNT_WHY_SYNC_START,   /* the sync could not start */
	SAFECP_UNMOUNT_WHY_SYNC_READ,    /* the device's counters could not be read */
	SAFECP_UNMOUNT_WHY_SYNC_WRITE,   /* a syncfs failed (data may be lost); index:
					  * its filesystem */
	SAFECP_UNMOUNT_WHY_DIRTIED,      /* DONE: still dirtied after the last round;
					  * the unmount writes the rest */
	SAFECP_UNMOUNT_WHY_UNMOUNT,      /* the unmount failed; message: the system's text */
	SAFECP_UNMOUNT_WHY_NOT_ALLOWED,  /* -EACCES: polkit said no to udisks2 (action) */
	SAFECP_UNMOUNT_WHY_MOUNTED_HERE, /* the device is still mounted on where */
	SAFECP_UNMOUNT_WHY_UNCHECKED,    /* DONE: not allowed to check (-EACCES, -EPERM) */
	SAFECP_UNMOUNT_WHY_FLUSH,        /* the release check's flush failed */
	SAFECP_UNMOUNT_WHY_PLAN,         /* no power-off plan for the disk */
	SAFECP_UNMOUNT_WHY_REFUSED,      /* the plan refused (safecp_unmount_power_off()) */
	SAFECP_UNMOUNT_WHY_POWER_OFF,    /* the power-off failed (safecp_unmount_power_off()) */
	SAFECP_UNMOUNT_WHY_MISMATCH,     /* udisks2 would act, or acted, on another device
					  * or mount (mismatch) */
	SAFECP_UNMOUNT_WHY_OTHER,        /* a reason this header does not name */
};

enum safecp_unmount_mismatch {
	SAFECP_UNMOUNT_MISMATCH_NONE = 0,
	SAFECP_UNMOUNT_MISMATCH_OTHER_DEVICE,  /* its device is not ours: nothing done */
	SAFECP_UNMOUNT_MISMATCH_NOT_ITS_MOUNT, /* it does not see our mount point
						* (another mount namespace): nothing done */
	SAFECP_UNMOUNT_MISMATCH_STILL_MOUNTED, /* it said done, and ours is still mounted:
						* it unmounted something else */
};

#define SAFECP_UNMOUNT_NO_FS ((size_t)-1)

struct safecp_unmount_step {
	enum safecp_unmount_step_kind kind;
	enum safecp_unmount_step_state state;
	int result;                /* 0, or -errno */
	enum safecp_unmount_why why;
	size_t fs;                 /* its filesystem, or SAFECP_UNMOUNT_NO_FS */
	const char *devnode;       /* RELEASE_CHECK: the block device, else NULL */
	size_t index;              /* SYNC_WRITE: the filesystem whose syncfs failed */
	const char *message;       /* UNMOUNT: the system's words (raw), or NULL */
	const char *where;         /* MOUNTED_HERE: the other mount point */
	const char *action;        /* NOT_ALLOWED: the polkit action refused */
	enum safecp_unmount_mismatch mismatch;
};

/* The sync's figures at one moment. */
struct safecp_unmount_sync {
	double t_mono, t_real;     /* when read: CLOCK_MONOTONIC, CLOCK_REALTIME seconds */
	uint64_t bytes_left;       /* still to reach the device */
	uint64_t bytes_written;    /* the device completed since the sync began */
	int estimate;              /* left is an upper bound (not root: no debugfs) */
	int clean;                 /* every syncfs returned, nothing left nor in flight */
	unsigned round;            /* 1 for the first; more while someone dirties it */
};

enum safecp_unmount_holder_how {
	SAFECP_UNMOUNT_HOLDER_CWD = 0,   /* working directory inside the mount */
	SAFECP_UNMOUNT_HOLDER_ROOT,      /* root directory (chroot) inside it */
	SAFECP_UNMOUNT_HOLDER_FILE,      /* an open file */
	SAFECP_UNMOUNT_HOLDER_MAP,       /* a memory-mapped file */
	SAFECP_UNMOUNT_HOLDER_DEVICE,    /* the block device node itself is open */
	SAFECP_UNMOUNT_HOLDER_NAMESPACE, /* mounted in the process's mount namespace */
	SAFECP_UNMOUNT_HOLDER_OTHER,     /* a way this header does not name */
};

/* A process that keeps it busy, or (err) one that could not be inspected. */
struct safecp_unmount_holder {
	int pid;
	const char *command;      /* /proc/PID/comm as raw bytes: anybody's choice of
				   * name, to be made safe before it is shown;
				   * "?" when unreadable */
	enum safecp_unmount_holder_how how;
	const char *how_name;     /* "cwd", "root", "file", "map", "device", "namespace" */
	const char *path;         /* the file, directory or mount point; NULL in denied */
	int err;                  /* denied: -EACCES or -EPERM; else 0 */
};

struct safecp_unmount_busy {
	const char *what;         /* the mount point, or the device node */
	int mount;                /* what is a mount point (else a device) */
	int waiting;              /* and the job waits for it to be free */
	const struct safecp_unmount_holder *holders; /* by pid, then how, then path */
	size_t n_holders;
	const char *const *submounts; /* mount points below it */
	size_t n_submounts;
	size_t unreadable;        /* processes that could not be inspected (not root) */
	const struct safecp_unmount_holder *denied;  /* n_denied of them, by pid (none
						      * when memory ran out) */
	size_t n_denied;
};

enum safecp_unmount_event_kind {
	SAFECP_UNMOUNT_EVENT_PROGRESS = 1,  /* sync: the figures */
	SAFECP_UNMOUNT_EVENT_BUSY,          /* busy: who holds it, first seen or changed */
	SAFECP_UNMOUNT_EVENT_POWER_OFF_PLANNED, /* the plan is agreed (safecp_unmount_power_off) */
	SAFECP_UNMOUNT_EVENT_POWER_OFF_RAN, /* result: the run returned */
	SAFECP_UNMOUNT_EVENT_STEP_END,      /* outcome: a step ended */
	SAFECP_UNMOUNT_EVENT_END,           /* the job ended; always the last */
	SAFECP_UNMOUNT_EVENT_OTHER,         /* a kind this header does not name */
};

struct safecp_unmount_event {
	enum safecp_unmount_event_kind kind;
	size_t step;                        /* its step's index (END: the last that ran) */
	struct safecp_unmount_step outcome; /* STEP_END */
	struct safecp_unmount_sync sync;    /* PROGRESS */
	struct safecp_unmount_busy busy;    /* BUSY; valid until the next poll or free */
	int result;                         /* POWER_OFF_RAN: 0, or -errno */
};

/* The descriptor that is readable while an event waits (the job's own:
 * never close it); -1 before start. */
int safecp_unmount_fd(const struct safecp_unmount *u);
/* The next event: 1; 0 when none came in timeout_ms (0: do not wait, -1:
 * until one comes); -EINVAL before start.  After END, END again. */
int safecp_unmount_poll(struct safecp_unmount *u, int timeout_ms,
			struct safecp_unmount_event *ret);

/* Stop: a wait at once, anything else at the end of its step; the steps
 * after it end NOT_BEGUN.  Any thread; not from a signal handler (it takes
 * a lock): a handler sets a flag the polling thread looks at. */
void safecp_unmount_cancel(struct safecp_unmount *u);
/* Let the running step end as it would and begin no other: for a sync
 * that cannot be stopped but that the caller wants to see to its end. */
void safecp_unmount_stop_after_step(struct safecp_unmount *u);

/* ---- power-off ------------------------------------------------------------- */

enum safecp_power_off_method {
	SAFECP_POWER_OFF_BY_NONE = 0,     /* no way to detach this disk */
	SAFECP_POWER_OFF_BY_LOOP,         /* the loop device is cleared */
	SAFECP_POWER_OFF_BY_USB,          /* the USB port is turned off */
	SAFECP_POWER_OFF_BY_SCSI,         /* the SCSI disk is deleted */
	SAFECP_POWER_OFF_BY_MMC,          /* the card is unbound from its reader */
	SAFECP_POWER_OFF_BY_UDISKS_LOOP,  /* udisks2's Loop.Delete */
	SAFECP_POWER_OFF_BY_UDISKS_DRIVE, /* udisks2's Drive.PowerOff */
	SAFECP_POWER_OFF_BY_OTHER,        /* a method this header does not name */
};

enum safecp_power_off_refusal {
	SAFECP_POWER_OFF_OK = 0,
	SAFECP_POWER_OFF_MOUNTED,         /* blocker is mounted on blocker_where */
	SAFECP_POWER_OFF_HELD,            /* blocker is held by blocker_where */
	SAFECP_POWER_OFF_INTERNAL_READER, /* an SD card in a built-in reader */
	SAFECP_POWER_OFF_NO_METHOD,       /* no way to detach it (nvme, virtio) */
	SAFECP_POWER_OFF_FIXED_DISK,      /* not a drive one unplugs */
	SAFECP_POWER_OFF_NO_DRIVE,        /* udisks2 cannot power it off */
	SAFECP_POWER_OFF_REFUSED_OTHER,   /* a refusal this header does not name */
};

/* Where a power-off run failed. */
enum safecp_power_off_stage {
	SAFECP_POWER_OFF_AT_FLUSH = 0,    /* the exclusive open and flush */
	SAFECP_POWER_OFF_AT_INFLIGHT,     /* waiting for the device to finish */
	SAFECP_POWER_OFF_AT_DETACH,
	SAFECP_POWER_OFF_AT_GONE,         /* waiting for it to disappear */
};

struct safecp_power_off {
	const char *devnode;              /* the disk ("/dev/sdb") */
	enum safecp_power_off_method method;
	const char *method_name;          /* "loop", "usb", "scsi", "mmc", "udisks-loop",
					   * "udisks-drive", "none" */
	enum safecp_power_off_refusal refusal;
	const char *blocker;              /* MOUNTED, HELD: the device in the way */
	const char *blocker_where;        /* its mount point, or its holder */
	/* after POWER_OFF_RAN, with the kernel's methods */
	int sync_cache;                   /* SYNCHRONIZE CACHE: 0, or -errno (ignored) */
	int stop_unit;                    /* START STOP UNIT: likewise */
	int inflight_drained;             /* nothing was in flight before the detach */
	enum safecp_power_off_stage failed_stage; /* the run failed there ... */
	const char *failed_dev;           /* ... on this device */
};

/* The power-off plan (from POWER_OFF_PLANNED, or the POWER_OFF step's end)
 * and the run's findings (from POWER_OFF_RAN): 0, or -ENOENT while the job
 * has no plan.  Strings valid until free. */
int safecp_unmount_power_off(const struct safecp_unmount *u, struct safecp_power_off *ret);

/* After END: a filesystem of the target's disk that is still mounted (one
 * the target did not name): 1 with its mount point in *ret (valid until
 * free), 0 when none or the target has no disk, -errno. */
int safecp_unmount_still_mounted(struct safecp_unmount *u, const char **ret);

/* Cancel what runs, wait for its thread, free.  NULL is fine. */
void safecp_unmount_free(struct safecp_unmount *u);

#ifdef __cplusplus
}
#endif

#endif
