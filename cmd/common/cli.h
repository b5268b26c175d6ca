/* cli.h: what every tool's command line shares.
 *
 * One popt idiom (STYLE.md habit 7): each tool has its own option table
 * and nests CLI_COMMON_TABLE at its end, which brings -h/--help and
 * -V/--version with the same wording everywhere.  Option errors go
 * through cli_popt_fail(); stdout is checked at exit by close_stdout(),
 * which cli_init() registers, so `tool >/dev/full` fails (habit 6). */
#ifndef SAFECP_CLI_H
#define SAFECP_CLI_H

#include <popt.h>
#include <stdbool.h>

#include "common/msg.h" /* program_name, which cli_init() sets */

/* Call first in main(): sets program_name, the one-line summary that
 * --help prints above the option list, and registers close_stdout(). */
void cli_init(const char *prog, const char *summary);

/* The section --help points at: 1 unless set (safeunmount(8)). */
void cli_set_man_section(int section);

/* -v and -q: every tool has both, and the last one given counts
 * (`tool -v -q` is quiet, `tool -q -v` verbose), as with cp's -n and -f,
 * so an alias or a script's default is overridden by adding the other.
 * Each tool words what they do for it; the rule's words are added here:
 *
 *	CLI_VERBOSITY_OPTIONS("name each file", "print errors only"),
 *	...
 *	if (cli_verbosity_option(rc, &o->verbosity)) continue; */
enum verbosity {
	VERBOSITY_QUIET = -1, /* -q: errors only */
	VERBOSITY_NORMAL = 0,
	VERBOSITY_VERBOSE = 1, /* -v */
};

enum { CLI_OPT_VERBOSE = 'v', CLI_OPT_QUIET = 'q' };

#define CLI_LAST_WINS " (the last of -v and -q counts)"
#define CLI_VERBOSITY_OPTIONS(verbose_help, quiet_help) \
	{ "verbose", 'v', POPT_ARG_NONE, NULL, CLI_OPT_VERBOSE, verbose_help CLI_LAST_WINS, NULL }, \
	{ "quiet", 'q', POPT_ARG_NONE, NULL, CLI_OPT_QUIET, quiet_help CLI_LAST_WINS, NULL }

/* rc from poptGetNextOpt(): when it is -v or -q, *v becomes its level and
 * the result is true. */
bool cli_verbosity_option(int rc, enum verbosity *v);

/* Non-const: popt nests it through a void pointer, and gcc warns about
 * dropping const there. */
extern struct poptOption cli_common_options[];

#define CLI_COMMON_TABLE \
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, cli_common_options, 0, \
	  "Common options:", NULL }

/* Report a poptGetNextOpt() failure as
 *   dirtystat: unknown option '--frob'; try 'dirtystat --help'
 * using poptBadOption() and poptStrerror() of the same rc, then exit
 * EXIT_USAGE. */
_Noreturn void cli_popt_fail(poptContext ctx, int rc);

/* An option with an optional argument takes the next word from popt
 * (`dirtystat --watch /mnt`).  When arg was such a separate word (not
 * --opt=ARG), hand it back to popt as an operand and return true; false
 * means the user wrote --opt=ARG and a bad ARG is theirs to hear about. */
bool cli_give_back_operand(poptContext ctx, int argc, const char **argv, const char *arg);

/* A duration in seconds as typed ("30", "2.5", "1e-1"): finite, above 0
 * (at or above 0 with allow_zero) and at most max.  0 or -EINVAL. */
int cli_parse_seconds(const char *s, bool allow_zero, double max, double *ret);

/* An error line, "prog: " + message (common/msg.h's msg_error). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_error() then exit(EXIT_USAGE), for bad input found after parsing. */
_Noreturn void cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Flush stdout now (each --watch reading); false when output was lost,
 * whose errno close_stdout() then reports. */
bool cli_flush_stdout(void);

/* on_exit handler (util-linux closestream): flush and close stdout and
 * stderr; when output was lost say so and _exit(EXIT_PARTIAL), or with
 * status itself when that was already a failure (2, 3, 130 stay).  A
 * closed pipe (EPIPE) is not reported: the reader chose to stop. */
void close_stdout(int status, void *unused);

#endif
