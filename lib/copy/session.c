/* session.c: see session.h.  Preparation is the same sequence the safecp
 * command runs (plan, the destination's facts, the disk it is on, names,
 * space, strategy), each refusal kept rather than stopping at the first. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "copy/plan_names.h"
#include "copy/session.h"
#include "device/fs_traits.h"
#include "base/grow.h"

struct session_dest {
	char *dir;
	char *beneath;
	struct plan *plan;
	struct plan_problem plan_problem; /* plan_build()'s refusal */
	struct target *target;
	struct target_placement place;
	struct fs_space space;
	struct dio_caps dio;
	struct write_plan wplan;
	struct plan_problem check;        /* plan_check()'s refusal */
	struct plan_names names;
};

struct copy_session {
	struct copy_session_options o;
	char **sources;
	size_t n_sources, cap_sources;
	struct session_dest dests[COPY_DESTS_MAX];
	size_t n_dests;
	struct copy_refusal *refusals;
	size_t n_refusals, cap_refusals;
	bool prepared;
	bool ready;         /* prepare() returned 0: everything was checked */
	struct copy_dest job_dests[COPY_DESTS_MAX];
	struct copy_job *job;
};

int copy_session_new(const struct copy_session_options *o, struct copy_session **ret)
{
	struct copy_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->o = *o;
	*ret = s;
	return 0;
}

int copy_session_add_source(struct copy_session *s, const char *path)
{
	char *own;

	if (s->prepared)
		return -EBUSY;
	if (GROW(s->sources, s->cap_sources, s->n_sources + 1, 8) < 0 || !(own = strdup(path)))
		return -ENOMEM;
	s->sources[s->n_sources++] = own;
	return 0;
}

int copy_session_add_dest(struct copy_session *s, const char *dir, const char *beneath)
{
	struct session_dest *d = &s->dests[s->n_dests];

	if (s->prepared)
		return -EBUSY;
	if (s->n_dests == COPY_DESTS_MAX)
		return -E2BIG;
	d->dir = strdup(dir);
	d->beneath = beneath ? strdup(beneath) : NULL;
	if (!d->dir || (beneath && !d->beneath)) {
		free(d->dir);
		free(d->beneath);
		*d = (struct session_dest){ 0 };
		return -ENOMEM;
	}
	s->n_dests++;
	return 0;
}

static int refuse(struct copy_session *s, const struct copy_refusal *r)
{
	if (GROW(s->refusals, s->cap_refusals, s->n_refusals + 1, 4) < 0)
		return -ENOMEM;
	s->refusals[s->n_refusals++] = *r;
	return 0;
}

static int refuse_problem(struct copy_session *s, size_t i, const struct plan_problem *p)
{
	return refuse(s, &(struct copy_refusal){ .dest = i, .kind = COPY_REFUSED_PLAN, .problem = p });
}

/* Destination i's plan: the first walks the sources, the others share
 * its tree.  1: refused (kept), 0, or -errno. */
static int plan_dest(struct copy_session *s, size_t i)
{
	struct session_dest *d = &s->dests[i];
	struct plan_options po = s->o.plan;
	const char *const *src = (const char *const *)s->sources;
	int r;

	po.beneath = d->beneath;
	r = i ? plan_build_beside(s->dests[0].plan, src, s->n_sources, d->dir, &po, &d->plan,
				  &d->plan_problem)
	      : plan_build(src, s->n_sources, d->dir, &po, &d->plan, &d->plan_problem);
	/* a refusal may come with -errno too */
	if (d->plan_problem.kind != PLAN_OK) {
		r = refuse_problem(s, i, &d->plan_problem);
		return r < 0 ? r : 1;
	}
	return r < 0 ? r : d->plan ? 0 : -EINVAL;
}

/* The destination's filesystem and disk. 0, or -errno. */
static int probe_dest(struct copy_session *s, size_t i)
{
	struct session_dest *d = &s->dests[i];
	const char *root = d->plan->dest_root;
	int r = target_probe(root, &d->target);

	if (r == 0)
		r = fs_space_read(root, fs_traits_of(d->target), &d->space);
	if (r == 0)
		r = target_place(d->target, &d->place);
	if (r < 0)
		return r;
	if (s->o.system_disk ||
	    (d->place.place != TARGET_SYSTEM && d->place.place != TARGET_NO_DISK))
		return 0;
	return refuse(s, &(struct copy_refusal){
		.dest = i,
		.kind = d->place.place == TARGET_SYSTEM ? COPY_REFUSED_SYSTEM_DISK
							: COPY_REFUSED_NO_DISK,
		.place = d->place,
	});
}

/* Names, space and strategy: every refusal kept.  0, or -errno. */
static int check_dest(struct copy_session *s, size_t i)
{
	struct session_dest *d = &s->dests[i];
	int r = plan_names_check(d->plan, fs_traits_of(d->target)->names, s->o.rename_invalid,
				 &d->names);

	for (size_t k = 0; r == 0 && k < d->names.n_problems; k++)
		r = refuse_problem(s, i, &d->names.problems[k]);
	if (r == 0)
		r = plan_check(d->plan, &d->space, &d->check);
	if (r == 0 && d->check.kind != PLAN_OK)
		r = refuse_problem(s, i, &d->check);
	if (r < 0)
		return r;
	/* a refused destination gets no trace either: not even the probe's
	 * unnamed file, whose inode the journal would write */
	dio_caps_of_dest(d->plan->dest_root, s->n_refusals > 0, &d->dio);
	if (sizing_plan(d->target, &d->dio, s->o.strategy, s->o.window, &d->wplan) < 0)
		return refuse(s, &(struct copy_refusal){ .dest = i, .kind = COPY_REFUSED_STRATEGY,
							 .reason = d->wplan.reason });
	return 0;
}

int copy_session_prepare(struct copy_session *s, size_t *bad_dest)
{
	int r = s->prepared || s->n_dests == 0 || s->n_sources == 0 ? -EINVAL : 0;

	s->prepared = true;
	for (size_t i = 0; r == 0 && i < s->n_dests; i++) {
		*bad_dest = i;
		r = plan_dest(s, i);
		if (r == 1 && i == 0)
			return (int)s->n_refusals; /* no tree: the others cannot be planned */
		if (r == 1) {
			r = 0; /* refused: the next destination all the same */
			continue;
		}
		if (r == 0)
			r = probe_dest(s, i);
		if (r == 0)
			r = check_dest(s, i);
	}
	for (size_t i = 1; r == 0 && i < s->n_dests; i++)
		if (s->dests[i].plan && !plan_same_source(s->dests[0].plan, s->dests[i].plan))
			r = refuse(s, &(struct copy_refusal){ .dest = i,
							      .kind = COPY_REFUSED_SOURCE_CHANGED });
	s->ready = r == 0 && s->n_refusals == 0;
	return r < 0 ? r : (int)s->n_refusals;
}

const struct copy_refusal *copy_session_refusal(const struct copy_session *s, size_t i)
{
	return i < s->n_refusals ? &s->refusals[i] : NULL;
}

size_t copy_session_n_dests(const struct copy_session *s)
{
	return s->n_dests;
}

const struct plan *copy_session_plan(const struct copy_session *s, size_t d)
{
	return d < s->n_dests ? s->dests[d].plan : NULL;
}

int copy_session_start(struct copy_session *s)
{
	if (!s->ready || s->job)
		return -EINVAL;
	for (size_t i = 0; i < s->n_dests; i++) {
		struct session_dest *d = &s->dests[i];

		s->job_dests[i] = (struct copy_dest){
			.plan = d->plan,
			.opts = {
				.wplan = &d->wplan,
				.target = d->target,
				.keep_times = s->o.keep_times,
				.keep_mode = s->o.keep_mode,
				.verify = s->o.verify,
				.verify_source = s->o.verify_source,
			},
		};
	}
	return copy_job_start(s->job_dests, s->n_dests, NULL, &s->job);
}

int copy_session_event_fd(const struct copy_session *s)
{
	return s->job ? copy_job_event_fd(s->job) : -1;
}

int copy_session_poll(struct copy_session *s, int timeout_ms, struct copy_event *ret)
{
	return s->job ? copy_job_poll(s->job, timeout_ms, ret) : 0;
}

const struct copy_stats *copy_session_stats(const struct copy_session *s, size_t d)
{
	return s->job && d < s->n_dests ? copy_job_stats(s->job, d) : NULL;
}

bool copy_session_done(const struct copy_session *s)
{
	return s->job && copy_job_done(s->job);
}

bool copy_session_result(const struct copy_session *s, size_t d, int *result)
{
	return s->job && d < s->n_dests && copy_job_finished(s->job, d, result);
}

void copy_session_cancel(struct copy_session *s)
{
	if (s->job)
		copy_job_cancel(s->job);
}

void copy_session_free(struct copy_session *s)
{
	if (!s)
		return;
	copy_job_free(s->job);
	for (size_t i = 0; i < s->n_dests; i++) {
		struct session_dest *d = &s->dests[i];

		plan_names_done(&d->names);
		plan_problem_done(&d->check);
		plan_problem_done(&d->plan_problem);
		target_free(d->target);
		plan_free(d->plan);
		free(d->dir);
		free(d->beneath);
	}
	for (size_t i = 0; i < s->n_sources; i++)
		free(s->sources[i]);
	free(s->sources);
	free(s->refusals);
	free(s);
}
