/* safecp_unmount.c: --unmount and --power-off, after the copy: each
 * destination whose copy succeeded is unmounted (and its disk powered
 * off) through lib's unmount job, the one safeunmount runs, with the
 * kernel backend as root and udisks2 otherwise (common/unmount_choice.h).
 *
 * The targets are resolved before the first byte is written, so that a
 * destination that cannot be unmounted (on the root filesystem, a system
 * mount, a disk that cannot be powered off) is refused with the other
 * refusals.  A destination that failed or read back different stays
 * mounted, and so does any other destination on the same filesystem.
 * The copy's own final sync left nothing to write, so the job's sync step
 * has nothing to show and no bar is drawn. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/holder_words.h"
#include "common/quote.h"
#include "common/unmount_choice.h"
#include "safecp/tool.h"
#include "unmount/job.h"
#include "unmount/resolve.h"

#define POLL_MS 100

static struct {
	struct unmount_choice choice;
	struct unmount_target t[COPY_DESTS_MAX];
	bool resolved[COPY_DESTS_MAX];
} um;

static const char *nz(const char *s)
{
	return s ? s : "?";
}

/* The refusal in words; safeunmount(8) has the long forms. */
static void refusal_words(const char *dest, const struct unmount_refusal *r)
{
	switch (r->kind) {
	case UNMOUNT_REFUSAL_ROOT_FS:
	case UNMOUNT_REFUSAL_ON_ROOT_FS:
		cli_error("cannot unmount %s: it is on the root filesystem; leave out --unmount "
			  "and --power-off", quote(dest));
		break;
	case UNMOUNT_REFUSAL_ROOT:
	case UNMOUNT_REFUSAL_SYSTEM:
	case UNMOUNT_REFUSAL_ROOT_DISK:
	case UNMOUNT_REFUSAL_SWAP_DISK:
		cli_error("refusing to unmount %s (%s): it is a system mount; leave out --unmount "
			  "and --power-off", quote(nz(r->name)), quote(dest));
		break;
	case UNMOUNT_REFUSAL_NOT_PERMITTED:
		cli_error("cannot unmount %s: only root, or the user who mounted it, may do that "
			  "(and there is no udisks2 to ask)", quote(nz(r->name)));
		break;
	case UNMOUNT_REFUSAL_NO_DRIVE:
		cli_error("refusing to power off %s: udisks cannot power it off (it is neither a "
			  "loop device nor a drive with CanPowerOff, which USB drives have); use "
			  "--unmount instead", quote(nz(r->name)));
		break;
	case UNMOUNT_REFUSAL_FIXED_DISK:
	case UNMOUNT_REFUSAL_INTERNAL_READER:
	case UNMOUNT_REFUSAL_POWER_OFF_ROOT:
	case UNMOUNT_REFUSAL_POWER_OFF_ROOT_WITH:
	case UNMOUNT_REFUSAL_NO_BLOCK_DEVICE:
		cli_error("refusing to power off the disk of %s: it is not a disk one unplugs "
			  "(see safeunmount --power-off); use --unmount instead", quote(dest));
		break;
	case UNMOUNT_REFUSAL_NOT_ROOT:
		cli_error("cannot power off the disk of %s: only root may do that (and there is no "
			  "udisks2 to ask); use --unmount instead", quote(dest));
		break;
	case UNMOUNT_REFUSAL_OTHER_MOUNTED:
	case UNMOUNT_REFUSAL_HELD:
	case UNMOUNT_REFUSAL_POWER_OFF_SWAP:
		cli_error("cannot power off %s: %s is in use (%s); use --unmount instead",
			  quote(nz(r->name)), quote(nz(r->other)), quote(nz(r->where)));
		break;
	default:
		cli_error("cannot unmount %s after the copy: %s", quote(dest),
			  r->error ? strerror(-r->error) : "it cannot be resolved to a mount");
		break;
	}
}

bool unmount_refusals(const struct safecp_options *o, const struct copy_prepared *jobs, size_t n)
{
	bool refused = false;

	if (!o->unmount && !o->power_off)
		return false;
	unmount_choice_make(false, &um.choice);
	unmount_choice_note(&um.choice);
	for (size_t i = 0; i < n; i++) {
		const struct unmount_resolve_options ro = { .power_off = o->power_off,
							    .be = um.choice.be };
		struct unmount_refusal r;

		/* the destination's root, which exists (DEST as a file may not yet) */
		if (unmount_target_resolve(jobs[i].plan->dest_root, &ro, &um.t[i], &r) == 0) {
			um.resolved[i] = true;
			continue;
		}
		refusal_words(jobs[i].dest_arg, &r);
		unmount_refusal_done(&r);
		refused = true;
	}
	return refused;
}

static bool same_fs(size_t a, size_t b)
{
	return um.resolved[a] && um.resolved[b] && um.t[a].n_fs && um.t[b].n_fs &&
	       um.t[a].fs[0].m.mnt_id == um.t[b].fs[0].m.mnt_id;
}

static void busy_words(const struct unmount_busy *b)
{
	cli_error("%s is busy:", quote(b->what));
	for (size_t i = 0; i < b->holders.n; i++)
		fprintf(stderr, "  pid %d (%s): %s\n", (int)b->holders.items[i].pid,
			quote_bare(b->holders.items[i].command), quote_bare(b->holders.items[i].path));
	for (size_t i = 0; i < b->n_submounts; i++)
		fprintf(stderr, "  %s is mounted inside it\n", quote(b->submounts[i]));
	if (b->holders.unreadable)
		holder_words_unreadable(stderr, &b->holders);
}

/* A step that failed, in words; the exit status it means. */
static int step_words(const struct unmount_job *job, const struct unmount_step *s,
		      const char *dest)
{
	const struct poweroff_plan *p = unmount_job_plan(job);

	switch (s->why) {
	case UNMOUNT_WHY_BUSY:
	case UNMOUNT_WHY_MOUNTED_HERE:
		cli_error("%s stays mounted: it is in use; it holds the whole copy, which is on the "
			  "device; run safeunmount when it is free", quote(dest));
		return EXIT_BUSY;
	case UNMOUNT_WHY_NOT_ALLOWED:
		cli_error("cannot %s %s: not allowed: polkit does not grant this user %s; the copy "
			  "is on the device; ask an administrator for a polkit rule, or unmount it "
			  "as root", s->kind == UNMOUNT_STEP_POWER_OFF ? "power off" : "unmount",
			  quote(dest), s->action);
		return EXIT_PARTIAL;
	case UNMOUNT_WHY_MISMATCH:
		if (s->mismatch == UNMOUNT_MISMATCH_STILL_MOUNTED)
			cli_error("udisks unmounted something else: %s is still mounted; do not remove "
				  "the device; the copy is on it; see what is mounted with findmnt, "
				  "and unmount it as root", quote(dest));
		else
			cli_error("refusing to %s %s through udisks: udisks' device is not the one "
				  "%s; the copy is on the device; %s it as root",
				  s->kind == UNMOUNT_STEP_POWER_OFF ? "power off" : "unmount",
				  quote(s->kind == UNMOUNT_STEP_POWER_OFF && p ? p->devnode : dest),
				  s->kind == UNMOUNT_STEP_POWER_OFF ? "that was planned" : "mounted there",
				  s->kind == UNMOUNT_STEP_POWER_OFF ? "power off" : "unmount");
		return EXIT_PARTIAL;
	case UNMOUNT_WHY_CANCELLED:
	case UNMOUNT_WHY_NOT_BEGUN:
		cli_error("interrupted; %s may still be mounted", quote(dest));
		return EXIT_INTERRUPTED;
	default:
		if (s->kind == UNMOUNT_STEP_POWER_OFF)
			cli_error("cannot power off %s: %s; it is unmounted, and the copy is on the "
				  "device", quote(p ? p->devnode : dest), strerror(-s->result));
		else if (s->message) /* it names the mount point, label and all: quoted */
			cli_error("cannot unmount %s: %s (the system says: %s); the copy is on the "
				  "device", quote(dest), strerror(-s->result), quote(s->message));
		else
			cli_error("cannot unmount %s: %s; the copy is on the device", quote(dest),
				  strerror(-s->result));
		return EXIT_PARTIAL;
	}
}

/* SIGINT and SIGTERM are blocked (run_copy): look for them between polls. */
static bool interrupted(void)
{
	sigset_t pending;

	sigpending(&pending);
	return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
	       sigismember(&pending, SIGHUP);
}

static int run_one(const struct safecp_options *o, size_t i, const char *dest)
{
	const struct unmount_job_options jo = { .power_off = o->power_off, .wait_seconds = -1 };
	struct unmount_job *job = NULL;
	int status = EXIT_OK, r;
	bool cancelled = false;

	r = unmount_job_new(&um.t[i], &jo, um.choice.be, &job);
	if (r == 0)
		r = unmount_job_start(job);
	if (r < 0) {
		cli_error("cannot unmount %s: %s", quote(dest), strerror(-r));
		unmount_job_free(job);
		return EXIT_PARTIAL;
	}
	for (;;) {
		struct unmount_event ev;

		if (!cancelled && interrupted()) {
			unmount_job_cancel(job);
			cancelled = true;
		}
		if (unmount_job_poll(job, POLL_MS, &ev) <= 0)
			continue;
		if (ev.kind == UNMOUNT_EVENT_BUSY)
			busy_words(&ev.busy);
		else if (ev.kind == UNMOUNT_EVENT_STEP_END &&
			 ev.outcome.state == UNMOUNT_STEP_FAILED && status == EXIT_OK)
			status = step_words(job, &ev.outcome, dest);
		if (ev.kind == UNMOUNT_EVENT_END) {
			unmount_event_done(&ev);
			break;
		}
		unmount_event_done(&ev);
	}
	if (status == EXIT_OK && o->verbosity != VERBOSITY_QUIET)
		fprintf(stderr, o->power_off ? "%s is unmounted and %s powered off; it can be removed\n"
					     : "%s is unmounted%s; it can be removed\n",
			quote(dest), o->power_off ? quote_bare(um.t[i].disk_node) : "");
	unmount_job_free(job);
	return status;
}

int unmount_dests(const struct safecp_options *o, const struct copy_prepared *jobs, size_t n,
		  const bool *ok)
{
	int status = EXIT_OK;

	for (size_t i = 0; i < n && (o->unmount || o->power_off); i++) {
		bool shared_bad = false, done_before = false;
		int s;

		for (size_t k = 0; k < n; k++) {
			if (k != i && same_fs(i, k) && !ok[k])
				shared_bad = true;
			if (k < i && same_fs(i, k) && ok[k])
				done_before = true;
		}
		if (!ok[i] || shared_bad) {
			cli_error("%s is left mounted: %s", quote(jobs[i].dest_arg),
				  !ok[i] ? "its copy failed or read back different"
					 : "another destination on the same filesystem failed");
			if (status == EXIT_OK)
				status = EXIT_PARTIAL;
			continue;
		}
		if (done_before || !um.resolved[i])
			continue;
		s = run_one(o, i, jobs[i].dest_arg);
		if (s == EXIT_INTERRUPTED || status == EXIT_OK)
			status = s;
		if (s == EXIT_INTERRUPTED)
			break;
	}
	return status;
}

void unmount_dests_done(void)
{
	for (size_t i = 0; i < COPY_DESTS_MAX; i++)
		if (um.resolved[i])
			unmount_target_done(&um.t[i]);
	if (um.choice.be)
		unmount_choice_done(&um.choice);
	memset(&um, 0, sizeof(um));
}
