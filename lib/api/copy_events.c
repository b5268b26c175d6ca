/* copy_events.c: <safecp/copy.h>'s run: the event queue, an event's
 * details, and the figures read while the copy runs (the session's
 * events and counters, copy/copy.h, copy/copy_events.h).  The public
 * step, skip, note and switch kinds are the library's own, value for
 * value (the static asserts below keep them so). */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "api/copy_internal.h"
#include "api/fill.h"

int safecp_copy_fd(const struct safecp_copy *c)
{
	return copy_session_event_fd(c->s);
}

static enum safecp_copy_event_kind event_kind(enum copy_event_kind k)
{
	static const enum safecp_copy_event_kind kinds[] = {
		[COPY_EVENT_FILE_START] = SAFECP_EVENT_FILE_STARTED,
		[COPY_EVENT_FILE_DONE] = SAFECP_EVENT_FILE_DONE,
		[COPY_EVENT_FILE_WITHDRAWN] = SAFECP_EVENT_FILE_WITHDRAWN,
		[COPY_EVENT_SKIPPED] = SAFECP_EVENT_SKIPPED,
		[COPY_EVENT_ERROR] = SAFECP_EVENT_ERROR,
		[COPY_EVENT_NOTE] = SAFECP_EVENT_NOTE,
		[COPY_EVENT_STRATEGY] = SAFECP_EVENT_STRATEGY,
		[COPY_EVENT_LIST_WRITTEN] = SAFECP_EVENT_LIST_WRITTEN,
		[COPY_EVENT_LIST_FAILED] = SAFECP_EVENT_LIST_FAILED,
		[COPY_EVENT_LIST_LEFT_OUT] = SAFECP_EVENT_LIST_LEFT_OUT,
		[COPY_EVENT_LIST_UNKNOWN] = SAFECP_EVENT_LIST_UNKNOWN,
		[COPY_EVENT_MANIFEST_WRITTEN] = SAFECP_EVENT_MANIFEST_WRITTEN,
		[COPY_EVENT_MANIFEST_FAILED] = SAFECP_EVENT_MANIFEST_FAILED,
		[COPY_EVENT_DEST_END] = SAFECP_EVENT_DEST_END,
	};

	return (unsigned)k < sizeof(kinds) / sizeof(kinds[0]) && kinds[k] ? kinds[k]
									   : SAFECP_EVENT_OTHER;
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
	c->polled = false;
	r = copy_session_poll(c->s, timeout_ms, e);
	if (r <= 0)
		return r;
	c->polled = true;
	p = copy_session_plan(c->s, e->dest);
	*ret = (struct safecp_copy_event){ .kind = event_kind(e->kind), .dest = e->dest,
					   .path = e->path, .err = e->err, .fatal = e->fatal };
	if (p && has_entry(e->kind) && e->entry < p->n_entries) {
		if (!ret->path)
			ret->path = plan_dst_path(p, e->entry, c->str->event_path);
		ret->source = api_source_path(p->entries[e->entry].source, c->str->event_source);
	}
	return 1;
}

int safecp_copy_progress(const struct safecp_copy *c, size_t d, struct safecp_copy_progress *ret)
{
	const struct copy_stats *st = copy_session_stats(c->s, d);
	uint64_t confirmed;

	if (!st)
		return -ENOENT;
	/* confirmed first: written >= confirmed at every instant, so read
	 * second it is never below it */
	confirmed = atomic_load(&st->bytes_confirmed);
	*ret = (struct safecp_copy_progress){
		.bytes_total = atomic_load(&st->bytes_total),
		.bytes_written = atomic_load(&st->bytes_written),
		.bytes_confirmed = confirmed,
		.files_done = atomic_load(&st->files_done),
		.files_failed = atomic_load(&st->files_failed),
		.syncing = atomic_load(&st->phase) >= COPY_PHASE_FINAL_SYNC &&
			   atomic_load(&st->phase) < COPY_PHASE_DONE,
	};
	return 0;
}

int safecp_copy_event_detail(const struct safecp_copy *c, struct safecp_event_detail *ret,
			     size_t size)
{
	const struct copy_event *e = &c->last;
	const struct plan *p;
	struct safecp_event_detail v;

	if (!c->polled)
		return -ENOENT;
	p = copy_session_plan(c->s, e->dest);
	v = (struct safecp_event_detail){
		.entry = has_entry(e->kind) && p && e->entry < p->n_entries ? e->entry : SIZE_MAX,
		.path_given = e->path,
		.step = (enum safecp_copy_step)e->step,
		.skip = (enum safecp_skip_reason)e->skip,
		.note = (enum safecp_event_note)e->note,
		.bytes = e->bytes,
		.strategy = (enum safecp_strategy)e->strategy,
		.switch_reason = (enum safecp_switch_reason)e->why,
		.algorithm = e->kind >= COPY_EVENT_LIST_WRITTEN && e->kind <= COPY_EVENT_LIST_UNKNOWN
				     ? checksum_alg_name(e->alg) : NULL,
		.name = e->name, .count = e->count, .sequence = e->sequence,
		.unlisted = e->unlisted,
	};
	return api_fill(ret, size, &v, sizeof(v));
}

int safecp_copy_figures(const struct safecp_copy *c, size_t d, struct safecp_copy_figures *ret,
			size_t size)
{
	const struct copy_stats *st = copy_session_stats(c->s, d);
	struct safecp_copy_figures v;

	if (!st)
		return -ENOENT;
	v = (struct safecp_copy_figures){
		.phase = (enum safecp_copy_phase)atomic_load(&st->phase),
		.current = atomic_load(&st->current),
		.bytes_verified = atomic_load(&st->bytes_verified),
		.files_verified = atomic_load(&st->files_verified),
		.files_mismatched = atomic_load(&st->files_mismatched),
		.verify_cached = atomic_load(&st->verify_cached),
		.device_idle = atomic_load(&st->device_idle),
		.device_busy = atomic_load(&st->device_busy_bytes),
		.bytes_resumed = atomic_load(&st->bytes_resumed),
	};
	return api_fill(ret, size, &v, sizeof(v));
}

int safecp_copy_source_figures(const struct safecp_copy *c, struct safecp_source_figures *ret,
			       size_t size)
{
	struct copy_source_stats src;
	struct safecp_source_figures v;

	copy_session_source(c->s, &src);
	v = (struct safecp_source_figures){ .bytes_read = src.bytes_read,
		.bytes_reread = src.bytes_reread, .detached = src.detached,
		.mismatches = src.mismatches };
	copy_session_packed(c->s, &v.packed, &v.pack_total);
	return api_fill(ret, size, &v, sizeof(v));
}

bool safecp_copy_pack_failed(const struct safecp_copy *c, const char **source, int *err)
{
	const struct source_tree *tree = copy_session_pack_tree(c->s);
	size_t idx;

	if (!tree || !copy_session_pack_problem(c->s, &idx, err))
		return false;
	*source = api_source_path(&tree->entries[idx], c->str->pack_source);
	*err = *err < 0 ? -*err : *err;
	return true;
}

unsigned safecp_copy_write_lists(struct safecp_copy *c)
{
	return copy_session_write_lists(c->s);
}

_Static_assert((int)SAFECP_STEP_LINK == (int)COPY_STEP_LINK &&
	       (int)SAFECP_STEP_BACKUP == (int)COPY_STEP_BACKUP &&
	       (int)SAFECP_STEP_NAME_CLASH == (int)COPY_STEP_NAME_CLASH &&
	       (int)SAFECP_STEP_ATTRS == (int)COPY_STEP_ATTRS &&
	       (int)SAFECP_STEP_VERIFY == (int)COPY_STEP_VERIFY &&
	       (int)SAFECP_STEP_SOURCE_VERIFY == (int)COPY_STEP_SOURCE_VERIFY &&
	       (int)SAFECP_STEP_CHANGED == (int)COPY_STEP_CHANGED &&
	       (int)SAFECP_STEP_FINAL_SYNC == (int)COPY_STEP_FINAL_SYNC &&
	       (int)SAFECP_STEP_RENAME == (int)COPY_STEP_RENAME &&
	       (int)SAFECP_STEP_SYNC == (int)COPY_STEP_SYNC &&
	       (int)SAFECP_STEP_WRITE == (int)COPY_STEP_WRITE &&
	       (int)SAFECP_STEP_CREATE == (int)COPY_STEP_CREATE &&
	       (int)SAFECP_STEP_READ == (int)COPY_STEP_READ, "enum safecp_copy_step");
_Static_assert((int)SAFECP_SKIP_KEPT == (int)COPY_SKIP_KEPT &&
	       (int)SAFECP_SKIP_IDENTICAL == (int)COPY_SKIP_IDENTICAL &&
	       (int)SAFECP_SKIP_APPEARED == (int)COPY_SKIP_APPEARED &&
	       (int)SAFECP_SKIP_FIFO == (int)COPY_SKIP_FIFO &&
	       (int)SAFECP_SKIP_SOCKET == (int)COPY_SKIP_SOCKET &&
	       (int)SAFECP_SKIP_DEVICE == (int)COPY_SKIP_DEVICE &&
	       (int)SAFECP_SKIP_OTHER == (int)COPY_SKIP_OTHER, "enum safecp_skip_reason");
_Static_assert((int)SAFECP_NOTE_STALE_REMOVED == (int)COPY_NOTE_STALE_REMOVED &&
	       (int)SAFECP_NOTE_STALE_KEPT == (int)COPY_NOTE_STALE_KEPT &&
	       (int)SAFECP_NOTE_NO_MODES == (int)COPY_NOTE_NO_MODES &&
	       (int)SAFECP_NOTE_VERIFY_CACHED == (int)COPY_NOTE_VERIFY_CACHED &&
	       (int)SAFECP_NOTE_PARTIAL_KEPT == (int)COPY_NOTE_PARTIAL_KEPT &&
	       (int)SAFECP_NOTE_ATTRS_NOT_KEPT == (int)COPY_NOTE_META_NOT_KEPT,
	       "enum safecp_event_note");
_Static_assert((int)SAFECP_SWITCH_DIRECT_REFUSED == (int)WRITER_SWITCH_DIO_REFUSED &&
	       (int)SAFECP_SWITCH_DEVICE_DIRTY == (int)WRITER_SWITCH_DEVICE_DIRTY &&
	       (int)SAFECP_SWITCH_FELL_BACK == (int)WRITER_SWITCH_FELL_BACK,
	       "enum safecp_switch_reason");
_Static_assert((int)SAFECP_PHASE_START == (int)COPY_PHASE_START &&
	       (int)SAFECP_PHASE_COPYING == (int)COPY_PHASE_COPYING &&
	       (int)SAFECP_PHASE_RECHECK == (int)COPY_PHASE_RECHECK &&
	       (int)SAFECP_PHASE_FINAL_SYNC == (int)COPY_PHASE_FINAL_SYNC &&
	       (int)SAFECP_PHASE_WAIT_IDLE == (int)COPY_PHASE_WAIT_IDLE &&
	       (int)SAFECP_PHASE_DONE == (int)COPY_PHASE_DONE, "enum safecp_copy_phase");
