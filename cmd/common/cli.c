/* cli.c: the shared popt table, option-error reporting and the stdout
 * check at exit.
 *
 * --help and --version live in a callback table rather than popt's
 * POPT_AUTOHELP so that help is -h (not -?), goes to stdout, and exits
 * through exit() where close_stdout() still checks the write.  It runs
 * from on_exit(3), which hands it the exit status: lost output turns a
 * success into 1 but never hides a more serious status (2, 3, 130).
 * -v and -q are a level that the last of them sets (cli.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "config.h"
#include "common/exitcodes.h"
#include "common/msg.h"
#include "common/quote.h"

static const char *program_summary;
static int man_section = 1;

enum { OPT_HELP = 'h', OPT_VERSION = 'V' };

static void common_callback(poptContext ctx, enum poptCallbackReason reason,
			    const struct poptOption *opt, const char *arg,
			    const void *data)
{
	if (reason != POPT_CALLBACK_REASON_OPTION)
		return;
	switch (opt->val) {
	case OPT_HELP:
		if (program_summary)
			printf("%s\n\n", program_summary);
		poptPrintHelp(ctx, stdout, 0);
		printf("\nSee %s(%d) for the output and the exit status.\n", program_name,
		       man_section);
		exit(EXIT_OK);
	case OPT_VERSION:
		printf("%s %s\n", program_name, PACKAGE_VERSION);
		exit(EXIT_OK);
	}
}

struct poptOption cli_common_options[] = {
	{ NULL, '\0', POPT_ARG_CALLBACK, (void *)common_callback, 0, NULL, NULL },
	{ "help", 'h', POPT_ARG_NONE, NULL, OPT_HELP, "show this help and exit", NULL },
	{ "version", 'V', POPT_ARG_NONE, NULL, OPT_VERSION, "show the version and exit", NULL },
	POPT_TABLEEND
};

void cli_init(const char *prog, const char *summary)
{
	program_name = prog;
	program_summary = summary;
	on_exit(close_stdout, NULL);
}

void cli_set_man_section(int section)
{
	man_section = section;
}

bool cli_verbosity_option(int rc, enum verbosity *v)
{
	switch (rc) {
	case CLI_OPT_VERBOSE:
		*v = VERBOSITY_VERBOSE;
		return true;
	case CLI_OPT_QUIET:
		*v = VERBOSITY_QUIET;
		return true;
	}
	return false;
}

bool cli_give_back_operand(poptContext ctx, int argc, const char **argv, const char *arg)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], arg) == 0) {
			poptStuffArgs(ctx, (const char *[]){ arg, NULL }); /* popt copies it */
			return true;
		}
	return false;
}

void cli_popt_fail(poptContext ctx, int rc)
{
	cli_error("%s %s; try '%s --help'", poptStrerror(rc),
		  quote(poptBadOption(ctx, POPT_BADOPTION_NOALIAS)), program_name);
	poptFreeContext(ctx);
	exit(EXIT_USAGE);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vprint(MSG_ERROR, fmt, ap);
	va_end(ap);
}

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vprint(MSG_ERROR, fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

static int stdout_errno; /* of the first failed cli_flush_stdout() */

bool cli_flush_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	if (!stdout_errno)
		stdout_errno = errno;
	return false;
}

/* 0, or EOF with errno set (0 when only the stream's error flag knows). */
static int close_stream(FILE *f)
{
	bool pending = __fpending(f) != 0;
	bool earlier = ferror(f) != 0;
	int flush_errno = 0;

	/* flushing again also recovers the errno of an earlier failed write
	 * when its output is still buffered */
	if (fflush(f) != 0)
		flush_errno = errno;
	if (fclose(f) != 0) {
		/* EBADF with nothing lost: closed on purpose (`tool >&-`) */
		if (errno == EBADF && !pending && !earlier && !flush_errno)
			return 0;
		return EOF;
	}
	if (flush_errno || earlier) {
		errno = flush_errno;
		return EOF;
	}
	return 0;
}

void close_stdout(int status, void *unused)
{
	int failed = status ? status : EXIT_PARTIAL;

	(void)unused;
	if (close_stream(stdout) != 0 && errno != EPIPE) {
		if (!errno)
			errno = stdout_errno;
		if (errno)
			msg_error("cannot write to standard output: %s", strerror(errno));
		else
			msg_error("cannot write to standard output");
		_exit(failed);
	}
	if (close_stream(stderr) != 0)
		_exit(failed);
}

int cli_parse_seconds(const char *s, bool allow_zero, double max, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !isfinite(v) || v < 0 || (v == 0 && !allow_zero) ||
	    v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}
