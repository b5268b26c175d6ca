/* safeunmount_target.c: a TARGET resolved by lib (unmount/resolve.h), and
 * its refusals in words, with the exit status each one means.
 *
 * lib finds the filesystems and refuses, before anything is written, what
 * cannot work or must not be done (the system disks, permissions, a disk
 * that cannot be powered off); this file says why, naming the mount or
 * device and what to do. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/quote.h"
#include "safeunmount/safeunmount.h"
#include "base/cleanup.h"
#include "unmount/resolve.h"
#include "util/sysroot.h"

static const char *bus_words(enum transport t)
{
	switch (t) {
	case TRANSPORT_SATA: return "a SATA";
	case TRANSPORT_SCSI: return "a SCSI";
	case TRANSPORT_FIREWIRE: return "a FireWire";
	case TRANSPORT_THUNDERBOLT: return "a Thunderbolt";
	case TRANSPORT_NVME: return "an NVMe";
	case TRANSPORT_VIRTIO: return "a virtio";
	default: return "a fixed";
	}
}

/* A name lost to out of memory is still a name to print. */
static const char *nz(const char *s)
{
	return s ? s : "?";
}

/* The mount table's file, which the error event names. */
#define MOUNT_TABLE "/proc/self/mountinfo"

/* Several devices have the tag: every one named, none taken. */
static void ambiguous(const struct unmount_refusal *r)
{
	_cleanup_free_ char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);

	for (size_t i = 0; f && i < r->n_matches; i++)
		fprintf(f, "%s%s", i == 0 ? "" : i + 1 == r->n_matches ? " and " : ", ",
			quote(r->matches[i]));
	if (f)
		fclose(f);
	report_error(NULL, EVENT_DEVICE, nz(r->name), r->error,
		     "refusing %s: %zu devices have it, %s; name the one to unmount by its "
		     "device or mount point", quote_bare(nz(r->name)), r->n_matches,
		     list ? list : "?");
}

static enum su_status finding(const struct unmount_target *t, const struct unmount_refusal *r)
{
	const char *name = nz(r->name);

	switch (r->kind) {
	case UNMOUNT_REFUSAL_NO_MEMORY:
		report_error(NULL, job_kind(t), t->arg, ENOMEM,
			     "cannot unmount %s: out of memory", quote(t->arg));
		return SU_FAILED;
	case UNMOUNT_REFUSAL_MOUNT_TABLE:
		report_error(NULL, EVENT_PATH, MOUNT_TABLE, r->error,
			     "cannot read the mount table: %s", strerror(-r->error));
		return SU_FAILED;
	case UNMOUNT_REFUSAL_NO_ACCESS:
		/* a captured tree looks device names up, this machine stat()s a path */
		report_error(NULL, sysroot_is_real() ? EVENT_PATH : EVENT_DEVICE, name, r->error,
			     "cannot access %s: %s", quote(name), strerror(-r->error));
		break;
	case UNMOUNT_REFUSAL_NO_DISK:
		report_error(NULL, EVENT_DEVICE, name, r->error,
			     "cannot find the disk of %s: %s", quote(name), strerror(-r->error));
		break;
	case UNMOUNT_REFUSAL_NOT_MOUNTED:
		report_error(NULL, job_kind(t), name, 0, "%s is not mounted", quote(name));
		break;
	case UNMOUNT_REFUSAL_TAG_NOT_FOUND:
		report_error(NULL, EVENT_DEVICE, name, r->error,
			     "no filesystem with %s was found%s", quote_bare(name),
			     geteuid() != 0 ? " (finding it may need root)" : "");
		break;
	case UNMOUNT_REFUSAL_TAG_AMBIGUOUS:
		ambiguous(r);
		break;
	case UNMOUNT_REFUSAL_TAG_UNRESOLVED:
		report_error(NULL, EVENT_DEVICE, name, r->error,
			     "cannot resolve %s: %s", quote(name), strerror(-r->error));
		break;
	case UNMOUNT_REFUSAL_TAG_IN_SYSROOT:
		report_error(NULL, EVENT_DEVICE, name, 0,
			     "cannot resolve %s in the captured tree %s", quote(name),
			     quote(nz(r->where)));
		break;
	case UNMOUNT_REFUSAL_NO_MOUNT_FOUND:
		report_error(NULL, EVENT_PATH, name, r->error,
			     "cannot find the mount of %s: %s", quote(name), strerror(-r->error));
		break;
	case UNMOUNT_REFUSAL_ROOT_FS:
		report_error(NULL, EVENT_PATH, name, 0, "refusing to unmount the root filesystem");
		break;
	case UNMOUNT_REFUSAL_ON_ROOT_FS:
		report_error(NULL, EVENT_PATH, name, 0,
			     "%s is not mounted (it is on the root filesystem)", quote(name));
		break;
	default:
		report_error(NULL, job_kind(t), name, r->error, "cannot unmount %s", quote(name));
		break;
	}
	return SU_USAGE;
}

static enum su_status system_guard(const struct unmount_target *t,
				   const struct unmount_refusal *r)
{
	const char *name = nz(r->name), *dev = nz(r->device);

	switch (r->kind) {
	case UNMOUNT_REFUSAL_ROOT:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount '/' on %s: it is the root filesystem",
			     quote_bare(dev));
		break;
	case UNMOUNT_REFUSAL_SYSTEM:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount %s on %s: it is a system mount; "
			     "use --system if you really mean it", quote(name), quote_bare(dev));
		break;
	case UNMOUNT_REFUSAL_ROOT_DISK:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount %s on %s: it is on the disk that holds the "
			     "root filesystem; use --system if you really mean it", quote(name),
			     quote_bare(dev));
		break;
	case UNMOUNT_REFUSAL_SWAP_DISK:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount %s on %s: its disk has active swap (%s); "
			     "use --system if you really mean it", quote(name), quote_bare(dev),
			     quote(nz(r->other)));
		break;
	case UNMOUNT_REFUSAL_WHOLE_ROOT_DISK:
		report_error(NULL, EVENT_DEVICE, name, 0,
			     "refusing to unmount %s: it is the disk that holds the root "
			     "filesystem ('/' on %s); name one of its other filesystems instead",
			     quote(name), quote_bare(nz(r->where)));
		break;
	case UNMOUNT_REFUSAL_POWER_OFF_ROOT:
		report_error("power-off", job_kind(t), name, 0,
			     "refusing to power off the disk of %s: it holds the "
			     "root filesystem ('/' on %s)", quote(name), quote_bare(nz(r->where)));
		break;
	case UNMOUNT_REFUSAL_POWER_OFF_ROOT_WITH:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: %s, which goes with it, "
			     "holds the root filesystem ('/' on %s)", quote(name),
			     quote_bare(nz(r->other)), quote_bare(nz(r->where)));
		break;
	case UNMOUNT_REFUSAL_POWER_OFF_SWAP:
		report_error("power-off", job_kind(t), name, 0,
			     "cannot power off the disk of %s: %s on it is active swap; "
			     "run swapoff %s first", quote(name), quote(nz(r->other)), quote(nz(r->other)));
		return SU_BUSY;
	default:
		return finding(t, r);
	}
	return SU_USAGE;
}

static enum su_status power_off_check(const struct unmount_target *t,
				      const struct unmount_refusal *r)
{
	const char *name = nz(r->name);

	switch (r->kind) {
	case UNMOUNT_REFUSAL_NO_BLOCK_DEVICE:
		report_error("power-off", job_kind(t), name, 0,
			     "cannot power off %s: it is not on a block device", quote(name));
		break;
	case UNMOUNT_REFUSAL_NOT_ROOT:
		report_error("power-off", job_kind(t), name, EPERM,
			     "cannot power off %s: only root may do that", quote(name));
		break;
	case UNMOUNT_REFUSAL_NO_PLAN:
		report_error("power-off", job_kind(t), name, r->error,
			     "cannot power off %s: %s", quote(name), strerror(-r->error));
		return SU_FAILED;
	case UNMOUNT_REFUSAL_HELD:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "cannot power off %s: %s is in use by %s", quote(name),
			     quote(nz(r->other)), quote(nz(r->where)));
		return SU_BUSY;
	case UNMOUNT_REFUSAL_INTERNAL_READER:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: an SD card in a built-in reader "
			     "may not come back until it is re-inserted; use --force to do it anyway",
			     quote(name));
		break;
	case UNMOUNT_REFUSAL_FIXED_DISK:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: it is %s disk; only USB and loop "
			     "devices are powered off (and, with --force, an SD card in a built-in reader)",
			     quote(name), bus_words(r->transport));
		break;
	case UNMOUNT_REFUSAL_NO_DRIVE:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: udisks cannot power it off (it is neither a "
			     "loop device nor a drive with CanPowerOff, which USB drives have)",
			     quote(name));
		break;
	case UNMOUNT_REFUSAL_OTHER_MOUNTED:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "cannot power off %s: %s is mounted on %s; "
			     "unmount it too, or give the whole disk %s",
			     quote(name), quote(nz(r->other)), quote(nz(r->where)), quote(name));
		return SU_BUSY;
	default:
		return system_guard(t, r);
	}
	return SU_USAGE;
}

/* The words of a refusal, and its exit status. */
static enum su_status refusal(const struct unmount_target *t, const struct unmount_refusal *r)
{
	switch (r->kind) {
	case UNMOUNT_REFUSAL_NOT_PERMITTED:
		report_error("unmount", EVENT_PATH, nz(r->name), EPERM,
			     "cannot unmount %s: only root, or the user who mounted it, "
			     "may do that", quote(nz(r->name)));
		return SU_USAGE;
	case UNMOUNT_REFUSAL_GONE:
		report_error("unmount", EVENT_PATH, nz(r->name), 0,
			     "%s is not mounted", quote(nz(r->name)));
		return SU_USAGE;
	default:
		return power_off_check(t, r);
	}
}

enum su_status job_resolve(const struct su_options *o, const char *arg, struct unmount_target *t)
{
	const struct unmount_resolve_options ro = {
		.system = o->system, .power_off = o->power_off, .force = o->force,
		.be = o->backend.be,
	};
	struct unmount_refusal r;
	enum su_status s;

	if (unmount_target_resolve(arg, &ro, t, &r) == 0)
		return SU_OK;
	s = refusal(t, &r);
	unmount_refusal_done(&r);
	return s;
}
