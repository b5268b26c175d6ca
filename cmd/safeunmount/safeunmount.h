/* safeunmount.h: what the safeunmount command's files share.
 *
 * safeunmount.c parses the options and maps outcomes to the exit status;
 * safeunmount_target.c has the library (<safecp/unmount.h>) turn a TARGET
 * into a job (the filesystems to unmount, the disk to power off) and
 * words its refusals; safeunmount_run.c polls the job (sync with
 * progress, unmount, release check, power-off) and words its steps;
 * safeunmount_report.c says what happened, in words or JSON events. */
#ifndef SAFECP_SAFEUNMOUNT_H
#define SAFECP_SAFEUNMOUNT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <safecp/unmount.h>

#include "common/cli.h" /* enum verbosity */
#include "common/event.h"
#include "common/json.h"
#include "common/progress.h"

struct su_options {
	enum progress_mode progress;
	enum verbosity verbosity;
	bool lazy, power_off, force;
	bool system;           /* --system: system mounts may be unmounted */
	bool udisks;           /* --udisks: through udisks2 also as root */
	struct safecp_unmount_backend *backend; /* the kernel's, or udisks' (main sets
						  * it; NULL: the kernel's) */
	bool wait;             /* --wait given */
	double wait_seconds;   /* its limit; negative: no limit */
	const char **targets;
	size_t n_targets;
};

/* Outcomes, mapped to the exit status by safeunmount.c. */
enum su_status {
	SU_OK = 0,
	SU_USAGE,       /* bad target, not mounted, refused: EXIT_USAGE */
	SU_BUSY,        /* in use: EXIT_BUSY */
	SU_FAILED,      /* a step failed: EXIT_PARTIAL */
	SU_INTERRUPTED, /* EXIT_INTERRUPTED */
};

/* Set by the SIGINT/SIGTERM handler. */
extern volatile sig_atomic_t su_interrupted;

/* safeunmount_target.c: lib resolves and refuses, this says why.  *ret is
 * the job, also after a refusal (NULL only out of memory). */
enum su_status job_resolve(const struct su_options *o, const char *arg,
			   struct safecp_unmount **ret);

/* safeunmount_run.c */
enum su_status job_run(const struct su_options *o, struct safecp_unmount *job);
/* under SAFECP_SYSROOT (tests on captured trees): the checks only */
enum su_status job_check_only(const struct su_options *o, struct safecp_unmount *job);

/* safeunmount_report.c: words on stderr, events on stdout (--progress=json) */
void report_init(const struct su_options *o);
bool report_json(void);
void report_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error that ends a job: message on stderr, "error" event (the tools'
 * shared fields, common/event.h) naming the path or device that failed,
 * with err (either sign, 0 for none) and step ("sync", "unmount",
 * "power-off", or NULL before any). */
void report_error(const char *step, enum event_subject kind, const char *name, int err,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* How an error event names t->arg: "device" for a device target. */
enum event_subject job_kind(const struct safecp_unmount_target *t);
void report_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -v: the job's filesystems; report_start() says them too */
void report_found(const struct safecp_unmount *job);
void report_start(const struct safecp_unmount *job);
void report_unmounted(const struct safecp_unmount_fs *fs);
/* what keeps a mount point (or device) busy, and the mounts below it */
void report_busy(const struct safecp_unmount_busy *b);
void report_powered_off(const char *devnode, const char *method);
void report_done(int exit_status, uint64_t bytes_written, size_t unmounted);
double report_now(void);

/* The progress meter's JSON callback (userdata: struct su_progress_json). */
struct su_progress_json {
	double t_real;
	uint64_t bytes_left, bytes_written;
};
void report_progress_json(FILE *out, const struct progress_state *st, bool final, void *userdata);

#endif
