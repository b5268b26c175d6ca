/* dirtystat.c: show dirty and writeback memory system-wide, per device
 * and per file; options, PATH arguments, notes and the --watch loop.
 *
 * A rate needs two readings, so even a single run reads twice,
 * ONE_SHOT_GAP apart, and reports the second reading with the rate
 * between the two.  --watch reads on absolute CLOCK_MONOTONIC deadlines
 * so the interval does not drift by the time each reading takes.
 * Readings are taken in dirtystat_frame.c and shown by
 * dirtystat_render.c. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/cleanup.h"
#include "common/cli.h"
#include "dirtystat/dirtystat.h"
#include "common/exitcodes.h"
#include "common/msg.h"
#include "common/quote.h"

/* s: unnoticeable, yet a 20 MiB/s stick completes some sixteen of its
 * 240 KiB requests meanwhile, so the rate is more than one request's luck */
#define ONE_SHOT_GAP 0.2
#define MAX_INTERVAL 86400.0

struct opts {
	bool watch;
	double interval;
	unsigned long count; /* 0: until interrupted */
	bool json;
	bool bytes;
	enum verbosity verbosity;
};

struct ctx {
	struct opts o;
	struct sources src;
	bool noted_estimate;
	/* the tty --watch screen: notes go at its foot, since stderr
	 * written to the same terminal would be drawn over */
	bool screen;
	char *screen_notes;
};

static volatile sig_atomic_t got_stop, got_winch;
static bool json_errors; /* --json: errors are events on stdout too */

/* An error: its line on stderr and, with --json, the shared error event. */
static void fail(enum event_subject kind, const char *name, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail(enum event_subject kind, const char *name, int err, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		msg = NULL;
	msg_error("%s", msg ? msg : "(an error message was lost: out of memory)");
	if (!json_errors)
		return;
	render_json_error(stdout, kind, name, err, msg);
	cli_flush_stdout();
}

/* ---- options ---------------------------------------------------------- */

static int parse_count(const char *s, unsigned long *ret)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end != '\0' || v == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* --watch takes an optional argument, and popt hands it the next word
 * (`dirtystat --watch /mnt`).  A separate word that is not a number is
 * a PATH: push it back to popt as a plain argument. */
static void watch_arg(poptContext ctx, int argc, const char **argv, struct opts *o)
{
	_cleanup_free_ char *a = poptGetOptArg(ctx);

	o->watch = true;
	if (!a || cli_parse_seconds(a, false, MAX_INTERVAL, &o->interval) == 0)
		return;
	if (cli_give_back_operand(ctx, argc, argv, a))
		return;
	cli_usage_error("invalid interval %s: give seconds, e.g. --watch=0.5", quote(a));
}

enum { OPT_WATCH = 1, OPT_COUNT, OPT_JSON, OPT_BYTES, OPT_SYSROOT };

static const char *const summary =
	"Show dirty and writeback page-cache memory system-wide, per device and per file.";

static poptContext parse_options(int argc, const char **argv, struct opts *o)
{
	struct poptOption table[] = {
		{ "watch", 'w', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_WATCH,
		  "read again every SECONDS (default 1; fractions allowed) until interrupted",
		  "SECONDS" },
		{ "count", 'c', POPT_ARG_STRING, NULL, OPT_COUNT,
		  "with --watch, stop after N readings (implies --watch)", "N" },
		{ "json", 'j', POPT_ARG_NONE, NULL, OPT_JSON,
		  "one JSON object per reading, one per line", NULL },
		{ "bytes", 'b', POPT_ARG_NONE, NULL, OPT_BYTES,
		  "exact byte counts instead of human sizes", NULL },
		{ "sysroot", '\0', POPT_ARG_STRING, NULL, OPT_SYSROOT,
		  "read /proc and /sys below DIR (captured trees, for tests)", "DIR" },
		CLI_VERBOSITY_OPTIONS("also list the devices with nothing pending",
				      "no notes on standard error"),
		CLI_COMMON_TABLE,
		POPT_TABLEEND
	};
	poptContext ctx = poptGetContext(program_name, argc, argv, table, 0);
	int rc;

	poptSetOtherOptionHelp(ctx, "[OPTION...] [PATH...]");
	while ((rc = poptGetNextOpt(ctx)) > 0) {
		_cleanup_free_ char *a = NULL;

		if (cli_verbosity_option(rc, &o->verbosity))
			continue;
		switch (rc) {
		case OPT_WATCH:
			watch_arg(ctx, argc, argv, o);
			break;
		case OPT_COUNT:
			a = poptGetOptArg(ctx);
			if (parse_count(a, &o->count) < 0)
				cli_usage_error("invalid count %s: give a whole number, 1 or more", quote(a));
			o->watch = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_BYTES:
			o->bytes = true;
			break;
		case OPT_SYSROOT:
			a = poptGetOptArg(ctx);
			if (safecp_sysroot_set(a) < 0)
				cli_usage_error("cannot use sysroot %s: out of memory", quote(a));
			break;
		}
	}
	if (rc < -1)
		cli_popt_fail(ctx, rc);
	return ctx;
}

/* ---- path arguments --------------------------------------------------- */

static bool is_mountpoint_of(const char *path, const struct safecp_target *t)
{
	const char *mp = safecp_target_mountpoint(t);
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return mp && strlen(mp) == len && strncmp(mp, path, len) == 0;
}

static bool sysroot_is_real(void)
{
	return safecp_sysroot()[0] == '\0';
}

static const char *type_words(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

/* O_PATH: nothing is opened for real, so a FIFO cannot block us and a
 * character device (a tty, a watchdog) sees no open().  A regular file or
 * a block device is read later through this very descriptor. */
static int open_arg(const char *path, struct path_arg *a)
{
	struct stat st;
	int r;

	a->fd = open(path, O_PATH | O_CLOEXEC);
	if (a->fd < 0 || fstat(a->fd, &st) < 0) {
		r = -errno;
		fail(EVENT_PATH, path, r, "cannot access %s: %s", quote(path), strerror(-r));
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		close(TAKE_FD(a->fd));
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		fail(EVENT_PATH, path, 0, "cannot show %s: it is %s; give a regular file, a block "
		     "device or a directory", quote(path), type_words(st.st_mode));
		return -EINVAL;
	}
	a->kind = ARG_FILE;
	return 0;
}

static int resolve_arg(const char *path, struct path_arg *a)
{
	int r;

	a->path = path;
	a->kind = ARG_DIR;
	a->fd = -1;
	/* with --sysroot a PATH names a mount point of the captured tree */
	if (sysroot_is_real()) {
		r = open_arg(path, a);
		if (r < 0)
			return r;
	}
	r = safecp_target_probe(path, &a->t);
	if (r < 0) {
		fail(EVENT_PATH, path, r, "cannot access %s: %s", quote(path), strerror(-r));
		return r;
	}
	/* a captured tree has mount points, not files: anything else is
	 * a typo that would silently show the root filesystem */
	if (!sysroot_is_real() && !is_mountpoint_of(path, a->t)) {
		fail(EVENT_PATH, path, 0, "cannot access %s: not a mount point in %s", quote(path),
		     quote(safecp_sysroot()));
		return -ENOENT;
	}
	return 0;
}

/* Each bad PATH is reported; *bad_input then says not to go on. */
static int resolve_args(struct ctx *c, const char **paths, bool *bad_input)
{
	_cleanup_free_ const struct safecp_target **dirs = NULL;
	size_t n = 0, n_dirs = 0;
	bool failed = false;

	while (paths && paths[n])
		n++;
	c->src.args = calloc(n ? n : 1, sizeof(*c->src.args));
	dirs = calloc(n ? n : 1, sizeof(*dirs));
	if (!c->src.args || !dirs)
		return -ENOMEM;
	c->src.n_args = n;
	for (size_t i = 0; i < n; i++)
		failed |= resolve_arg(paths[i], &c->src.args[i]) < 0;
	if (failed) {
		*bad_input = true;
		return -ENOENT;
	}
	/* a directory's row is its filesystem's device with all that
	 * device's mount points, as the no-argument listing would show it */
	for (size_t i = 0; i < n; i++)
		if (c->src.args[i].kind == ARG_DIR)
			dirs[n_dirs++] = c->src.args[i].t;
	return n ? safecp_dirty_select(dirs, n_dirs, &c->src.dirs) : 0;
}

static void ctx_done(struct ctx *c)
{
	for (size_t i = 0; i < c->src.n_args; i++) {
		safecp_target_free(c->src.args[i].t);
		if (c->src.args[i].fd >= 0)
			close(c->src.args[i].fd);
	}
	free(c->src.args);
	safecp_dirty_free(c->src.dirs);
}

/* ---- notes, output, the loop ------------------------------------------ */

static void note(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct ctx *c, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	char *all = NULL;
	va_list ap;
	int n;

	if (c->o.verbosity == VERBOSITY_QUIET)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (!c->screen) {
		msg_note("%s", msg);
		return;
	}
	if (asprintf(&all, "%snote: %s\n", c->screen_notes ? c->screen_notes : "", msg) < 0)
		return;
	free(c->screen_notes);
	c->screen_notes = all;
}

static void note_estimate(struct ctx *c, const struct frame *fr)
{
	for (size_t i = 0; i < fr->n_rows && !c->noted_estimate; i++) {
		const struct dev_row *row = &fr->rows[i];

		if (row->shown && row->have && row->fig.source == SAFECP_DIRTY_ESTIMATE) {
			note(c, "debugfs bdi stats are not readable (root only); device dirty "
			     "and writeback figures are estimates: the system-wide totals");
			c->noted_estimate = true;
		}
	}
}

static void note_file(struct ctx *c, const char *path, int err)
{
	if (err == -ENOSYS)
		note(c, "cannot read the page cache state of %s: cachestat(2) needs "
		     "Linux 6.5 or later", quote(path));
	else if (err == -EPERM || err == -EACCES)
		note(c, "cannot read the page cache state of %s: %s (cachestat(2) needs "
		     "write access to it); its figures are unknown", quote(path), strerror(-err));
	else
		note(c, "cannot read the page cache state of %s: %s", quote(path), strerror(-err));
}

static void note_files(struct ctx *c, const struct frame *fr)
{
	for (size_t i = 0; i < fr->n_files; i++) {
		const struct file_row *f = &fr->files[i];

		for (size_t a = 0; a < c->src.n_args; a++) {
			if (c->src.args[a].path != f->path || c->src.args[a].noted)
				continue;
			if (f->file.err)
				note_file(c, f->path, f->file.err);
			else if (f->blockdev && f->bdev.err)
				note_file(c, f->blockdev, f->bdev.err);
			c->src.args[a].noted = f->file.err || (f->blockdev && f->bdev.err);
		}
	}
}

static int term_width(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

static void output(const struct ctx *c, const struct frame *fr, bool tty)
{
	struct render_opts ro = { .bytes = c->o.bytes, .json = c->o.json };
	char header[96];

	if (c->o.json) {
		render_json(stdout, fr);
	} else if (!c->o.watch) {
		render_table(stdout, fr, &ro);
	} else if (tty) {
		snprintf(header, sizeof(header), "Every %gs: dirtystat", c->o.interval);
		ro.width = term_width();
		ro.header = header;
		ro.footer = c->screen_notes;
		fputs("\033[H", stdout); /* home; each line clears its own rest */
		render_table(stdout, fr, &ro);
		fputs("\033[J", stdout); /* and whatever the last frame left below */
	} else {
		render_line(stdout, fr, &ro);
	}
	cli_flush_stdout();
}

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		got_winch = 1;
	else
		got_stop = 1;
}

static void signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: a signal has to cut the sleep short */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Sleep until the CLOCK_MONOTONIC deadline; a resize redraws the last
 * frame at once rather than a second later. */
static void sleep_until(const struct ctx *c, double deadline, const struct frame *shown, bool tty)
{
	struct timespec ts;
	double whole = floor(deadline);

	ts.tv_sec = (time_t)whole;
	ts.tv_nsec = MIN((long)((deadline - whole) * 1e9), 999999999L);
	while (!got_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
		if (got_winch && tty && shown) {
			got_winch = 0;
			output(c, shown, tty);
		}
	}
}

static int take(struct ctx *c, const struct frame *prev, struct frame *ret)
{
	const char *what = NULL;
	int r = frame_take(&c->src, prev, ret, &what);

	if (r < 0)
		fail(EVENT_PATH, NULL, r, "cannot read %s: %s", what, strerror(-r));
	return r;
}

/* The screen is redrawn in place (cursor home, erase) only on a terminal
 * that has those: TERM=dumb (Emacs' shell, CI log viewers) or no TERM at
 * all gets the plain lines a pipe gets. */
static bool term_redraws(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb") != 0;
}

static int run(struct ctx *c)
{
	struct frame prev, cur;
	bool tty = c->o.watch && !c->o.json && term_redraws();
	double deadline;
	int r;

	c->screen = tty && isatty(STDERR_FILENO);

	r = take(c, NULL, &prev);
	if (r < 0)
		return r;
	deadline = prev.t_mono + MIN(ONE_SHOT_GAP, c->o.interval);
	if (c->o.watch)
		signals_install();
	if (tty)
		fputs("\033[?25l\033[H\033[2J", stdout); /* hide the cursor, clear */
	for (unsigned long n = 0; !c->o.count || n < c->o.count; n++) {
		sleep_until(c, deadline, n > 0 ? &prev : NULL, tty);
		if (got_stop)
			break;
		r = take(c, &prev, &cur);
		if (r < 0)
			break;
		note_estimate(c, &cur);
		note_files(c, &cur);
		output(c, &cur, tty);
		frame_done(&prev);
		prev = cur;
		if (!c->o.watch || ferror(stdout))
			break; /* close_stdout() reports lost output */
		/* fixed cadence; after a stall (suspend, slow sysfs) start afresh */
		deadline += c->o.interval;
		if (deadline < clock_monotonic())
			deadline = clock_monotonic() + c->o.interval;
	}
	if (tty)
		fputs("\033[?25h", stdout);
	frame_done(&prev);
	free(c->screen_notes);
	return r;
}

int main(int argc, const char **argv)
{
	struct ctx c = { .o = { .interval = 1.0 } };
	poptContext pc;
	bool bad_input = false;
	int r;

	cli_init("dirtystat", summary);
	pc = parse_options(argc, argv, &c.o);
	json_errors = c.o.json;
	c.src.all = c.o.verbosity == VERBOSITY_VERBOSE;
	r = resolve_args(&c, poptGetArgs(pc), &bad_input);
	if (r < 0 && !bad_input)
		fail(EVENT_PATH, NULL, r, "cannot list the block devices: %s", strerror(-r));
	if (r >= 0)
		r = run(&c);
	ctx_done(&c);
	poptFreeContext(pc);
	if (bad_input)
		return EXIT_USAGE;
	return r < 0 ? EXIT_PARTIAL : EXIT_OK;
}
