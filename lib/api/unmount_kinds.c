/* unmount_kinds.c: the unmount job's kinds (lib/unmount) mapped onto
 * <safecp/unmount.h>'s, here and only here, so that the library's own may
 * change while the public values never do.  A kind the public header does
 * not name becomes its OTHER. */
#include <errno.h>
#include <stdlib.h>

#include "api/unmount_private.h"
#include "base/cleanup.h"

struct refusal_map {
	enum unmount_refusal_kind from;
	enum safecp_unmount_refusal_kind to;
	const char *name;
};

static const struct refusal_map refusals[] = {
	{ UNMOUNT_REFUSAL_MOUNT_TABLE, SAFECP_UNMOUNT_REFUSED_MOUNT_TABLE, "mount-table" },
	{ UNMOUNT_REFUSAL_NO_ACCESS, SAFECP_UNMOUNT_REFUSED_NO_ACCESS, "no-access" },
	{ UNMOUNT_REFUSAL_NO_DISK, SAFECP_UNMOUNT_REFUSED_NO_DISK, "no-disk" },
	{ UNMOUNT_REFUSAL_NOT_MOUNTED, SAFECP_UNMOUNT_REFUSED_NOT_MOUNTED, "not-mounted" },
	{ UNMOUNT_REFUSAL_TAG_NOT_FOUND, SAFECP_UNMOUNT_REFUSED_TAG_NOT_FOUND, "tag-not-found" },
	{ UNMOUNT_REFUSAL_TAG_AMBIGUOUS, SAFECP_UNMOUNT_REFUSED_TAG_AMBIGUOUS, "tag-ambiguous" },
	{ UNMOUNT_REFUSAL_TAG_UNRESOLVED, SAFECP_UNMOUNT_REFUSED_TAG_UNRESOLVED, "tag-unresolved" },
	{ UNMOUNT_REFUSAL_TAG_IN_SYSROOT, SAFECP_UNMOUNT_REFUSED_TAG_IN_SYSROOT, "tag-in-sysroot" },
	{ UNMOUNT_REFUSAL_NO_MOUNT_FOUND, SAFECP_UNMOUNT_REFUSED_NO_MOUNT_FOUND, "no-mount-found" },
	{ UNMOUNT_REFUSAL_ROOT_FS, SAFECP_UNMOUNT_REFUSED_ROOT_FS, "root-fs" },
	{ UNMOUNT_REFUSAL_ON_ROOT_FS, SAFECP_UNMOUNT_REFUSED_ON_ROOT_FS, "on-root-fs" },
	{ UNMOUNT_REFUSAL_ROOT, SAFECP_UNMOUNT_REFUSED_ROOT, "root" },
	{ UNMOUNT_REFUSAL_SYSTEM, SAFECP_UNMOUNT_REFUSED_SYSTEM, "system-mount" },
	{ UNMOUNT_REFUSAL_ROOT_DISK, SAFECP_UNMOUNT_REFUSED_ROOT_DISK, "root-disk" },
	{ UNMOUNT_REFUSAL_SWAP_DISK, SAFECP_UNMOUNT_REFUSED_SWAP_DISK, "swap-disk" },
	{ UNMOUNT_REFUSAL_WHOLE_ROOT_DISK, SAFECP_UNMOUNT_REFUSED_WHOLE_ROOT_DISK, "whole-root-disk" },
	{ UNMOUNT_REFUSAL_POWER_OFF_ROOT, SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT, "power-off-root" },
	{ UNMOUNT_REFUSAL_POWER_OFF_ROOT_WITH, SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT_WITH,
	  "power-off-root-with" },
	{ UNMOUNT_REFUSAL_POWER_OFF_SWAP, SAFECP_UNMOUNT_REFUSED_POWER_OFF_SWAP, "power-off-swap" },
	{ UNMOUNT_REFUSAL_NOT_PERMITTED, SAFECP_UNMOUNT_REFUSED_NOT_PERMITTED, "not-permitted" },
	{ UNMOUNT_REFUSAL_GONE, SAFECP_UNMOUNT_REFUSED_GONE, "gone" },
	{ UNMOUNT_REFUSAL_NO_BLOCK_DEVICE, SAFECP_UNMOUNT_REFUSED_NO_BLOCK_DEVICE, "no-block-device" },
	{ UNMOUNT_REFUSAL_NOT_ROOT, SAFECP_UNMOUNT_REFUSED_NOT_ROOT, "not-root" },
	{ UNMOUNT_REFUSAL_NO_PLAN, SAFECP_UNMOUNT_REFUSED_NO_PLAN, "no-plan" },
	{ UNMOUNT_REFUSAL_HELD, SAFECP_UNMOUNT_REFUSED_HELD, "held" },
	{ UNMOUNT_REFUSAL_INTERNAL_READER, SAFECP_UNMOUNT_REFUSED_INTERNAL_READER, "internal-reader" },
	{ UNMOUNT_REFUSAL_FIXED_DISK, SAFECP_UNMOUNT_REFUSED_FIXED_DISK, "fixed-disk" },
	{ UNMOUNT_REFUSAL_OTHER_MOUNTED, SAFECP_UNMOUNT_REFUSED_OTHER_MOUNTED, "other-mounted" },
	{ UNMOUNT_REFUSAL_NO_DRIVE, SAFECP_UNMOUNT_REFUSED_NO_DRIVE, "no-drive" },
};

static enum safecp_unmount_bus bus(enum transport t)
{
	switch (t) {
	case TRANSPORT_USB: return SAFECP_UNMOUNT_BUS_USB;
	case TRANSPORT_MMC: return SAFECP_UNMOUNT_BUS_MMC;
	case TRANSPORT_SATA: return SAFECP_UNMOUNT_BUS_SATA;
	case TRANSPORT_NVME: return SAFECP_UNMOUNT_BUS_NVME;
	case TRANSPORT_VIRTIO: return SAFECP_UNMOUNT_BUS_VIRTIO;
	case TRANSPORT_SCSI: return SAFECP_UNMOUNT_BUS_SCSI;
	case TRANSPORT_LOOP: return SAFECP_UNMOUNT_BUS_LOOP;
	case TRANSPORT_FIREWIRE: return SAFECP_UNMOUNT_BUS_FIREWIRE;
	case TRANSPORT_THUNDERBOLT: return SAFECP_UNMOUNT_BUS_THUNDERBOLT;
	case TRANSPORT_UNKNOWN: break;
	}
	return SAFECP_UNMOUNT_BUS_UNKNOWN;
}

void api_unmount_refusal(const struct unmount_refusal *r, struct safecp_unmount_refusal *ret)
{
	*ret = (struct safecp_unmount_refusal){
		.kind = SAFECP_UNMOUNT_REFUSED_OTHER, .name = "other", .err = r->error,
		.what = r->name, .device = r->device, .other = r->other, .where = r->where,
		.bus = bus(r->transport), .matches = (const char *const *)r->matches,
		.n_matches = r->n_matches,
	};
	for (size_t i = 0; i < ARRAY_SIZE(refusals); i++)
		if (refusals[i].from == r->kind) {
			ret->kind = refusals[i].to;
			ret->name = refusals[i].name;
		}
}

static enum safecp_unmount_why why(enum unmount_why w)
{
	switch (w) {
	case UNMOUNT_WHY_NONE: return SAFECP_UNMOUNT_WHY_NONE;
	case UNMOUNT_WHY_CANCELLED: return SAFECP_UNMOUNT_WHY_CANCELLED;
	case UNMOUNT_WHY_NOT_BEGUN: return SAFECP_UNMOUNT_WHY_NOT_BEGUN;
	case UNMOUNT_WHY_BUSY: return SAFECP_UNMOUNT_WHY_BUSY;
	case UNMOUNT_WHY_SYNC_START: return SAFECP_UNMOUNT_WHY_SYNC_START;
	case UNMOUNT_WHY_SYNC_READ: return SAFECP_UNMOUNT_WHY_SYNC_READ;
	case UNMOUNT_WHY_SYNC_WRITE: return SAFECP_UNMOUNT_WHY_SYNC_WRITE;
	case UNMOUNT_WHY_DIRTIED: return SAFECP_UNMOUNT_WHY_DIRTIED;
	case UNMOUNT_WHY_UNMOUNT: return SAFECP_UNMOUNT_WHY_UNMOUNT;
	case UNMOUNT_WHY_NOT_ALLOWED: return SAFECP_UNMOUNT_WHY_NOT_ALLOWED;
	case UNMOUNT_WHY_MOUNTED_HERE: return SAFECP_UNMOUNT_WHY_MOUNTED_HERE;
	case UNMOUNT_WHY_UNCHECKED: return SAFECP_UNMOUNT_WHY_UNCHECKED;
	case UNMOUNT_WHY_FLUSH: return SAFECP_UNMOUNT_WHY_FLUSH;
	case UNMOUNT_WHY_PLAN: return SAFECP_UNMOUNT_WHY_PLAN;
	case UNMOUNT_WHY_REFUSED: return SAFECP_UNMOUNT_WHY_REFUSED;
	case UNMOUNT_WHY_POWER_OFF: return SAFECP_UNMOUNT_WHY_POWER_OFF;
	case UNMOUNT_WHY_MISMATCH: return SAFECP_UNMOUNT_WHY_MISMATCH;
	}
	return SAFECP_UNMOUNT_WHY_OTHER;
}

static enum safecp_unmount_mismatch mismatch(enum unmount_mismatch m)
{
	switch (m) {
	case UNMOUNT_MISMATCH_OTHER_DEVICE: return SAFECP_UNMOUNT_MISMATCH_OTHER_DEVICE;
	case UNMOUNT_MISMATCH_NOT_ITS_MOUNT: return SAFECP_UNMOUNT_MISMATCH_NOT_ITS_MOUNT;
	case UNMOUNT_MISMATCH_STILL_MOUNTED: return SAFECP_UNMOUNT_MISMATCH_STILL_MOUNTED;
	case UNMOUNT_MISMATCH_NONE: break;
	}
	return SAFECP_UNMOUNT_MISMATCH_NONE;
}

static enum safecp_unmount_step_kind step_kind(enum unmount_step_kind k)
{
	switch (k) {
	case UNMOUNT_STEP_FREE_CHECK: return SAFECP_UNMOUNT_STEP_FREE_CHECK;
	case UNMOUNT_STEP_SYNC: return SAFECP_UNMOUNT_STEP_SYNC;
	case UNMOUNT_STEP_UNMOUNT: return SAFECP_UNMOUNT_STEP_UNMOUNT;
	case UNMOUNT_STEP_RELEASE_CHECK: return SAFECP_UNMOUNT_STEP_RELEASE_CHECK;
	case UNMOUNT_STEP_POWER_OFF: break;
	}
	return SAFECP_UNMOUNT_STEP_POWER_OFF;
}

static enum safecp_unmount_step_state step_state(enum unmount_step_state s)
{
	switch (s) {
	case UNMOUNT_STEP_PENDING: return SAFECP_UNMOUNT_STEP_PENDING;
	case UNMOUNT_STEP_RUNNING: return SAFECP_UNMOUNT_STEP_RUNNING;
	case UNMOUNT_STEP_DONE: return SAFECP_UNMOUNT_STEP_DONE;
	case UNMOUNT_STEP_FAILED: break;
	}
	return SAFECP_UNMOUNT_STEP_FAILED;
}

void api_unmount_step(const struct unmount_step *s, struct safecp_unmount_step *ret)
{
	*ret = (struct safecp_unmount_step){
		.kind = step_kind(s->kind), .state = step_state(s->state), .result = s->result,
		.why = why(s->why), .fs = s->fs == UNMOUNT_NO_FS ? SAFECP_UNMOUNT_NO_FS : s->fs,
		.devnode = s->devnode, .index = s->index, .message = s->message,
		.where = s->where, .action = s->action, .mismatch = mismatch(s->mismatch),
	};
}

void api_unmount_sync(const struct syncer_figures *f, struct safecp_unmount_sync *ret)
{
	*ret = (struct safecp_unmount_sync){
		.t_mono = f->t_mono, .t_real = f->t_real, .bytes_left = f->bytes_left,
		.bytes_written = f->bytes_written, .estimate = f->estimate, .clean = f->clean,
		.round = f->round,
	};
}

static enum safecp_unmount_holder_how how(enum holder_how h)
{
	switch (h) {
	case HOLDER_CWD: return SAFECP_UNMOUNT_HOLDER_CWD;
	case HOLDER_ROOT: return SAFECP_UNMOUNT_HOLDER_ROOT;
	case HOLDER_FILE: return SAFECP_UNMOUNT_HOLDER_FILE;
	case HOLDER_MAP: return SAFECP_UNMOUNT_HOLDER_MAP;
	case HOLDER_DEVICE: return SAFECP_UNMOUNT_HOLDER_DEVICE;
	case HOLDER_NAMESPACE: return SAFECP_UNMOUNT_HOLDER_NAMESPACE;
	}
	return SAFECP_UNMOUNT_HOLDER_OTHER;
}

void api_unmount_busy(const struct unmount_busy *b, struct safecp_unmount_busy *ret,
		      struct safecp_unmount_holder **ret_holders,
		      struct safecp_unmount_holder **ret_denied)
{
	const struct holder_list *l = &b->holders;
	struct safecp_unmount_holder *h = l->n ? calloc(l->n, sizeof(*h)) : NULL;
	struct safecp_unmount_holder *d = l->n_denied ? calloc(l->n_denied, sizeof(*d)) : NULL;

	for (size_t i = 0; h && i < l->n; i++)
		h[i] = (struct safecp_unmount_holder){
			.pid = (int)l->items[i].pid, .command = l->items[i].command,
			.how = how(l->items[i].how), .how_name = holder_how_name(l->items[i].how),
			.path = l->items[i].path,
		};
	for (size_t i = 0; d && i < l->n_denied; i++)
		d[i] = (struct safecp_unmount_holder){
			.pid = (int)l->denied[i].pid, .command = l->denied[i].command,
			.how = SAFECP_UNMOUNT_HOLDER_OTHER, .how_name = "unknown",
			.err = l->denied[i].error,
		};
	*ret = (struct safecp_unmount_busy){
		.what = b->what, .mount = b->mount, .waiting = b->waiting,
		.holders = h, .n_holders = h ? l->n : 0,
		.submounts = (const char *const *)b->submounts, .n_submounts = b->n_submounts,
		.unreadable = l->unreadable, .denied = d, .n_denied = d ? l->n_denied : 0,
	};
	*ret_holders = h;
	*ret_denied = d;
}

enum safecp_unmount_event_kind api_unmount_event_kind(enum unmount_event_kind k)
{
	switch (k) {
	case UNMOUNT_EVENT_PROGRESS: return SAFECP_UNMOUNT_EVENT_PROGRESS;
	case UNMOUNT_EVENT_BUSY: return SAFECP_UNMOUNT_EVENT_BUSY;
	case UNMOUNT_EVENT_POWER_OFF_PLANNED: return SAFECP_UNMOUNT_EVENT_POWER_OFF_PLANNED;
	case UNMOUNT_EVENT_POWER_OFF_RAN: return SAFECP_UNMOUNT_EVENT_POWER_OFF_RAN;
	case UNMOUNT_EVENT_STEP_END: return SAFECP_UNMOUNT_EVENT_STEP_END;
	case UNMOUNT_EVENT_END: return SAFECP_UNMOUNT_EVENT_END;
	}
	return SAFECP_UNMOUNT_EVENT_OTHER;
}

static enum safecp_power_off_method method(enum poweroff_method m)
{
	switch (m) {
	case POWEROFF_NONE: return SAFECP_POWER_OFF_BY_NONE;
	case POWEROFF_LOOP: return SAFECP_POWER_OFF_BY_LOOP;
	case POWEROFF_USB: return SAFECP_POWER_OFF_BY_USB;
	case POWEROFF_SCSI: return SAFECP_POWER_OFF_BY_SCSI;
	case POWEROFF_MMC: return SAFECP_POWER_OFF_BY_MMC;
	case POWEROFF_UDISKS_LOOP: return SAFECP_POWER_OFF_BY_UDISKS_LOOP;
	case POWEROFF_UDISKS_DRIVE: return SAFECP_POWER_OFF_BY_UDISKS_DRIVE;
	}
	return SAFECP_POWER_OFF_BY_OTHER;
}

static enum safecp_power_off_refusal plan_refusal(enum poweroff_refusal r)
{
	switch (r) {
	case POWEROFF_OK: return SAFECP_POWER_OFF_OK;
	case POWEROFF_MOUNTED: return SAFECP_POWER_OFF_MOUNTED;
	case POWEROFF_HELD: return SAFECP_POWER_OFF_HELD;
	case POWEROFF_INTERNAL_READER: return SAFECP_POWER_OFF_INTERNAL_READER;
	case POWEROFF_NO_METHOD: return SAFECP_POWER_OFF_NO_METHOD;
	case POWEROFF_FIXED_DISK: return SAFECP_POWER_OFF_FIXED_DISK;
	case POWEROFF_NO_DRIVE: return SAFECP_POWER_OFF_NO_DRIVE;
	}
	return SAFECP_POWER_OFF_REFUSED_OTHER;
}

static enum safecp_power_off_stage stage(enum poweroff_step s)
{
	switch (s) {
	case POWEROFF_STEP_FLUSH: return SAFECP_POWER_OFF_AT_FLUSH;
	case POWEROFF_STEP_INFLIGHT: return SAFECP_POWER_OFF_AT_INFLIGHT;
	case POWEROFF_STEP_DETACH: return SAFECP_POWER_OFF_AT_DETACH;
	case POWEROFF_STEP_GONE: break;
	}
	return SAFECP_POWER_OFF_AT_GONE;
}

void api_power_off(const struct poweroff_plan *p, const struct poweroff_result *res,
		   struct safecp_power_off *ret)
{
	*ret = (struct safecp_power_off){
		.devnode = p->devnode, .method = method(p->method),
		.method_name = poweroff_method_name(p->method), .refusal = plan_refusal(p->refusal),
		.blocker = p->blocker, .blocker_where = p->blocker_where,
		.sync_cache = res->sync_cache, .stop_unit = res->stop_unit,
		.inflight_drained = res->inflight_drained, .failed_stage = stage(res->failed_step),
		.failed_dev = res->failed_dev,
	};
}
