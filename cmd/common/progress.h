/* progress.h: the terminal progress meter safecp and safeunmount share.
 *
 * The tool polls its own truth (bytes the device has confirmed, bytes
 * left on the device's bdi) and hands it over as a struct progress_state;
 * the meter decides when and how to show it:
 *
 *	struct progress *p;
 *	progress_new(&(struct progress_options){ .mode = mode }, &p);
 *	while (...) {
 *		st.done = confirmed; st.rate = progress_rate_sample(&r, now, confirmed);
 *		st.eta = progress_eta(st.total - st.done, st.rate);
 *		progress_update(p, &st);     (drawn only when the interval is up)
 *	}
 *	progress_done(p, "1.00 GiB on the device; it can be removed");
 *	progress_free(p);
 *
 * A NULL meter draws nothing, so callers never test for one: progress_new()
 * hands back NULL for PROGRESS_NONE.  progress_note() is the exception: a
 * warning is never lost, so with a NULL meter it goes straight to stderr.
 *
 * What the bar promises: it never shows 100% before progress_done(), even
 * when done == total (the data may be confirmed while the caller still
 * has a sync to make), and rounds percentages down.  Redraws are
 * throttled on the injected clock (CLOCK_MONOTONIC by default): the first
 * update draws at once, then at most one draw per interval.  The line is
 * built in memory and written with one write, padded with spaces to erase
 * what a longer previous line left behind.  On a narrow terminal elements
 * drop out in this order: in-flight bytes (when the item would not fit
 * beside them), current item, rate, ETA, bar, sizes; the percentage stays.
 *
 *	[##########..........]  53%  543 MiB / 1.00 GiB on device  19.8 MiB/s  ETA 0:24  +12 MiB pending  DCIM/IMG_0042.JPG
 *
 * Durations and rates are in format.h's one form (format_duration(),
 * format_rate()), as in every other output of the tools.
 *
 * JSON lines are written by the tool (cmd/json.h) from a callback the
 * meter calls with the same state and the same throttle, so every
 * renderer shows the same numbers.
 *
 * A meter is not locked: a tool whose copy runs in threads calls it from
 * one thread at a time.  The rate and ETA helpers at the end are in
 * progress_rate.c. */
#ifndef SAFECP_PROGRESS_H
#define SAFECP_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress; /* opaque */

enum progress_mode {
	PROGRESS_NONE,
	PROGRESS_BAR,   /* one line redrawn with \r; stderr */
	PROGRESS_PLAIN, /* one line per interval, for logs; stderr */
	PROGRESS_JSON,  /* the options' json callback; stdout */
};

/* What the sizes element counts. */
enum progress_show {
	PROGRESS_SHOW_DONE, /* "543 MiB / 1.00 GiB on device" */
	PROGRESS_SHOW_LEFT, /* "481 MiB left": safeunmount's bytes to write */
};

struct progress_state {
	uint64_t total;     /* bytes the whole job covers */
	uint64_t done;      /* confirmed bytes; safeunmount: total - left */
	uint64_t in_flight; /* written but not yet confirmed; 0 hides it */
	double rate;        /* bytes/s; negative: unknown, hidden */
	double eta;         /* seconds; negative: unknown, hidden */
	/* shown in place of the ETA when not NULL: what the job waits for
	 * ("syncing", "waiting"), so a last phase never reads "ETA 0:00";
	 * a string that lives as long as the meter */
	const char *status;
	const char *item;   /* current file, or NULL; copied by the meter */
	const char *label;  /* after the sizes: "on device", "left"; copied */
	bool estimate;      /* sizes and ETA are estimates: shown with '~' */
	bool complete;      /* a row of several whose job is done: it may show 100% */
};

/* Called instead of drawing in PROGRESS_JSON mode, with the throttle of
 * the other modes.  final is true exactly once, from progress_done(),
 * and nothing follows it: the place for the tool's "done" event. */
typedef void (*progress_json_fn)(FILE *out, const struct progress_state *st,
				 bool final, void *userdata);

struct progress_options {
	enum progress_mode mode;
	enum progress_show show;
	/* NULL: stderr, or stdout for PROGRESS_JSON. */
	FILE *out;
	/* Seconds on CLOCK_MONOTONIC; NULL for the real clock.  Tests inject
	 * their own to compare output exactly. */
	double (*clock)(void);
	/* Least time between two draws; 0 for the mode's default: bar 0.1 s
	 * (at most 10 redraws a second), plain 1 s, json 0.25 s.  A draw
	 * happens on the first update at or after the interval, so the gap
	 * between JSON lines stays under 0.5 s as long as the caller updates
	 * at least every 0.25 s. */
	double interval;
	/* Columns for the bar; 0 asks the terminal (TIOCGWINSZ, re-read after
	 * SIGWINCH), then $COLUMNS, then 80. */
	int width;
	progress_json_fn json;
	void *userdata;
};

/* *ret is NULL for PROGRESS_NONE.  In bar mode on a terminal (and with
 * no width given) a SIGWINCH handler is installed, one meter at a time;
 * progress_free() restores the previous one.  -EINVAL for PROGRESS_JSON
 * without a callback, -ENOMEM. */
int progress_new(const struct progress_options *o, struct progress **ret);

/* Stores the state and draws it if the interval is up.  Ignored after
 * progress_done(). */
void progress_update(struct progress *p, const struct progress_state *st);

/* Several rows, each drawn as progress_update() draws one: in bar mode a
 * block of lines redrawn in place (ANSI cursor-up and erase, the same
 * terminals the bar already assumes), in plain mode one line per row per
 * interval; rows[0] is also the state the json callback and
 * progress_done() see.  A row never shows 100% before progress_done(),
 * unless its complete flag says its own job is done.  n >= 1.  The rows'
 * items are copied; their labels must live as long as the meter. */
void progress_update_rows(struct progress *p, const struct progress_state *rows, size_t n);

/* Whether an update now would draw: lets a caller skip gathering a costly
 * state (sysfs reads) that would not be shown.  False for NULL. */
bool progress_due(const struct progress *p);

/* The final draw of the last state: 100% if done >= total, no ETA, a
 * newline, then final_line (unless NULL) on a line of its own.  In json
 * mode, the callback with final = true instead; final_line is for humans
 * and not printed there. */
void progress_done(struct progress *p, const char *final_line);

/* One message line (a warning, without its newline) that does not garble
 * the bar: the bar line is cleared, the message printed, the bar redrawn.
 * Goes to the meter's stream in bar and plain mode, else to stderr. */
void progress_note(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Ends an open bar line with a newline (an interrupted copy keeps its
 * last bar on screen), restores SIGWINCH, frees.  NULL is fine. */
void progress_free(struct progress *p);

/* PROGRESS_BAR when f is a terminal, else PROGRESS_NONE: the tools'
 * default for --progress. */
enum progress_mode progress_default_mode(FILE *f);

/* "bar", "plain", "json", "none" -> 0; anything else -EINVAL. */
int progress_mode_parse(const char *s, enum progress_mode *ret);

/* Seconds to write `left` bytes at `rate` bytes/s: -1 (unknown) when the
 * rate is not positive, 0 when nothing is left. */
double progress_eta(uint64_t left, double rate);

/* A rate over the last few seconds of a monotonic byte counter (confirmed
 * bytes, the device's written sectors).  Samples are kept at least
 * window/PROGRESS_RATE_SAMPLES apart so the ring always spans the window
 * however often the caller samples. */
#define PROGRESS_RATE_SAMPLES 32
struct progress_rate {
	double window;
	double t[PROGRESS_RATE_SAMPLES];
	uint64_t v[PROGRESS_RATE_SAMPLES];
	unsigned head, count;
};

/* window in seconds; 0 for the default of 3 s. */
void progress_rate_init(struct progress_rate *r, double window);
/* Records counter at time now (seconds, monotonic) and returns bytes/s
 * from the oldest sample within the window, or -1 until the samples span
 * at least a tenth of the window.  A counter that goes backwards (a new
 * device) starts the ring afresh. */
double progress_rate_sample(struct progress_rate *r, double now, uint64_t counter);

/* A rate smoothed over about tau seconds: an exponential moving average
 * whose weight for a sample dt after the previous one is 1 - e^(-dt/tau),
 * so it does not depend on how often the caller samples.  prev not finite
 * or negative (no average yet): the sample itself.  A sample not finite
 * keeps prev. */
double progress_rate_smooth(double prev, double sample, double dt, double tau);

/* Rates below this (bytes/s) give no ETA: a journal commit's trickle
 * of a few KiB/s while data waits would read as hours. */
#define PROGRESS_ETA_FLOOR (256.0 * 1024)

#endif
