/* safecp_check.h: what safecp_check.c (the reference, the job, the exit
 * status) and safecp_check_out.c (messages, progress, JSON) share.
 * Private to cmd/safecp. */
#ifndef SAFECP_CMD_SAFECP_CHECK_H
#define SAFECP_CMD_SAFECP_CHECK_H

#include "copy/check.h"
#include "mhl/mhl_read.h"
#include "safecp/tool.h"

struct checkout;

struct checker {
	const struct safecp_options *o;
	struct target *t;                     /* of the directory checked */
	struct check_list list;               /* the reference */
	struct mhl_history *mhl;              /* without --sums */
	const char *manifest;                 /*   its newest manifest, in ascmhl/ */
	char *lists[CHECKSUM_ALG_COUNT];      /* with --sums: the lists found */
	size_t list_files[CHECKSUM_ALG_COUNT];
	size_t n_lists;
	struct check_job *job;
	struct checkout *out;
};

/* safecp_check.c: --check; returns the exit status. */
int run_check(const struct safecp_options *o);

/* safecp_check_out.c: all output of a check, from the main thread only. */
int checkout_new(struct checker *c);
void checkout_free(struct checker *c);
/* What is checked against what (a note; JSON check-start). */
void checkout_start(struct checker *c);
/* The outcomes that became final, then the progress. */
void checkout_tick(struct checker *c);
void checkout_warn(struct checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last line and the done event (signo: the interrupting signal, or 0). */
void checkout_done(struct checker *c, int signo);

#endif
