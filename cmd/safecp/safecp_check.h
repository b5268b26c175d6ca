/* safecp_check.h: what safecp_check.c (the check's setup, the loop, the
 * exit status) and safecp_check_out.c (messages, progress, JSON) share;
 * the check itself is <safecp/check.h>.  Private to cmd/safecp. */
#ifndef SAFECP_CMD_SAFECP_CHECK_H
#define SAFECP_CMD_SAFECP_CHECK_H

#include <safecp/check.h>

#include "common/cli.h"      /* enum verbosity */
#include "common/progress.h" /* enum progress_mode */

/* The options of safecp that --check takes. */
struct check_args {
	const char *dir;          /* --check DIR */
	const char *sums_prefix;  /* --sums, or NULL: DIR/ascmhl */
	enum progress_mode progress;
	enum verbosity verbosity;
};

struct checkout;

struct checker {
	const struct check_args *o;
	struct safecp_check *check;
	struct safecp_check_reference ref;  /* after a prepare that said ready */
	struct safecp_check_place place;
	struct checkout *out;
};

/* safecp_check.c: --check; returns the exit status. */
int run_check(const struct check_args *o);

/* safecp_check_out.c: all output of a check, from the main thread only. */
int checkout_new(struct checker *c);
void checkout_free(struct checker *c);
/* What is checked against what (a note; JSON check-start). */
void checkout_start(struct checker *c);
/* A file's outcome (a line when it is not what the reference says, or
 * with -v; JSON check). */
void checkout_file(struct checker *c, const struct safecp_check_event *ev);
/* The progress. */
void checkout_tick(struct checker *c);
void checkout_warn(struct checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last line and the done event (signo: the interrupting signal, or 0). */
void checkout_done(struct checker *c, int signo);

#endif
