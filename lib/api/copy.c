/* copy.c: <safecp/copy.h> over the copy session (copy/session.h): the
 * public kinds and structures are mapped here, and only here, so the
 * library's own may change. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <safecp/copy.h>

#include "copy/session.h"

#define KNOWN_FLAGS ((1u << 11) - 1)

struct safecp_copy {
	struct copy_session *s;
	struct copy_event last; /* its strings live until the next poll */
};

int safecp_copy_new(unsigned flags, struct safecp_copy **ret)
{
	struct copy_session_options o = {
		.plan = {
			.recursive = flags & SAFECP_COPY_RECURSIVE,
			.follow_symlinks = flags & SAFECP_COPY_DEREFERENCE,
			.target_directory = flags & SAFECP_COPY_TARGET_DIRECTORY,
			.no_target_directory = flags & SAFECP_COPY_NO_TARGET_DIRECTORY,
			.no_clobber = flags & SAFECP_COPY_NO_CLOBBER,
		},
		.strategy = STRATEGY_AUTO,
		.keep_times = flags & SAFECP_COPY_KEEP_TIMES,
		.keep_mode = flags & SAFECP_COPY_KEEP_MODE,
		.verify = flags & SAFECP_COPY_VERIFY,
		.verify_source = flags & SAFECP_COPY_VERIFY_SOURCE,
		.rename_invalid = flags & SAFECP_COPY_RENAME_INVALID,
		.system_disk = flags & SAFECP_COPY_SYSTEM_DISK,
	};
	struct safecp_copy *c;
	int r;

	if (flags & ~KNOWN_FLAGS)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	r = copy_session_new(&o, &c->s);
	if (r < 0) {
		free(c);
		return r;
	}
	*ret = c;
	return 0;
}

int safecp_copy_add_source(struct safecp_copy *c, const char *path)
{
	return copy_session_add_source(c->s, path);
}

int safecp_copy_add_dest(struct safecp_copy *c, const char *dir)
{
	return copy_session_add_dest(c->s, dir, NULL);
}

int safecp_copy_prepare(struct safecp_copy *c)
{
	struct copy_prepare_failure failed;

	return copy_session_prepare(c->s, &failed);
}

static enum safecp_refusal_kind plan_kind(enum plan_problem_kind k)
{
	switch (k) {
	case PLAN_SOURCE_MISSING: return SAFECP_REFUSED_SOURCE_MISSING;
	case PLAN_SOURCE_UNREADABLE: return SAFECP_REFUSED_SOURCE_UNREADABLE;
	case PLAN_OMIT_DIRECTORY: return SAFECP_REFUSED_OMIT_DIRECTORY;
	case PLAN_SAME_FILE: case PLAN_SOURCE_TWICE: return SAFECP_REFUSED_SAME_FILE;
	case PLAN_INTO_ITSELF: case PLAN_LOOP: return SAFECP_REFUSED_INTO_ITSELF;
	case PLAN_DEST_NOT_DIR: return SAFECP_REFUSED_DEST_NOT_DIR;
	case PLAN_DEST_MISSING: case PLAN_DEST_NOT_BENEATH: return SAFECP_REFUSED_DEST_MISSING;
	case PLAN_DIR_ONTO_NONDIR: case PLAN_NONDIR_ONTO_DIR: return SAFECP_REFUSED_TYPE_CLASH;
	case PLAN_NO_SPACE: return SAFECP_REFUSED_NO_SPACE;
	case PLAN_FILE_TOO_BIG: return SAFECP_REFUSED_FILE_TOO_BIG;
	case PLAN_NO_INODES: return SAFECP_REFUSED_NO_INODES;
	case PLAN_NAME_TOO_LONG: case PLAN_NAME_INVALID: case PLAN_NAME_RESERVED:
	case PLAN_NAME_CLASH: case PLAN_DEST_CLASH:
		return SAFECP_REFUSED_NAME;
	case PLAN_DEST_UNWRITABLE: return SAFECP_REFUSED_DEST_UNWRITABLE;
	case PLAN_SOURCE_CHANGED: return SAFECP_REFUSED_SOURCE_CHANGED;
	case PLAN_OK: break;
	}
	return SAFECP_REFUSED_OTHER;
}

/* The i-th finding that is a refusal (the notes are the tool's), or NULL. */
static const struct copy_finding *nth_refusal(const struct copy_session *s, size_t i)
{
	for (size_t k = 0; k < copy_session_n_findings(s); k++) {
		const struct copy_finding *f = copy_session_finding(s, k);

		if (copy_finding_refuses(f) && i-- == 0)
			return f;
	}
	return NULL;
}

int safecp_copy_refusal(const struct safecp_copy *c, size_t i, struct safecp_refusal *ret)
{
	const struct copy_finding *r = nth_refusal(c->s, i);
	const struct plan_problem *p;

	if (!r)
		return -ENOENT;
	p = r->problem;
	*ret = (struct safecp_refusal){ .dest = r->dest };
	switch (r->kind) {
	case COPY_REFUSED_PLAN:
		ret->kind = plan_kind(p->kind);
		ret->name = plan_problem_kind_name(p->kind);
		ret->path = p->path;
		ret->path2 = p->path2;
		ret->err = p->err;
		ret->need = p->need;
		ret->have = p->have;
		break;
	case COPY_REFUSED_SYSTEM_DISK:
		ret->kind = SAFECP_REFUSED_SYSTEM_DISK;
		ret->name = "system-disk";
		break;
	case COPY_REFUSED_NO_DISK:
		ret->kind = SAFECP_REFUSED_NO_DISK;
		ret->name = "no-disk";
		break;
	case COPY_REFUSED_STRATEGY:
		ret->kind = SAFECP_REFUSED_STRATEGY;
		ret->name = "strategy-unsupported";
		break;
	case COPY_REFUSED_SOURCE_CHANGED:
		ret->kind = SAFECP_REFUSED_SOURCE_CHANGED;
		ret->name = "source-changed";
		break;
	default: /* the archive modes' kinds: this API has no archive modes yet */
		ret->kind = SAFECP_REFUSED_OTHER;
		ret->name = "other";
		break;
	}
	return 0;
}

int safecp_copy_planned(const struct safecp_copy *c, size_t d, uint64_t *bytes, uint64_t *files)
{
	const struct plan *p = copy_session_plan(c->s, d);

	if (!p)
		return -ENOENT;
	*bytes = p->total_bytes;
	*files = p->n_files + p->n_symlinks;
	return 0;
}

int safecp_copy_start(struct safecp_copy *c)
{
	return copy_session_start(c->s);
}

int safecp_copy_fd(const struct safecp_copy *c)
{
	return copy_session_event_fd(c->s);
}

static enum safecp_copy_event_kind event_kind(enum copy_event_kind k)
{
	switch (k) {
	case COPY_EVENT_FILE_START: return SAFECP_EVENT_FILE_STARTED;
	case COPY_EVENT_FILE_DONE: return SAFECP_EVENT_FILE_DONE;
	case COPY_EVENT_FILE_WITHDRAWN: return SAFECP_EVENT_FILE_WITHDRAWN;
	case COPY_EVENT_SKIPPED: return SAFECP_EVENT_SKIPPED;
	case COPY_EVENT_ERROR: return SAFECP_EVENT_ERROR;
	case COPY_EVENT_NOTE: return SAFECP_EVENT_NOTE;
	case COPY_EVENT_DEST_END: return SAFECP_EVENT_DEST_END;
	default: return SAFECP_EVENT_OTHER;
	}
}

/* Events that name a plan entry. */
static int has_entry(enum copy_event_kind k)
{
	return k == COPY_EVENT_FILE_START || k == COPY_EVENT_FILE_DONE ||
	       k == COPY_EVENT_FILE_WITHDRAWN || k == COPY_EVENT_SKIPPED ||
	       k == COPY_EVENT_ERROR || k == COPY_EVENT_STRATEGY;
}

int safecp_copy_poll(struct safecp_copy *c, int timeout_ms, struct safecp_copy_event *ret)
{
	struct copy_event *e = &c->last;
	const struct plan *p;
	int r;

	copy_event_done(e);
	r = copy_session_poll(c->s, timeout_ms, e);
	if (r <= 0)
		return r;
	p = copy_session_plan(c->s, e->dest);
	*ret = (struct safecp_copy_event){ .kind = event_kind(e->kind), .dest = e->dest,
					   .path = e->path, .err = e->err, .fatal = e->fatal };
	if (p && has_entry(e->kind) && e->entry < p->n_entries) {
		if (!ret->path)
			ret->path = p->entries[e->entry].dst;
		ret->source = p->entries[e->entry].source->src;
	}
	return 1;
}

int safecp_copy_progress(const struct safecp_copy *c, size_t d, struct safecp_copy_progress *ret)
{
	const struct copy_stats *st = copy_session_stats(c->s, d);

	if (!st)
		return -ENOENT;
	*ret = (struct safecp_copy_progress){
		.bytes_total = atomic_load(&st->bytes_total),
		.bytes_written = atomic_load(&st->bytes_written),
		.bytes_confirmed = atomic_load(&st->bytes_confirmed),
		.files_done = atomic_load(&st->files_done),
		.files_failed = atomic_load(&st->files_failed),
		.syncing = atomic_load(&st->phase) >= COPY_PHASE_FINAL_SYNC &&
			   atomic_load(&st->phase) < COPY_PHASE_DONE,
	};
	return 0;
}

int safecp_copy_done(const struct safecp_copy *c)
{
	return copy_session_done(c->s);
}

int safecp_copy_result(const struct safecp_copy *c, size_t d)
{
	int result;

	if (d >= copy_session_n_prepared(c->s) || !copy_session_stats(c->s, d))
		return -ENOENT; /* no such destination, or not started */
	return copy_session_result(c->s, d, &result) ? result : -EBUSY;
}

void safecp_copy_cancel(struct safecp_copy *c)
{
	copy_session_cancel(c->s);
}

void safecp_copy_free(struct safecp_copy *c)
{
	if (!c)
		return;
	copy_event_done(&c->last);
	copy_session_free(c->s);
	free(c);
}
