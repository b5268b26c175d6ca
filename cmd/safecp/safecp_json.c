/* safecp_json.c: the --progress=json events, one object per line.
 *
 * Each function writes one whole event (cmd/json.h ends the line and
 * flushes it), so a script reading the pipe sees every event as it
 * happens.  The fields are a documented interface (safecp(1), JSON
 * OUTPUT); add fields, never rename or drop them.  Every event starts
 * with "event" and "t" (common/event.h's framing, as in every tool), and
 * the error event has the tools' shared fields.  What an event says of
 * its destination comes in the struct jsonev it is written through:
 * nothing here outlives a call. */
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "common/event.h"
#include "safecp/tool.h"
#include "safecp/safecp_waiting.h"

void jsonev_init(struct jsonev *ev, FILE *f, const char *dest)
{
	json_init(&ev->json, f);
	ev->dest = dest;
}

/* With several destinations every event says whose it is. */
static void begin(struct jsonev *ev, const char *event, double t)
{
	event_begin(&ev->json, event, t);
	if (ev->dest)
		json_kv_name(&ev->json, "dest", ev->dest);
}

/* A file's destination path: "dest", or "dest_file" where "dest" is the
 * destination directory (several destinations). */
static const char *file_key(const struct jsonev *ev)
{
	return ev->dest ? "dest_file" : "dest";
}

/* Negative means unknown: null. */
static void kv_maybe(struct json *j, const char *key, double v, int decimals)
{
	if (v < 0)
		json_kv_null(j, key);
	else
		json_kv_double(j, key, v, decimals);
}

static const char *entry_type_name(enum safecp_entry_type t)
{
	switch (t) {
	case SAFECP_ENTRY_DIR: return "directory";
	case SAFECP_ENTRY_FILE: return "file";
	case SAFECP_ENTRY_SYMLINK: return "symlink";
	case SAFECP_ENTRY_OTHER: break;
	}
	return "other";
}

/* --rename-invalid: "renamed": [{"file", "dest", "was", "reason"}] */
static void start_renamed(struct jsonev *ev, const struct safecp_copy *c, size_t d)
{
	struct json *j = &ev->json;
	struct safecp_rename r;
	struct safecp_entry e;

	json_key(j, "renamed");
	json_array_begin(j);
	for (size_t i = 0; safecp_copy_rename(c, d, i, &r, sizeof(r)) == 0; i++) {
		if (safecp_copy_entry(c, d, r.entry, &e, sizeof(e)) < 0)
			continue;
		json_object_begin(j);
		json_kv_string(j, "file", e.source);
		json_kv_string(j, file_key(ev), e.dest);
		json_kv_string(j, "was", r.old_dest);
		json_kv_string(j, "reason", r.why);
		json_object_end(j);
	}
	json_array_end(j);
}

/* An interrupted copy's partials: "bytes_resumed", "resumed": [{"file",
 * "dest", "bytes", "claimed"}], "partials_discarded": [{"file", "dest",
 * "reason"}] */
static void start_resumed(struct jsonev *ev, const struct safecp_copy *c, size_t d)
{
	struct json *j = &ev->json;
	uint64_t sum = 0;
	struct safecp_note n;
	struct safecp_entry e;

	for (size_t i = 0; safecp_copy_note(c, i, &n, sizeof(n)) == 0; i++)
		sum += n.kind == SAFECP_NOTE_RESUMED && n.dest == d ? n.count : 0;
	json_kv_u64(j, "bytes_resumed", sum);
	for (int discarded = 0; discarded < 2; discarded++) {
		json_key(j, discarded ? "partials_discarded" : "resumed");
		json_array_begin(j);
		for (size_t i = 0; safecp_copy_note(c, i, &n, sizeof(n)) == 0; i++) {
			if (n.dest != d || n.kind != (discarded ? SAFECP_NOTE_PARTIAL_DISCARDED
								 : SAFECP_NOTE_RESUMED) ||
			    safecp_copy_entry(c, d, n.entry, &e, sizeof(e)) < 0)
				continue;
			json_object_begin(j);
			json_kv_name(j, "file", e.rel);
			json_kv_name(j, file_key(ev), e.dest);
			if (discarded) {
				json_kv_string(j, "reason", n.why);
			} else {
				json_kv_u64(j, "bytes", n.count);
				json_kv_u64(j, "claimed", n.claimed);
				json_kv_u64(j, "rewritten", n.rewritten);
			}
			json_object_end(j);
		}
		json_array_end(j);
	}
}

/* -p onto a stick that cannot hold it all (issue 29): "not_kept":
 * ["ownership", "mode", "xattr", "acl"], what its filesystem does not
 * store of what was asked; [] when it stores everything asked */
static void start_not_kept(struct jsonev *ev, const struct safecp_copy *c, size_t d)
{
	static const struct { unsigned attr; const char *name; } names[] = {
		{ SAFECP_ATTR_OWNERSHIP, "ownership" }, { SAFECP_ATTR_MODE, "mode" },
		{ SAFECP_ATTR_XATTR, "xattr" }, { SAFECP_ATTR_ACL, "acl" },
	};
	struct json *j = &ev->json;
	struct safecp_note n;
	unsigned lost = 0;

	for (size_t i = 0; safecp_copy_note(c, i, &n, sizeof(n)) == 0; i++)
		if (n.kind == SAFECP_NOTE_NOT_KEPT && n.dest == d)
			lost |= (unsigned)n.count;
	json_key(j, "not_kept");
	json_array_begin(j);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (lost & names[i].attr)
			json_string(j, names[i].name);
	json_array_end(j);
}

void jsonev_start(struct jsonev *ev, const struct safecp_copy *c, size_t d,
		  const struct safecp_target_facts *t)
{
	struct json *j = &ev->json;
	struct safecp_copy_plan p = { 0 };
	struct safecp_write_plan w = { 0 };

	safecp_copy_plan(c, d, &p, sizeof(p));
	safecp_copy_write_plan(c, d, &w, sizeof(w));
	begin(ev, "start", clock_realtime());
	json_kv_u64(j, "bytes_total", p.bytes);
	json_kv_u64(j, "bytes_apparent", p.bytes_apparent);
	json_kv_bool(j, "holes", p.holes);
	json_kv_u64(j, "files", p.files);
	json_kv_u64(j, "directories", p.dirs);
	json_kv_u64(j, "symlinks", p.symlinks);
	json_kv_u64(j, "skipped", p.skipped);
	json_kv_u64(j, "kept", p.kept);
	json_kv_u64(j, "skipped_identical", p.identical);
	json_kv_u64(j, "skipped_identical_bytes", p.identical_bytes);
	json_kv_u64(j, "stale_temps", p.stale);
	json_kv_u64(j, "stale_bytes", p.stale_bytes);
	json_kv_name(j, ev->dest ? "dest_root" : "dest", p.dest_root);
	json_kv_name(j, "mountpoint", t ? t->mountpoint : NULL);
	json_kv_string(j, "fstype", t ? t->mount_type : NULL);
	json_kv_name(j, "device", t && t->block ? t->device : NULL);
	json_kv_string(j, "disk", t && t->block ? t->disk : NULL);
	json_kv_bool(j, "removable", p.place == SAFECP_PLACE_REMOVABLE);
	json_kv_bool(j, "system_disk", p.place == SAFECP_PLACE_SYSTEM);
	json_kv_string(j, "strategy", safecp_strategy_name(w.strategy));
	json_kv_string(j, "reason", words_sizing_reason(w.reason));
	json_kv_u64(j, "window", w.window);
	json_kv_u64(j, "chunk", w.chunk);
	json_kv_u64(j, "space_needed", p.space_needed);
	json_kv_u64(j, "space_free", p.space_free);
	start_renamed(ev, c, d);
	start_resumed(ev, c, d);
	start_not_kept(ev, c, d);
	event_end(j);
}

void jsonev_progress(struct jsonev *ev, const struct snapshot *s)
{
	jsonev_progress_waiting(ev, s, 0);
}

void jsonev_progress_waiting(struct jsonev *ev, const struct snapshot *s, uint64_t other)
{
	struct json *j = &ev->json;

	begin(ev, "progress", s->t_real);
	json_kv_u64(j, "bytes_total", s->total);
	json_kv_u64(j, "bytes_on_device", s->confirmed);
	json_kv_u64(j, "bytes_written", s->written);
	json_kv_name(j, "file", s->file);
	json_kv_string(j, "phase", s->phase >= SAFECP_PHASE_FINAL_SYNC ? "flushing"
				   : s->phase == SAFECP_PHASE_RECHECK ? "rechecking"
								    : "copying");
	kv_maybe(j, "rate", s->rate, 1);
	kv_maybe(j, "eta", s->eta, 1);
	if (s->verify)
		json_kv_u64(j, "bytes_verified", s->verified);
	if (s->pack) {
		json_kv_u64(j, "source_bytes_packed", s->packed);
		json_kv_u64(j, "source_bytes_total", s->pack_total);
	}
	/* other data on the device that our bytes wait behind */
	json_kv_u64(j, "waiting_other_bytes", other);
	event_end(j);
}

/* --verify's figures, in done and each destination's outcome */
static void kv_verify(struct json *j, const struct snapshot *s)
{
	if (!s || !s->verify)
		return;
	json_kv_u64(j, "bytes_verified", s->verified);
	json_kv_u64(j, "files_verified", s->files_verified);
	json_kv_u64(j, "files_mismatched", s->files_mismatched);
	/* of skipped_identical, those whose copy was read back and matched */
	json_kv_u64(j, "skipped_verified", s->identical_verified);
	json_kv_bool(j, "verify_cache_bypassed", !s->verify_cached);
}

/* How the copy left the device: seen idle, or busy with how much other
 * data (0 when it could not be watched) */
static void kv_device(struct json *j, const struct snapshot *s)
{
	json_kv_bool(j, "device_idle", s->device_idle);
	json_kv_u64(j, "device_busy_bytes", s->device_idle ? 0 : s->device_busy);
}

static void kv_outcome(struct json *j, const struct dest_outcome *d)
{
	json_kv_name(j, "dest", d->dest);
	json_kv_string(j, "outcome", d->outcome);
	json_kv_string(j, "error", d->error);
	json_kv_u64(j, "files", d->files);
	json_kv_u64(j, "errors", d->errors);
	json_kv_u64(j, "bytes_on_device", d->bytes_on_device);
	json_kv_u64(j, "skipped_identical", d->identical);
	if (d->snap) {
		json_kv_u64(j, "bytes_resumed", d->snap->resumed);
		kv_device(j, d->snap);
	}
	kv_verify(j, d->snap);
}

void jsonev_done(struct jsonev *ev, const struct snapshot *s, const struct dest_outcome *d,
		 size_t n, const struct safecp_source_figures *src)
{
	struct json *j = &ev->json;

	if (!d) {
		begin(ev, "done", s->t_real);
		json_kv_u64(j, "bytes_total", s->total);
		json_kv_u64(j, "bytes_on_device", s->confirmed);
		json_kv_u64(j, "files", s->files_done);
		json_kv_u64(j, "errors", s->files_failed);
		json_kv_u64(j, "skipped_identical", s->identical);
		json_kv_u64(j, "bytes_resumed", s->resumed);
		kv_device(j, s);
		kv_verify(j, s);
	} else {
		/* the job's end, not one destination's: no "dest" */
		event_begin(j, "done", clock_realtime());
		json_key(j, "destinations");
		json_array_begin(j);
		for (size_t i = 0; i < n; i++) {
			json_object_begin(j);
			kv_outcome(j, &d[i]);
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_kv_u64(j, "source_bytes_read", src->bytes_read);
	json_kv_u64(j, "source_bytes_reread", src->bytes_reread);
	event_end(j);
}

void jsonev_dest_done(struct jsonev *ev, const struct snapshot *s, const struct dest_outcome *d,
		      const char *line)
{
	struct json *j = &ev->json;

	event_begin(j, "dest-done", s->t_real);
	kv_outcome(j, d);
	json_kv_string(j, "message", line);
	event_end(j);
}

static void file_fields(struct jsonev *ev, const struct safecp_entry *e, const char *state,
			const char *reason)
{
	struct json *j = &ev->json;

	json_kv_string(j, "state", state);
	json_kv_name(j, "file", e->rel);
	json_kv_name(j, "source", e->source);
	json_kv_name(j, file_key(ev), e->dest);
	json_kv_string(j, "type", entry_type_name(e->type));
	json_kv_u64(j, "bytes", e->type == SAFECP_ENTRY_FILE ? e->size : 0);
	if (reason)
		json_kv_string(j, "reason", reason);
}

void jsonev_file(struct jsonev *ev, const struct safecp_entry *e, const char *state,
		 const char *reason)
{
	struct json *j = &ev->json;

	begin(ev, "file", clock_realtime());
	file_fields(ev, e, state, reason);
	event_end(j);
}

void jsonev_file_started(struct jsonev *ev, const struct safecp_entry *e, uint64_t resumed)
{
	struct json *j = &ev->json;

	begin(ev, "file", clock_realtime());
	file_fields(ev, e, "started", NULL);
	if (e->type == SAFECP_ENTRY_FILE)
		json_kv_u64(j, "bytes_resumed", resumed);
	event_end(j);
}

void jsonev_identical(struct jsonev *ev, const struct safecp_entry *e, const char *reason,
		      const char *judged)
{
	struct json *j = &ev->json;

	begin(ev, "file", clock_realtime());
	file_fields(ev, e, "skipped", reason);
	json_kv_string(j, "judged", judged);
	event_end(j);
}

void jsonev_error(struct jsonev *ev, const struct safecp_entry *e, enum safecp_copy_step step,
		  int err,
		  const char *path, const char *msg, bool fatal)
{
	struct json *j = &ev->json;

	event_error_begin(j, clock_realtime(), EVENT_PATH,
			  path ? path : e ? e->dest : NULL, err, msg);
	if (ev->dest)
		json_kv_name(j, "dest", ev->dest);
	json_kv_name(j, "file", e ? e->rel : NULL);
	json_kv_string(j, "step", words_step_name(step));
	json_kv_bool(j, "fatal", fatal);
	event_end(j);
}

/* The source was not what the plan saw, or changed while it was read:
 * not copied (it keeps no final name); a rerun copies it. */
void jsonev_changed(struct jsonev *ev, const struct safecp_entry *e, const char *msg)
{
	struct json *j = &ev->json;

	begin(ev, "changed", clock_realtime());
	json_kv_name(j, "file", e->rel);
	json_kv_name(j, "source", e->source);
	json_kv_name(j, file_key(ev), e->dest);
	json_kv_string(j, "message", msg);
	event_end(j);
}

void jsonev_list(struct jsonev *ev, const char *path, const char *alg, size_t files)
{
	struct json *j = &ev->json;

	begin(ev, "list", clock_realtime());
	json_kv_name(j, "path", path);
	json_kv_string(j, "algorithm", alg);
	json_kv_u64(j, "files", files);
	event_end(j);
}

void jsonev_manifest(struct jsonev *ev, const char *path, unsigned sequence, size_t files,
		     size_t unlisted)
{
	struct json *j = &ev->json;

	begin(ev, "manifest", clock_realtime());
	json_kv_name(j, "path", path);
	json_kv_u64(j, "sequence", sequence);
	json_kv_u64(j, "files", files);
	json_kv_u64(j, "unlisted", unlisted);
	event_end(j);
}

void jsonev_note(struct jsonev *ev, const char *path, const char *msg)
{
	struct json *j = &ev->json;

	begin(ev, "note", clock_realtime());
	json_kv_name(j, "path", path);
	json_kv_string(j, "message", msg);
	event_end(j);
}

void jsonev_strategy(struct jsonev *ev, const struct safecp_entry *e, enum safecp_strategy s,
		     const char *why)
{
	struct json *j = &ev->json;

	begin(ev, "strategy", clock_realtime());
	json_kv_name(j, "file", e ? e->rel : NULL);
	json_kv_string(j, "strategy", safecp_strategy_name(s));
	json_kv_string(j, "reason", why);
	event_end(j);
}

void jsonev_interrupted(struct jsonev *ev, const struct snapshot *s, int signo)
{
	struct json *j = &ev->json;

	begin(ev, "interrupted", s->t_real);
	json_kv_string(j, "signal", sigabbrev_np(signo));
	json_kv_u64(j, "files", s->files_done);
	event_end(j);
}

void jsonev_stopped(struct jsonev *ev, const struct snapshot *s)
{
	struct json *j = &ev->json;

	begin(ev, "stopped", s->t_real);
	json_kv_u64(j, "files", s->files_done);
	event_end(j);
}

void jsonev_refused(struct jsonev *ev, const char *kind, const char *message)
{
	struct json *j = &ev->json;

	begin(ev, "refused", clock_realtime());
	json_kv_string(j, "kind", kind);
	json_kv_string(j, "message", message);
	event_end(j);
}
