/* safeunmount_report.c: what the user sees: messages on stderr and, with
 * --progress=json, one JSON event per line on stdout.
 *
 * Events (documented in safeunmount(8)): start, progress (written by the
 * meter's callback, so the bar and JSON show the same numbers), unmounted,
 * busy, powered-off, error, and done last, whatever happened.  Messages
 * go through the meter while one is drawn (progress_note clears and
 * redraws the bar), else straight to stderr.  Levels: errors and warnings
 * always, in common/msg.h's shape; the closing "can be removed" line
 * unless -q or JSON; step lines with -v.  Events have common/event.h's
 * framing, and "error" its shared fields plus "step". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "common/cli.h"
#include "common/event.h"
#include "common/holder_words.h"
#include "common/msg.h"
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
	return event_now();
}

/* A result line (no prefix, msg.h's rule), whole however long its quoted
 * names. */
static void vline(const char *fmt, va_list ap)
{
	char *buf = NULL;

	if (vasprintf(&buf, fmt, ap) < 0)
		buf = NULL;
	fprintf(stderr, "%s\n", buf ? buf : "(a message was lost: out of memory)");
	fflush(stderr);
	free(buf);
}

void report_verbose(const char *fmt, ...)
{
	va_list ap;

	if (rep.o->verbosity != VERBOSITY_VERBOSE)
		return;
	va_start(ap, fmt);
	vline(fmt, ap);
	va_end(ap);
}

void report_info(const char *fmt, ...)
{
	va_list ap;

	if (rep.o->verbosity == VERBOSITY_QUIET || rep.json_mode)
		return;
	va_start(ap, fmt);
	vline(fmt, ap);
	va_end(ap);
}

void report_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vprint(MSG_WARNING, fmt, ap);
	va_end(ap);
}

/* A reader that went away (EPIPE; SIGPIPE is ignored) ends the events,
 * not the job: they go to /dev/null from then on, and the error flag is
 * cleared, so close_stdout() sees a closed pipe, which is no error,
 * rather than an unexplained earlier failure. */
static void event_finish(void)
{
	event_end(&rep.json);
	if (rep.json.f != stdout || !ferror(stdout) || errno != EPIPE)
		return;
	clearerr(stdout);
	if (!rep.devnull)
		rep.devnull = fopen("/dev/null", "we");
	if (rep.devnull)
		json_init(&rep.json, rep.devnull);
}

enum event_subject job_kind(const struct safecp_unmount_target *t)
{
	return t->device ? EVENT_DEVICE : EVENT_PATH;
}

void report_error(const char *step, enum event_subject kind, const char *name, int err,
		  const char *fmt, ...)
{
	_cleanup_free_ char *buf = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&buf, fmt, ap) < 0)
		buf = NULL;
	va_end(ap);
	msg_error("%s", buf ? buf : "(an error message was lost: out of memory)");
	if (!rep.json_mode)
		return;
	event_error_begin(&rep.json, report_now(), kind, name, err, buf);
	if (step)
		json_kv_string(&rep.json, "step", step);
	else
		json_kv_null(&rep.json, "step");
	event_finish();
}

void report_found(const struct safecp_unmount *job)
{
	struct safecp_unmount_fs fs;

	for (size_t i = 0; safecp_unmount_fs(job, i, &fs) == 0; i++)
		report_verbose("%s is mounted from %s (%s)", quote(fs.mountpoint),
			       quote(fs.source), quote_bare(fs.fstype));
}

void report_start(const struct safecp_unmount *job)
{
	struct safecp_unmount_target t;
	struct safecp_unmount_fs fs;

	report_found(job);
	if (!rep.json_mode)
		return;
	safecp_unmount_target(job, &t);
	event_begin(&rep.json, "start", report_now());
	json_kv_name(&rep.json, "target", t.arg);
	json_key(&rep.json, "filesystems");
	json_array_begin(&rep.json);
	for (size_t i = 0; safecp_unmount_fs(job, i, &fs) == 0; i++) {
		json_object_begin(&rep.json);
		json_kv_name(&rep.json, "mountpoint", fs.mountpoint);
		json_kv_name(&rep.json, "device", fs.devnode);
		json_kv_string(&rep.json, "fstype", fs.fstype);
		json_object_end(&rep.json);
	}
	json_array_end(&rep.json);
	event_finish();
}

void report_progress_json(FILE *out, const struct progress_state *st, bool final, void *userdata)
{
	const struct su_progress_json *pj = userdata;

	(void)out; /* the meter's out is stdout, where rep.json writes */
	(void)final;
	/* t is when the counters were read, not when the line is written */
	event_begin(&rep.json, "progress", pj->t_real);
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
	event_finish();
}

void report_unmounted(const struct safecp_unmount_fs *fs)
{
	report_verbose("unmounted %s", quote(fs->mountpoint));
	if (!rep.json_mode)
		return;
	event_begin(&rep.json, "unmounted", report_now());
	json_kv_name(&rep.json, "mountpoint", fs->mountpoint);
	json_kv_name(&rep.json, "device", fs->devnode);
	event_finish();
}

static const char *how_words(enum safecp_unmount_holder_how how)
{
	switch (how) {
	case SAFECP_UNMOUNT_HOLDER_CWD: return "working directory";
	case SAFECP_UNMOUNT_HOLDER_ROOT: return "root directory";
	case SAFECP_UNMOUNT_HOLDER_FILE: return "open file";
	case SAFECP_UNMOUNT_HOLDER_MAP: return "memory map";
	case SAFECP_UNMOUNT_HOLDER_DEVICE: return "device open";
	case SAFECP_UNMOUNT_HOLDER_NAMESPACE: return "mount namespace";
	case SAFECP_UNMOUNT_HOLDER_OTHER: break;
	}
	return "unknown";
}

static void busy_words(const struct safecp_unmount_busy *b)
{
	if (b->waiting)
		msg_error("%s is busy; waiting for it to be free (Ctrl-C to stop):", quote(b->what));
	else
		msg_error("%s is busy:", quote(b->what));
	for (size_t i = 0; i < b->n_holders; i++)
		fprintf(stderr, "  pid %d (%s): %s %s\n", b->holders[i].pid,
			quote_bare(b->holders[i].command), how_words(b->holders[i].how),
			quote_bare(b->holders[i].path));
	for (size_t i = 0; i < b->n_submounts; i++)
		fprintf(stderr, "  %s is mounted inside it\n", quote(b->submounts[i]));
	if (b->unreadable)
		holder_words_unreadable(stderr, b);
	else if (b->n_holders == 0 && b->n_submounts == 0)
		fprintf(stderr, "  (no process found: the kernel holds it, for instance for a swap file, "
			"a loop device or an NFS export)\n");
	fflush(stderr);
	if (!b->waiting)
		msg_error("stop these programs and try again, or use --wait");
}

static void busy_event(const struct safecp_unmount_busy *b)
{
	event_begin(&rep.json, "busy", report_now());
	json_kv_name(&rep.json, b->mount ? "mountpoint" : "device", b->what);
	json_kv_bool(&rep.json, "waiting", b->waiting);
	json_key(&rep.json, "holders");
	json_array_begin(&rep.json);
	for (size_t i = 0; i < b->n_holders; i++) {
		json_object_begin(&rep.json);
		json_kv_u64(&rep.json, "pid", (uint64_t)b->holders[i].pid);
		json_kv_name(&rep.json, "command", b->holders[i].command);
		json_kv_string(&rep.json, "how", b->holders[i].how_name);
		json_kv_name(&rep.json, "path", b->holders[i].path);
		json_object_end(&rep.json);
	}
	json_array_end(&rep.json);
	json_kv_names(&rep.json, "submounts", (char *const *)b->submounts, b->n_submounts);
	json_kv_u64(&rep.json, "unreadable", b->unreadable);
	event_finish();
}

void report_busy(const struct safecp_unmount_busy *b)
{
	busy_words(b);
	if (rep.json_mode)
		busy_event(b);
}

void report_powered_off(const char *devnode, const char *method)
{
	report_verbose("powered off %s (%s)", quote(devnode), method);
	if (!rep.json_mode)
		return;
	event_begin(&rep.json, "powered-off", report_now());
	json_kv_name(&rep.json, "device", devnode);
	json_kv_string(&rep.json, "method", method);
	event_finish();
}

void report_done(int exit_status, uint64_t bytes_written, size_t unmounted)
{
	if (!rep.json_mode)
		return;
	event_begin(&rep.json, "done", report_now());
	json_kv_u64(&rep.json, "exit", (uint64_t)exit_status);
	json_kv_u64(&rep.json, "bytes_written", bytes_written);
	json_kv_u64(&rep.json, "unmounted", unmounted);
	event_finish();
}
