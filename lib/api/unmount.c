/* unmount.c: <safecp/unmount.h> over the unmount job (unmount/job.h): a
 * backend handle (the kernel's or udisks2's, chosen once), and a job
 * handle that owns its target (unmount/resolve.h), the refusal that
 * stopped it, the job and the last polled event with the public arrays
 * made from it.  The kinds are mapped in unmount_kinds.c. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/unmount_private.h"
#include "unmount/unmount.h"
#include "util/sysroot.h"

#define KNOWN_FLAGS ((1u << 4) - 1)

struct safecp_unmount_backend {
	const struct unmount_backend *be;
	bool udisks;                     /* be is udisks', closed at free */
	int missing;                     /* why udisks, wanted, is not used */
	enum udisks_open_failure failed;
};

struct safecp_unmount {
	char *arg;
	unsigned flags;
	bool wait;
	double wait_seconds;
	const struct unmount_backend *be;
	bool prepared, ready, captured;
	bool run_captured;               /* api_unmount_run_captured() */
	struct unmount_target t;         /* after prepare (arg and device_target
					  * also after a refusal) */
	struct unmount_refusal r;
	bool refused;
	struct unmount_job *job;
	struct unmount_event last;       /* its lists live until the next poll */
	struct safecp_unmount_holder *holders, *denied;
	char *still;                     /* safecp_unmount_still_mounted() */
};

/* ---- the backend ------------------------------------------------------------ */

int safecp_unmount_backend_new(enum safecp_unmount_via via, struct safecp_unmount_backend **ret)
{
	struct safecp_unmount_backend *b;
	const struct unmount_backend *be = NULL;
	bool want;

	if ((unsigned)via > SAFECP_UNMOUNT_VIA_KERNEL)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->be = unmount_backend_kernel();
	/* a captured tree is not this machine: nothing to ask udisks */
	want = sysroot_is_real() && (via == SAFECP_UNMOUNT_VIA_UDISKS ||
				     (via == SAFECP_UNMOUNT_VIA_AUTO && geteuid() != 0));
	if (want) {
		b->missing = unmount_backend_udisks_open(&be, &b->failed);
		if (b->missing == 0) {
			b->be = be;
			b->udisks = true;
		}
	}
	*ret = b;
	return 0;
}

int api_unmount_backend_wrap(const struct unmount_backend *be, struct safecp_unmount_backend **ret)
{
	struct safecp_unmount_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->be = be;
	*ret = b;
	return 0;
}

void api_unmount_run_captured(struct safecp_unmount *u)
{
	u->run_captured = true;
}

int safecp_unmount_backend_udisks(const struct safecp_unmount_backend *b)
{
	return b->udisks;
}

int safecp_unmount_backend_missing(const struct safecp_unmount_backend *b,
				   enum safecp_udisks_failure *ret_where)
{
	if (ret_where)
		*ret_where = b->missing == 0 ? SAFECP_UDISKS_OK
			     : b->failed == UDISKS_OPEN_BUS ? SAFECP_UDISKS_NO_BUS
							    : SAFECP_UDISKS_NO_ANSWER;
	return b->missing;
}

void safecp_unmount_backend_free(struct safecp_unmount_backend *b)
{
	if (!b)
		return;
	if (b->udisks)
		unmount_backend_udisks_close(b->be);
	free(b);
}

/* ---- the target ------------------------------------------------------------- */

int safecp_unmount_new(const char *target, unsigned flags, struct safecp_unmount_backend *b,
		       struct safecp_unmount **ret)
{
	struct safecp_unmount *u;

	if (flags & ~KNOWN_FLAGS)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u || !(u->arg = strdup(target))) {
		free(u);
		return -ENOMEM;
	}
	u->flags = flags;
	u->wait_seconds = -1;
	u->be = b ? b->be : unmount_backend_kernel();
	*ret = u;
	return 0;
}

int safecp_unmount_set_wait(struct safecp_unmount *u, double seconds)
{
	if (u->job)
		return -EBUSY;
	u->wait = true;
	u->wait_seconds = seconds;
	return 0;
}

int safecp_unmount_prepare(struct safecp_unmount *u)
{
	const struct unmount_resolve_options ro = {
		.system = u->flags & SAFECP_UNMOUNT_SYSTEM,
		.power_off = u->flags & SAFECP_UNMOUNT_POWER_OFF,
		.force = u->flags & SAFECP_UNMOUNT_FORCE,
		.be = u->be,
	};

	if (u->prepared)
		return -EALREADY;
	u->prepared = true;
	u->captured = !sysroot_is_real();
	if (unmount_target_resolve(u->arg, &ro, &u->t, &u->r) == 0) {
		u->ready = true;
		return 0;
	}
	if (u->r.kind == UNMOUNT_REFUSAL_NO_MEMORY) {
		unmount_refusal_done(&u->r);
		return -ENOMEM;
	}
	u->refused = true;
	return 1;
}

int safecp_unmount_refusal(const struct safecp_unmount *u, struct safecp_unmount_refusal *ret)
{
	if (!u->refused)
		return -ENOENT;
	api_unmount_refusal(&u->r, ret);
	return 0;
}

int safecp_unmount_target(const struct safecp_unmount *u, struct safecp_unmount_target *ret)
{
	const struct unmount_target *t = &u->t;

	*ret = (struct safecp_unmount_target){
		.arg = u->arg, .device = t->device_target, .whole_disk = t->whole_disk,
		.devnode = t->device_target && t->devnode[0] ? t->devnode : NULL,
		.n_fs = t->n_fs, .has_disk = t->have_disk, .captured = u->captured,
		.disk = t->disk_node[0] ? t->disk_node : NULL, .bytes_written = t->bytes_written,
	};
	for (size_t i = 0; i < t->n_fs; i++)
		ret->n_unmounted += t->fs[i].unmounted;
	return 0;
}

int safecp_unmount_fs(const struct safecp_unmount *u, size_t i, struct safecp_unmount_fs *ret)
{
	const struct unmount_fs *fs;

	if (i >= u->t.n_fs)
		return -ENOENT;
	fs = &u->t.fs[i];
	*ret = (struct safecp_unmount_fs){
		.mountpoint = fs->m.mountpoint, .source = fs->m.source, .fstype = fs->m.fstype,
		.devnode = fs->devnode[0] ? fs->devnode : NULL, .mount_id = fs->m.mnt_id,
		.unmounted = fs->unmounted,
	};
	return 0;
}

/* ---- the job ------------------------------------------------------------------ */

int safecp_unmount_start(struct safecp_unmount *u)
{
	const struct unmount_job_options jo = {
		.lazy = u->flags & SAFECP_UNMOUNT_LAZY,
		.power_off = u->flags & SAFECP_UNMOUNT_POWER_OFF,
		.force = u->flags & SAFECP_UNMOUNT_FORCE,
		.wait = u->wait, .wait_seconds = u->wait_seconds,
		.check_only = u->captured && !u->run_captured,
	};
	int r;

	if (!u->ready)
		return -EINVAL;
	if (u->job)
		return -EALREADY;
	r = unmount_job_new(&u->t, &jo, u->be, &u->job);
	if (r == 0)
		r = unmount_job_start(u->job);
	if (r < 0) {
		unmount_job_free(u->job);
		u->job = NULL;
	}
	return r;
}

int safecp_unmount_fd(const struct safecp_unmount *u)
{
	return u->job ? unmount_job_event_fd(u->job) : -1;
}

static void last_done(struct safecp_unmount *u)
{
	unmount_event_done(&u->last);
	free(u->holders);
	free(u->denied);
	u->holders = u->denied = NULL;
}

int safecp_unmount_poll(struct safecp_unmount *u, int timeout_ms,
			struct safecp_unmount_event *ret)
{
	struct unmount_event *e = &u->last;
	int r;

	if (!u->job)
		return -EINVAL;
	last_done(u);
	r = unmount_job_poll(u->job, timeout_ms, e);
	if (r <= 0)
		return r;
	*ret = (struct safecp_unmount_event){ .kind = api_unmount_event_kind(e->kind),
					      .step = e->step, .result = e->result };
	if (e->kind == UNMOUNT_EVENT_STEP_END)
		api_unmount_step(&e->outcome, &ret->outcome);
	else if (e->kind == UNMOUNT_EVENT_PROGRESS)
		api_unmount_sync(&e->figures, &ret->sync);
	else if (e->kind == UNMOUNT_EVENT_BUSY)
		api_unmount_busy(&e->busy, &ret->busy, &u->holders, &u->denied);
	return 1;
}

void safecp_unmount_cancel(struct safecp_unmount *u)
{
	if (u->job)
		unmount_job_cancel(u->job);
}

void safecp_unmount_stop_after_step(struct safecp_unmount *u)
{
	if (u->job)
		unmount_job_stop_after_step(u->job);
}

int safecp_unmount_power_off(const struct safecp_unmount *u, struct safecp_power_off *ret)
{
	const struct poweroff_plan *p = u->job ? unmount_job_plan(u->job) : NULL;

	if (!p)
		return -ENOENT;
	api_power_off(p, unmount_job_power_off(u->job), ret);
	return 0;
}

int safecp_unmount_still_mounted(struct safecp_unmount *u, const char **ret)
{
	struct unmount_mount *m = NULL;
	size_t n = 0;
	int r;

	*ret = NULL;
	if (!u->t.have_disk)
		return 0;
	free(u->still);
	u->still = NULL;
	r = unmount_mounts_of_device(u->t.disk_major, u->t.disk_minor, true, &m, &n);
	if (r < 0)
		return r;
	if (n > 0)
		u->still = strdup(m[0].mountpoint);
	unmount_mounts_free(m, n);
	if (n > 0 && !u->still)
		return -ENOMEM;
	*ret = u->still;
	return n > 0;
}

void safecp_unmount_free(struct safecp_unmount *u)
{
	if (!u)
		return;
	unmount_job_free(u->job);
	last_done(u);
	if (u->refused)
		unmount_refusal_done(&u->r);
	if (u->prepared)
		unmount_target_done(&u->t);
	free(u->still);
	free(u->arg);
	free(u);
}
