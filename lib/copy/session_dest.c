/* session_dest.c: one destination of a session planned and checked, in
 * the order a person fixes things: the plan (the cp-style operand rules
 * and the sources), what the destination is and which disk it is on,
 * the names its filesystem cannot hold, what it holds already
 * (--skip-identical), space and file size limits, and how to write.
 * Every refusal is a finding; nothing is written (the O_DIRECT probe's
 * unnamed file only for a run that will write: its inode would reach the
 * device with the next journal commit). */
#include <errno.h>

#include "copy/meta_attrs.h"
#include "copy/plan_given.h"
#include "copy/session_internal.h"
#include "device/fs_traits.h"

/* Destination i's plan: the first walks the sources (or takes the pack's
 * walk, or the archives' entries), the others share its tree. */
static int plan_dest(struct copy_session *s, size_t i)
{
	struct copy_prepared *d = &s->prep[i];
	const struct plan *first = i ? s->prep[0].plan : NULL;
	const char *const *src = (const char *const *)s->sources;
	struct plan_problem *pb = &s->plan_problem[i];
	struct plan_options po = s->o.plan;
	const struct source_found *entries;
	size_t n;

	po.beneath = s->beneath[i];
	po.keep_owners = s->o.keep_owners;
	switch (s->o.mode) {
	case COPY_MODE_PACK:
		return pack_plan_build(s->pack_tree, src[0], s->o.pack_format, s->dirs[i], &po,
				       first, &d->plan, pb);
	case COPY_MODE_UNPACK:
		if (first)
			return plan_build_given_beside(first, s->dirs[i], &po, &d->plan, pb);
		entries = unpack_feed_entries(s->unpack_feed, &n);
		return plan_build_given(entries, n, s->dirs[i], &po, &d->plan, pb);
	case COPY_MODE_COPY:
		break;
	}
	return first ? plan_build_beside(first, src, s->n_sources, s->dirs[i], &po, &d->plan, pb)
		     : plan_build(src, s->n_sources, s->dirs[i], &po, &d->plan, pb);
}

/* On the system's disk or on none: refused (1) unless meant; on a fixed
 * disk: a note. */
static int place_check(struct copy_session *s, size_t i)
{
	const struct target_placement *p = &s->prep[i].place;
	bool wrong = p->place == TARGET_SYSTEM || p->place == TARGET_NO_DISK;
	int r;

	if (wrong && !s->o.system_disk) {
		r = session_find(s, &(struct copy_finding){
			.kind = p->place == TARGET_SYSTEM ? COPY_REFUSED_SYSTEM_DISK : COPY_REFUSED_NO_DISK,
			.dest = i, .place = *p }, NULL);
		return r < 0 ? r : 1;
	}
	if (p->place == TARGET_FIXED)
		return session_find(s, &(struct copy_finding){ .kind = COPY_NOTE_FIXED_DISK,
							       .dest = i, .place = *p }, NULL);
	return 0;
}

/* What --preserve asks that the filesystem cannot hold (issue 29): an
 * attribute named explicitly is refused, naming it and the filesystem;
 * -p and all keep what it can, said in one note for the run (GNU cp
 * complains per file and fails).  Only a plain copy: an archive keeps
 * its entries' own. */
static int meta_check(struct copy_session *s, size_t i)
{
	struct copy_prepared *d = &s->prep[i];
	unsigned asked = (s->o.keep_mode ? META_MODE : 0) | (s->o.keep_owners ? META_OWNERSHIP : 0) |
			 (s->o.keep_xattrs ? META_XATTR : 0) |
			 (s->o.plan.keep_links ? META_LINKS : 0);
	unsigned required = s->o.meta_required & asked, refused;
	int r;

	if (s->o.mode == COPY_MODE_PACK)
		return 0;
	d->meta_lost = meta_attrs_lost(fs_traits_of(d->target), asked);
	/* an ACL comes with the mode: refused with it, else noted */
	refused = d->meta_lost & (required | ((required & META_MODE) ? META_ACL : 0));
	if (refused) {
		r = session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_PRESERVE,
							    .dest = i, .attrs = refused }, NULL);
		return r < 0 ? r : 1;
	}
	if (!d->meta_lost)
		return 0;
	return session_find(s, &(struct copy_finding){ .kind = COPY_NOTE_META_LOST, .dest = i,
						       .attrs = d->meta_lost }, NULL);
}

static int refuse_deferred(struct copy_session *s, size_t i, const struct plan_problem *p)
{
	return session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_PLAN, .dest = i,
						       .deferred = true, .problem = p }, NULL);
}

static int names_check(struct copy_session *s, size_t i)
{
	struct copy_prepared *d = &s->prep[i];
	/* the count of problems, or -ENOMEM */
	int r = plan_names_check(d->plan, fs_traits_of(d->target)->names, s->o.rename_invalid,
				 &d->names);

	if (r < 0)
		return r;
	r = 0;
	for (size_t k = 0; r == 0 && k < d->names.n_problems; k++)
		r = refuse_deferred(s, i, &d->names.problems[k]);
	return r;
}

/* --skip-identical: its notes (a history not used, a file judged the same
 * that read back different) come before an error, as they were found. */
static int identical_judge(struct copy_session *s, size_t i, int *err)
{
	struct copy_prepared *d = &s->prep[i];
	struct judge_result *res = &s->judged[i];
	int r = 0;

	*err = judge_dest(d->plan, d->target, &(struct judge_options){
		.mode = s->o.skip_identical,
		.manifest_algs = session_manifest_algs(s),
		.verify = s->o.verify,
		.old_lists = s->old_lists,
		.old_lists_count = s->n_dests == 1 || s->old_lists_dev == d->plan->dest_dir_dev,
	}, res);
	d->identical_mhl = res->mhl;
	d->identical_rec = res->mhl_recorded;
	if (res->note != JUDGE_NOTE_NONE)
		r = session_find(s, &(struct copy_finding){ .kind = COPY_NOTE_HISTORY, .dest = i,
							    .judge = res }, NULL);
	for (size_t k = 0; r == 0 && k < d->plan->n_entries; k++)
		if (d->plan->entries[k].read_back_differs)
			r = session_find(s, &(struct copy_finding){
				.kind = COPY_NOTE_READ_BACK_DIFFERS, .dest = i, .entry = k }, NULL);
	return r;
}

/* --preserve=links: which names become links here (after the identical
 * files are judged: a leader left alone is not written); a filesystem
 * without hard links copies them all (meta_check()'s one note says so,
 * or refuses a links named explicitly). */
static int links_here(struct copy_session *s, size_t i)
{
	struct copy_prepared *d = &s->prep[i];

	plan_links_here(d->plan, fs_traits_of(d->target)->hard_links);
	return 0;
}

/* Space and file size limits (deferred), then how to write. */
static int space_and_strategy(struct copy_session *s, size_t i, enum copy_prepare_stage *stage)
{
	struct copy_prepared *d = &s->prep[i];
	int r;

	*stage = COPY_STAGE_CHECK;
	d->space_needed = plan_space_needed(d->plan, &d->space);
	r = plan_check(d->plan, &d->space, d->space_needed, &d->refusal); /* the kind, or -ENOMEM */
	if (r > 0)
		r = refuse_deferred(s, i, &d->refusal);
	if (r < 0)
		return r;
	/* the probe's unnamed inode only for a run that may write: names and
	 * space refused (deferred) still probe, so a strategy that cannot
	 * work is said in the same round */
	dio_caps_of_dest(d->plan->dest_root, s->o.dry_run || s->n_refusals > s->n_deferred,
			 &d->dio);
	if (sizing_plan(d->target, &d->dio, s->o.strategy, s->o.window, &d->wplan) == 0)
		return 0;
	r = session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_STRATEGY, .dest = i,
						    .reason = d->wplan.reason }, NULL);
	return r < 0 ? r : 1;
}

int session_prepare_dest(struct copy_session *s, size_t i, enum copy_prepare_stage *stage)
{
	struct copy_prepared *d = &s->prep[i];
	const char *root;
	int r, err;

	d->dest_arg = s->dirs[i];
	*stage = COPY_STAGE_PLAN;
	r = plan_dest(s, i);
	if (s->plan_problem[i].kind != PLAN_OK) { /* a refusal may come with -errno too */
		r = session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_PLAN, .dest = i,
							    .problem = &s->plan_problem[i] }, NULL);
		return r < 0 ? r : 1;
	}
	if (r < 0 || !d->plan)
		return r < 0 ? r : -EINVAL;
	root = d->plan->dest_root;
	*stage = COPY_STAGE_EXAMINE;
	if ((r = target_probe(root, &d->target)) < 0)
		return r;
	plan_set_holes(d->plan, fs_traits_of(d->target)->holes);
	*stage = COPY_STAGE_SPACE;
	if ((r = fs_space_read(root, fs_traits_of(d->target), &d->space)) < 0)
		return r;
	*stage = COPY_STAGE_PLACE;
	if ((r = target_place(d->target, &d->place)) < 0 || (r = place_check(s, i)) != 0)
		return r;
	if ((r = meta_check(s, i)) != 0)
		return r;
	*stage = COPY_STAGE_NAMES;
	if ((r = names_check(s, i)) < 0)
		return r;
	*stage = COPY_STAGE_IDENTICAL;
	if ((r = identical_judge(s, i, &err)) < 0)
		return r;
	if (err < 0)
		return err;
	if (s->o.plan.update) /* -u: as the destination keeps times */
		plan_keep_newer(d->plan, fs_traits_of(d->target)->mtime_step_ns);
	if (s->o.ask_replace && (r = plan_ask_replace(d->plan, s->o.ask_replace, s->o.ask_data)) < 0)
		return r;
	if (s->o.plan.keep_links && (r = links_here(s, i)) < 0)
		return r;
	return space_and_strategy(s, i, stage);
}
