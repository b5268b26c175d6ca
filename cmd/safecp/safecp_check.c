/* safecp_check.c: safecp --check DIR: an existing copy read back from its
 * device (lib/copy/check.h) against the newest ASC MHL generation in
 * DIR/ascmhl, or against the PREFIX.ALG lists --sums names.
 *
 * The reference is loaded and refused here (exit 2: no manifest or list,
 * one that cannot be read, a line that is not a list line, a manifest whose
 * C4 ID is not the one its chain records).  Then the job reads the files on
 * its own thread while the main thread, with SIGINT, SIGTERM and SIGHUP
 * blocked, takes them on a 100 ms sigtimedwait() tick as safecp_run.c does:
 * each tick reports the outcomes that became final and draws the progress
 * (safecp_check_out.c).  Exit: 130 interrupted, 2 no reference, 4 a file
 * differs, is missing or is not a regular file, 1 a file cannot be read. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/quote.h"
#include "copy/check_input.h"
#include "copy/mhl_record.h"
#include "safecp/tool.h"
#include "safecp/safecp_check.h"
#include "base/cleanup.h"

#define TICK_NS (100 * 1000 * 1000)

static const char *mhl_problem_words(enum mhl_read_kind k)
{
	switch (k) {
	case MHL_READ_IO: return "cannot be read";
	case MHL_READ_NOT_REGULAR: return "is not a regular file";
	case MHL_READ_TOO_BIG: return "is too large for a manifest";
	case MHL_READ_DOCTYPE: return "holds a DOCTYPE, which ASC MHL files never have";
	case MHL_READ_MALFORMED: return "is not well-formed XML (a truncated file?)";
	case MHL_READ_NOT_MHL: return "is not an ASC MHL v2 file";
	case MHL_READ_BAD_VALUE: return "holds a value that is not of the schema's form";
	case MHL_READ_BAD_PATH: return "lists a path that is absolute or climbs out of the folder";
	case MHL_READ_DUPLICATE: return "lists a path or a sequence number twice";
	case MHL_READ_BAD_CHAIN: return "has a chain link whose file name or number is wrong";
	case MHL_READ_NO_MEMORY: return "cannot be read: out of memory";
	default: return "cannot be used";
	}
}

/* Paths the newest generation does not list, from the newest older one
 * that does (those the chain vouches for). */
static int add_older(struct checker *c)
{
	struct mhl_record *rec = NULL;
	int r = 0;

	if (mhl_record_open(c->o->check_dir, &rec, NULL) != MHL_RECORD_OK)
		return 0;
	for (size_t i = 0; i < mhl_record_older_count(rec) && r == 0; i++)
		r = check_list_add_manifest(mhl_record_older(rec, i), &c->list);
	mhl_record_free(rec);
	return r;
}

/* DIR/ascmhl as the reference; 0 or EXIT_USAGE after saying why. */
static int load_mhl(struct checker *c)
{
	const char *dir = c->o->check_dir;
	struct mhl_read_problem why = { 0 };
	enum mhl_read_kind k = mhl_history_read(dir, &c->mhl, &why);

	_cleanup_free_ char *folder = words_format("%s/%s", dir, MHL_FOLDER), *file = NULL;

	if (k == MHL_READ_NO_HISTORY) {
		cli_error("no ASC MHL history in %s and no --sums given: give the checksum lists "
			  "the copy was made with (--sums=PREFIX), or check a directory copied "
			  "with --mhl", quote(folder));
		return EXIT_USAGE;
	}
	if (k != MHL_READ_OK) {
		char line[32] = "";

		if (why.line)
			snprintf(line, sizeof(line), " (line %d)", why.line);
		file = why.file[0] ? words_format("%s/%s", folder, why.file) : NULL;
		cli_error("the ASC MHL file %s%s %s%s%s: it cannot be the reference; check "
			  "against the checksum lists (--sums=PREFIX) instead",
			  quote(file ? file : folder), line, mhl_problem_words(k),
			  k == MHL_READ_IO ? ": " : "", k == MHL_READ_IO ? strerror(why.err) : "");
		return EXIT_USAGE;
	}
	c->manifest = mhl_history_newest_link(c->mhl)->path;
	if (!check_mhl_c4_matches(c->mhl)) {
		file = words_format("%s/%s", folder, c->manifest);
		cli_error("the ASC MHL manifest %s is not the one %s records (its C4 ID differs): "
			  "it changed after it was written and cannot be the reference",
			  quote(file), MHL_CHAIN_FILE);
		return EXIT_USAGE;
	}
	if (check_list_from_mhl(c->mhl, &c->list) < 0 || add_older(c) < 0) {
		cli_error("cannot read the manifest %s: out of memory", quote(c->manifest));
		return EXIT_USAGE;
	}
	return 0;
}

static const char *list_problem_words(const struct check_list_problem *p, char *buf, size_t n)
{
	switch (p->kind) {
	case CHECK_LIST_NOT_REGULAR: return "it is not a regular file (a symbolic link?)";
	case CHECK_LIST_BAD_LINE:
		snprintf(buf, n, "its line %zu is not a line of such a list", p->line);
		return buf;
	case CHECK_LIST_NO_MEMORY: return "out of memory";
	default: return strerror(p->err);
	}
}

/* PREFIX.ALG for every algorithm a list can hold, those found as the
 * reference; 0 or EXIT_USAGE after saying why. */
static int load_sums(struct checker *c)
{
	const char *prefix = c->o->sums_prefix;

	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		_cleanup_free_ char *path = NULL;
		struct check_list_problem why = { 0 };
		size_t files = 0;
		char buf[64];

		if (!(CHECKSUM_SET_LISTS & CHECKSUM_BIT(a)))
			continue;
		if (asprintf(&path, "%s.%s", prefix, checksum_alg_name(a)) < 0) {
			path = NULL;
			cli_error("out of memory");
			return EXIT_USAGE;
		}
		if (check_list_load_sums(path, a, &c->list, &files, &why) == CHECK_LIST_OK) {
			c->lists[c->n_lists] = TAKE_PTR(path);
			c->list_files[c->n_lists++] = files;
			continue;
		}
		if (why.kind == CHECK_LIST_IO && why.err == ENOENT)
			continue;
		cli_error("cannot use the checksum list %s: %s; fix it, or remove it to check "
			  "against the other lists", quote(path), list_problem_words(&why, buf,
										  sizeof(buf)));
		return EXIT_USAGE;
	}
	if (c->n_lists == 0) {
		_cleanup_free_ char *pattern = words_format("%s.ALG", prefix);

		cli_error("no checksum list %s (ALG: xxh128, xxh3, xxh64, md5, sha1 or sha256): "
			  "give the --sums prefix the copy was made with", quote(pattern));
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

/* Until the job ends: report, draw, cancel on the first signal (returned). */
static int wait_for_check(struct checker *c, const sigset_t *set)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = TICK_NS };
	int signo = 0;

	while (!check_job_done(c->job, NULL)) {
		int sig = sigtimedwait(set, NULL, &tick);

		if (sig > 0 && signo == 0) {
			signo = sig;
			check_job_cancel(c->job);
			checkout_warn(c, "interrupted by SIG%s; the files not reached are not checked",
				      sigabbrev_np(sig));
		}
		checkout_tick(c);
	}
	/* a signal that came while the main thread was not waiting (the job may
	 * end in between): the user asked to stop, so say interrupted */
	if (signo == 0) {
		const struct timespec now = { 0, 0 };
		int sig = sigtimedwait(set, NULL, &now);

		signo = sig > 0 ? sig : 0;
	}
	checkout_tick(c);
	return signo;
}

/* 130 > 2 > 4 > 1 > 0; 2 is decided before the job. */
static int status_of(const struct checker *c, int signo)
{
	const struct check_stats *st = check_job_stats(c->job);
	uint64_t bad = 0;

	if (signo)
		return EXIT_INTERRUPTED;
	for (int r = CHECK_DIFFERS; r < CHECK_RESULT_COUNT; r++)
		if (r != CHECK_UNREADABLE)
			bad += atomic_load(&st->count[r]);
	if (bad)
		return EXIT_MISMATCH;
	return atomic_load(&st->count[CHECK_UNREADABLE]) ? EXIT_PARTIAL : EXIT_OK;
}

static void checker_free(struct checker *c)
{
	check_job_free(c->job);
	checkout_free(c);
	check_list_free(&c->list);
	mhl_history_free(c->mhl);
	for (size_t i = 0; i < c->n_lists; i++)
		free(c->lists[i]);
	target_free(c->t);
}

int run_check(const struct safecp_options *o)
{
	struct checker c = { .o = o };
	sigset_t set;
	int r, status, signo;

	check_list_init(&c.list);
	r = target_probe(o->check_dir, &c.t);
	if (r < 0) {
		cli_error("cannot examine %s: %s; give the directory the copy was made to",
			  quote(o->check_dir), strerror(-r));
		return EXIT_USAGE;
	}
	status = o->sums_prefix ? load_sums(&c) : load_mhl(&c);
	if (status) {
		checker_free(&c);
		return status;
	}
	check_list_finish(&c.list);
	if (c.list.n == 0) {
		/* passing a check that read nothing would let a card be erased */
		cli_error("the reference for %s lists no file: nothing can be checked against "
			  "it; give the lists or the manifest of the copy", quote(o->check_dir));
		checker_free(&c);
		return EXIT_USAGE;
	}
	signals_block(&set);
	r = checkout_new(&c);
	if (r == 0)
		r = check_job_start(o->check_dir, c.t, &c.list, &c.job);
	if (r < 0) {
		cli_error("cannot check %s: %s", quote(o->check_dir), strerror(-r));
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
