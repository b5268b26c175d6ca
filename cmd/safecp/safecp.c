/* safecp.c: the safecp command: the checks made before the first byte,
 * and the exit status (its options: safecp_options.c).
 *
 * main() parses one popt table, then prepares the job: plan_build (the
 * cp-style operand rules and the source checks), target_probe (what the
 * destination is), fs_space_read and plan_check (space, file size
 * limits), plan_names_check (the destination's name rules, all problems
 * at once; --rename-invalid renames instead), statx(STATX_DIOALIGN) and
 * sizing_plan (how to write).  Every
 * refusal happens here, before any file is opened for writing, and exits
 * EXIT_USAGE.  --dry-run prints the prepared job (safecp_dryrun.c);
 * otherwise safecp_run.c runs it and chooses the status. */
#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/cleanup.h"
#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "safecp/safecp_check.h"
#include "safecp/safecp_options.h"

/* name refusals printed in words before "... and N more" */
#define NAMES_SHOWN 10

/* One refusal, in words on stderr and, for scripts, as a JSON event. */
void report_refusal(const struct safecp_options *o, const char *kind, const char *msg)
{
	cli_error("%s", msg ? msg : "cannot copy: out of memory");
	if ((o->progress == PROGRESS_JSON || o->events_out) && !o->dry_run) {
		struct jsonev j;

		jsonev_init(&j, o->events_out ? o->events_out : stdout, NULL);
		jsonev_refused(&j, kind, msg);
	}
}

static void report_problem(const struct safecp_options *o, const struct plan_problem *p,
			   const struct target *t)
{
	_cleanup_free_ char *msg = words_problem(p, t);

	report_refusal(o, plan_problem_kind_name(p->kind), msg);
}

/* The destination's facts; 0 or EXIT_USAGE after saying why. */
static int probe_destination(const struct safecp_options *o, struct safecp_job *job)
{
	const char *root = job->plan->dest_root;
	int r;

	r = target_probe(root, &job->target);
	if (r < 0) {
		cli_error("cannot examine the destination %s: %s", quote(root), strerror(-r));
		return EXIT_USAGE;
	}
	r = fs_space_read(root, fs_traits_of(job->target), &job->space);
	if (r < 0) {
		cli_error("cannot read the free space of %s: %s", quote(root), strerror(-r));
		return EXIT_USAGE;
	}
	return 0;
}

/* The destination's name rules; the problems are kept in job->names for
 * main() to report, after --dry-run's plan.  0 or EXIT_USAGE. */
static int check_names(const struct safecp_options *o, struct safecp_job *job)
{
	const struct target *t = job->target;
	enum name_fs fs = fs_traits_of(t)->names;
	int r = plan_names_check(job->plan, fs, o->rename_invalid, &job->names);

	if (r < 0) {
		cli_error("cannot check the names for %s: %s", quote(job->plan->dest_root),
			  strerror(-r));
		return EXIT_USAGE;
	}
	return 0;
}

/* Everything before the first byte.  0, or EXIT_USAGE after saying why.
 * A plan_check refusal is kept in job->refusal, not reported, so that
 * --dry-run can show the plan it refuses. */
static int job_prepare(const struct safecp_options *o, size_t n, const struct plan *tree,
		       struct safecp_job *job)
{
	struct plan_problem pb = { 0 };
	struct safecp_options od = *o; /* with this destination's --beneath */
	const char *dest = o->dests[n];
	int r;

	od.plan.beneath = o->beneath[n];
	job->dest_arg = dest;
	/* the first destination walks the sources; the others take its tree */
	if (o->pack)
		r = pack_plan(&od, dest, tree, &job->plan, &pb);
	else if (o->unpack)
		r = unpack_plan(&od, dest, tree, &job->plan, &pb);
	else if (tree)
		r = plan_build_beside(tree, o->sources, o->n_sources, dest, &od.plan, &job->plan, &pb);
	else
		r = plan_build(o->sources, o->n_sources, dest, &od.plan, &job->plan, &pb);
	if (r < 0 || pb.kind != PLAN_OK || !job->plan) {
		if (pb.kind != PLAN_OK)
			report_problem(o, &pb, NULL);
		else
			cli_error("cannot plan the copy to %s: %s", quote(dest),
				  strerror(r < 0 ? -r : EINVAL));
		plan_problem_done(&pb);
		return EXIT_USAGE;
	}
	r = probe_destination(o, job);
	if (r)
		return r;
	r = place_check(o, job);
	if (r)
		return r;
	r = check_names(o, job);
	if (r)
		return r;
	r = identical_judge(o, job);
	if (r)
		return r;
	job->space_needed = plan_space_needed(job->plan, &job->space);
	r = plan_check(job->plan, &job->space, &job->refusal);
	if (r < 0) {
		cli_error("cannot check the plan: %s", strerror(-r));
		return EXIT_USAGE;
	}
	/* a run that is refused, or writes nothing, leaves no trace either:
	 * not even the probe's unnamed file, whose inode the journal would
	 * write (copy/session.c asks the same way) */
	dio_caps_of_dest(job->plan->dest_root,
			 o->dry_run || job->refusal.kind != PLAN_OK || job->names.n_problems,
			 &job->dio);
	r = sizing_plan(job->target, &job->dio, o->strategy, o->window, &job->wplan);
	if (r < 0) {
		_cleanup_free_ char *msg = words_sizing_refused(o, job->target, &job->wplan);

		report_refusal(o, "strategy-unsupported", msg);
		return EXIT_USAGE;
	}
	return 0;
}

static void job_done(struct safecp_job *job)
{
	mhl_record_free(job->identical_mhl);
	plan_names_done(&job->names);
	plan_problem_done(&job->refusal);
	target_free(job->target);
	plan_free(job->plan);
}

/* A wide tree holds a file open per batch item until its commit: use
 * what the hard limit allows (the engine sizes its batches to whatever
 * limit it finds, so this only makes batches larger). */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Several destinations: they share the first's source tree, and each
 * looked at the operands again; they must have found them as the tree
 * has them, or one reader cannot serve them all. */
static int check_same_source(const struct safecp_options *o, struct safecp_job *jobs, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (!plan_same_source(jobs[0].plan, jobs[i].plan)) {
			report_refusal(o, "source-changed",
				       "the source changed while the copy was planned (a file came, "
				       "went or changed between the destinations' plans); run the "
				       "copy again");
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* A destination's names the filesystem cannot hold: the first few in
 * words (every one as a JSON event), a count of the rest, and a line that
 * says nothing was copied and how to go on. */
static void report_names(const struct safecp_options *o, const struct safecp_job *job)
{
	size_t n = job->names.n_problems, names = 0;

	for (size_t i = 0; i < n; i++) {
		const struct plan_problem *p = &job->names.problems[i];
		_cleanup_free_ char *msg = words_problem(p, job->target);

		names += p->kind == PLAN_NAME_INVALID || p->kind == PLAN_NAME_RESERVED ||
			 p->kind == PLAN_NAME_CLASH;
		if (i < NAMES_SHOWN) {
			report_refusal(o, plan_problem_kind_name(p->kind), msg);
		} else if ((o->progress == PROGRESS_JSON || o->events_out) && !o->dry_run) {
			struct jsonev j;

			jsonev_init(&j, o->events_out ? o->events_out : stdout, NULL);
			jsonev_refused(&j, plan_problem_kind_name(p->kind), msg);
		}
	}
	if (n > NAMES_SHOWN)
		cli_error("... and %zu more like these (--progress=json lists every one)",
			  n - NAMES_SHOWN);
	if (names) {
		_cleanup_free_ char *msg = words_names_refused(job->target, job->dest_arg, names);

		cli_error("%s", msg ? msg : "nothing was copied");
	}
}

/* Every destination's refusals, all of them, so one round of fixes does;
 * true if any. */
static bool report_refusals(const struct safecp_options *o, struct safecp_job *jobs, size_t n)
{
	bool refused = false;

	for (size_t d = 0; d < n; d++) {
		struct safecp_job *job = &jobs[d];

		report_names(o, job);
		if (job->refusal.kind == PLAN_FILE_TOO_BIG && o->pack) {
			_cleanup_free_ char *msg = words_pack_too_big(o, &job->refusal, job->target);

			report_refusal(o, plan_problem_kind_name(job->refusal.kind), msg);
		} else if (job->refusal.kind != PLAN_OK) {
			report_problem(o, &job->refusal, job->target);
		}
		refused = refused || job->refusal.kind != PLAN_OK || job->names.n_problems;
	}
	return refused;
}

int main(int argc, const char **argv)
{
	struct safecp_options o;
	struct safecp_job jobs[COPY_DESTS_MAX] = { 0 };
	poptContext ctx;
	int status = 0;
	size_t n = 0;

	cli_init("safecp", "Copy files to removable media: bounded dirty memory, progress the "
		 "device confirms,\nand nothing left to write when it ends.");
	ctx = parse_options(argc, argv, &o);
	if (o.check_dir) {
		status = run_check(&(struct check_args){ .dir = o.check_dir, .sums_prefix = o.sums_prefix,
							  .progress = o.progress, .verbosity = o.verbosity });
		poptFreeContext(ctx);
		return status;
	}
	identical_load_lists(&o);
	raise_fd_limit();
	if (o.pack)
		status = pack_prepare(&o);
	else if (o.unpack)
		status = unpack_prepare(&o);
	/* every destination is checked before the first byte goes to any */
	for (; n < o.n_dests && status == 0; n++)
		status = job_prepare(&o, n, n ? jobs[0].plan : NULL, &jobs[n]);
	if (status == 0)
		status = check_same_source(&o, jobs, n);
	if (status == 0) {
		bool refused;

		for (size_t i = 0; o.dry_run && i < n; i++)
			dryrun_print(&o, &jobs[i]);
		struct sums *sums = NULL;
		struct manifests *mhl = NULL;

		refused = report_refusals(&o, jobs, n);
		if (!refused && !o.dry_run)
			refused = unmount_refusals(&o, jobs, n);
		if (refused) {
			status = EXIT_USAGE;
		} else if (!o.dry_run) {
			if (o.pack && pack_start(&o) < 0) {
				status = EXIT_PARTIAL;
			} else if (sums_prepare(&o, jobs, n, &sums) < 0 ||
			    manifests_prepare(&o, jobs, n, &mhl) < 0) {
				cli_error("out of memory");
				status = EXIT_PARTIAL;
			} else {
				sums_ignore_in(sums, mhl);
				status = run_copy(&o, jobs, n, sums, mhl);
			}
		}
		manifests_free(mhl);
		sums_free(sums);
	}
	if (status == EXIT_OK && !o.dry_run && unpack_skipped())
		status = EXIT_PARTIAL; /* --skip-unsafe left entries out */
	unmount_dests_done();
	for (size_t i = 0; i < n; i++)
		job_done(&jobs[i]);
	pack_free(&o);
	unpack_done();
	for (size_t i = 0; i < raw.n_target_dirs; i++)
		free(raw.target_dirs[i]);
	sums_index_free(o.old_lists);
	if (o.events_out && fclose(o.events_out) != 0) {
		cli_error("cannot write the events to %s: %s", quote(raw.events), strerror(errno));
		if (status == EXIT_OK)
			status = EXIT_PARTIAL;
	}
	poptFreeContext(ctx);
	return status;
}
