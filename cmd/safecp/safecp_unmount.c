/* safecp_unmount.c: --unmount and --power-off, after the copy: each
 * destination whose copy succeeded is unmounted (and its disk powered
 * off) through the library's unmount job (<safecp/unmount.h>), the one
 * safeunmount runs, with the kernel backend as root and udisks2 otherwise
 * (common/unmount_choice.h).
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

#include <safecp/unmount.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/holder_words.h"
#include "common/quote.h"
#include "common/unmount_choice.h"
#include "safecp/tool.h"

#define POLL_MS 100

static struct {
	struct safecp_unmount_backend *backend;
	struct safecp_unmount *job[SAFECP_DESTINATIONS_MAX]; /* each destination's, resolved */
} um;

static const char *nz(const char *s)
{
	return s ? s : "?";
}

/* The refusal in words; safeunmount(8) has the long forms. */
static void refusal_words(const char *dest, const struct safecp_unmount_refusal *r)
{
	switch (r->kind) {
	case SAFECP_UNMOUNT_REFUSED_ROOT_FS:
	case SAFECP_UNMOUNT_REFUSED_ON_ROOT_FS:
		cli_error("cannot unmount %s: it is on the root filesystem; leave out --unmount "
			  "and --power-off", quote(dest));
		break;
	case SAFECP_UNMOUNT_REFUSED_ROOT:
	case SAFECP_UNMOUNT_REFUSED_SYSTEM:
	case SAFECP_UNMOUNT_REFUSED_ROOT_DISK:
	case SAFECP_UNMOUNT_REFUSED_SWAP_DISK:
		cli_error("refusing to unmount %s (%s): it is a system mount; leave out --unmount "
			  "and --power-off", quote(nz(r->what)), quote(dest));
		break;
	case SAFECP_UNMOUNT_REFUSED_NOT_PERMITTED:
		cli_error("cannot unmount %s: only root, or the user who mounted it, may do that "
			  "(and there is no udisks2 to ask)", quote(nz(r->what)));
		break;
	case SAFECP_UNMOUNT_REFUSED_NO_DRIVE:
		cli_error("refusing to power off %s: udisks cannot power it off (it is neither a "
			  "loop device nor a drive with CanPowerOff, which USB drives have); use "
			  "--unmount instead", quote(nz(r->what)));
		break;
	case SAFECP_UNMOUNT_REFUSED_FIXED_DISK:
	case SAFECP_UNMOUNT_REFUSED_INTERNAL_READER:
	case SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT:
	case SAFECP_UNMOUNT_REFUSED_POWER_OFF_ROOT_WITH:
	case SAFECP_UNMOUNT_REFUSED_NO_BLOCK_DEVICE:
		cli_error("refusing to power off the disk of %s: it is not a disk one unplugs "
			  "(see safeunmount --power-off); use --unmount instead", quote(dest));
		break;
	case SAFECP_UNMOUNT_REFUSED_NOT_ROOT:
		cli_error("cannot power off the disk of %s: only root may do that (and there is no "
			  "udisks2 to ask); use --unmount instead", quote(dest));
		break;
	case SAFECP_UNMOUNT_REFUSED_OTHER_MOUNTED:
	case SAFECP_UNMOUNT_REFUSED_HELD:
	case SAFECP_UNMOUNT_REFUSED_POWER_OFF_SWAP:
		cli_error("cannot power off %s: %s is in use (%s); use --unmount instead",
			  quote(nz(r->what)), quote(nz(r->other)), quote(nz(r->where)));
		break;
	default:
		cli_error("cannot unmount %s after the copy: %s", quote(dest),
			  r->err ? strerror(-r->err) : "it cannot be resolved to a mount");
		break;
	}
}

/* Destination i's job, resolved: 0, 1 refused (said), or -errno (said). */
static int resolve(const struct safecp_options *o, const char *root, const char *dest,
		   struct safecp_unmount **ret)
{
	struct safecp_unmount_refusal r;
	int e;

	*ret = NULL;
	e = safecp_unmount_new(root, o->power_off ? SAFECP_UNMOUNT_POWER_OFF : 0, um.backend, ret);
	if (e == 0)
		e = safecp_unmount_prepare(*ret);
	if (e == 1 && safecp_unmount_refusal(*ret, &r) == 0)
		refusal_words(dest, &r);
	else if (e < 0)
		cli_error("cannot unmount %s after the copy: %s", quote(dest), strerror(-e));
	if (e != 0) {
		safecp_unmount_free(*ret);
		*ret = NULL;
	}
	return e;
}

bool unmount_refusals(const struct safecp_options *o, size_t n)
{
	bool refused = false;

	if (!o->unmount && !o->power_off)
		return false;
	um.backend = unmount_choice_make(false);
	unmount_choice_note(um.backend);
	for (size_t i = 0; i < n; i++) {
		/* the destination's root, which exists (DEST as a file may not yet) */
		struct safecp_copy_plan p;

		if (safecp_copy_plan(o->copy, i, &p, sizeof(p)) < 0 ||
		    resolve(o, p.dest_root, o->dests[i], &um.job[i]) != 0)
			refused = true;
	}
	return refused;
}

/* The mount a destination's job unmounts first. */
static int mount_id(size_t i)
{
	struct safecp_unmount_fs fs;

	return um.job[i] && safecp_unmount_fs(um.job[i], 0, &fs) == 0 ? fs.mount_id : -1;
}

static bool same_fs(size_t a, size_t b)
{
	return mount_id(a) >= 0 && mount_id(a) == mount_id(b);
}

static void busy_words(const struct safecp_unmount_busy *b)
{
	cli_error("%s is busy:", quote(b->what));
	for (size_t i = 0; i < b->n_holders; i++)
		fprintf(stderr, "  pid %d (%s): %s\n", b->holders[i].pid,
			quote_bare(b->holders[i].command), quote_bare(b->holders[i].path));
	for (size_t i = 0; i < b->n_submounts; i++)
		fprintf(stderr, "  %s is mounted inside it\n", quote(b->submounts[i]));
	if (b->unreadable)
		holder_words_unreadable(stderr, b);
}

/* A step that failed, in words; the exit status it means. */
static int step_words(const struct safecp_unmount *job, const struct safecp_unmount_step *s,
		      const char *dest)
{
	struct safecp_power_off plan;
	const struct safecp_power_off *p = safecp_unmount_power_off(job, &plan) == 0 ? &plan : NULL;
	const bool power_off = s->kind == SAFECP_UNMOUNT_STEP_POWER_OFF;

	switch (s->why) {
	case SAFECP_UNMOUNT_WHY_BUSY:
	case SAFECP_UNMOUNT_WHY_MOUNTED_HERE:
		cli_error("%s stays mounted: it is in use; it holds the whole copy, which is on the "
			  "device; run safeunmount when it is free", quote(dest));
		return EXIT_BUSY;
	case SAFECP_UNMOUNT_WHY_NOT_ALLOWED:
		cli_error("cannot %s %s: not allowed: polkit does not grant this user %s; the copy "
			  "is on the device; ask an administrator for a polkit rule, or unmount it "
			  "as root", power_off ? "power off" : "unmount",
			  quote(dest), s->action);
		return EXIT_PARTIAL;
	case SAFECP_UNMOUNT_WHY_MISMATCH:
		if (s->mismatch == SAFECP_UNMOUNT_MISMATCH_STILL_MOUNTED)
			cli_error("udisks unmounted something else: %s is still mounted; do not remove "
				  "the device; the copy is on it; see what is mounted with findmnt, "
				  "and unmount it as root", quote(dest));
		else
			cli_error("refusing to %s %s through udisks: udisks' device is not the one "
				  "%s; the copy is on the device; %s it as root",
				  power_off ? "power off" : "unmount",
				  quote(power_off && p ? p->devnode : dest),
				  power_off ? "that was planned" : "mounted there",
				  power_off ? "power off" : "unmount");
		return EXIT_PARTIAL;
	case SAFECP_UNMOUNT_WHY_CANCELLED:
	case SAFECP_UNMOUNT_WHY_NOT_BEGUN:
		cli_error("interrupted; %s may still be mounted", quote(dest));
		return EXIT_INTERRUPTED;
	default:
		if (power_off)
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
	struct safecp_unmount *job = um.job[i];
	struct safecp_unmount_target t;
	int status = EXIT_OK, r;
	bool cancelled = false;

	r = safecp_unmount_start(job);
	if (r < 0) {
		cli_error("cannot unmount %s: %s", quote(dest), strerror(-r));
		return EXIT_PARTIAL;
	}
	for (;;) {
		struct safecp_unmount_event ev;

		if (!cancelled && interrupted()) {
			safecp_unmount_cancel(job);
			cancelled = true;
		}
		if (safecp_unmount_poll(job, POLL_MS, &ev) <= 0)
			continue;
		if (ev.kind == SAFECP_UNMOUNT_EVENT_BUSY)
			busy_words(&ev.busy);
		else if (ev.kind == SAFECP_UNMOUNT_EVENT_STEP_END &&
			 ev.outcome.state == SAFECP_UNMOUNT_STEP_FAILED && status == EXIT_OK)
			status = step_words(job, &ev.outcome, dest);
		if (ev.kind == SAFECP_UNMOUNT_EVENT_END)
			break;
	}
	safecp_unmount_target(job, &t);
	if (status == EXIT_OK && o->verbosity != VERBOSITY_QUIET)
		fprintf(stderr, o->power_off ? "%s is unmounted and %s powered off; it can be removed\n"
					     : "%s is unmounted%s; it can be removed\n",
			quote(dest), o->power_off ? quote_bare(t.disk ? t.disk : "") : "");
	return status;
}

int unmount_dests(const struct safecp_options *o, size_t n,
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
			cli_error("%s is left mounted: %s", quote(o->dests[i]),
				  !ok[i] ? "its copy failed or read back different"
					 : "another destination on the same filesystem failed");
			if (status == EXIT_OK)
				status = EXIT_PARTIAL;
			continue;
		}
		if (done_before || !um.job[i])
			continue;
		s = run_one(o, i, o->dests[i]);
		if (s == EXIT_INTERRUPTED || status == EXIT_OK)
			status = s;
		if (s == EXIT_INTERRUPTED)
			break;
	}
	return status;
}

void unmount_dests_done(void)
{
	for (size_t i = 0; i < SAFECP_DESTINATIONS_MAX; i++)
		safecp_unmount_free(um.job[i]);
	safecp_unmount_backend_free(um.backend);
	memset(&um, 0, sizeof(um));
}
