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

static void report_problem(const struct safecp_options *o, const struct refusal *r,
			   const struct safecp_target_facts *t)
{
	_cleanup_free_ char *msg = words_problem(r, t);

	report_refusal(o, r->name, msg);
}

const struct safecp_target_facts *dest_facts(const struct safecp_options *o, size_t d)
{
	static struct safecp_target_facts facts[SAFECP_DESTINATIONS_MAX];
	static bool filled[SAFECP_DESTINATIONS_MAX];
	const struct safecp_target *t = safecp_copy_target(o->copy, d);

	if (!t)
		return NULL;
	if (!filled[d])
		filled[d] = safecp_target_facts(t, &facts[d], sizeof(facts[d])) == 0;
	return filled[d] ? &facts[d] : NULL;
}

int refusal_get(const struct safecp_options *o, size_t i, struct refusal *ret)
{
	struct safecp_refusal r;
	struct safecp_refusal_detail x;
	int err = safecp_copy_refusal(o->copy, i, &r);

	if (err == 0)
		err = safecp_copy_refusal_detail(o->copy, i, &x, sizeof(x));
	if (err == 0)
		*ret = (struct refusal){ r.kind, r.name, r.dest, r.path, r.path2, r.err, r.need,
					 r.have, x.deferred, x.rule, x.ch, x.exists, x.pack_walk,
					 x.problem, x.line, x.detail };
	return err;
}

/* Preparing stopped on an error that is no refusal: what it was doing. */
static void say_failure(const struct safecp_options *o, int err)
{
	enum safecp_prepare_stage stage = SAFECP_STAGE_SOURCES;
	struct safecp_copy_plan p;
	const char *root, *why = strerror(-err);
	size_t d = 0;

	safecp_copy_prepare_failure(o->copy, &stage, &d);
	root = safecp_copy_plan(o->copy, d, &p, sizeof(p)) == 0 ? p.dest_root : o->dests[d];
	switch (stage) {
	case SAFECP_STAGE_OLD_LISTS:
		cli_error("out of memory");
		return;
	case SAFECP_STAGE_PACK_WALK:
		cli_error("cannot read the sources to pack, from %s on: %s; nothing was written; "
			  "make them readable or leave them out, and pack again",
			  quote(o->sources[0]), why);
		return;
	case SAFECP_STAGE_UNPACK_RULES:
		cli_error("cannot check the archives' entries: %s; nothing was written", why);
		return;
	case SAFECP_STAGE_UNPACK_FEED:
		cli_error("cannot plan the archives' entries: %s; nothing was written", why);
		return;
	case SAFECP_STAGE_SOURCES:
	case SAFECP_STAGE_PLAN:
		cli_error("cannot plan the copy to %s: %s", quote(o->dests[d]), why);
		return;
	case SAFECP_STAGE_EXAMINE:
		cli_error("cannot examine the destination %s: %s", quote(root), why);
		return;
	case SAFECP_STAGE_SPACE:
		cli_error("cannot read the free space of %s: %s", quote(root), why);
		return;
	case SAFECP_STAGE_PLACE:
		cli_error("cannot tell which disk %s is on: %s", quote(o->dests[d]), why);
		return;
	case SAFECP_STAGE_NAMES:
		cli_error("cannot check the names for %s: %s", quote(root), why);
		return;
	case SAFECP_STAGE_IDENTICAL:
		cli_error("cannot compare the files already in %s: %s", quote(root), why);
		return;
	case SAFECP_STAGE_CHECK:
		cli_error("cannot check the plan: %s", why);
		return;
	case SAFECP_STAGE_LISTS:
		cli_error("cannot place the checksum lists or ASC MHL manifests beside the copy: "
			  "%s; nothing was written; check the --sums prefix and the destinations, "
			  "then copy again", why);
		return;
	case SAFECP_STAGE_RESUME:
		cli_error("cannot check what an interrupted copy left in %s: %s; nothing was "
			  "written; copy again, or give --no-resume to copy every file whole",
			  quote(root), why);
		return;
	}
}

/* One refusal that is not deferred, in words, as it was found. */
static void say_refusal(const struct safecp_options *o, const struct refusal *r)
{
	struct safecp_write_plan w = { 0 };
	_cleanup_free_ char *msg = NULL;

	switch (r->kind) {
	case SAFECP_REFUSED_SYSTEM_DISK:
	case SAFECP_REFUSED_NO_DISK:
		place_say(o, r->dest, false, r->name);
		return;
	case SAFECP_REFUSED_STRATEGY:
		safecp_copy_write_plan(o->copy, r->dest, &w, sizeof(w));
		msg = words_sizing_refused(o, dest_facts(o, r->dest), &w);
		report_refusal(o, r->name, msg);
		return;
	case SAFECP_REFUSED_PACK_NAME:
		pack_say(o, r);
		return;
	case SAFECP_REFUSED_ARCHIVE:
	case SAFECP_REFUSED_UNSAFE_ENTRIES:
	case SAFECP_REFUSED_SPOOL:
		unpack_say(o, r);
		return;
	case SAFECP_REFUSED_LIST:
	case SAFECP_REFUSED_LIST_CLASH:
		sums_say(o, r);
		return;
	case SAFECP_REFUSED_HISTORY_OVERLAP:
	case SAFECP_REFUSED_HISTORY:
	case SAFECP_REFUSED_HISTORY_CHAIN:
		mhl_say(o, r);
		return;
	case SAFECP_REFUSED_PRESERVE:
		preserve_say(o, r->dest, (unsigned)r->need, true);
		return;
	default:
		break;
	}
	if (r->pack_walk)
		pack_say(o, r);
	else if (r->kind == SAFECP_REFUSED_SOURCE_CHANGED && !r->path)
		report_refusal(o, r->name,
			       "the source changed while the copy was planned (a file came, went or "
			       "changed between the destinations' plans); run the copy again");
	else
		report_problem(o, r, NULL);
}

static void say_note(const struct safecp_options *o, const struct safecp_note *n)
{
	switch (n->kind) {
	case SAFECP_NOTE_FIXED_DISK:
		place_say(o, n->dest, true, n->name);
		break;
	case SAFECP_NOTE_LEFT_OUT:
		if (strcmp(n->name, "not-packed") == 0)
			pack_note(o, n);
		else
			unpack_note(o);
		break;
	case SAFECP_NOTE_RESUMED:
	case SAFECP_NOTE_PARTIAL_DISCARDED:
		resume_say(o, n);
		break;
	case SAFECP_NOTE_NOT_KEPT:
		preserve_say(o, n->dest, (unsigned)n->count, false);
		break;
	default:
		identical_say(o, n);
		break;
	}
}

/* What preparing found, in order, but for the deferred refusals (names
 * and space: report_refusals(), after a dry run's plan).  True if a
 * refusal was among them. */
static bool say_findings(const struct safecp_options *o)
{
	size_t unsafe_names = 0, index;
	bool refused = false, refuses;
	struct refusal r;
	struct safecp_note n;

	for (size_t i = 0; safecp_copy_finding(o->copy, i, &refuses, &index) == 0; i++) {
		if (!refuses) {
			if (safecp_copy_note(o->copy, index, &n, sizeof(n)) == 0)
				say_note(o, &n);
			continue;
		}
		if (refusal_get(o, index, &r) < 0 || r.deferred)
			continue;
		say_refusal(o, &r);
		unsafe_names += r.kind == SAFECP_REFUSED_PACK_NAME;
		refused = true;
	}
	if (unsafe_names)
		pack_unsafe_end(unsafe_names);
	return refused;
}

/* safecp's choices as the flags of <safecp/copy.h>. */
static unsigned copy_flags(const struct safecp_options *o)
{
	const struct { bool on; unsigned flag; } map[] = {
		{ o->recursive, SAFECP_COPY_RECURSIVE },
		{ o->dereference, SAFECP_COPY_DEREFERENCE },
		{ o->no_dereference, SAFECP_COPY_NO_DEREFERENCE },
		{ o->dereference_operands, SAFECP_COPY_DEREFERENCE_OPERANDS },
		{ o->target_directory, SAFECP_COPY_TARGET_DIRECTORY },
		{ o->no_target_directory, SAFECP_COPY_NO_TARGET_DIRECTORY },
		{ o->no_clobber, SAFECP_COPY_NO_CLOBBER },
		{ o->update, SAFECP_COPY_UPDATE },
		{ o->one_file_system, SAFECP_COPY_ONE_FILE_SYSTEM },
		{ o->parents, SAFECP_COPY_PARENTS },
		{ o->remove_destination, SAFECP_COPY_REMOVE_DESTINATION },
		{ !o->no_resume, SAFECP_COPY_RESUME },
		{ o->keep_times, SAFECP_COPY_KEEP_TIMES },
		{ o->keep_mode, SAFECP_COPY_KEEP_MODE },
		{ o->verify, SAFECP_COPY_VERIFY },
		{ o->verify_source, SAFECP_COPY_VERIFY_SOURCE },
		{ o->rename_invalid, SAFECP_COPY_RENAME_INVALID },
		{ o->system_disk, SAFECP_COPY_SYSTEM_DISK },
		{ o->mhl, SAFECP_COPY_MHL },
		{ o->skip_unsafe, SAFECP_COPY_SKIP_UNSAFE },
		{ o->dry_run, SAFECP_COPY_DRY_RUN },
	};
	unsigned flags = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		flags |= map[i].on ? map[i].flag : 0;
	return flags;
}

/* The options past the flags; 0 or -errno. */
static int copy_options(const struct safecp_options *o, struct safecp_copy *c)
{
	int r = 0;

	if (o->strategy || o->window) {
		r = safecp_copy_set_strategy(c, o->strategy ? o->strategy : "auto", o->window);
		if (r == -EINVAL)
			cli_usage_error("unknown strategy %s: use auto, window, direct or sync-window",
					quote(o->strategy));
	}
	if (r == 0 && o->n_checksums)
		r = safecp_copy_set_checksums(c, o->checksums, o->n_checksums, o->sums_prefix);
	if (r == 0 && o->skip_identical)
		r = safecp_copy_set_skip_identical(c, o->skip_identical);
	if (r == 0 && o->sparse)
		r = safecp_copy_set_sparse(c, o->sparse);
	if (r == 0 && o->pack)
		r = safecp_copy_set_pack(c, o->pack_format);
	if (r == 0 && o->unpack)
		r = safecp_copy_set_unpack(c, NULL);
	return r;
}

/* The copy, with the options that decide what it prepares. */
static int session_new(struct safecp_options *o)
{
	int r = safecp_copy_new(copy_flags(o), &o->copy);

	if (r < 0)
		return r;
	r = copy_options(o, o->copy);
	if (r == 0)
		r = preserve_set(o, o->copy);
	if (r == 0)
		r = replacing_set(o, o->copy);
	for (size_t i = 0; r == 0 && i < o->n_sources; i++)
		r = safecp_copy_add_source(o->copy, o->sources[i]);
	for (size_t i = 0; r == 0 && i < o->n_dests; i++)
		r = o->beneath[i] ? safecp_copy_add_dest_beneath(o->copy, o->dests[i], o->beneath[i])
				  : safecp_copy_add_dest(o->copy, o->dests[i]);
	return r;
}

/* Everything before the first byte: every finding said in words.  0, or
 * EXIT_USAGE when a refusal that is not deferred (or an error) stops the
 * run; the deferred ones are report_refusals()'s. */
static int prepare(struct safecp_options *o)
{
	int r = session_new(o);

	if (r < 0) {
		cli_error("cannot plan the copy: %s", strerror(-r));
		return EXIT_USAGE;
	}
	r = safecp_copy_prepare(o->copy);
	if (say_findings(o))
		return EXIT_USAGE;
	if (r < 0) {
		say_failure(o, r);
		return EXIT_USAGE;
	}
	return 0;
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

/* A refusal of the space check (the others deferred are the names'). */
static bool of_space(const struct refusal *r)
{
	return r->kind == SAFECP_REFUSED_NO_SPACE || r->kind == SAFECP_REFUSED_FILE_TOO_BIG ||
	       r->kind == SAFECP_REFUSED_NO_INODES;
}

static bool is_name(const struct refusal *r)
{
	return r->kind == SAFECP_REFUSED_NAME || r->kind == SAFECP_REFUSED_NAME_RESERVED ||
	       r->kind == SAFECP_REFUSED_NAME_CLASH;
}

/* Destination d's names the filesystem cannot hold: the first few in
 * words (every one as a JSON event), a count of the rest, and a line that
 * says nothing was copied and how to go on.  True if any. */
static bool report_names(const struct safecp_options *o, size_t d)
{
	const struct safecp_target_facts *t = dest_facts(o, d);
	size_t n = 0, names = 0;
	struct refusal r;

	for (size_t i = 0; refusal_get(o, i, &r) == 0; i++) {
		_cleanup_free_ char *msg = NULL;

		if (!r.deferred || r.dest != d || of_space(&r))
			continue;
		msg = words_problem(&r, t);
		names += is_name(&r);
		if (n++ < NAMES_SHOWN) {
			report_refusal(o, r.name, msg);
		} else if ((o->progress == PROGRESS_JSON || o->events_out) && !o->dry_run) {
			struct jsonev j;

			jsonev_init(&j, o->events_out ? o->events_out : stdout, NULL);
			jsonev_refused(&j, r.name, msg);
		}
	}
	if (n > NAMES_SHOWN)
		cli_error("... and %zu more like these (--progress=json lists every one)",
			  n - NAMES_SHOWN);
	if (names) {
		_cleanup_free_ char *msg = words_names_refused(t, o->dests[d], names);

		cli_error("%s", msg ? msg : "nothing was copied");
	}
	return n > 0;
}

/* Every destination's refusals, all of them, so one round of fixes does;
 * true if any. */
static bool report_refusals(const struct safecp_options *o, size_t n_dests)
{
	struct refusal r;
	bool refused = false;

	for (size_t d = 0; d < n_dests; d++) {
		refused = report_names(o, d) || refused;
		for (size_t i = 0; refusal_get(o, i, &r) == 0; i++) {
			_cleanup_free_ char *msg = NULL;

			if (!r.deferred || r.dest != d || !of_space(&r))
				continue;
			refused = true;
			if (r.kind == SAFECP_REFUSED_FILE_TOO_BIG && o->pack) {
				msg = words_pack_too_big(o, &r, dest_facts(o, d));
				report_refusal(o, r.name, msg);
			} else {
				report_problem(o, &r, dest_facts(o, d));
			}
		}
	}
	return refused;
}

/* The destinations prepared (fewer than given when a refusal stopped). */
static size_t n_prepared(const struct safecp_options *o)
{
	struct safecp_copy_plan p;
	size_t n = 0;

	while (o->copy && safecp_copy_plan(o->copy, n, &p, sizeof(p)) == 0)
		n++;
	return n;
}

/* --skip-unsafe left entries of the archives out. */
static bool left_out(const struct safecp_options *o)
{
	struct safecp_note n;

	for (size_t i = 0; safecp_copy_note(o->copy, i, &n, sizeof(n)) == 0; i++)
		if (n.kind == SAFECP_NOTE_LEFT_OUT && strcmp(n.name, "unsafe-left-out") == 0)
			return true;
	return false;
}

int main(int argc, const char **argv)
{
	struct safecp_options o;
	poptContext ctx;
	int status = 0;
	size_t n;

	cli_init("safecp", "Copy files to removable media: bounded dirty memory, progress the "
		 "device confirms,\nand nothing left to write when it ends.");
	ctx = parse_options(argc, argv, &o);
	if (o.check_dir) {
		status = run_check(&(struct check_args){ .dir = o.check_dir, .sums_prefix = o.sums_prefix,
							  .progress = o.progress, .verbosity = o.verbosity });
		poptFreeContext(ctx);
		return status;
	}
	raise_fd_limit();
	/* every destination is checked before the first byte goes to any */
	status = prepare(&o);
	n = n_prepared(&o);
	if (status == 0) {
		bool refused;

		for (size_t i = 0; o.dry_run && i < n; i++)
			dryrun_print(&o, i);
		refused = report_refusals(&o, n);
		if (!refused && !o.dry_run)
			refused = unmount_refusals(&o, n);
		if (refused)
			status = EXIT_USAGE;
		else if (!o.dry_run)
			status = run_copy(&o, n);
	}
	if (status == EXIT_OK && !o.dry_run && o.copy && left_out(&o))
		status = EXIT_PARTIAL; /* --skip-unsafe left entries out */
	unmount_dests_done();
	safecp_copy_free(o.copy);
	for (size_t i = 0; i < raw.n_target_dirs; i++)
		free(raw.target_dirs[i]);
	if (o.events_out && fclose(o.events_out) != 0) {
		cli_error("cannot write the events to %s: %s", quote(raw.events), strerror(errno));
		if (status == EXIT_OK)
			status = EXIT_PARTIAL;
	}
	poptFreeContext(ctx);
	return status;
}
