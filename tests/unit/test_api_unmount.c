/* test_api_unmount.c: <safecp/unmount.h> as a client sees it.
 *
 * Targets are resolved on the captured tree tests/fixtures/unmount-system
 * ("/" on /dev/vda2, /boot on /dev/vda1, USB sticks on sdc, gphoto2 with
 * its working directory on /media/stick2): the refusals as kinds and
 * names, the facts of a target, and a check-only job on the kernel
 * backend that finds gphoto2.  The steps themselves run on a fake backend
 * (api_unmount_backend_wrap()), which logs what it was asked to do. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <safecp/unmount.h>

#include "api/unmount_private.h"
#include "test.h"
#include "unmount_fake.h"
#include "util/sysroot.h"

#define ROOT FIXTURES_DIR "/unmount-system"

/* ---- a fake backend -------------------------------------------------------- */

struct fake {
	char log[512];
	const char *busy_mp;    /* its unmount: -EBUSY, with a holder and a denied one */
	unsigned polls;
};

#define note(be, ...) \
	fake_log(((struct fake *)(be)->data)->log, sizeof(((struct fake *)(be)->data)->log), \
		 __VA_ARGS__)

static int f_sync_start(const struct unmount_backend *be, const struct unmount_target *t,
			void **ret_sync, struct syncer_figures *ret_first)
{
	note(be, "sync");
	*ret_sync = be->data;
	*ret_first = (struct syncer_figures){ .bytes_left = 300, .round = 1, .estimate = true };
	return 0;
}

static int f_sync_poll(const struct unmount_backend *be, void *sync, int timeout_ms,
		       struct syncer_figures *ret)
{
	struct fake *f = be->data;
	bool clean = ++f->polls >= 2;

	*ret = (struct syncer_figures){ .bytes_written = clean ? 300 : 100,
					.bytes_left = clean ? 0 : 200, .synced = clean,
					.clean = clean, .round = 1, .t_mono = f->polls };
	return 0;
}

static int f_sync_again(const struct unmount_backend *be, void *sync)
{
	return 0;
}

static void f_sync_free(const struct unmount_backend *be, void *sync)
{
}

static int f_unmount(const struct unmount_backend *be, const char *mp, bool lazy, char **msg)
{
	const struct fake *f = be->data;

	note(be, "unmount:%s", mp);
	*msg = NULL;
	if (f->busy_mp && strcmp(mp, f->busy_mp) == 0) {
		*msg = strdup("target is busy");
		return -EBUSY;
	}
	return 0;
}

static int f_mount_holders(const struct unmount_backend *be, const struct unmount_target *t,
			   const struct unmount_fs *fs, struct holder_list *ret,
			   char ***ret_sub, size_t *ret_n_sub)
{
	const struct fake *f = be->data;

	*ret = (struct holder_list){ 0 };
	*ret_sub = NULL;
	*ret_n_sub = 0;
	if (!f->busy_mp || strcmp(fs->m.mountpoint, f->busy_mp) != 0)
		return 0;
	ret->items = calloc(1, sizeof(*ret->items));
	ret->denied = calloc(1, sizeof(*ret->denied));
	*ret_sub = calloc(1, sizeof(char *));
	if (!ret->items || !ret->denied || !*ret_sub)
		return -ENOMEM;
	/* a name is anybody's choice: the library hands it over as it is */
	ret->items[0] = (struct holder){ .pid = 42, .command = "sh\033[2J", .how = HOLDER_FILE,
					 .path = strdup("/media/stick1/a.jpg") };
	ret->n = ret->cap = 1;
	ret->denied[0] = (struct holder_denied){ .pid = 7, .error = -EACCES, .command = "cron" };
	ret->n_denied = ret->cap_denied = 1;
	ret->unreadable = 3;
	(*ret_sub)[0] = strdup("/media/stick1/inner");
	*ret_n_sub = 1;
	return 0;
}

static int f_release(const struct unmount_backend *be, const char *devnode, int wait_ms)
{
	note(be, "release:%s", devnode);
	return 0;
}

static int f_plan(const struct unmount_backend *be, unsigned major, unsigned minor,
		  unsigned flags, struct poweroff_plan *ret)
{
	note(be, "plan:%u:%u", major, minor);
	*ret = (struct poweroff_plan){ .devnode = "/dev/sdc", .method = POWEROFF_USB };
	return 0;
}

static int f_run(const struct unmount_backend *be, const struct poweroff_plan *p,
		 struct poweroff_result *ret)
{
	note(be, "power-off:%s", p->devnode);
	*ret = (struct poweroff_result){ .sync_cache = -ENOTTY, .inflight_drained = true };
	return 0;
}

static struct unmount_backend fake_backend(struct fake *f)
{
	return (struct unmount_backend){
		.data = f,
		.sync_start = f_sync_start, .sync_poll = f_sync_poll,
		.sync_again = f_sync_again, .sync_free = f_sync_free,
		.unmount = f_unmount, .mount_holders = f_mount_holders,
		.device_holders = fake_device_holders, .mounted_here = fake_mounted_here,
		.release = f_release, .power_off_plan = f_plan, .power_off_run = f_run,
		.power_off_plan_done = fake_plan_done,
	};
}

/* ---- helpers ------------------------------------------------------------------ */

/* target prepared with flags through b: prepare's result; *ret the job. */
static int prepared(const char *target, unsigned flags, struct safecp_unmount_backend *b,
		    struct safecp_unmount **ret)
{
	int r = safecp_unmount_new(target, flags, b, ret);

	CHECK_INT(r, 0);
	return r < 0 ? r : safecp_unmount_prepare(*ret);
}

/* The refusal of target, its kind; r's strings live until *u is freed. */
static enum safecp_unmount_refusal_kind refused(const char *target, unsigned flags,
						struct safecp_unmount **u,
						struct safecp_unmount_refusal *r)
{
	*r = (struct safecp_unmount_refusal){ 0 };
	if (prepared(target, flags, NULL, u) != 1)
		return (enum safecp_unmount_refusal_kind)-1;
	CHECK_INT(safecp_unmount_refusal(*u, r), 0);
	return r->kind;
}

/* What the caller saw, one letter an event: p(rogress) b(usy) P(lanned)
 * R(an) e(nd of a step) E(ND). */
static void run(struct safecp_unmount *u, char *kinds, size_t size,
		struct safecp_unmount_event *last_busy, struct safecp_unmount_step *ends,
		size_t n_ends)
{
	static const char letter[] = " pbPReE?";
	size_t n = 0, k = 0;

	CHECK_INT(safecp_unmount_start(u), 0);
	CHECK(safecp_unmount_fd(u) >= 0);
	for (;;) {
		struct safecp_unmount_event ev;
		int r = safecp_unmount_poll(u, 1000, &ev);

		if (r <= 0)
			continue;
		if (n + 1 < size)
			kinds[n++] = letter[ev.kind];
		if (ev.kind == SAFECP_UNMOUNT_EVENT_BUSY && last_busy)
			*last_busy = ev; /* checked before the next poll */
		if (ev.kind == SAFECP_UNMOUNT_EVENT_STEP_END && k < n_ends)
			ends[k++] = ev.outcome;
		if (ev.kind == SAFECP_UNMOUNT_EVENT_BUSY && last_busy)
			break;
		if (ev.kind == SAFECP_UNMOUNT_EVENT_END)
			break;
	}
	kinds[n] = '\0';
}

/* ---- the tests ------------------------------------------------------------------ */

TEST(arguments)
{
	struct safecp_unmount_backend *b = NULL;
	struct safecp_unmount *u = NULL;
	struct safecp_unmount_event ev;
	struct safecp_unmount_refusal r;
	struct safecp_power_off p;
	const char *other;

	CHECK_INT(safecp_unmount_new("/media/x", 1u << 20, NULL, &u), -EINVAL);
	CHECK_INT(safecp_unmount_backend_new((enum safecp_unmount_via)7, &b), -EINVAL);
	CHECK_INT(safecp_unmount_backend_new(SAFECP_UNMOUNT_VIA_KERNEL, &b), 0);
	CHECK_INT(safecp_unmount_backend_udisks(b), 0);
	CHECK_INT(safecp_unmount_backend_missing(b, NULL), 0);
	CHECK_INT(safecp_unmount_new("/media/x", 0, b, &u), 0);
	/* nothing before its time */
	CHECK_INT(safecp_unmount_fd(u), -1);
	CHECK_INT(safecp_unmount_poll(u, 0, &ev), -EINVAL);
	CHECK_INT(safecp_unmount_start(u), -EINVAL);
	CHECK_INT(safecp_unmount_refusal(u, &r), -ENOENT);
	CHECK_INT(safecp_unmount_power_off(u, &p), -ENOENT);
	CHECK_INT(safecp_unmount_still_mounted(u, &other), 0);
	CHECK(other == NULL);
	safecp_unmount_cancel(u);
	safecp_unmount_free(u);
	safecp_unmount_backend_free(b);
	safecp_unmount_free(NULL);
	safecp_unmount_backend_free(NULL);

	/* a captured tree is not this machine: udisks is never asked */
	sysroot_set(ROOT);
	CHECK_INT(safecp_unmount_backend_new(SAFECP_UNMOUNT_VIA_UDISKS, &b), 0);
	CHECK_INT(safecp_unmount_backend_udisks(b), 0);
	CHECK_INT(safecp_unmount_backend_missing(b, NULL), 0);
	safecp_unmount_backend_free(b);
	sysroot_set(NULL);
}

TEST(refusals)
{
	struct safecp_unmount *u = NULL;
	struct safecp_unmount_refusal r;
	struct safecp_unmount_target t;

	sysroot_set(ROOT);
	CHECK_INT(refused("/boot", 0, &u, &r), SAFECP_UNMOUNT_REFUSED_SYSTEM);
	CHECK_STR(r.name, "system-mount");
	CHECK_STR(r.what, "/boot");
	CHECK_STR(r.device, "/dev/vda1");
	CHECK_INT(safecp_unmount_prepare(u), -EALREADY);
	CHECK_INT(safecp_unmount_start(u), -EINVAL);
	safecp_unmount_free(u);
	CHECK_INT(prepared("/boot", SAFECP_UNMOUNT_SYSTEM, NULL, &u), 0);
	safecp_unmount_free(u);
	CHECK_INT(refused("/dev/vda2", SAFECP_UNMOUNT_SYSTEM, &u, &r), SAFECP_UNMOUNT_REFUSED_ROOT);
	CHECK_STR(r.name, "root");
	safecp_unmount_free(u);
	CHECK_INT(refused("/", SAFECP_UNMOUNT_SYSTEM, &u, &r), SAFECP_UNMOUNT_REFUSED_ROOT_FS);
	safecp_unmount_free(u);
	CHECK_INT(refused("LABEL=x", 0, &u, &r), SAFECP_UNMOUNT_REFUSED_TAG_IN_SYSROOT);
	CHECK(r.where && strstr(r.where, "unmount-system"));
	safecp_unmount_free(u);
	/* the target's facts stay readable after a refusal */
	CHECK_INT(refused("/dev/nope", 0, &u, &r), SAFECP_UNMOUNT_REFUSED_NO_ACCESS);
	CHECK_STR(r.name, "no-access");
	CHECK(r.err < 0);
	CHECK_INT(safecp_unmount_target(u, &t), 0);
	CHECK_STR(t.arg, "/dev/nope");
	CHECK(t.captured);
	CHECK_INT(t.n_fs, 0);
	safecp_unmount_free(u);
	/* the FireWire disk: not one a person unplugs */
	CHECK_INT(refused("/media/fw", SAFECP_UNMOUNT_POWER_OFF, &u, &r),
		  SAFECP_UNMOUNT_REFUSED_FIXED_DISK);
	CHECK_INT(r.bus, SAFECP_UNMOUNT_BUS_FIREWIRE);
	safecp_unmount_free(u);
	sysroot_set(NULL);
}

TEST(check_only_finds_who_holds_it)
{
	struct safecp_unmount *u = NULL;
	struct safecp_unmount_target t;
	struct safecp_unmount_fs fs;
	struct safecp_unmount_event busy;
	struct safecp_unmount_step ends[2];
	char kinds[16];

	sysroot_set(ROOT);
	/* the whole disk: both sticks' filesystems */
	CHECK_INT(prepared("/dev/sdc", 0, NULL, &u), 0);
	CHECK_INT(safecp_unmount_target(u, &t), 0);
	CHECK(t.device && t.whole_disk && t.has_disk && t.captured);
	CHECK_STR(t.devnode, "/dev/sdc");
	CHECK_INT(t.n_fs, 2);
	CHECK_INT(safecp_unmount_fs(u, 2, &fs), -ENOENT);
	CHECK_INT(safecp_unmount_fs(u, 1, &fs), 0);
	CHECK(strcmp(fs.mountpoint, "/media/stick1") == 0 ||
	      strcmp(fs.mountpoint, "/media/stick2") == 0);
	CHECK_STR(fs.fstype, "vfat");
	CHECK(fs.mount_id > 0 && !fs.unmounted);
	/* the captured tree's gphoto2 works in /media/stick2: the free check says so */
	run(u, kinds, sizeof(kinds), &busy, ends, 2);
	CHECK_STR(kinds, "b");
	CHECK_STR(busy.busy.what, "/media/stick2");
	CHECK(busy.busy.mount && !busy.busy.waiting);
	CHECK_INT(busy.busy.n_holders, 1);
	if (busy.busy.n_holders == 1) {
		CHECK_INT(busy.busy.holders[0].pid, 200);
		CHECK_STR(busy.busy.holders[0].command, "gphoto2");
		CHECK_INT(busy.busy.holders[0].how, SAFECP_UNMOUNT_HOLDER_CWD);
		CHECK_STR(busy.busy.holders[0].how_name, "cwd");
		CHECK_STR(busy.busy.holders[0].path, "/media/stick2/DCIM");
	}
	{
		struct safecp_unmount_event ev;

		do {
			while (safecp_unmount_poll(u, 1000, &ev) <= 0) {
			}
			if (ev.kind == SAFECP_UNMOUNT_EVENT_STEP_END)
				ends[0] = ev.outcome;
		} while (ev.kind != SAFECP_UNMOUNT_EVENT_END);
		/* after END, END again */
		CHECK_INT(safecp_unmount_poll(u, 0, &ev), 1);
		CHECK_INT(ev.kind, SAFECP_UNMOUNT_EVENT_END);
	}
	CHECK_INT(ends[0].kind, SAFECP_UNMOUNT_STEP_FREE_CHECK);
	CHECK_INT(ends[0].state, SAFECP_UNMOUNT_STEP_FAILED);
	CHECK_INT(ends[0].result, -EBUSY);
	CHECK_INT(ends[0].why, SAFECP_UNMOUNT_WHY_BUSY);
	CHECK(ends[0].fs == SAFECP_UNMOUNT_NO_FS);
	CHECK_INT(safecp_unmount_target(u, &t), 0);
	CHECK_INT(t.n_unmounted, 0);
	CHECK(t.disk == NULL);
	safecp_unmount_free(u);
	sysroot_set(NULL);
}

TEST(steps_on_a_fake_backend)
{
	struct fake f = { 0 };
	struct unmount_backend be = fake_backend(&f);
	struct safecp_unmount_backend *b = NULL;
	struct safecp_unmount *u = NULL;
	struct safecp_unmount_step ends[4] = { 0 };
	struct safecp_unmount_target t;
	struct safecp_unmount_fs fs;
	struct safecp_power_off p;
	char kinds[32];

	sysroot_set(ROOT);
	CHECK_INT(api_unmount_backend_wrap(&be, &b), 0);
	CHECK_INT(prepared("/media/stick1", 0, b, &u), 0);
	api_unmount_run_captured(u);
	run(u, kinds, sizeof(kinds), NULL, ends, 4);
	CHECK_STR(f.log, "sync unmount:/media/stick1 release:/dev/sdc1");
	/* the sync's first figures, one poll's, its end; unmount; release; END */
	CHECK_STR(kinds, "pppeeeE");
	CHECK_INT(ends[0].kind, SAFECP_UNMOUNT_STEP_SYNC);
	CHECK_INT(ends[1].kind, SAFECP_UNMOUNT_STEP_UNMOUNT);
	CHECK_INT(ends[1].state, SAFECP_UNMOUNT_STEP_DONE);
	CHECK_INT(ends[1].fs, 0);
	CHECK_INT(ends[2].kind, SAFECP_UNMOUNT_STEP_RELEASE_CHECK);
	CHECK_STR(ends[2].devnode, "/dev/sdc1");
	CHECK_INT(safecp_unmount_target(u, &t), 0);
	CHECK_U64(t.bytes_written, 300);
	CHECK_INT(t.n_unmounted, 1);
	CHECK_INT(safecp_unmount_fs(u, 0, &fs), 0);
	CHECK(fs.unmounted);
	CHECK_STR(fs.devnode, "/dev/sdc1");
	safecp_unmount_free(u);

	/* the whole stick, powered off */
	f = (struct fake){ 0 };
	CHECK_INT(prepared("/dev/sdc", SAFECP_UNMOUNT_POWER_OFF, b, &u), 0);
	api_unmount_run_captured(u);
	run(u, kinds, sizeof(kinds), NULL, ends, 0);
	CHECK(strstr(f.log, "plan:8:32 power-off:/dev/sdc") != NULL);
	CHECK(strstr(kinds, "PReE") != NULL);
	CHECK_INT(safecp_unmount_power_off(u, &p), 0);
	CHECK_STR(p.devnode, "/dev/sdc");
	CHECK_INT(p.method, SAFECP_POWER_OFF_BY_USB);
	CHECK_STR(p.method_name, "usb");
	CHECK_INT(p.refusal, SAFECP_POWER_OFF_OK);
	CHECK_INT(p.sync_cache, -ENOTTY);
	CHECK(p.inflight_drained);
	CHECK_INT(safecp_unmount_target(u, &t), 0);
	CHECK_STR(t.disk, "/dev/sdc");
	CHECK_INT(t.n_unmounted, 2);
	safecp_unmount_free(u);
	safecp_unmount_backend_free(b);
	sysroot_set(NULL);
}

TEST(busy_names_raw_and_denied)
{
	struct fake f = { .busy_mp = "/media/stick1" };
	struct unmount_backend be = fake_backend(&f);
	struct safecp_unmount_backend *b = NULL;
	struct safecp_unmount *u = NULL;
	struct safecp_unmount_event busy;
	const struct safecp_unmount_busy *bz = &busy.busy;
	struct safecp_unmount_step ends[4] = { 0 };
	struct safecp_unmount_event ev;
	char kinds[32];

	sysroot_set(ROOT);
	CHECK_INT(api_unmount_backend_wrap(&be, &b), 0);
	CHECK_INT(prepared("/media/stick1", 0, b, &u), 0);
	api_unmount_run_captured(u);
	run(u, kinds, sizeof(kinds), &busy, ends, 4);
	CHECK_STR(bz->what, "/media/stick1");
	CHECK_INT(bz->n_holders, 1);
	if (bz->n_holders == 1) {
		CHECK_INT(bz->holders[0].pid, 42);
		CHECK_STR(bz->holders[0].command, "sh\033[2J");
		CHECK_INT(bz->holders[0].how, SAFECP_UNMOUNT_HOLDER_FILE);
		CHECK_STR(bz->holders[0].how_name, "file");
		CHECK_STR(bz->holders[0].path, "/media/stick1/a.jpg");
		CHECK_INT(bz->holders[0].err, 0);
	}
	CHECK_INT(bz->unreadable, 3);
	CHECK_INT(bz->n_denied, 1);
	if (bz->n_denied == 1) {
		CHECK_INT(bz->denied[0].pid, 7);
		CHECK_INT(bz->denied[0].err, -EACCES);
		CHECK_STR(bz->denied[0].command, "cron");
		CHECK(bz->denied[0].path == NULL);
	}
	CHECK_INT(bz->n_submounts, 1);
	if (bz->n_submounts == 1)
		CHECK_STR(bz->submounts[0], "/media/stick1/inner");
	do {
		while (safecp_unmount_poll(u, 1000, &ev) <= 0) {
		}
	} while (ev.kind != SAFECP_UNMOUNT_EVENT_STEP_END);
	CHECK_INT(ev.outcome.kind, SAFECP_UNMOUNT_STEP_UNMOUNT);
	CHECK_INT(ev.outcome.state, SAFECP_UNMOUNT_STEP_FAILED);
	CHECK_INT(ev.outcome.why, SAFECP_UNMOUNT_WHY_BUSY);
	CHECK_INT(ev.outcome.result, -EBUSY);
	safecp_unmount_free(u);
	safecp_unmount_backend_free(b);
	sysroot_set(NULL);
}

int main(void)
{
	RUN(arguments);
	RUN(refusals);
	RUN(check_only_finds_who_holds_it);
	RUN(steps_on_a_fake_backend);
	RUN(busy_names_raw_and_denied);
	return test_summary();
}
