/* session_run.c: see session.h.  The lifecycle, the findings and the run;
 * what is read before any destination is session_sources.c's, one
 * destination's preparation session_dest.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "copy/session_internal.h"

int copy_session_new(const struct copy_session_options *o, struct copy_session **ret)
{
	struct copy_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->o = *o;
	*ret = s;
	return 0;
}

int copy_session_set_options(struct copy_session *s, const struct copy_session_options *o)
{
	if (s->prepared)
		return -EBUSY;
	s->o = *o;
	return 0;
}

const char *copy_session_source_path(const struct copy_session *s, size_t i)
{
	return i < s->n_sources ? s->sources[i] : NULL;
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
	size_t i = s->n_dests;

	if (s->prepared)
		return -EBUSY;
	if (i == COPY_DESTS_MAX)
		return -E2BIG;
	s->dirs[i] = strdup(dir);
	s->beneath[i] = beneath ? strdup(beneath) : NULL;
	if (!s->dirs[i] || (beneath && !s->beneath[i])) {
		free(s->dirs[i]);
		free(s->beneath[i]);
		s->dirs[i] = s->beneath[i] = NULL;
		return -ENOMEM;
	}
	s->n_dests++;
	return 0;
}

bool copy_finding_refuses(const struct copy_finding *f)
{
	return f->kind < COPY_NOTE_FIXED_DISK; /* the refusals come first */
}

int session_find(struct copy_session *s, const struct copy_finding *f, const char *path)
{
	struct copy_finding *kept;

	if (GROW(s->findings, s->cap_findings, s->n_findings + 1, 8) < 0)
		return -ENOMEM;
	kept = &s->findings[s->n_findings];
	*kept = *f;
	if (path) {
		if (GROW(s->paths, s->cap_paths, s->n_paths + 1, 4) < 0 ||
		    !(s->paths[s->n_paths] = strdup(path)))
			return -ENOMEM;
		kept->path = s->paths[s->n_paths++];
	}
	s->n_findings++;
	s->n_refusals += copy_finding_refuses(f);
	s->n_deferred += copy_finding_refuses(f) && f->deferred;
	return 0;
}

/* Several destinations share the first's tree, and each looked at the
 * operands again: they must have found them as the tree has them, or one
 * reader cannot serve them all. */
static int same_sources(struct copy_session *s)
{
	for (size_t i = 1; i < s->n_prepared; i++)
		if (!plan_same_source(s->prep[0].plan, s->prep[i].plan))
			return session_find(s, &(struct copy_finding){
				.kind = COPY_REFUSED_SOURCE_CHANGED, .dest = i }, NULL);
	return 0;
}

int copy_session_prepare(struct copy_session *s, struct copy_prepare_failure *failed)
{
	int r = s->prepared || s->n_dests == 0 || s->n_sources == 0 ? -EINVAL : 0;

	s->prepared = true;
	*failed = (struct copy_prepare_failure){ .stage = COPY_STAGE_SOURCES };
	if (r == 0)
		r = session_read_sources(s, &failed->stage);
	if (r == 0 && s->n_refusals)
		return (int)s->n_refusals; /* no sources to plan with */
	for (size_t i = 0; r == 0 && i < s->n_dests; i++) {
		failed->dest = i;
		s->n_prepared = i + 1;
		r = session_prepare_dest(s, i, &failed->stage);
		if (r == 1)
			return (int)s->n_refusals;
	}
	if (r == 0)
		r = same_sources(s);
	/* every destination is planned: the lists and histories are checked
	 * too, beside names and space, so that one round of fixes does */
	if (r == 0) {
		failed->stage = COPY_STAGE_LISTS;
		r = session_lists_prepare(s);
	}
	/* last: only a copy that can start reads the sources' prefixes */
	if (r == 0 && s->n_refusals == 0) {
		failed->stage = COPY_STAGE_RESUME;
		r = session_resume_prepare(s);
	}
	s->ready = r == 0 && s->n_refusals == 0;
	return r < 0 ? r : (int)s->n_refusals;
}

size_t copy_session_n_findings(const struct copy_session *s)
{
	return s->n_findings;
}

const struct copy_finding *copy_session_finding(const struct copy_session *s, size_t i)
{
	return i < s->n_findings ? &s->findings[i] : NULL;
}

size_t copy_session_n_prepared(const struct copy_session *s)
{
	return s->n_prepared;
}

const struct copy_prepared *copy_session_prepared(const struct copy_session *s)
{
	return s->prep;
}

const struct plan *copy_session_plan(const struct copy_session *s, size_t d)
{
	return d < s->n_prepared ? s->prep[d].plan : NULL;
}

int copy_session_start(struct copy_session *s)
{
	struct copy_job_hooks h = { 0 };
	int r;

	if (!s->ready || s->job)
		return -EINVAL;
	r = session_lists_start(s, &h);
	if (r < 0)
		return r;
	if (s->o.mode == COPY_MODE_PACK) {
		r = pack_feed_new(s->pack_tree, s->o.pack_format, &s->pack_feed);
		if (r < 0)
			return r;
		h.feed = pack_feed_source(s->pack_feed);
	} else if (s->o.mode == COPY_MODE_UNPACK) {
		h.feed = unpack_feed_source(s->unpack_feed);
	}
	for (size_t i = 0; i < s->n_prepared; i++) {
		const struct copy_prepared *d = &s->prep[i];

		s->job_dests[i] = (struct copy_dest){
			.plan = d->plan,
			.opts = {
				.wplan = &d->wplan,
				.target = d->target,
				.keep_times = s->o.keep_times,
				.keep_mode = s->o.keep_mode,
				.keep_owners = s->o.keep_owners,
				.keep_xattrs = s->o.keep_xattrs,
				.drop_mode = s->o.drop_mode,
				.meta_noted = d->meta_lost,
				.meta_from_source = s->o.mode == COPY_MODE_COPY,
				.verify = s->o.verify,
				.verify_source = s->o.verify_source,
			},
		};
	}
	r = session_resume_start(s, &h);
	if (r < 0)
		return r;
	return copy_job_start(s->job_dests, s->n_prepared, &h, &s->job);
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
	return s->job && d < s->n_prepared ? copy_job_stats(s->job, d) : NULL;
}

void copy_session_source(const struct copy_session *s, struct copy_source_stats *ret)
{
	if (s->job)
		copy_job_source(s->job, ret);
	else
		*ret = (struct copy_source_stats){ 0 };
}

void copy_session_packed(const struct copy_session *s, uint64_t *packed, uint64_t *total)
{
	*packed = s->pack_feed ? pack_feed_packed(s->pack_feed) : 0;
	*total = s->pack_tree ? pack_tree_bytes(s->pack_tree) : 0;
}

bool copy_session_pack_problem(const struct copy_session *s, size_t *entry, int *err)
{
	return s->pack_feed && pack_feed_problem(s->pack_feed, entry, err);
}

bool copy_session_done(const struct copy_session *s)
{
	return s->job && copy_job_done(s->job);
}

bool copy_session_result(const struct copy_session *s, size_t d, int *result)
{
	return s->job && d < s->n_prepared && copy_job_finished(s->job, d, result);
}

unsigned copy_session_write_lists(struct copy_session *s)
{
	return s->job ? copy_job_write_lists(s->job) : 0;
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
	for (size_t i = 0; i < s->n_prepared; i++) {
		struct copy_prepared *d = &s->prep[i];

		judge_result_done(&s->judged[i]);
		plan_names_done(&d->names);
		plan_problem_done(&d->refusal);
		plan_problem_done(&s->plan_problem[i]);
		target_free(d->target);
		plan_free(d->plan);
	}
	for (size_t i = 0; i < s->n_dests; i++) {
		free(s->dirs[i]);
		free(s->beneath[i]);
	}
	session_lists_free(s);
	session_resume_free(s);
	session_sources_free(s);
	for (size_t i = 0; i < s->n_sources; i++)
		free(s->sources[i]);
	for (size_t i = 0; i < s->n_paths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->sources);
	free(s->findings);
	free(s);
}
