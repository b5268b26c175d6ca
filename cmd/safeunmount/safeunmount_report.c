/* safeunmount_report.c: what the user sees: messages on stderr and, with
 * --progress=json, one JSON event per line on stdout.
 *
 * Events (documented in safeunmount(8)): start, progress (written by the
 * meter's callback, so the bar and JSON show the same numbers), unmounted,
 * busy, powered-off, error, and done last, whatever happened.  Messages
 * go through the meter while one is drawn (progress_note clears and
 * redraws the bar), else straight to stderr.  Levels: errors and warnings
 * always; the closing "can be removed" line unless -q or JSON; step lines
 * with -v. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "common/cli.h"
#include "common/quote.h"
#include "safeunmount/safeunmount.h"

static struct {
	const struct su_options *o;
	struct json json;
	bool json_mode;
	FILE *devnull;  /* the events' sink once the reader went away */
} rep;

void report_init(const struct su_options *o)
{
	rep.o = o;
	rep.json_mode = o->progress == PROGRESS_JSON;
	json_init(&rep.json, stdout);
}

bool report_json(void)
{
	return rep.json_mode;
}

double report_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whole lines, however long their quoted names: never cut. */
static char *vmessage(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

static void vline(const char *prefix, const char *fmt, va_list ap)
{
	char *buf = vmessage(fmt, ap);

	fprintf(stderr, "%s%s\n", prefix, buf ? buf : "(a message was lost: out of memory)");
	fflush(stderr);
	free(buf);
}

void report_verbose(const char *fmt, ...)
{
	va_list ap;

	if (rep.o->verbosity != VERBOSITY_VERBOSE)
		return;
	va_start(ap, fmt);
	vline("", fmt, ap);
	va_end(ap);
}

void report_info(const char *fmt, ...)
{
	va_list ap;

	if (rep.o->verbosity == VERBOSITY_QUIET || rep.json_mode)
		return;
	va_start(ap, fmt);
	vline("", fmt, ap);
	va_end(ap);
}

void report_warning(const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: warning: ", program_name);
	va_start(ap, fmt);
	vline(prefix, fmt, ap);
	va_end(ap);
}

static void event_begin_at(const char *name, double t)
{
	json_object_begin(&rep.json);
	json_kv_string(&rep.json, "event", name);
	json_kv_double(&rep.json, "t", t, 3);
}

static void event_begin(const char *name)
{
	event_begin_at(name, report_now());
}

/* A reader that went away (EPIPE; SIGPIPE is ignored) ends the events,
 * not the job: they go to /dev/null from then on, and the error flag is
 * cleared, so close_stdout() sees a closed pipe, which is no error,
 * rather than an unexplained earlier failure. */
static void event_end(void)
{
	json_object_end(&rep.json);
	json_line_end(&rep.json);
	if (rep.json.f != stdout || !ferror(stdout) || errno != EPIPE)
		return;
	clearerr(stdout);
	if (!rep.devnull)
		rep.devnull = fopen("/dev/null", "we");
	if (rep.devnull)
		json_init(&rep.json, rep.devnull);
}

void report_error(const char *step, const char *fmt, ...)
{
	_cleanup_free_ char *buf = NULL;
	va_list ap;

	va_start(ap, fmt);
	buf = vmessage(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", program_name,
		buf ? buf : "(an error message was lost: out of memory)");
	fflush(stderr);
	if (!rep.json_mode)
		return;
	event_begin("error");
	if (step)
		json_kv_string(&rep.json, "step", step);
	else
		json_kv_null(&rep.json, "step");
	json_kv_string(&rep.json, "message", buf);
	event_end();
}

void report_start(const struct unmount_target *job)
{
	for (size_t i = 0; i < job->n_fs; i++)
		report_verbose("%s is mounted from %s (%s)", quote(job->fs[i].m.mountpoint),
			       quote(job->fs[i].m.source), quote_bare(job->fs[i].m.fstype));
	if (!rep.json_mode)
		return;
	event_begin("start");
	json_kv_name(&rep.json, "target", job->arg);
	json_key(&rep.json, "filesystems");
	json_array_begin(&rep.json);
	for (size_t i = 0; i < job->n_fs; i++) {
		json_object_begin(&rep.json);
		json_kv_name(&rep.json, "mountpoint", job->fs[i].m.mountpoint);
		json_kv_name(&rep.json, "device", job->fs[i].devnode[0] ? job->fs[i].devnode : NULL);
		json_kv_string(&rep.json, "fstype", job->fs[i].m.fstype);
		json_object_end(&rep.json);
	}
	json_array_end(&rep.json);
	event_end();
}

void report_progress_json(FILE *out, const struct progress_state *st, bool final, void *userdata)
{
	const struct su_progress_json *pj = userdata;

	(void)out; /* the meter's out is stdout, where rep.json writes */
	(void)final;
	/* t is when the counters were read, not when the line is written */
	event_begin_at("progress", pj->t_real);
	json_kv_u64(&rep.json, "bytes_left", pj->bytes_left);
	json_kv_u64(&rep.json, "bytes_written", pj->bytes_written);
	if (st->rate >= 0)
		json_kv_double(&rep.json, "rate", st->rate, 0);
	else
		json_kv_null(&rep.json, "rate");
	if (st->eta >= 0 && !final)
		json_kv_double(&rep.json, "eta", st->eta, 1);
	else if (final)
		json_kv_double(&rep.json, "eta", 0, 1);
	else
		json_kv_null(&rep.json, "eta");
	json_kv_bool(&rep.json, "estimate", st->estimate);
	event_end();
}

void report_unmounted(const struct unmount_fs *fs)
{
	report_verbose("unmounted %s", quote(fs->m.mountpoint));
	if (!rep.json_mode)
		return;
	event_begin("unmounted");
	json_kv_name(&rep.json, "mountpoint", fs->m.mountpoint);
	json_kv_name(&rep.json, "device", fs->devnode[0] ? fs->devnode : NULL);
	event_end();
}

static const char *how_words(enum holder_how how)
{
	switch (how) {
	case HOLDER_CWD: return "working directory";
	case HOLDER_ROOT: return "root directory";
	case HOLDER_FILE: return "open file";
	case HOLDER_MAP: return "memory map";
	case HOLDER_DEVICE: return "device open";
	case HOLDER_NAMESPACE: return "mount namespace";
	}
	return "unknown";
}

static void busy_words(const char *what, const struct holder_list *h,
		       char *const *submounts, size_t n_sub, bool waiting)
{
	if (waiting)
		fprintf(stderr, "%s: %s is busy; waiting for it to be free (Ctrl-C to stop):\n",
			program_name, quote(what));
	else
		fprintf(stderr, "%s: %s is busy:\n", program_name, quote(what));
	for (size_t i = 0; i < h->n; i++)
		fprintf(stderr, "  pid %d (%s): %s %s\n", (int)h->items[i].pid,
			quote_bare(h->items[i].command), how_words(h->items[i].how),
			quote_bare(h->items[i].path));
	for (size_t i = 0; i < n_sub; i++)
		fprintf(stderr, "  %s is mounted inside it\n", quote(submounts[i]));
	if (h->unreadable)
		fprintf(stderr, "  (%zu %s could not be inspected%s)\n", h->unreadable,
			h->unreadable == 1 ? "process" : "processes",
			geteuid() != 0 ? "; run as root to see them" : "");
	else if (h->n == 0 && n_sub == 0)
		fprintf(stderr, "  (no process found: the kernel holds it, for instance for a swap file, "
			"a loop device or an NFS export)\n");
	if (!waiting)
		fprintf(stderr, "%s: stop these programs and try again, or use --wait\n", program_name);
	fflush(stderr);
}

static void busy_event(const char *what, const char *mountpoint, const struct holder_list *h,
		       char *const *submounts, size_t n_sub, bool waiting)
{
	event_begin("busy");
	json_kv_name(&rep.json, mountpoint ? "mountpoint" : "device", what);
	json_kv_bool(&rep.json, "waiting", waiting);
	json_key(&rep.json, "holders");
	json_array_begin(&rep.json);
	for (size_t i = 0; i < h->n; i++) {
		json_object_begin(&rep.json);
		json_kv_u64(&rep.json, "pid", (uint64_t)h->items[i].pid);
		json_kv_name(&rep.json, "command", h->items[i].command);
		json_kv_string(&rep.json, "how", holder_how_name(h->items[i].how));
		json_kv_name(&rep.json, "path", h->items[i].path);
		json_object_end(&rep.json);
	}
	json_array_end(&rep.json);
	json_kv_names(&rep.json, "submounts", submounts, n_sub);
	json_kv_u64(&rep.json, "unreadable", h->unreadable);
	event_end();
}

void report_busy(const char *what, const char *mountpoint, const struct holder_list *h,
		 char *const *submounts, size_t n_submounts, bool waiting)
{
	busy_words(what, h, submounts, n_submounts, waiting);
	if (rep.json_mode)
		busy_event(what, mountpoint, h, submounts, n_submounts, waiting);
}

void report_powered_off(const char *devnode, const char *method)
{
	report_verbose("powered off %s (%s)", quote(devnode), method);
	if (!rep.json_mode)
		return;
	event_begin("powered-off");
	json_kv_name(&rep.json, "device", devnode);
	json_kv_string(&rep.json, "method", method);
	event_end();
}

void report_done(int exit_status, uint64_t bytes_written, size_t unmounted)
{
	if (!rep.json_mode)
		return;
	event_begin("done");
	json_kv_u64(&rep.json, "exit", (uint64_t)exit_status);
	json_kv_u64(&rep.json, "bytes_written", bytes_written);
	json_kv_u64(&rep.json, "unmounted", unmounted);
	event_end();
}
