/* safecp_events.c: what the user sees while safecp runs: the engine's
 * callbacks and the polled copy_stats, as text lines, the progress meter
 * and --progress=json events (written by safecp_json.c).
 *
 * Two threads call in: the engine thread (file_start, error, ...) and the
 * main thread (events_tick every ~100 ms, the end).  One mutex orders all
 * output, so a warning never lands inside a half-drawn bar or JSON line.
 *
 * Where lines go: errors and warnings to stderr through progress_note(),
 * which clears and redraws the bar; -v lines to stdout like cp -v, unless
 * stdout carries JSON or is the terminal the bar is drawn on, then to
 * stderr the same way.  JSON events go to stdout, one object per line,
 * flushed at once (json_line_end).
 *
 * Honesty of the numbers: bytes_on_device is copy_stats.bytes_confirmed,
 * which the engine advances only when the device completed those bytes.
 * The counters are read before the clock, so a progress event never
 * claims, at its time "t", more than the device had completed by then. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "dirty/dirty.h"
#include "common/format.h"
#include "util/cleanup.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/msg.h"
#include "common/quote.h"
#include "device/fs_traits.h"
#include "safecp/tool.h"
#include "safecp/safecp_waiting.h"
#include "util/size.h"

/* What every destination's events share: one lock orders all output,
 * one meter, one stdout. */
struct events_shared {
	pthread_mutex_t lock;
	struct progress *meter;
	bool stdout_gone;    /* its reader went away: EPIPE */
	FILE *devnull;       /* where JSON goes once stdout is gone */
	struct events *all[COPY_DESTS_MAX];
	size_t n;
	size_t refs;
	struct copy_source_stats src; /* the last reading: the source row, the done event */
};

/* The destination device's figures (device_wait_sample()). */
struct device_wait {
	bool started;
	double next;                 /* when to read it again */
	struct progress_rate dev_rate;
	double rate;                 /* its write rate, bytes/s; -1 unknown */
	uint64_t other;              /* bytes of other data ahead of ours */
};

/* One destination's events. */
struct events {
	struct events_shared *sh;
	const struct safecp_options *o;
	const struct safecp_job *job;
	const struct copy_stats *stats;
	struct jsonev jev;  /* its --progress=json stream */
	bool json_mode;  /* --progress=json: events instead of the text */
	bool json_out;   /* events written: json_mode or --events */
	bool verbose_stdout; /* -v lines on stdout rather than through the meter */
	bool fatal_reported; /* the engine reported the error that stops it */
	bool finished;       /* its end was shown */
	const char *outcome; /* "ok", "failed", "interrupted", or NULL */
	int err;             /* failed: the error that stopped it, or 0 */
	struct progress_rate rate;
	struct snapshot snap;
	struct device_wait wait; /* the destination device's own figures */
	char wait_line[192];     /* its words, while it waits */
	bool *published;     /* per plan entry: its file_done came */
};

static const char *phase_item(int phase)
{
	switch (phase) {
	case COPY_PHASE_RECHECK: return "reading back again";
	case COPY_PHASE_FINAL_SYNC: return "flushing to the device";
	case COPY_PHASE_WAIT_IDLE: return "waiting for the device";
	}
	return NULL;
}

/* Other data ahead of ours on the destination's device: its dirty and
 * writeback bytes (debugfs bdi stats; the estimate is system-wide and
 * would name other devices' data) less our own bytes written and not yet
 * confirmed, which hold all of ours still dirty, so the figure is a lower
 * bound.  Read every half second; the device's write rate is its sector
 * counter over the meter's window. */
#define WAIT_READ_EVERY 0.5
#define WAIT_MIN_BYTES (1024 * 1024)

static void device_wait_sample(struct device_wait *w, const struct target *t, uint64_t ours)
{
	struct dirty_device d;
	double now = clock_monotonic();
	uint64_t pending;

	if (!w->started) {
		progress_rate_init(&w->dev_rate, 0);
		w->rate = -1;
		w->started = true;
	}
	if (!t || !t->has_block || !t->bdi[0] || now < w->next)
		return;
	w->next = now + WAIT_READ_EVERY;
	if (dirty_device_read(t->bdi, t->diskname, &d) < 0)
		return;
	if (d.has_block_stat)
		w->rate = progress_rate_sample(&w->dev_rate, now, d.sectors_written * 512);
	pending = dirty_device_pending(&d);
	w->other = d.source == DIRTY_SOURCE_DEBUGFS && pending > ours ? pending - ours : 0;
}

static bool device_wait_words(const struct device_wait *w, const struct target *t,
			      char *buf, size_t size)
{
	char sz[SIZE_FORMAT_MAX], r[FORMAT_RATE_MAX], e[FORMAT_DURATION_MAX];

	if (w->other < WAIT_MIN_BYTES)
		return false;
	size_format(sz, sizeof(sz), w->other);
	if (w->rate > 0)
		snprintf(buf, size, "for %s of other data on %s ahead of ours (%s, %s)", sz,
			 t->devnode, format_rate(r, sizeof(r), w->rate),
			 format_duration(e, sizeof(e), (double)w->other / w->rate));
	else
		snprintf(buf, size, "for %s of other data on %s ahead of ours", sz,
			 t->devnode);
	return true;
}

static void snapshot_take(struct events *ev, struct snapshot *s)
{
	const struct copy_stats *st = ev->stats;
	const struct plan *p = ev->job->plan;
	size_t cur;

	if (!st) { /* not started */
		*s = (struct snapshot){ .total = p->total_bytes, .rate = -1, .eta = -1,
					.identical = p->n_identical, .t_real = clock_realtime() };
		return;
	}

	s->identical = p->n_identical;
	s->confirmed = atomic_load(&st->bytes_confirmed);
	/* written >= confirmed at every instant; reading it second keeps that */
	s->written = atomic_load(&st->bytes_written);
	s->total = atomic_load(&st->bytes_total);
	if (s->total == 0)
		s->total = p->total_bytes;
	s->files_done = atomic_load(&st->files_done);
	s->files_failed = atomic_load(&st->files_failed);
	s->phase = atomic_load(&st->phase);
	cur = atomic_load(&st->current);
	s->file = s->phase == COPY_PHASE_COPYING && cur < p->n_entries ?
		  p->entries[cur].source->rel : NULL;
	s->verify = ev->o->verify;
	s->verified = atomic_load(&st->bytes_verified);
	s->files_verified = atomic_load(&st->files_verified);
	s->files_mismatched = atomic_load(&st->files_mismatched);
	s->identical_verified = identical_read_back_count(p, &s->verify_cached);
	s->verify_cached = s->verify_cached || atomic_load(&st->verify_cached);
	s->pack = ev->o->pack;
	if (ev->o->pack_feed) {
		s->packed = pack_feed_packed(ev->o->pack_feed);
		s->pack_total = pack_tree_bytes(ev->o->pack_tree);
	}
	s->device_idle = atomic_load(&st->device_idle);
	s->device_busy = atomic_load(&st->device_busy_bytes);
	s->t_real = clock_realtime();
	s->rate = progress_rate_sample(&ev->rate, clock_monotonic(), s->confirmed);
	device_wait_sample(&ev->wait, ev->job->target, s->written - s->confirmed);
	/* confirmed bytes come in batches, so their rate over the window can
	 * exceed what the device wrote in it: the device's own is a bound */
	if (s->rate >= 0 && ev->wait.rate >= 0 && s->rate > ev->wait.rate)
		s->rate = ev->wait.rate;
	s->eta = progress_eta(s->total > s->confirmed ? s->total - s->confirmed : 0, s->rate);
}

static void state_from(struct snapshot *s, struct progress_state *ret)
{
	const char *item = phase_item(s->phase);
	char verified[SIZE_FORMAT_MAX], packed[SIZE_FORMAT_MAX];
	int n;

	n = snprintf(s->label, sizeof(s->label), "on device");
	if (s->verify) {
		size_format(verified, sizeof(verified), s->verified);
		n = snprintf(s->label, sizeof(s->label), "on device, %s verified", verified);
	}
	/* the archive's bytes are the bar's; the sources' the second figure
	 * (their total is JSON's: the line has no room) */
	if (s->pack && n > 0 && (size_t)n < sizeof(s->label)) {
		size_format(packed, sizeof(packed), s->packed);
		snprintf(s->label + n, sizeof(s->label) - (size_t)n, ", %s packed", packed);
	}

	*ret = (struct progress_state){
		.total = s->total,
		.done = s->confirmed,
		.in_flight = s->written > s->confirmed ? s->written - s->confirmed : 0,
		.rate = s->rate,
		.eta = s->eta,
		.item = item ? item : s->file,
		.label = s->label,
	};
	/* the final sync: a rounded-up "ETA 0:00" at 99% would read as done */
	if (s->phase >= COPY_PHASE_FINAL_SYNC ||
	    (s->total > 0 && s->confirmed >= s->total))
		ret->status = "syncing";
}

/* Other data on the destination's device ahead of ours: the bar says
 * what it waits for rather than sitting at "0 B/s":
 *   99%  2.00 MiB / 2.00 MiB on device  0 B/s  waiting  for 18.0 MiB of
 *   other data on /dev/loop0 ahead of ours (7.99 MiB/s, 0:03)
 * "waiting" stands where the ETA would, so it stays when a narrow bar
 * drops the item. */
static void state_waiting(struct events *ev, struct progress_state *st)
{
	if (!device_wait_words(&ev->wait, ev->job->target, ev->wait_line,
			       sizeof(ev->wait_line)))
		return;
	st->status = "waiting";
	st->item = ev->wait_line;
}

/* ---- JSON */

/* A reader that went away (EPIPE; SIGPIPE is ignored) ends our output
 * to it, not the copy.  Writing stops, and the error flag is cleared so
 * close_stdout() meets the EPIPE again at fclose, where it is not an
 * error, rather than an unexplained earlier failure. */
static void stdout_check(struct events *ev)
{
	if (ev->sh->stdout_gone || !ferror(stdout) || errno != EPIPE)
		return;
	clearerr(stdout);
	ev->sh->stdout_gone = true;
	if (!ev->sh->devnull)
		ev->sh->devnull = fopen("/dev/null", "we");
	for (size_t i = 0; ev->sh->devnull && i < ev->sh->n; i++)
		ev->sh->all[i]->jev.json.f = ev->sh->devnull;
}

static struct dest_outcome outcome_of(const struct events *e)
{
	return (struct dest_outcome){
		.dest = e->job->dest_arg,
		.outcome = e->outcome ? e->outcome : "interrupted",
		.error = e->err ? strerror(e->err) : NULL,
		.files = e->snap.files_done,
		.errors = e->snap.files_failed,
		.bytes_on_device = e->snap.confirmed,
		.identical = e->job->plan->n_identical,
		.snap = &e->snap,
	};
}

static void outcomes(const struct events_shared *sh, struct dest_outcome *ret)
{
	for (size_t i = 0; i < sh->n; i++)
		ret[i] = outcome_of(sh->all[i]);
}

/* The meter's callback in --progress=json, with ev->lock held: it shows
 * ev->snap, from which st was made. */
static void json_progress(FILE *out, const struct progress_state *st, bool final, void *userdata)
{
	struct events_shared *sh = userdata;

	if (sh->n == 1) {
		if (final)
			jsonev_done(&sh->all[0]->jev, &sh->all[0]->snap, NULL, 0, &sh->src);
		else
			jsonev_progress_waiting(&sh->all[0]->jev, &sh->all[0]->snap,
						sh->all[0]->wait.other);
		stdout_check(sh->all[0]);
		return;
	}
	/* several destinations: each its own progress (finished ones said
	 * dest-done), and one done event for the job */
	for (size_t i = 0; !final && i < sh->n; i++)
		if (!sh->all[i]->finished)
			jsonev_progress_waiting(&sh->all[i]->jev, &sh->all[i]->snap,
						sh->all[i]->wait.other);
	if (final) {
		struct dest_outcome d[COPY_DESTS_MAX];

		outcomes(sh, d);
		jsonev_done(&sh->all[0]->jev, &sh->all[0]->snap, d, sh->n, &sh->src);
	}
	stdout_check(sh->all[0]);
}

/* ---- text */

/* A diagnostic line through the meter, with ev's lock held. */
static void vnote_line(struct events *ev, enum msg_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void vnote_line(struct events *ev, enum msg_level level, const char *fmt, va_list ap)
{
	_cleanup_free_ char *msg = msg_vline(level, fmt, ap);

	if (msg)
		progress_note(ev->sh->meter, "%s", msg);
}

static void note_line(struct events *ev, enum msg_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note_line(struct events *ev, enum msg_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote_line(ev, level, fmt, ap);
	va_end(ap);
}

void events_warn(struct events *ev, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&ev->sh->lock);
	va_start(ap, fmt);
	vnote_line(ev, MSG_WARNING, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&ev->sh->lock);
}

/* A -v line, with ev->lock held. */
static void say(struct events *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct events *ev, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	if (ev->verbose_stdout) {
		if (!ev->sh->stdout_gone)
			printf("%s\n", msg);
		stdout_check(ev);
	} else
		progress_note(ev->sh->meter, "%s", msg);
}

/* ---- engine callbacks (engine thread) */

/* A file event in --progress=json, with the lock held. */
static void json_file(struct events *ev, const struct plan_entry *e, const char *state,
		      const char *reason)
{
	if (!ev->json_out)
		return;
	jsonev_file(&ev->jev, e, state, reason);
	stdout_check(ev);
}

static void on_file_start(struct events *ctx, const struct plan_entry *e)
{
	struct events *ev = ctx;

	pthread_mutex_lock(&ev->sh->lock);
	if (ev->o->verbosity >= VERBOSITY_VERBOSE)
		say(ev, "%s -> %s", quote(e->source->src), quote(e->dst));
	json_file(ev, e, "started", NULL);
	pthread_mutex_unlock(&ev->sh->lock);
}

/* The file is under its final name now, or no longer (events_published()). */
static void file_published(struct events *ev, const struct plan_entry *e, bool published,
			   const char *state, const char *reason)
{
	pthread_mutex_lock(&ev->sh->lock);
	ev->published[e - ev->job->plan->entries] = published;
	json_file(ev, e, state, reason);
	pthread_mutex_unlock(&ev->sh->lock);
}

static void on_file_done(struct events *ctx, const struct plan_entry *e)
{
	file_published(ctx, e, true, "finished", NULL);
}

static void on_file_withdrawn(struct events *ctx, const struct plan_entry *e)
{
	file_published(ctx, e, false, "withdrawn", "read back different at the end");
}

bool events_published(struct events *ev, size_t idx)
{
	bool done;

	pthread_mutex_lock(&ev->sh->lock);
	done = idx < ev->job->plan->n_entries && ev->published[idx];
	pthread_mutex_unlock(&ev->sh->lock);
	return done;
}

void events_list_written(struct events *ev, const char *path, const char *alg, size_t files)
{
	pthread_mutex_lock(&ev->sh->lock);
	if (ev->o->verbosity >= VERBOSITY_VERBOSE)
		say(ev, "%s list %s: %zu files", alg, quote(path), files);
	if (ev->json_out) {
		jsonev_list(&ev->jev, path, alg, files);
		stdout_check(ev);
	}
	pthread_mutex_unlock(&ev->sh->lock);
}

void events_manifest_written(struct events *ev, const char *path, unsigned sequence,
			     size_t files, size_t unlisted)
{
	pthread_mutex_lock(&ev->sh->lock);
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
	pthread_mutex_unlock(&ev->sh->lock);
}

/* A file written beside the data (a checksum list, a manifest) failed;
 * the copy stands.  msg: the words, or NULL when they took no memory. */
static void beside_failed(struct events *ev, const char *path, int err, const char *msg)
{
	pthread_mutex_lock(&ev->sh->lock);
	note_line(ev, MSG_ERROR, "%s", msg ? msg : strerror(err));
	if (ev->json_out) {
		jsonev_error(&ev->jev, NULL, COPY_STEP_WRITE, err, path, msg, false);
		stdout_check(ev);
	}
	pthread_mutex_unlock(&ev->sh->lock);
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
static void on_skipped(struct events *ctx, const struct plan_entry *e, enum copy_skip_reason reason)
{
	const char *why = words_skip_reason(reason);

	struct events *ev = ctx;

	pthread_mutex_lock(&ev->sh->lock);
	if (e->identical) {
		if (ev->o->verbosity >= VERBOSITY_VERBOSE)
			say(ev, "%s identical to %s (%s): not copied", quote(e->source->src),
			    quote(e->dst), identical_words(e));
	} else if (e->skip_existing) {
		if (ev->o->verbosity >= VERBOSITY_VERBOSE)
			say(ev, "%s kept: %s exists", quote(e->source->src), quote(e->dst));
	} else if (ev->o->verbosity >= VERBOSITY_NORMAL) {
		note_line(ev, MSG_WARNING, "skipping %s: %s", quote(e->source->src),
			      why);
	}
	if (ev->json_out) {
		if (e->identical)
			jsonev_identical(&ev->jev, e, why, identical_basis_name(e->identical));
		else
			jsonev_file(&ev->jev, e, e->skip_existing ? "kept" : "skipped", why);
		stdout_check(ev);
	}
	pthread_mutex_unlock(&ev->sh->lock);
}

static void on_error(struct events *ctx, const struct plan_entry *e, enum copy_step step, int neg_err,
		     const char *path, bool fatal)
{
	struct events *ev = ctx;
	int err = neg_err < 0 ? -neg_err : neg_err; /* lib passes -errno */
	/* the archive's "source" is made of many: the feed knows which one */
	bool pack_src = ev->o->pack && (step == COPY_STEP_READ || step == COPY_STEP_CHANGED);
	_cleanup_free_ char *msg = pack_src ? words_pack_failed(ev->o, e, step, err)
					    : words_copy_error(e, step, err, path, ev->job->target,
							       fatal);
	bool note = step == COPY_STEP_ATTRS;

	pthread_mutex_lock(&ev->sh->lock);
	if (fatal)
		ev->fatal_reported = true;
	if (!note || ev->o->verbosity >= VERBOSITY_NORMAL)
		note_line(ev, note ? MSG_WARNING : MSG_ERROR, "%s", msg ? msg : strerror(err));
	if (ev->json_out) {
		if (step == COPY_STEP_CHANGED)
			jsonev_changed(&ev->jev, e, msg);
		else
			jsonev_error(&ev->jev, e, step, err, path, msg, fatal);
		stdout_check(ev);
	}
	pthread_mutex_unlock(&ev->sh->lock);
}

/* The modes note is a fact about the stick, said once for it: the engine
 * passes the first file it chmod-ed, which read as "something is wrong
 * with IMG_0031.JPG" (issue 25 item 7). */
static const char *modes_fs_word(const struct target *t)
{
	switch (fs_traits_of(t)->names) {
	case NAME_FS_FAT: case NAME_FS_FUSEFAT: return "FAT";
	case NAME_FS_EXFAT: return "exFAT";
	case NAME_FS_NTFS: return "NTFS";
	case NAME_FS_FUSEBLK: return "exFAT or NTFS";
	case NAME_FS_POSIX: break;
	}
	return t->fstype ? t->fstype : "?";
}

static void on_note(struct events *ctx, enum copy_note_kind kind, const char *path, int err,
		    uint64_t bytes)
{
	struct events *ev = ctx;
	_cleanup_free_ char *msg = words_note(kind, err, bytes);
	const char *what = msg ? msg : "out of memory", *fs = NULL;

	/* --pack: the sources' modes are in the archive; its own is a new file's */
	if (ev->o->pack && kind == COPY_NOTE_NO_MODES)
		return;
	if (kind == COPY_NOTE_NO_MODES) {
		const struct target *t = ev->job->target;

		path = t->mountpoint ? t->mountpoint : ev->job->dest_arg;
		fs = modes_fs_word(t);
	}
	pthread_mutex_lock(&ev->sh->lock);
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
	pthread_mutex_unlock(&ev->sh->lock);
}

/* With e: the engine changed strategy in the middle of that file (auto
 * found the kernel falling back to buffered writes). */
static void on_strategy(struct events *ctx, const struct plan_entry *e, enum write_strategy s,
			enum writer_switch_reason reason)
{
	struct events *ev = ctx;
	const char *why = words_switch_reason(reason);

	pthread_mutex_lock(&ev->sh->lock);
	if (ev->o->verbosity >= VERBOSITY_VERBOSE) {
		if (e)
			say(ev, "%s: switching to the %s strategy: %s", quote(e->dst), strategy_name(s),
			    why ? why : "");
		else
			say(ev, "strategy: %s: %s", strategy_name(s), why ? why : "");
	}
	if (ev->json_out) {
		jsonev_strategy(&ev->jev, e, s, why);
		stdout_check(ev);
	}
	pthread_mutex_unlock(&ev->sh->lock);
}

void events_handle(struct events *ev, const struct copy_event *e)
{
	const struct plan *p = ev->job->plan;
	const struct plan_entry *pe = e->entry < p->n_entries ? &p->entries[e->entry] : NULL;

	switch (e->kind) {
	case COPY_EVENT_FILE_START: on_file_start(ev, pe); break;
	case COPY_EVENT_FILE_DONE: on_file_done(ev, pe); break;
	case COPY_EVENT_FILE_WITHDRAWN: on_file_withdrawn(ev, pe); break;
	case COPY_EVENT_SKIPPED: on_skipped(ev, pe, e->skip); break;
	case COPY_EVENT_ERROR: on_error(ev, pe, e->step, e->err, e->path, e->fatal); break;
	case COPY_EVENT_NOTE: on_note(ev, e->note, e->path, e->err, e->bytes); break;
	case COPY_EVENT_STRATEGY: on_strategy(ev, pe, e->strategy, e->why); break;
	case COPY_EVENT_LIST_WRITTEN:
		events_list_written(ev, e->path, checksum_alg_name(e->alg), (size_t)e->count);
		break;
	case COPY_EVENT_LIST_FAILED: events_list_failed(ev, e->path, e->err); break;
	case COPY_EVENT_LIST_LEFT_OUT: case COPY_EVENT_LIST_UNKNOWN: sums_warn(ev, e); break;
	case COPY_EVENT_MANIFEST_WRITTEN:
		events_manifest_written(ev, e->path, e->sequence, (size_t)e->count,
					(size_t)e->unlisted);
		break;
	case COPY_EVENT_MANIFEST_FAILED: events_manifest_failed(ev, e->path, e->err); break;
	case COPY_EVENT_DEST_END: break;
	}
}

/* ---- main thread */

void events_start(struct events *ev)
{
	const struct write_plan *w = &ev->job->wplan;
	char win[SIZE_FORMAT_MAX];

	pthread_mutex_lock(&ev->sh->lock);
	if (ev->json_out) {
		jsonev_start(&ev->jev, ev->job);
		stdout_check(ev);
	}
	/* --rename-invalid: a note per renamed file (JSON: the start event) */
	for (size_t i = 0; !ev->json_mode && ev->o->verbosity >= VERBOSITY_NORMAL &&
			   i < ev->job->names.n_renames; i++) {
		_cleanup_free_ char *msg = words_rename(ev->job->plan, &ev->job->names.renames[i],
							ev->job->target);

		if (msg)
			note_line(ev, MSG_NOTE, "%s", msg);
	}
	if (ev->o->verbosity >= VERBOSITY_VERBOSE) {
		_cleanup_free_ char *where = words_where(ev->job->target);

		size_format(win, sizeof(win), w->window);
		say(ev, "strategy: %s, %s windows, to %s: %s", strategy_name(w->strategy), win,
		    where ? where : quote(ev->job->plan->dest_root), words_sizing_reason(w->reason));
	}
	pthread_mutex_unlock(&ev->sh->lock);
}

/* With several destinations the bar shows the one furthest behind (its
 * share confirmed), so it is never ahead of any device; each has its own
 * JSON progress, and its own line when it ends. */
/* Every destination has all it will take from the source. */
static bool copy_done_reading(const struct events_shared *sh)
{
	for (size_t i = 0; i < sh->n; i++)
		if (!sh->all[i]->finished &&
		    (!sh->all[i]->stats ||
		     atomic_load(&sh->all[i]->stats->phase) < COPY_PHASE_FINAL_SYNC))
			return false;
	return true;
}

static struct events *furthest_behind(struct events_shared *sh)
{
	struct events *worst = NULL;
	double worst_frac = 2;

	for (size_t i = 0; i < sh->n; i++) {
		struct events *e = sh->all[i];
		double frac = e->snap.total ? (double)e->snap.confirmed / (double)e->snap.total : 1;

		if (e->finished && sh->n > 1)
			continue;
		if (frac < worst_frac) {
			worst_frac = frac;
			worst = e;
		}
	}
	return worst ? worst : sh->all[0];
}

/* Several destinations: a row each (the destination as given, what its
 * device confirmed), then the source's row (bytes read once). */
/* A destination's row names it as given; when two end in the same name
 * (offload-card's STICK/DATE/LABEL, shortened from the left on a narrow
 * terminal, read "...EOS_DIGITAL" on every row), each row names its stick:
 * its mount point. */
static const char *row_name(const struct events_shared *sh, size_t i)
{
	const char *mine = strrchr(sh->all[i]->job->dest_arg, '/');
	const struct target *t = sh->all[i]->job->target;

	for (size_t j = 0; mine && t->mountpoint && j < sh->n; j++) {
		const char *other = strrchr(sh->all[j]->job->dest_arg, '/');

		if (j != i && other && strcmp(mine, other) == 0)
			return t->mountpoint;
	}
	return sh->all[i]->job->dest_arg;
}

static void rows_from(struct events_shared *sh, struct progress_state *rows)
{
	const struct plan *p = sh->all[0]->job->plan;
	uint64_t first_read = sh->src.bytes_read - sh->src.bytes_reread;

	for (size_t i = 0; i < sh->n; i++) {
		struct events *e = sh->all[i];

		state_from(&e->snap, &rows[i]);
		if (!e->finished)
			state_waiting(e, &rows[i]);
		rows[i].item = row_name(sh, i);
		rows[i].complete = e->finished && e->outcome && strcmp(e->outcome, "ok") == 0;
		if (e->finished)
			rows[i].rate = rows[i].eta = -1;
	}
	rows[sh->n] = (struct progress_state){
		.total = p->total_bytes,
		.done = MIN(first_read, p->total_bytes),
		.rate = -1,
		.eta = -1,
		.item = "source",
		.label = "read",
		.complete = copy_done_reading(sh),
	};
}

static void tick_locked(struct events_shared *sh)
{
	struct progress_state st, rows[COPY_DESTS_MAX + 1];
	struct events *w;

	for (size_t i = 0; i < sh->n; i++)
		if (!sh->all[i]->finished || sh->n == 1)
			snapshot_take(sh->all[i], &sh->all[i]->snap);
	w = furthest_behind(sh);
	state_from(&w->snap, &st);
	state_waiting(w, &st);
	if (sh->n == 1 || sh->all[0]->o->progress == PROGRESS_JSON) {
		progress_update(sh->meter, &st);
		return;
	}
	rows_from(sh, rows);
	progress_update_rows(sh->meter, rows, sh->n + 1);
}

void events_source(struct events *ev, const struct copy_source_stats *src)
{
	pthread_mutex_lock(&ev->sh->lock);
	ev->sh->src = *src;
	/* --pack: the reader read the archive's stream; the sources are the feed's */
	if (ev->o->pack_feed)
		ev->sh->src.bytes_read = pack_feed_packed(ev->o->pack_feed);
	pthread_mutex_unlock(&ev->sh->lock);
}

void events_tick(struct events *ev)
{
	pthread_mutex_lock(&ev->sh->lock);
	tick_locked(ev->sh);
	pthread_mutex_unlock(&ev->sh->lock);
}

/* Only a removable or USB/MMC disk gets "it can be removed". */
static bool disk_removable(const struct target *t)
{
	return t->has_block && (t->disk.removable || t->disk.transport == TRANSPORT_USB ||
				t->disk.transport == TRANSPORT_MMC);
}

/* How the device was left: idle means seen idle (dirty_idle.h: as root
 * from its bdi, as any user from the system's writeback and the disk's
 * counters); else what kept it busy, or nothing known when it could not
 * be watched at all. */
static char *device_words(const struct snapshot *s)
{
	char busy[SIZE_FORMAT_MAX];

	if (s->device_idle)
		return strdup("the device is idle");
	if (s->device_busy == 0)
		return strdup("flushed (the device's idle state could not be confirmed; "
			      "wait for its light before removing it)");
	size_format(busy, sizeof(busy), s->device_busy);
	return words_format("flushed; the device was still busy with %s of other data, so it "
			    "was not seen idle: wait for its light before removing it", busy);
}

static char *final_line(const struct events *ev, int failed)
{
	const struct target *t = ev->job->target;
	const struct snapshot *s = &ev->snap;
	char size[SIZE_FORMAT_MAX];
	const char *files = s->files_done == 1 ? "file" : "files";
	bool idle = ev->stats && s->device_idle;
	const char *after = failed ? "; some files failed (see above)"
			    : idle && disk_removable(t) ? "; it can be removed" : "";
	_cleanup_free_ char *checked = NULL, *same = NULL, *device = NULL;
	char *line = NULL;
	int r;

	if (s->verify)
		checked = words_format(" (%ju read back from the device and matched%s)",
				       (uintmax_t)s->files_verified,
				       s->verify_cached ? "; device cache not bypassed" : "");
	/* --skip-identical: what was already there, first */
	if (s->identical)
		same = words_format("%ju identical %s already there, not copied; ",
				    (uintmax_t)s->identical,
				    s->identical == 1 ? "file was" : "files were");

	size_format(size, sizeof(size), s->confirmed);
	if (t->has_block) {
		device = device_words(s);
		if (!device)
			return NULL;
		r = asprintf(&line, "%s%s in %ju %s%s is on %s and %s%s", same ? same : "", size,
			     (uintmax_t)s->files_done, files, checked ? checked : "",
			     quote_bare(t->devnode), device, after);
	} else
		r = asprintf(&line, "%s%s in %ju %s%s is on %s%s", same ? same : "", size,
			     (uintmax_t)s->files_done, files, checked ? checked : "",
			     quote(t->mountpoint ? t->mountpoint : t->path), after);
	return r < 0 ? NULL : line;
}

void events_done(struct events *ev, int failed)
{
	struct progress_state st;
	char *line;

	pthread_mutex_lock(&ev->sh->lock);
	snapshot_take(ev, &ev->snap);
	state_from(&ev->snap, &st);
	progress_update(ev->sh->meter, &st);
	line = final_line(ev, failed);
	if (ev->json_mode)
		progress_done(ev->sh->meter, NULL);  /* the done event */
	else if (ev->sh->meter)
		progress_done(ev->sh->meter, line);
	else if (ev->o->verbosity >= VERBOSITY_VERBOSE && line)
		say(ev, "%s", line);
	if (ev->json_out && !ev->json_mode)  /* --events: the meter draws, not writes it */
		jsonev_done(&ev->jev, &ev->snap, NULL, 0, &ev->sh->src);
	free(line);
	pthread_mutex_unlock(&ev->sh->lock);
}

void events_dest_finished(struct events *ev, int result)
{
	struct events_shared *sh = ev->sh;
	_cleanup_free_ char *line = NULL;

	pthread_mutex_lock(&sh->lock);
	snapshot_take(ev, &ev->snap);
	ev->finished = true;
	ev->outcome = result == -ECANCELED ? "interrupted" : result == 0 ? "ok" : "failed";
	ev->err = result < 0 && result != -ECANCELED ? -result : 0;
	if (result >= 0) {
		line = final_line(ev, result);
		if (!ev->json_mode && ev->o->verbosity >= VERBOSITY_NORMAL && line)
			progress_note(sh->meter, "%s: %s", quote(ev->job->dest_arg), line);
	} else if (result != -ECANCELED) {
		if (!ev->fatal_reported) {
			note_line(ev, MSG_ERROR, "cannot copy to %s: %s",
				  quote(ev->job->plan->dest_root), strerror(ev->err));
			if (ev->json_out)
				jsonev_error(&ev->jev, NULL, COPY_STEP_WRITE, ev->err,
					     ev->job->plan->dest_root, strerror(ev->err), true);
		}
		note_line(ev, MSG_ERROR, "%s: stopped: %ju %s copied before the error; "
			  "temporary files removed, nothing partial was left under a final "
			  "name; the other destinations go on", quote(ev->job->dest_arg), (uintmax_t)ev->snap.files_done,
			      ev->snap.files_done == 1 ? "file" : "files");
	}
	if (ev->json_out) {
		struct dest_outcome d = outcome_of(ev);

		jsonev_dest_done(&ev->jev, &ev->snap, &d, line);
		stdout_check(ev);
	}
	pthread_mutex_unlock(&sh->lock);
}

/* What an interrupted run leaves on ev's destination, in words: "29 of 46
 * files (119 MiB) are complete on 'DEST'" (named: "on 'DEST' 29 of 46
 * files (119 MiB) are complete").  Caller holds the lock. */
static char *complete_words(const struct events *ev, bool named)
{
	const struct plan *p = ev->job->plan;
	uint64_t files = 0, bytes = 0;
	char size[SIZE_FORMAT_MAX];
	char *s = NULL;

	for (size_t i = 0; i < p->n_entries; i++)
		if (ev->published[i] && S_ISREG(p->entries[i].source->st.st_mode)) {
			files++;
			bytes += (uint64_t)p->entries[i].source->st.st_size;
		}
	size_format(size, sizeof(size), bytes);
	int r = named ? asprintf(&s, "on %s %ju of %zu %s (%s) %s complete",
				 quote(ev->job->dest_arg), (uintmax_t)files, p->n_files,
				 p->n_files == 1 ? "file" : "files", size, files == 1 ? "is" : "are")
		      : asprintf(&s, "%ju of %zu %s (%s) %s complete on %s", (uintmax_t)files,
				 p->n_files, p->n_files == 1 ? "file" : "files", size,
				 files == 1 ? "is" : "are", quote(ev->job->dest_arg));

	return r < 0 ? NULL : s;
}

/* The rest of the line: what is safe, and how to finish. */
static const char *next_step(const struct events *ev)
{
	if (ev->o->unpack)
		return "; nothing partial is left under a final name; run the same command again "
		       "to unpack the rest";
	if (ev->o->skip_identical)
		return "; nothing partial is left under a final name; run the same command again "
		       "to copy the rest";
	return "; nothing partial is left under a final name; run the same command with "
	       "--skip-identical to copy the rest";
}

void events_job_done(struct events *ev, const struct copy_source_stats *src, int signo)
{
	struct events_shared *sh = ev->sh;
	struct dest_outcome d[COPY_DESTS_MAX];
	size_t ok = 0;
	char size[SIZE_FORMAT_MAX];
	_cleanup_free_ char *line = NULL;

	pthread_mutex_lock(&sh->lock);
	outcomes(sh, d);
	for (size_t i = 0; i < sh->n; i++)
		ok += strcmp(d[i].outcome, "ok") == 0;
	if (signo) {
		progress_free(sh->meter);
		sh->meter = NULL;
		if (ev->json_out) {
			jsonev_interrupted(&ev->jev, &ev->snap, signo);
			stdout_check(ev);
		}
		_cleanup_free_ char *each = NULL;

		for (size_t i = 0; i < sh->n; i++) {
			_cleanup_free_ char *one = complete_words(sh->all[i], true);
			char *joined = NULL;

			if (asprintf(&joined, "%s%s%s", each ? each : "", each ? ", " : "",
				     one ? one : "?") < 0)
				break;
			free(each);
			each = joined;
		}
		fprintf(stderr, "%s: interrupted by SIG%s: %s%s\n", program_name,
			sigabbrev_np(signo), each ? each : "", next_step(ev));
	} else {
		size_format(size, sizeof(size), src->bytes_read);
		if (asprintf(&line, "%zu of %zu destinations complete; %s read from the source",
			     ok, sh->n, size) < 0)
			line = NULL;
		tick_locked(sh);
		/* for the done event; the bar's source row was drawn from the
		 * last tick's reading above, as on every tick */
		sh->src = *src;
		if (ev->json_mode)
			progress_done(sh->meter, NULL);
		else if (sh->meter)
			progress_done(sh->meter, line);
		else if (ev->o->verbosity >= VERBOSITY_VERBOSE && line)
			say(ev, "%s", line);
		if (ev->json_out && !ev->json_mode)
			jsonev_done(&sh->all[0]->jev, &sh->all[0]->snap, d, sh->n, &sh->src);
	}
	pthread_mutex_unlock(&sh->lock);
}

/* Ends the bar (kept on screen) before the last words. */
static void meter_close(struct events *ev)
{
	progress_free(ev->sh->meter);
	ev->sh->meter = NULL;
}

void events_interrupted(struct events *ev, int signo)
{
	pthread_mutex_lock(&ev->sh->lock);
	snapshot_take(ev, &ev->snap);
	meter_close(ev);
	if (ev->json_out) {
		jsonev_interrupted(&ev->jev, &ev->snap, signo);
		stdout_check(ev);
	}
	if (ev->o->pack) {
		fprintf(stderr, "%s: interrupted by SIG%s: the archive was not written, nothing is "
			"left under its name; run the same command again\n", program_name,
			sigabbrev_np(signo));
	} else {
		_cleanup_free_ char *done = complete_words(ev, false);

		fprintf(stderr, "%s: interrupted by SIG%s: %s%s\n", program_name,
			sigabbrev_np(signo), done ? done : "", next_step(ev));
	}
	pthread_mutex_unlock(&ev->sh->lock);
}

void events_cancelling(struct events *ev)
{
	pthread_mutex_lock(&ev->sh->lock);
	meter_close(ev);
	pthread_mutex_unlock(&ev->sh->lock);
}

void events_stopped(struct events *ev, int err)
{
	pthread_mutex_lock(&ev->sh->lock);
	snapshot_take(ev, &ev->snap);
	meter_close(ev);
	if (!ev->fatal_reported) {
		fprintf(stderr, "%s: cannot copy to %s: %s\n", program_name,
			quote(ev->job->plan->dest_root), strerror(err));
		if (ev->json_out)
			jsonev_error(&ev->jev, NULL, COPY_STEP_WRITE, err, ev->job->plan->dest_root,
				     strerror(err), true);
	}
	if (ev->json_out) {
		jsonev_stopped(&ev->jev, &ev->snap);
		stdout_check(ev);
	}
	fprintf(stderr, "%s: stopped: %ju %s copied before the error; temporary files "
		"removed, nothing partial was left under a final name\n", program_name,
		(uintmax_t)ev->snap.files_done, ev->snap.files_done == 1 ? "file" : "files");
	pthread_mutex_unlock(&ev->sh->lock);
}

int events_new(const struct safecp_options *o, const struct safecp_job *job,
	       const struct copy_stats *stats, struct events *first, struct events **ret)
{
	_cleanup_free_ struct events *ev = calloc(1, sizeof(*ev));
	struct events_shared *sh;
	int r;

	if (!ev)
		return -ENOMEM;
	ev->o = o;
	ev->job = job;
	ev->stats = stats;
	ev->published = calloc(job->plan->n_entries + 1, sizeof(*ev->published));
	if (!ev->published)
		return -ENOMEM;
	ev->json_mode = o->progress == PROGRESS_JSON;
	ev->json_out = ev->json_mode || o->events_out;
	jsonev_init(&ev->jev, o->events_out && !ev->json_mode ? o->events_out : stdout, NULL);
	ev->verbose_stdout = !ev->json_mode &&
			     !(o->progress == PROGRESS_BAR && isatty(STDOUT_FILENO));
	progress_rate_init(&ev->rate, 0);
	if (first) {
		sh = ev->sh = first->sh;
		if (sh->n == COPY_DESTS_MAX) {
			free(ev->published);
			return -E2BIG;
		}
	} else {
		sh = ev->sh = calloc(1, sizeof(*sh));
		if (!sh) {
			free(ev->published);
			return -ENOMEM;
		}
		pthread_mutex_init(&sh->lock, NULL);
		r = progress_new(&(struct progress_options){
					 .mode = o->progress,
					 .show = PROGRESS_SHOW_DONE,
					 .json = json_progress,
					 .userdata = sh,
				 }, &sh->meter);
		if (r < 0) {
			pthread_mutex_destroy(&sh->lock);
			free(sh);
			free(ev->published);
			return r;
		}
	}
	sh->all[sh->n++] = ev;
	sh->refs++;
	*ret = TAKE_PTR(ev);
	return 0;
}

void events_set_stats(struct events *ev, const struct copy_stats *stats)
{
	pthread_mutex_lock(&ev->sh->lock);
	ev->stats = stats;
	pthread_mutex_unlock(&ev->sh->lock);
}

/* With several destinations, JSON events carry the destination as given. */
void events_tag_dest(struct events *ev)
{
	ev->jev.dest = ev->job->dest_arg;
}

void events_free(struct events *ev)
{
	struct events_shared *sh;

	if (!ev)
		return;
	sh = ev->sh;
	free(ev->published);
	free(ev);
	if (--sh->refs > 0)
		return;
	progress_free(sh->meter);
	if (sh->devnull)
		fclose(sh->devnull);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}
