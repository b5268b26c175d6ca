/* safecp_check.c: safecp --check DIR: an existing copy read back from its
 * device (<safecp/check.h>) against the newest ASC MHL generation in
 * DIR/ascmhl, or against the PREFIX.ALG lists --sums names.
 *
 * The library reads the reference and refuses it with a kind; here each
 * refusal gets its words (exit 2: no manifest or list, one that cannot be
 * read, a line that is not a list line, a manifest whose C4 ID is not the
 * one its chain records, a reference that lists no file).  Then the
 * library reads the files on its own thread while the main thread, with
 * SIGINT, SIGTERM and SIGHUP blocked, takes its events on a 100 ms
 * sigtimedwait() tick as safecp_run.c does: each tick reports the outcomes
 * that became final and draws the progress (safecp_check_out.c).  Exit:
 * 130 interrupted, 2 no reference, 4 a file differs, is missing or is not
 * a regular file, 1 a file cannot be read. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <safecp/check.h>

#include "base/cleanup.h"
#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/quote.h"
#include "safecp/safecp_check.h"
#include "safecp/safecp_words.h"

#define TICK_NS (100 * 1000 * 1000)

static const char *mhl_problem_words(enum safecp_record_problem p)
{
	switch (p) {
	case SAFECP_RECORD_IO: return "cannot be read";
	case SAFECP_RECORD_NOT_REGULAR: return "is not a regular file";
	case SAFECP_RECORD_TOO_BIG: return "is too large for a manifest";
	case SAFECP_RECORD_DOCTYPE: return "holds a DOCTYPE, which ASC MHL files never have";
	case SAFECP_RECORD_MALFORMED: return "is not well-formed XML (a truncated file?)";
	case SAFECP_RECORD_NOT_MHL: return "is not an ASC MHL v2 file";
	case SAFECP_RECORD_BAD_VALUE: return "holds a value that is not of the schema's form";
	case SAFECP_RECORD_BAD_PATH: return "lists a path that is absolute or climbs out of the folder";
	case SAFECP_RECORD_DUPLICATE: return "lists a path or a sequence number twice";
	case SAFECP_RECORD_BAD_CHAIN: return "has a chain link whose file name or number is wrong";
	case SAFECP_RECORD_NO_MEMORY: return "cannot be read: out of memory";
	default: return "cannot be used";
	}
}

static void say_history(const struct safecp_check_refusal *r)
{
	char line[32] = "";
	bool io = r->problem == SAFECP_RECORD_IO;

	if (r->line)
		snprintf(line, sizeof(line), " (line %zu)", r->line);
	cli_error("the ASC MHL file %s%s %s%s%s: it cannot be the reference; check against the "
		  "checksum lists (--sums=PREFIX) instead", quote(r->path), line,
		  mhl_problem_words(r->problem), io ? ": " : "", io ? strerror(r->err) : "");
}

static const char *list_problem_words(const struct safecp_check_refusal *r, char *buf, size_t n)
{
	switch (r->problem) {
	case SAFECP_RECORD_NOT_REGULAR: return "it is not a regular file (a symbolic link?)";
	case SAFECP_RECORD_BAD_LINE:
		snprintf(buf, n, "its line %zu is not a line of such a list", r->line);
		return buf;
	case SAFECP_RECORD_NO_MEMORY: return "out of memory";
	default: return strerror(r->err);
	}
}

/* The refusal in words. */
static void say_refusal(const struct check_args *o, const struct safecp_check_refusal *r)
{
	_cleanup_free_ char *pattern = NULL;
	char buf[64];

	switch (r->kind) {
	case SAFECP_CHECK_REFUSED_DIR:
		cli_error("cannot examine %s: %s; give the directory the copy was made to",
			  quote(o->dir), strerror(r->err));
		return;
	case SAFECP_CHECK_REFUSED_NO_HISTORY:
		cli_error("no ASC MHL history in %s and no --sums given: give the checksum lists "
			  "the copy was made with (--sums=PREFIX), or check a directory copied "
			  "with --mhl", quote(r->path));
		return;
	case SAFECP_CHECK_REFUSED_HISTORY:
		say_history(r);
		return;
	case SAFECP_CHECK_REFUSED_MANIFEST_CHANGED:
		cli_error("the ASC MHL manifest %s is not the one ascmhl_chain.xml records (its C4 "
			  "ID differs): it changed after it was written and cannot be the reference",
			  quote(r->path));
		return;
	case SAFECP_CHECK_REFUSED_LIST:
		cli_error("cannot use the checksum list %s: %s; fix it, or remove it to check "
			  "against the other lists", quote(r->path),
			  list_problem_words(r, buf, sizeof(buf)));
		return;
	case SAFECP_CHECK_REFUSED_NO_LISTS:
		pattern = words_format("%s.ALG", r->path);
		cli_error("no checksum list %s (ALG: xxh128, xxh3, xxh64, md5, sha1 or sha256): "
			  "give the --sums prefix the copy was made with", quote(pattern));
		return;
	case SAFECP_CHECK_REFUSED_EMPTY:
		/* passing a check that read nothing would let a card be erased */
		cli_error("the reference for %s lists no file: nothing can be checked against "
			  "it; give the lists or the manifest of the copy", quote(o->dir));
		return;
	default:
		cli_error("cannot check %s (%s)", quote(o->dir), r->name);
	}
}

/* The check made and prepared; 0 or EXIT_USAGE after saying why. */
static int prepare(struct checker *c)
{
	const struct check_args *o = c->o;
	struct safecp_check_refusal why;
	int r = safecp_check_new(0, &c->check);

	if (r == 0)
		r = safecp_check_set_dir(c->check, o->dir);
	if (r == 0 && o->sums_prefix)
		r = safecp_check_set_sums(c->check, o->sums_prefix);
	if (r == 0)
		r = safecp_check_prepare(c->check);
	if (r > 0 && safecp_check_refusal(c->check, 0, &why) == 0) {
		say_refusal(o, &why);
		return EXIT_USAGE;
	}
	if (r == 0)
		r = safecp_check_reference(c->check, &c->ref);
	if (r == 0)
		r = safecp_check_place(c->check, &c->place);
	if (r != 0) {
		cli_error("cannot check %s: %s", quote(o->dir), strerror(r < 0 ? -r : EINVAL));
		return EXIT_USAGE;
	}
	return 0;
}

static void signals_block(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The events queued: each outcome reported; true once the end came. */
static bool take_events(struct checker *c)
{
	struct safecp_check_event ev;

	while (safecp_check_poll(c->check, 0, &ev) == 1) {
		if (ev.kind == SAFECP_CHECK_EVENT_FILE)
			checkout_file(c, &ev);
		else if (ev.kind == SAFECP_CHECK_EVENT_END)
			return true;
	}
	return false;
}

/* Until the check ends: report, draw, cancel on the first signal (returned). */
static int wait_for_check(struct checker *c, const sigset_t *set)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = TICK_NS };
	bool ended = false;
	int signo = 0;

	while (!ended) {
		int sig = sigtimedwait(set, NULL, &tick);

		if (sig > 0 && signo == 0) {
			signo = sig;
			safecp_check_cancel(c->check);
			checkout_warn(c, "interrupted by SIG%s; the files not reached are not checked",
				      sigabbrev_np(sig));
		}
		ended = take_events(c);
		checkout_tick(c);
	}
	/* a signal that came while the main thread was not waiting (the check
	 * may end in between): the user asked to stop, so say interrupted */
	if (signo == 0) {
		const struct timespec now = { 0, 0 };
		int sig = sigtimedwait(set, NULL, &now);

		signo = sig > 0 ? sig : 0;
	}
	checkout_tick(c);
	return signo;
}

/* 130 > 2 > 4 > 1 > 0; 2 is decided before the check starts. */
static int status_of(const struct checker *c, int signo)
{
	uint64_t bad = 0;

	if (signo)
		return EXIT_INTERRUPTED;
	for (int o = SAFECP_CHECK_DIFFERS; safecp_check_outcome_name(o); o++)
		if (o != SAFECP_CHECK_UNREADABLE)
			bad += safecp_check_count(c->check, o);
	if (bad)
		return EXIT_MISMATCH;
	return safecp_check_count(c->check, SAFECP_CHECK_UNREADABLE) ? EXIT_PARTIAL : EXIT_OK;
}

static void checker_free(struct checker *c)
{
	checkout_free(c);
	safecp_check_free(c->check);
}

int run_check(const struct check_args *o)
{
	struct checker c = { .o = o };
	sigset_t set;
	int r, status, signo;

	status = prepare(&c);
	if (status) {
		checker_free(&c);
		return status;
	}
	signals_block(&set);
	r = checkout_new(&c);
	if (r == 0)
		r = safecp_check_start(c.check);
	if (r < 0) {
		cli_error("cannot check %s: %s", quote(o->dir), strerror(-r));
		checker_free(&c);
		return r == -ENOENT || r == -ENOTDIR ? EXIT_USAGE : EXIT_PARTIAL;
	}
	checkout_start(&c);
	signo = wait_for_check(&c, &set);
	status = status_of(&c, signo);
	checkout_done(&c, signo);
	checker_free(&c);
	return status;
}
