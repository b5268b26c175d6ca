/* safecp_events.c: what the user sees while safecp runs: one struct
 * events a destination, made, started and freed here, and the output
 * primitives the other parts of it write through (events_private.h
 * names the parts).
 *
 * Where lines go: errors and warnings to stderr through progress_note(),
 * which clears and redraws the bar; -v lines to stdout like cp -v, unless
 * stdout carries JSON or is the terminal the bar is drawn on, then to
 * stderr the same way.  JSON events go to stdout, one object per line,
 * flushed at once (json_line_end). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/events_private.h"
#include "base/cleanup.h"
#include "base/size.h"

/* ---- JSON */

/* A reader that went away (EPIPE; SIGPIPE is ignored) ends our output
 * to it, not the copy.  Writing stops, and the error flag is cleared so
 * close_stdout() meets the EPIPE again at fclose, where it is not an
 * error, rather than an unexplained earlier failure. */
void stdout_check(struct events *ev)
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

/* ---- text */

/* A diagnostic line through the meter. */
static void vnote_line(struct events *ev, enum msg_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void vnote_line(struct events *ev, enum msg_level level, const char *fmt, va_list ap)
{
	_cleanup_free_ char *msg = msg_vline(level, fmt, ap);

	if (msg)
		progress_note(ev->sh->meter, "%s", msg);
}

void note_line(struct events *ev, enum msg_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote_line(ev, level, fmt, ap);
	va_end(ap);
}

void events_warn(struct events *ev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote_line(ev, MSG_WARNING, fmt, ap);
	va_end(ap);
}

/* A -v line. */
void say(struct events *ev, const char *fmt, ...)
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

/* ---- a destination's events: the start, the lifetime */

void events_start(struct events *ev)
{
	struct safecp_write_plan w = { 0 };
	struct safecp_rename r;
	char win[SIZE_FORMAT_MAX];

	if (ev->json_out) {
		jsonev_start(&ev->jev, ev->o->copy, ev->d, ev->facts);
		stdout_check(ev);
	}
	/* --rename-invalid: a note per renamed file (JSON: the start event) */
	for (size_t i = 0; !ev->json_mode && ev->o->verbosity >= VERBOSITY_NORMAL &&
			   safecp_copy_rename(ev->o->copy, ev->d, i, &r, sizeof(r)) == 0; i++) {
		_cleanup_free_ char *msg = words_rename(ev->o->copy, ev->d, &r, ev->facts);

		if (msg)
			note_line(ev, MSG_NOTE, "%s", msg);
	}
	if (ev->o->verbosity >= VERBOSITY_VERBOSE) {
		_cleanup_free_ char *where = words_where(ev->facts);

		safecp_copy_write_plan(ev->o->copy, ev->d, &w, sizeof(w));
		size_format(win, sizeof(win), w.window);
		say(ev, "strategy: %s, %s windows, to %s: %s", safecp_strategy_name(w.strategy), win,
		    where ? where : quote(ev->plan.dest_root), words_sizing_reason(w.reason));
	}
}

int events_new(const struct safecp_options *o, size_t d, struct events *first,
	       struct events **ret)
{
	_cleanup_free_ struct events *ev = calloc(1, sizeof(*ev));
	struct events_shared *sh;
	int r;

	if (!ev)
		return -ENOMEM;
	ev->o = o;
	ev->d = d;
	ev->dest_arg = o->dests[d];
	ev->facts = dest_facts(o, d);
	if (safecp_copy_plan(o->copy, d, &ev->plan, sizeof(ev->plan)) < 0)
		return -ENOENT;
	ev->identical_verified = identical_read_back_count(o, d, &ev->plan, &ev->identical_cached);
	ev->published = calloc(ev->plan.entries + 1, sizeof(*ev->published));
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
		if (sh->n == SAFECP_DESTINATIONS_MAX) {
			free(ev->published);
			return -E2BIG;
		}
	} else {
		sh = ev->sh = calloc(1, sizeof(*sh));
		if (!sh) {
			free(ev->published);
			return -ENOMEM;
		}
		r = progress_new(&(struct progress_options){
					 .mode = o->progress,
					 .show = PROGRESS_SHOW_DONE,
					 .json = json_progress,
					 .userdata = sh,
				 }, &sh->meter);
		if (r < 0) {
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

void events_started(struct events *ev)
{
	ev->started = true;
}

/* With several destinations, JSON events carry the destination as given. */
void events_tag_dest(struct events *ev)
{
	ev->jev.dest = ev->dest_arg;
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
	free(sh);
}
