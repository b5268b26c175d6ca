/* test_unmount_job.c: the order of an unmount job's steps, where it stops
 * and how it is cancelled, on a fake backend (no root, no devices).
 *
 * The fake records every operation in a log ("sync unmount:/a ..."), so
 * a test states what was done and, as much, what was not. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "unmount_fake.h"
#include "unmount/job.h"

struct fake {
	char log[1024];
	int sync_start;             /* its result */
	unsigned dirty_rounds;      /* rounds that end not clean */
	int sync_error;             /* a syncfs error in the first round */
	unsigned round, polls;
	const char *busy_mp;        /* unmount of it: -EBUSY ... */
	int busy_times;             /* ... this often; negative: always */
	const char *held_mp;        /* a process holds it (mount_holders) */
	const char *cancel_after;   /* unmount of it cancels the job */
	struct unmount_job *job;
	int release;                /* release's result */
	const char *mismatch_mp;    /* unmount of it: -EXDEV, the service's object
				     * not the mount's device */
	enum unmount_mismatch mismatch;
	int sync_handle;
};

#define note(f, ...) fake_log((f)->log, sizeof((f)->log), __VA_ARGS__)

static struct fake *fk(const struct unmount_backend *be)
{
	return be->data;
}

static int f_sync_start(const struct unmount_backend *be, const struct unmount_target *t,
			void **ret_sync, struct syncer_figures *ret_first)
{
	struct fake *f = fk(be);

	note(f, "sync");
	if (f->sync_start < 0)
		return f->sync_start;
	f->round = 1;
	*ret_sync = &f->sync_handle;
	*ret_first = (struct syncer_figures){ .bytes_left = 100, .round = 1 };
	return 0;
}

static int f_sync_poll(const struct unmount_backend *be, void *sync, int timeout_ms,
		       struct syncer_figures *ret)
{
	struct fake *f = fk(be);
	bool clean = f->round > f->dirty_rounds;

	f->polls++;
	*ret = (struct syncer_figures){ .bytes_written = 100 * f->round, .bytes_left = clean ? 0 : 7,
					.synced = true, .clean = clean, .round = f->round };
	if (f->sync_error && f->round == 1) {
		ret->error = f->sync_error;
		ret->error_index = 1;
	}
	return 0;
}

static int f_sync_again(const struct unmount_backend *be, void *sync)
{
	note(fk(be), "again");
	fk(be)->round++;
	return 0;
}

static void f_sync_free(const struct unmount_backend *be, void *sync)
{
	note(fk(be), "sync-free");
}

static int f_unmount(const struct unmount_backend *be, const char *mp, bool lazy, char **msg)
{
	struct fake *f = fk(be);

	*msg = NULL;
	note(f, "unmount:%s%s", mp, lazy ? ":lazy" : "");
	if (f->cancel_after && strcmp(mp, f->cancel_after) == 0)
		unmount_job_cancel(f->job); /* a signal during an unmount that cannot stop */
	if (f->mismatch_mp && strcmp(mp, f->mismatch_mp) == 0) {
		f->mismatch = UNMOUNT_MISMATCH_OTHER_DEVICE;
		return -EXDEV;
	}
	if (f->busy_mp && strcmp(mp, f->busy_mp) == 0 && f->busy_times != 0) {
		if (f->busy_times > 0)
			f->busy_times--;
		return -EBUSY;
	}
	return 0;
}

static int f_mount_holders(const struct unmount_backend *be, const struct unmount_target *t,
			   const struct unmount_fs *fs, struct holder_list *ret,
			   char ***ret_sub, size_t *ret_n_sub)
{
	struct fake *f = fk(be);
	const char *mp = fs->m.mountpoint;

	*ret = (struct holder_list){ 0 };
	*ret_sub = NULL;
	*ret_n_sub = 0;
	if ((f->held_mp && strcmp(mp, f->held_mp) == 0) || (f->busy_mp && strcmp(mp, f->busy_mp) == 0)) {
		ret->items = calloc(1, sizeof(*ret->items));
		if (!ret->items)
			return -ENOMEM;
		ret->items[0] = (struct holder){ .pid = 42, .command = "sh", .how = HOLDER_CWD,
						 .path = strdup(mp) };
		ret->n = 1;
	}
	return 0;
}

static int f_release(const struct unmount_backend *be, const char *devnode, int wait_ms)
{
	note(fk(be), "release:%s", devnode);
	return fk(be)->release;
}

static int f_plan(const struct unmount_backend *be, unsigned major, unsigned minor,
		  unsigned flags, struct poweroff_plan *ret)
{
	note(fk(be), "plan:%u:%u", major, minor);
	*ret = (struct poweroff_plan){ .devnode = "/dev/fake", .method = POWEROFF_LOOP };
	return 0;
}

static int f_run(const struct unmount_backend *be, const struct poweroff_plan *p,
		 struct poweroff_result *ret)
{
	note(fk(be), "power-off:%s", p->devnode);
	*ret = (struct poweroff_result){ .inflight_drained = true };
	return 0;
}

static enum unmount_mismatch f_mismatch(const struct unmount_backend *be)
{
	return fk(be)->mismatch;
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
		.power_off_plan_done = fake_plan_done, .mismatch = f_mismatch,
	};
}

/* A disk 8:16 with n filesystems /a, /b ... on /dev/fa1, /dev/fa2 ... */
static void make_target(struct unmount_target *t, size_t n)
{
	*t = (struct unmount_target){ .arg = "/dev/fa", .have_disk = true,
				      .disk_major = 8, .disk_minor = 16 };
	t->fs = calloc(n, sizeof(*t->fs));
	for (size_t i = 0; t->fs && i < n; i++) {
		char mp[8];

		snprintf(mp, sizeof(mp), "/%c", (char)('a' + i));
		t->fs[i].m.mountpoint = strdup(mp);
		t->fs[i].m.dev_major = 8;
		t->fs[i].m.dev_minor = 17 + (unsigned)i;
		snprintf(t->fs[i].devnode, sizeof(t->fs[i].devnode), "/dev/fa%zu", i + 1);
	}
	t->n_fs = t->fs ? n : 0;
}

/* What the caller saw: one letter per event, p(rogress) b(usy) P(lanned)
 * R(an) e(nd of a step) E(ND). */
struct seen {
	char kinds[256];
	size_t n;
	int busy_waiting;  /* BUSY events with waiting */
};

static void take(struct seen *s, const struct unmount_event *ev)
{
	static const char letter[] = {
		[UNMOUNT_EVENT_PROGRESS] = 'p', [UNMOUNT_EVENT_BUSY] = 'b',
		[UNMOUNT_EVENT_POWER_OFF_PLANNED] = 'P', [UNMOUNT_EVENT_POWER_OFF_RAN] = 'R',
		[UNMOUNT_EVENT_STEP_END] = 'e', [UNMOUNT_EVENT_END] = 'E',
	};

	if (s->n + 1 < sizeof(s->kinds))
		s->kinds[s->n++] = letter[ev->kind];
	if (ev->kind == UNMOUNT_EVENT_BUSY && ev->busy.waiting)
		s->busy_waiting++;
}

/* Runs the job to END; with cancel_on_busy, cancels at the first BUSY
 * event, as the caller does on a signal. */
static void run(struct unmount_job *job, struct seen *s, bool cancel_on_busy)
{
	struct unmount_event ev;

	*s = (struct seen){ 0 };
	CHECK_INT(unmount_job_start(job), 0);
	for (;;) {
		int r = unmount_job_poll(job, 1000, &ev);

		if (r <= 0)
			continue;
		take(s, &ev);
		if (cancel_on_busy && ev.kind == UNMOUNT_EVENT_BUSY)
			unmount_job_cancel(job);
		if (ev.kind == UNMOUNT_EVENT_END) {
			unmount_event_done(&ev);
			break;
		}
		unmount_event_done(&ev);
	}
}

static const struct unmount_step *step(struct unmount_job *job, size_t i)
{
	static const struct unmount_step none = { .state = -1 };
	const struct unmount_step *s = unmount_job_step(job, i);

	return s ? s : &none;
}

TEST(whole_disk_with_power_off)
{
	struct fake f = { 0 };
	struct unmount_backend be = fake_backend(&f);
	const struct unmount_job_options o = { .power_off = true, .wait_seconds = -1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	make_target(&t, 2);
	t.whole_disk = true;
	snprintf(t.devnode, sizeof(t.devnode), "/dev/fa");
	t.dev_major = 8;
	t.dev_minor = 16;
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	CHECK_INT(unmount_job_n_steps(job), 8);
	CHECK_INT(step(job, 0)->kind, UNMOUNT_STEP_FREE_CHECK);
	CHECK_INT(step(job, 1)->kind, UNMOUNT_STEP_SYNC);
	CHECK_INT(step(job, 2)->kind, UNMOUNT_STEP_UNMOUNT);
	CHECK_INT(step(job, 3)->fs, 1);
	CHECK_INT(step(job, 4)->kind, UNMOUNT_STEP_RELEASE_CHECK);
	CHECK_STR(step(job, 5)->devnode, "/dev/fa2");
	CHECK_STR(step(job, 6)->devnode, "/dev/fa");
	CHECK_INT(step(job, 7)->kind, UNMOUNT_STEP_POWER_OFF);
	run(job, &s, false);
	CHECK_STR(f.log, "sync sync-free unmount:/a unmount:/b release:/dev/fa1 release:/dev/fa2 "
		  "release:/dev/fa plan:8:16 power-off:/dev/fake");
	for (size_t i = 0; i < 8; i++)
		CHECK_INT(step(job, i)->state, UNMOUNT_STEP_DONE);
	CHECK(t.fs[0].unmounted && t.fs[1].unmounted);
	CHECK_STR(t.disk_node, "/dev/fake");
	CHECK_U64(t.bytes_written, 100);
	CHECK(unmount_job_sync_clean(job));
	/* first figures, then the poll's; the power-off's two notes; END last */
	CHECK_STR(s.kinds, "eppeeeeeePReE");
	unmount_job_free(job);
	unmount_target_done(&t);
}

TEST(busy_unmount_stops_before_the_power_off)
{
	struct fake f = { .busy_mp = "/a", .busy_times = -1 };
	struct unmount_backend be = fake_backend(&f);
	const struct unmount_job_options o = { .power_off = true, .wait_seconds = -1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	make_target(&t, 1);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	/* one filesystem: no free check */
	CHECK_INT(unmount_job_n_steps(job), 4);
	run(job, &s, false);
	CHECK_STR(f.log, "sync sync-free unmount:/a");
	CHECK_INT(step(job, 1)->state, UNMOUNT_STEP_FAILED);
	CHECK_INT(step(job, 1)->result, -EBUSY);
	CHECK_INT(step(job, 1)->why, UNMOUNT_WHY_BUSY);
	CHECK_INT(step(job, 2)->state, UNMOUNT_STEP_PENDING);
	CHECK_INT(step(job, 3)->state, UNMOUNT_STEP_PENDING);
	CHECK(!t.fs[0].unmounted);
	CHECK_STR(s.kinds, "ppebeE");
	CHECK_INT(s.busy_waiting, 0);
	unmount_job_free(job);
	unmount_target_done(&t);
}

TEST(one_held_filesystem_keeps_all_mounted)
{
	struct fake f = { .held_mp = "/b" };
	struct unmount_backend be = fake_backend(&f);
	const struct unmount_job_options o = { .wait_seconds = -1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	make_target(&t, 3);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	run(job, &s, false);
	/* nothing synced, nothing unmounted */
	CHECK_STR(f.log, "");
	CHECK_INT(step(job, 0)->kind, UNMOUNT_STEP_FREE_CHECK);
	CHECK_INT(step(job, 0)->result, -EBUSY);
	CHECK_INT(step(job, 1)->state, UNMOUNT_STEP_PENDING);
	CHECK_STR(s.kinds, "beE");
	unmount_job_free(job);
	unmount_target_done(&t);
}

TEST(wait_retries_and_tells_who_once)
{
	struct fake f = { .busy_mp = "/a", .busy_times = 3 };
	struct unmount_backend be = fake_backend(&f);
	const struct unmount_job_options o = { .wait = true, .wait_seconds = -1, .retry_ms = 1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	make_target(&t, 1);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	run(job, &s, false);
	CHECK_STR(f.log, "sync sync-free unmount:/a unmount:/a unmount:/a unmount:/a release:/dev/fa1");
	CHECK_INT(step(job, 1)->state, UNMOUNT_STEP_DONE);
	/* the same holder three times: told once */
	CHECK_STR(s.kinds, "ppebeeE");
	CHECK_INT(s.busy_waiting, 1);
	unmount_job_free(job);
	unmount_target_done(&t);
}

TEST(cancel_between_steps)
{
	struct fake f = { .cancel_after = "/a" };
	struct unmount_backend be = fake_backend(&f);
	const struct unmount_job_options o = { .power_off = true, .wait_seconds = -1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	make_target(&t, 2);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	f.job = job;
	run(job, &s, false);
	/* the unmount of /a ran to its end; /b never began */
	CHECK_STR(f.log, "sync sync-free unmount:/a");
	CHECK_INT(step(job, 2)->state, UNMOUNT_STEP_DONE);
	CHECK_INT(step(job, 3)->state, UNMOUNT_STEP_FAILED);
	CHECK_INT(step(job, 3)->result, -ECANCELED);
	CHECK_INT(step(job, 3)->why, UNMOUNT_WHY_NOT_BEGUN);
	CHECK_INT(step(job, 4)->state, UNMOUNT_STEP_PENDING);
	CHECK(t.fs[0].unmounted && !t.fs[1].unmounted);
	unmount_job_free(job);
	unmount_target_done(&t);
}

TEST(cancel_in_a_wait)
{
	struct fake f = { .busy_mp = "/a", .busy_times = -1 };
	struct unmount_backend be = fake_backend(&f);
	/* no time limit and a slow pace: only the cancel can end this wait */
	const struct unmount_job_options o = { .wait = true, .wait_seconds = -1, .retry_ms = 60000 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	make_target(&t, 1);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	run(job, &s, true);
	CHECK_STR(f.log, "sync sync-free unmount:/a");
	CHECK_INT(step(job, 1)->result, -ECANCELED);
	CHECK_INT(step(job, 1)->why, UNMOUNT_WHY_CANCELLED);
	CHECK_INT(step(job, 2)->state, UNMOUNT_STEP_PENDING);
	unmount_job_free(job);
	unmount_target_done(&t);
}

TEST(sync_rounds_and_errors)
{
	struct fake f = { .dirty_rounds = 10 };
	struct unmount_backend be = fake_backend(&f);
	const struct unmount_job_options o = { .wait_seconds = -1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	/* dirtied again and again: three rounds, then the unmount writes the rest */
	make_target(&t, 1);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	run(job, &s, false);
	CHECK_STR(f.log, "sync again again sync-free unmount:/a release:/dev/fa1");
	CHECK_INT(step(job, 0)->state, UNMOUNT_STEP_DONE);
	CHECK_INT(step(job, 0)->why, UNMOUNT_WHY_DIRTIED);
	CHECK(!unmount_job_sync_clean(job));
	unmount_job_free(job);

	/* a syncfs error ends the job before any unmount */
	f = (struct fake){ .sync_error = -EIO };
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	run(job, &s, false);
	CHECK_STR(f.log, "sync sync-free");
	CHECK_INT(step(job, 0)->result, -EIO);
	CHECK_INT(step(job, 0)->why, UNMOUNT_WHY_SYNC_WRITE);
	CHECK_INT(step(job, 0)->index, 1);
	CHECK_INT(step(job, 1)->state, UNMOUNT_STEP_PENDING);
	unmount_job_free(job);

	/* a sync that cannot start */
	f = (struct fake){ .sync_start = -EMFILE };
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	run(job, &s, false);
	CHECK_STR(f.log, "sync");
	CHECK_INT(step(job, 0)->why, UNMOUNT_WHY_SYNC_START);
	CHECK_STR(s.kinds, "eE");
	unmount_job_free(job);
	unmount_target_done(&t);
}

TEST(lazy_and_check_only)
{
	struct fake f = { 0 };
	struct unmount_backend be = fake_backend(&f);
	struct unmount_job_options o = { .lazy = true, .wait_seconds = -1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	/* lazy: no all-or-nothing check, no release check */
	make_target(&t, 2);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	run(job, &s, false);
	CHECK_STR(f.log, "sync sync-free unmount:/a:lazy unmount:/b:lazy");
	CHECK_INT(unmount_job_n_steps(job), 3);
	unmount_job_free(job);

	/* a captured tree: the free check alone */
	f = (struct fake){ .held_mp = "/a" };
	o = (struct unmount_job_options){ .check_only = true, .wait_seconds = -1 };
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	CHECK_INT(unmount_job_n_steps(job), 1);
	run(job, &s, false);
	CHECK_STR(f.log, "");
	CHECK_INT(step(job, 0)->why, UNMOUNT_WHY_BUSY);
	unmount_job_free(job);
	unmount_target_done(&t);
}

/* A service that would act on another device: the step says so (not a
 * plain unmount failure), and nothing after it runs. */
TEST(mismatch_stops_the_job)
{
	struct fake f = { .mismatch_mp = "/a" };
	struct unmount_backend be = fake_backend(&f);
	const struct unmount_job_options o = { .power_off = true, .wait_seconds = -1 };
	struct unmount_target t;
	struct unmount_job *job = NULL;
	struct seen s;

	make_target(&t, 1);
	CHECK_INT(unmount_job_new(&t, &o, &be, &job), 0);
	CHECK_INT(step(job, 1)->kind, UNMOUNT_STEP_UNMOUNT);
	run(job, &s, false);
	CHECK_STR(f.log, "sync sync-free unmount:/a");
	CHECK_INT(step(job, 1)->state, UNMOUNT_STEP_FAILED);
	CHECK_INT(step(job, 1)->why, UNMOUNT_WHY_MISMATCH);
	CHECK_INT(step(job, 1)->mismatch, UNMOUNT_MISMATCH_OTHER_DEVICE);
	CHECK_INT(step(job, 1)->result, -EXDEV);
	CHECK_INT(step(job, 2)->state, UNMOUNT_STEP_PENDING);
	CHECK(!t.fs[0].unmounted);
	unmount_job_free(job);
	unmount_target_done(&t);
}

int main(void)
{
	TEST_PLAN(9);
	RUN(whole_disk_with_power_off);
	RUN(busy_unmount_stops_before_the_power_off);
	RUN(one_held_filesystem_keeps_all_mounted);
	RUN(wait_retries_and_tells_who_once);
	RUN(cancel_between_steps);
	RUN(cancel_in_a_wait);
	RUN(sync_rounds_and_errors);
	RUN(lazy_and_check_only);
	RUN(mismatch_stops_the_job);
	return test_summary();
}
