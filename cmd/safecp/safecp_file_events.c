/* safecp_file_events.c: what the copy job says about a destination
 * (copy_job_poll()'s events, handed over by safecp_run.c), in words and
 * as JSON events: a file started, under its final name, withdrawn,
 * skipped; errors, notes, a change of strategy; the checksum lists and
 * ASC MHL manifests written beside the data, or not. */
#include <string.h>

#include "common/cli.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/events_private.h"
#include "base/cleanup.h"

/* A file event in --progress=json. */
static void json_file(struct events *ev, const struct safecp_entry *e, const char *state,
		      const char *reason)
{
	if (!ev->json_out)
		return;
	jsonev_file(&ev->jev, e, state, reason);
	stdout_check(ev);
}

/* --debug: cp's line after each file's, from what safecp knows: no copy
 * offload or clone reaches another device; holes found by SEEK_HOLE where
 * the destination keeps them; how the bytes are written. */
static void debug_line(struct events *ev, const struct safecp_entry *e)
{
	struct safecp_write_plan w;
	const char *writes = safecp_copy_write_plan(ev->o->copy, ev->d, &w, sizeof(w)) == 0
				     ? safecp_strategy_name(w.strategy) : "?";

	say(ev, "copy offload: avoided, reflink: unsupported, sparse detection: %s, writes: %s",
	    e->holes ? "SEEK_HOLE" : "no", writes);
}

static void on_file_start(struct events *ctx, const struct safecp_entry *e, uint64_t resumed)
{
	struct events *ev = ctx;

	if (ev->o->verbosity >= VERBOSITY_VERBOSE)
		say(ev, "%s -> %s", quote(e->source), quote(e->dest));
	if (ev->o->debug)
		debug_line(ev, e);
	if (ev->json_out) {
		jsonev_file_started(&ev->jev, e, resumed);
		stdout_check(ev);
	}
}

/* Entry idx's file is under its final name now, or no longer. */
static void file_published(struct events *ev, size_t idx, const struct safecp_entry *e,
			   bool published, const char *state, const char *reason)
{
	ev->published[idx] = published;
	json_file(ev, e, state, reason);
}

void events_list_written(struct events *ev, const char *path, const char *alg, size_t files)
{
	if (ev->o->verbosity >= VERBOSITY_VERBOSE)
		say(ev, "%s list %s: %zu files", alg, quote(path), files);
	if (ev->json_out) {
		jsonev_list(&ev->jev, path, alg, files);
		stdout_check(ev);
	}
}

void events_manifest_written(struct events *ev, const char *path, unsigned sequence,
			     size_t files, size_t unlisted)
{
	if (unlisted)
		note_line(ev, MSG_WARNING, "%zu %s left out of the ASC MHL manifest %s: ASC MHL "
			  "holds only UTF-8 names without control characters", unlisted,
			  unlisted == 1 ? "file is" : "files are", quote(path));
	if (ev->o->verbosity >= VERBOSITY_VERBOSE)
		say(ev, "ASC MHL generation %u %s: %zu files", sequence, quote(path), files);
	if (ev->json_out) {
		jsonev_manifest(&ev->jev, path, sequence, files, unlisted);
		stdout_check(ev);
	}
}

/* A file written beside the data (a checksum list, a manifest) failed;
 * the copy stands.  msg: the words, or NULL when they took no memory. */
static void beside_failed(struct events *ev, const char *path, int err, const char *msg)
{
	note_line(ev, MSG_ERROR, "%s", msg ? msg : strerror(err));
	if (ev->json_out) {
		jsonev_error(&ev->jev, NULL, SAFECP_STEP_WRITE, err, path, msg, false);
		stdout_check(ev);
	}
}

void events_manifest_failed(struct events *ev, const char *path, int err)
{
	_cleanup_free_ char *msg = words_format("cannot write the ASC MHL manifest %s: %s; the "
						"files are copied, make room and copy again for "
						"the manifest", quote(path), strerror(err));

	beside_failed(ev, path, err, msg);
}

void events_list_failed(struct events *ev, const char *path, int err)
{
	_cleanup_free_ char *msg = words_format("cannot write the checksum list %s: %s; the "
						"files are copied, make room and copy again for "
						"the list", quote(path), strerror(err));

	beside_failed(ev, path, err, msg);
}

/* Kept files (-n) and identical ones are what the user asked for: named
 * with -v only.
 * Devices, FIFOs and sockets are a warning. */
static void on_skipped(struct events *ctx, const struct safecp_entry *e,
		       enum safecp_skip_reason reason)
{
	const char *why = words_skip_reason(reason);
	struct events *ev = ctx;

	if (e->identical) {
		if (ev->o->verbosity >= VERBOSITY_VERBOSE)
			say(ev, "%s identical to %s (%s): not copied", quote(e->source),
			    quote(e->dest), identical_words(e));
	} else if (e->kept) {
		if (ev->o->verbosity >= VERBOSITY_VERBOSE)
			say(ev, "%s kept: %s exists", quote(e->source), quote(e->dest));
	} else if (ev->o->verbosity >= VERBOSITY_NORMAL) {
		note_line(ev, MSG_WARNING, "skipping %s: %s", quote(e->source),
			      why);
	}
	if (ev->json_out) {
		if (e->identical)
			jsonev_identical(&ev->jev, e, why,
					 safecp_identical_basis_name(e->identical));
		else
			jsonev_file(&ev->jev, e, e->kept ? "kept" : "skipped", why);
		stdout_check(ev);
	}
}

static void on_error(struct events *ctx, const struct safecp_entry *e, enum safecp_copy_step step,
		     int neg_err,
		     const char *path, bool fatal)
{
	struct events *ev = ctx;
	int err = neg_err < 0 ? -neg_err : neg_err; /* lib passes -errno */
	/* the archive's "source" is made of many: the feed knows which one */
	bool pack_src = ev->o->pack && (step == SAFECP_STEP_READ || step == SAFECP_STEP_CHANGED);
	_cleanup_free_ char *msg = pack_src ? words_pack_failed(ev->o, e, step, err)
					    : words_copy_error(e, step, err, path, ev->facts,
							       fatal);
	bool note = step == SAFECP_STEP_ATTRS;

	if (fatal)
		ev->fatal_reported = true;
	if (!note || ev->o->verbosity >= VERBOSITY_NORMAL)
		note_line(ev, note ? MSG_WARNING : MSG_ERROR, "%s", msg ? msg : strerror(err));
	if (ev->json_out) {
		if (step == SAFECP_STEP_CHANGED)
			jsonev_changed(&ev->jev, e, msg);
		else
			jsonev_error(&ev->jev, e, step, err, path, msg, fatal);
		stdout_check(ev);
	}
}

/* The modes note is a fact about the stick, said once for it: the engine
 * passes the first file it chmod-ed, which read as "something is wrong
 * with IMG_0031.JPG" (issue 25 item 7). */
const char *words_fs_kind(const struct safecp_target_facts *t)
{
	const char *rules = t ? t->name_rules : NULL;

	if (!rules || strcmp(rules, "posix") == 0)
		return t && t->mount_type ? t->mount_type : "?";
	if (strcmp(rules, "exfat-or-ntfs") == 0)
		return "exFAT or NTFS";
	return strcmp(rules, "exfat") == 0 ? "exFAT" : strcmp(rules, "ntfs") == 0 ? "NTFS" : "FAT";
}

static void on_note(struct events *ctx, enum safecp_event_note kind, const char *path, int err,
		    uint64_t bytes)
{
	struct events *ev = ctx;
	_cleanup_free_ char *msg = words_note(kind, err, bytes);
	const char *what = msg ? msg : "out of memory", *fs = NULL;

	/* --pack: the sources' modes are in the archive; its own is a new file's */
	if (ev->o->pack && kind == SAFECP_NOTE_NO_MODES)
		return;
	if (kind == SAFECP_NOTE_NO_MODES || kind == SAFECP_NOTE_ATTRS_NOT_KEPT) {
		const struct safecp_target_facts *t = ev->facts;

		path = t && t->mountpoint ? t->mountpoint : ev->o->dests[ev->d];
		fs = words_fs_kind(t);
	}
	if (ev->o->verbosity >= VERBOSITY_NORMAL) {
		if (path && fs)
			note_line(ev, MSG_NOTE, "%s (%s): %s", quote(path), fs, what);
		else if (path)
			note_line(ev, MSG_NOTE, "%s: %s", quote(path), what);
		else
			note_line(ev, MSG_NOTE, "%s", what);
	}
	if (ev->json_out) {
		jsonev_note(&ev->jev, path, what);
		stdout_check(ev);
	}
}

/* With e: the engine changed strategy in the middle of that file (auto
 * found the kernel falling back to buffered writes). */
static void on_strategy(struct events *ctx, const struct safecp_entry *e, enum safecp_strategy s,
			enum safecp_switch_reason reason)
{
	struct events *ev = ctx;
	const char *why = words_switch_reason(reason);

	if (ev->o->verbosity >= VERBOSITY_VERBOSE) {
		if (e)
			say(ev, "%s: switching to the %s strategy: %s", quote(e->dest), safecp_strategy_name(s),
			    why ? why : "");
		else
			say(ev, "strategy: %s: %s", safecp_strategy_name(s), why ? why : "");
	}
	if (ev->json_out) {
		jsonev_strategy(&ev->jev, e, s, why);
		stdout_check(ev);
	}
}

void events_handle(struct events *ev, const struct safecp_copy_event *e,
		   const struct safecp_event_detail *x)
{
	struct safecp_entry entry;
	const struct safecp_entry *pe = x->entry != SIZE_MAX &&
		safecp_copy_entry(ev->o->copy, ev->d, x->entry, &entry, sizeof(entry)) == 0
		? &entry : NULL;

	switch (e->kind) {
	case SAFECP_EVENT_FILE_STARTED:
		if (pe)
			on_file_start(ev, pe, x->bytes);
		break;
	case SAFECP_EVENT_FILE_DONE:
		if (pe)
			file_published(ev, x->entry, pe, true, "finished", NULL);
		break;
	case SAFECP_EVENT_FILE_WITHDRAWN:
		if (pe)
			file_published(ev, x->entry, pe, false, "withdrawn",
				       "read back different at the end");
		break;
	case SAFECP_EVENT_SKIPPED:
		if (pe)
			on_skipped(ev, pe, x->skip);
		break;
	case SAFECP_EVENT_ERROR: on_error(ev, pe, x->step, e->err, x->path_given, e->fatal); break;
	case SAFECP_EVENT_NOTE: on_note(ev, x->note, x->path_given, e->err, x->bytes); break;
	case SAFECP_EVENT_STRATEGY: on_strategy(ev, pe, x->strategy, x->switch_reason); break;
	case SAFECP_EVENT_LIST_WRITTEN:
		events_list_written(ev, e->path, x->algorithm, (size_t)x->count);
		break;
	case SAFECP_EVENT_LIST_FAILED: events_list_failed(ev, e->path, e->err); break;
	case SAFECP_EVENT_LIST_LEFT_OUT:
	case SAFECP_EVENT_LIST_UNKNOWN: sums_warn(ev, e, x); break;
	case SAFECP_EVENT_MANIFEST_WRITTEN:
		events_manifest_written(ev, e->path, x->sequence, (size_t)x->count,
					(size_t)x->unlisted);
		break;
	case SAFECP_EVENT_MANIFEST_FAILED: events_manifest_failed(ev, e->path, e->err); break;
	default: break;
	}
}
