/* safeunmount_target.c: a TARGET resolved by the library
 * (safecp_unmount_prepare()), and its refusals in words, with the exit
 * status each one means.
 *
 * lib finds the filesystems and refuses, before anything is written, what
 * cannot work or must not be done (the system disks, permissions, a disk
 * that cannot be powered off); this file says why, naming the mount or
 * device and what to do. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "common/quote.h"
#include "safeunmount/safeunmount.h"

static const char *bus_words(enum safecp_unmount_bus b)
{
	switch (b) {
	case SAFECP_UNMOUNT_BUS_SATA: return "a SATA";
	case SAFECP_UNMOUNT_BUS_SCSI: return "a SCSI";
	case SAFECP_UNMOUNT_BUS_FIREWIRE: return "a FireWire";
	case SAFECP_UNMOUNT_BUS_THUNDERBOLT: return "a Thunderbolt";
	case SAFECP_UNMOUNT_BUS_NVME: return "an NVMe";
	case SAFECP_UNMOUNT_BUS_VIRTIO: return "a virtio";
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
static void ambiguous(const struct safecp_unmount_refusal *r)
{
	_cleanup_free_ char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);

	for (size_t i = 0; f && i < r->n_matches; i++)
		fprintf(f, "%s%s", i == 0 ? "" : i + 1 == r->n_matches ? " and " : ", ",
			quote(r->matches[i]));
	if (f)
		fclose(f);
	report_error(NULL, EVENT_DEVICE, nz(r->what), r->err,
		     "refusing %s: %zu devices have it, %s; name the one to unmount by its "
		     "device or mount point", quote_bare(nz(r->what)), r->n_matches,
		     list ? list : "?");
}

static enum su_status finding(const struct safecp_unmount_target *t,
			      const struct safecp_unmount_refusal *r)
{
	const char *name = nz(r->what);

	switch (r->kind) {
	case SAFECP_UNMOUNT_REFUSED_MOUNT_TABLE:
		report_error(NULL, EVENT_PATH, MOUNT_TABLE, r->err,
			     "cannot read the mount table: %s", strerror(-r->err));
		return SU_FAILED;
	case SAFECP_UNMOUNT_REFUSED_NO_ACCESS:
		/* a captured tree looks device names up, this machine stat()s a path */
		report_error(NULL, t->captured ? EVENT_DEVICE : EVENT_PATH, name, r->err,
			     "cannot access %s: %s", quote(name), strerror(-r->err));
		break;
	case SAFECP_UNMOUNT_REFUSED_NO_DISK:
		report_error(NULL, EVENT_DEVICE, name, r->err,
			     "cannot find the disk of %s: %s", quote(name), strerror(-r->err));
		break;
	case SAFECP_UNMOUNT_REFUSED_NOT_MOUNTED:
		report_error(NULL, job_kind(t), name, 0, "%s is not mounted", quote(name));
		break;
	case SAFECP_UNMOUNT_REFUSED_TAG_NOT_FOUND:
		report_error(NULL, EVENT_DEVICE, name, r->err,
			     "no filesystem with %s was found%s", quote_bare(name),
			     geteuid() != 0 ? " (finding it may need root)" : "");
		break;
	case SAFECP_UNMOUNT_REFUSED_TAG_AMBIGUOUS:
		ambiguous(r);
		break;
	case SAFECP_UNMOUNT_REFUSED_TAG_UNRESOLVED:
		report_error(NULL, EVENT_DEVICE, name, r->err,
			     "cannot resolve %s: %s", quote(name), strerror(-r->err));
		break;
	case SAFECP_UNMOUNT_REFUSED_TAG_IN_SYSROOT:
		report_error(NULL, EVENT_DEVICE, name, 0,
			     "cannot resolve %s in the captured tree %s", quote(name),
			     quote(nz(r->where)));
		break;
	case SAFECP_UNMOUNT_REFUSED_NO_MOUNT_FOUND:
		report_error(NULL, EVENT_PATH, name, r->err,
			     "cannot find the mount of %s: %s", quote(name), strerror(-r->err));
		break;
	case SAFECP_UNMOUNT_REFUSED_ROOT_FS:
		report_error(NULL, EVENT_PATH, name, 0, "refusing to unmount the root filesystem");
		break;
	case SAFECP_UNMOUNT_REFUSED_ON_ROOT_FS:
		report_error(NULL, EVENT_PATH, name, 0,
			     "%s is not mounted (it is on the root filesystem)", quote(name));
		break;
	default:
		report_error(NULL, job_kind(t), name, r->err, "cannot unmount %s", quote(name));
		break;
	}
	return SU_USAGE;
}

static enum su_status system_guard(const struct safecp_unmount_target *t,
				   const struct safecp_unmount_refusal *r)
{
	const char *name = nz(r->what), *dev = nz(r->device);

	switch (r->kind) {
	case SAFECP_UNMOUNT_REFUSED_ROOT:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount '/' on %s: it is the root filesystem",
			     quote_bare(dev));
		break;
	case SAFECP_UNMOUNT_REFUSED_SYSTEM:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount %s on %s: it is a system mount; "
			     "use --system if you really mean it", quote(name), quote_bare(dev));
		break;
	case SAFECP_UNMOUNT_REFUSED_ROOT_DISK:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount %s on %s: it is on the disk that holds the "
			     "root filesystem; use --system if you really mean it", quote(name),
			     quote_bare(dev));
		break;
	case SAFECP_UNMOUNT_REFUSED_SWAP_DISK:
		report_error(NULL, EVENT_PATH, name, 0,
			     "refusing to unmount %s on %s: its disk has active swap (%s); "
			     "use --system if you really mean it", quote(name), quote_bare(dev),
			     quote(nz(r->other)));
		break;
	case SAFECP_UNMOUNT_REFUSED_WHOLE_ROOT_DISK:
		report_error(NULL, EVENT_DEVICE, name, 0,
			     "refusing to unmount %s: it is the disk that holds the root "
			     "filesystem ('/' on %s); name one of its other filesystems instead",
			     quote(name), quote_bare(nz(r->where)));
		break;
	case SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT:
		report_error("power-off", job_kind(t), name, 0,
			     "refusing to power off the disk of %s: it holds the "
			     "root filesystem ('/' on %s)", quote(name), quote_bare(nz(r->where)));
		break;
	case SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT_WITH:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: %s, which goes with it, "
			     "holds the root filesystem ('/' on %s)", quote(name),
			     quote_bare(nz(r->other)), quote_bare(nz(r->where)));
		break;
	case SAFECP_UNMOUNT_REFUSED_POWER_OFF_SWAP:
		report_error("power-off", job_kind(t), name, 0,
			     "cannot power off the disk of %s: %s on it is active swap; "
			     "run swapoff %s first", quote(name), quote(nz(r->other)), quote(nz(r->other)));
		return SU_BUSY;
	default:
		return finding(t, r);
	}
	return SU_USAGE;
}

static enum su_status power_off_check(const struct safecp_unmount_target *t,
				      const struct safecp_unmount_refusal *r)
{
	const char *name = nz(r->what);

	switch (r->kind) {
	case SAFECP_UNMOUNT_REFUSED_NO_BLOCK_DEVICE:
		report_error("power-off", job_kind(t), name, 0,
			     "cannot power off %s: it is not on a block device", quote(name));
		break;
	case SAFECP_UNMOUNT_REFUSED_NOT_ROOT:
		report_error("power-off", job_kind(t), name, EPERM,
			     "cannot power off %s: only root may do that", quote(name));
		break;
	case SAFECP_UNMOUNT_REFUSED_NO_PLAN:
		report_error("power-off", job_kind(t), name, r->err,
			     "cannot power off %s: %s", quote(name), strerror(-r->err));
		return SU_FAILED;
	case SAFECP_UNMOUNT_REFUSED_HELD:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "cannot power off %s: %s is in use by %s", quote(name),
			     quote(nz(r->other)), quote(nz(r->where)));
		return SU_BUSY;
	case SAFECP_UNMOUNT_REFUSED_INTERNAL_READER:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: an SD card in a built-in reader "
			     "may not come back until it is re-inserted; use --force to do it anyway",
			     quote(name));
		break;
	case SAFECP_UNMOUNT_REFUSED_FIXED_DISK:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: it is %s disk; only USB and loop "
			     "devices are powered off (and, with --force, an SD card in a built-in reader)",
			     quote(name), bus_words(r->bus));
		break;
	case SAFECP_UNMOUNT_REFUSED_NO_DRIVE:
		report_error("power-off", EVENT_DEVICE, name, 0,
			     "refusing to power off %s: udisks cannot power it off (it is neither a "
			     "loop device nor a drive with CanPowerOff, which USB drives have)",
			     quote(name));
		break;
	case SAFECP_UNMOUNT_REFUSED_OTHER_MOUNTED:
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
static enum su_status refusal(const struct safecp_unmount_target *t,
			      const struct safecp_unmount_refusal *r)
{
	switch (r->kind) {
	case SAFECP_UNMOUNT_REFUSED_NOT_PERMITTED:
		report_error("unmount", EVENT_PATH, nz(r->what), EPERM,
			     "cannot unmount %s: only root, or the user who mounted it, "
			     "may do that", quote(nz(r->what)));
		return SU_USAGE;
	case SAFECP_UNMOUNT_REFUSED_GONE:
		report_error("unmount", EVENT_PATH, nz(r->what), 0,
			     "%s is not mounted", quote(nz(r->what)));
		return SU_USAGE;
	default:
		return power_off_check(t, r);
	}
}

static unsigned job_flags(const struct su_options *o)
{
	return (o->power_off ? SAFECP_UNMOUNT_POWER_OFF : 0) |
	       (o->force ? SAFECP_UNMOUNT_FORCE : 0) | (o->system ? SAFECP_UNMOUNT_SYSTEM : 0) |
	       (o->lazy ? SAFECP_UNMOUNT_LAZY : 0);
}

enum su_status job_resolve(const struct su_options *o, const char *arg,
			   struct safecp_unmount **ret)
{
	struct safecp_unmount_target t = { .arg = arg };
	struct safecp_unmount_refusal r;
	int e;

	*ret = NULL;
	e = safecp_unmount_new(arg, job_flags(o), o->backend, ret);
	if (e == 0 && o->wait)
		e = safecp_unmount_set_wait(*ret, o->wait_seconds);
	if (e == 0)
		e = safecp_unmount_prepare(*ret);
	if (*ret)
		safecp_unmount_target(*ret, &t);
	if (e == 0)
		return SU_OK;
	if (e < 0) {
		report_error(NULL, job_kind(&t), arg, e, "cannot unmount %s: %s", quote(arg),
			     e == -ENOMEM ? "out of memory" : strerror(-e));
		return SU_FAILED;
	}
	safecp_unmount_refusal(*ret, &r);
	return refusal(&t, &r);
}
