/* session_resume.c: the session's resumable partials (resume.h): which
 * large files each destination writes as one, which kept ones go on and
 * from where, told as findings; at start, the digests their records
 * list (partial_digests.h) and where the reader starts each file. */
#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"
#include "copy/partial_digests.h"
#include "copy/session_internal.h"
#include "device/fs_traits.h"

static int tell(struct copy_session *s, size_t d)
{
	const struct resume_plan *rp = &s->resume[d];

	for (size_t i = 0; i < rp->n; i++) {
		const struct resume_file *f = &rp->v[i];
		struct copy_finding fd = { .dest = d, .entry = f->entry, .count = f->from,
					   .need = f->claimed, .have = f->rewritten,
					   .resume = f->outcome };
		int r;

		if (f->outcome == RESUME_NEW)
			continue;
		fd.kind = f->outcome == RESUME_FROM ? COPY_NOTE_RESUMED : COPY_NOTE_PARTIAL_DISCARDED;
		r = session_find(s, &fd, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

int session_resume_prepare(struct copy_session *s)
{
	struct resume_plan *rps[COPY_DESTS_MAX];
	int r;

	if (s->o.no_resume || s->o.mode != COPY_MODE_COPY || s->n_prepared == 0)
		return 0;
	s->resuming = true;
	for (size_t d = 0; d < s->n_prepared; d++) {
		const struct copy_prepared *p = &s->prep[d];
		const struct fs_traits *tr = fs_traits_of(p->target);

		/* where files cannot be written again, a partial is of no use:
		 * that destination's files are written as before */
		r = tr->no_rewrite ? 0 : resume_plan_build(&s->resume[d], p->plan, p->target, tr->fuse);
		if (r < 0)
			return r;
		rps[d] = &s->resume[d];
	}
	r = resume_check_sources(rps, s->n_prepared, s->prep[0].plan);
	if (r == -ENOMEM)
		return r;
	/* --verify: what is kept must also be what the device gives back */
	for (size_t d = 0; s->o.verify && d < s->n_prepared; d++) {
		const struct copy_prepared *p = &s->prep[d];

		r = resume_read_back(&s->resume[d], p->plan, p->target,
				     fs_traits_of(p->target)->fuse);
		if (r < 0)
			return r;
	}
	for (size_t d = 0; d < s->n_prepared; d++) {
		r = resume_plan_keep(&s->resume[d], s->prep[d].plan);
		if (r == 0)
			r = tell(s, d);
		if (r < 0)
			return r;
	}
	return 0;
}

static void both_taps(void *ctx, const struct reader_chunk *c)
{
	const struct reader_tap *t = ctx;

	t[0].chunk(t[0].ctx, c);
	t[1].chunk(t[1].ctx, c);
}

/* Entry idx's start: the smallest offset of the destinations that write
 * it (one writing it whole makes it 0). */
static uint64_t start_of(const struct copy_session *s, size_t idx)
{
	uint64_t from = UINT64_MAX;

	for (size_t d = 0; d < s->n_prepared; d++) {
		const struct plan_entry *e = &s->prep[d].plan->entries[idx];
		const struct resume_file *f = resume_plan_find(&s->resume[d], idx);

		if (e->skip_existing)
			continue;
		from = f && f->from < from ? f->from : f ? from : 0;
	}
	return from == UINT64_MAX ? 0 : from;
}

/* Every entry some destination writes as a partial, in order: its
 * digests asked for from where the reader starts it. */
static int want_digests(struct copy_session *s, bool whole)
{
	const struct plan *p = s->prep[0].plan;
	size_t cap = 0;

	for (size_t idx = 0; idx < p->n_entries; idx++) {
		const struct resume_file *f = NULL;
		uint64_t from;
		int r;

		for (size_t d = 0; d < s->n_prepared && !f; d++)
			f = resume_plan_find(&s->resume[d], idx);
		if (!f)
			continue;
		from = whole ? 0 : start_of(s, idx);
		r = partial_digests_want(s->digests, idx, f->rec.size, f->rec.chunk, from);
		if (r == 0 && from > 0 && GROW(s->starts, cap, s->n_starts + 1, 8) < 0)
			r = -ENOMEM;
		if (r < 0)
			return r;
		if (from > 0)
			s->starts[s->n_starts++] = (struct reader_start){ idx, from };
	}
	return 0;
}

int session_resume_start(struct copy_session *s, struct copy_job_hooks *h)
{
	/* a whole-file digest (lists, manifests, a second source read) needs
	 * every byte read: then the reader starts each file at 0 and the
	 * destinations pass over what they keep.  --verify does not: the
	 * kept part was read back before the copy, the rest is after */
	bool whole = h->tap || s->o.verify_source;
	bool any = false;
	int r;

	for (size_t d = 0; d < s->n_prepared; d++) {
		any = any || s->resume[d].n;
		s->job_dests[d].opts.resume = s->resuming ? &s->resume[d] : NULL;
	}
	if (!any)
		return 0;
	r = partial_digests_new(&s->digests);
	if (r == 0)
		r = want_digests(s, whole);
	if (r < 0)
		return r;
	h->digests = s->digests;
	h->starts = s->starts;
	h->n_starts = s->n_starts;
	if (h->tap) {
		s->taps[0] = *h->tap;
		s->taps[1] = partial_digests_tap(s->digests);
		s->tap_both = (struct reader_tap){ s->taps, both_taps };
		h->tap = &s->tap_both;
	} else {
		s->taps[1] = partial_digests_tap(s->digests);
		h->tap = &s->taps[1];
	}
	return 0;
}

void session_resume_free(struct copy_session *s)
{
	for (size_t d = 0; d < COPY_DESTS_MAX; d++)
		resume_plan_free(&s->resume[d]);
	partial_digests_free(s->digests);
	free(s->starts);
}
