/* safeunmount.c: the safeunmount command: options, signals, and the exit
 * status.
 *
 * main() parses one popt table, then handles each TARGET in turn:
 * job_resolve() (safeunmount_target.c) has the library find its
 * filesystems and refuse what cannot work before anything is written;
 * job_run() (safeunmount_run.c) polls the library's unmount job
 * (<safecp/unmount.h>), which syncs with progress, unmounts, checks the
 * device is released and powers it off.  With several targets the status
 * is the most severe one: failed (1), then busy (3), then usage (2); an
 * interruption (130) stops at once. */
#include <errno.h>
#include <math.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/quote.h"
#include "common/unmount_choice.h"
#include "safeunmount/safeunmount.h"

volatile sig_atomic_t su_interrupted;

enum {
	OPT_WAIT = 1,
};

static struct {
	int lazy, power_off, force, system, udisks;
	char *progress;
} raw;

static struct poptOption options[] = {
	{ "progress", '\0', POPT_ARG_STRING, &raw.progress, 0,
	  "bar, plain, json or none (default: bar on a terminal)", "MODE" },
	{ "wait", 'w', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_WAIT,
	  "when busy, retry until it is free (or for SECONDS)", "SECONDS" },
	{ "power-off", 'P', POPT_ARG_NONE, &raw.power_off, 0,
	  "then power off the disk and detach it", NULL },
	{ "force", 'f', POPT_ARG_NONE, &raw.force, 0,
	  "power off an SD card in a built-in reader too", NULL },
	{ "system", '\0', POPT_ARG_NONE, &raw.system, 0,
	  "also unmount system mounts (/boot, /home, ..., a disk with swap); never '/'", NULL },
	{ "lazy", 'l', POPT_ARG_NONE, &raw.lazy, 0,
	  "detach even when busy (data may be written after safeunmount ends)", NULL },
	{ "udisks", '\0', POPT_ARG_NONE, &raw.udisks, 0,
	  "unmount and power off through udisks2 also as root (the default without root)", NULL },
	CLI_VERBOSITY_OPTIONS("say what is done at each step", "print errors only"),
	CLI_COMMON_TABLE,
	POPT_TABLEEND
};

/* Counted: a first Ctrl-C during the sync lets it end in view, a second
 * leaves it to the kernel (safeunmount_run.c).  SIGTERM, from a script or
 * the system, is always the second. */
static void on_signal(int sig)
{
	if (sig == SIGTERM)
		su_interrupted = 2;
	else if (su_interrupted < 2)
		su_interrupted++;
}

/* No SA_RESTART: the waits (poll, nanosleep) must return EINTR.  SIGPIPE
 * is ignored (from the start, for --help too): a reader of the JSON events
 * that goes away (`| head`) must not kill us between the unmount and the
 * power-off; the writes fail with EPIPE instead, the job goes on, and
 * close_stdout() does not count a closed pipe as lost output. */
static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* --wait's time is optional, and popt hands it the next word
 * (`safeunmount --wait /media/usb`).  A separate word that is not a
 * number is a TARGET: it goes back to popt as a plain argument. */
static void wait_arg(poptContext ctx, int argc, const char **argv, struct su_options *o)
{
	char *a = poptGetOptArg(ctx);

	o->wait = true;
	o->wait_seconds = -1;
	if (a && cli_parse_seconds(a, true, HUGE_VAL, &o->wait_seconds) < 0 &&
	    !cli_give_back_operand(ctx, argc, argv, a))
		cli_usage_error("invalid time %s for --wait: use seconds, such as 30 or 2.5", quote(a));
	free(a);
}

static void validate(poptContext ctx, struct su_options *o)
{
	const char **args = poptGetArgs(ctx);

	if (raw.progress && progress_mode_parse(raw.progress, &o->progress) < 0)
		cli_usage_error("unknown progress mode %s: use bar, plain, json or none",
				quote(raw.progress));
	if (!raw.progress)
		o->progress = o->verbosity == VERBOSITY_QUIET ? PROGRESS_NONE
							    : progress_default_mode(stderr);
	if (raw.lazy && o->wait)
		cli_usage_error("cannot combine --lazy and --wait: --lazy never waits");
	o->lazy = raw.lazy;
	o->power_off = raw.power_off;
	o->force = raw.force;
	o->system = raw.system;
	o->udisks = raw.udisks;
	while (args && args[o->n_targets])
		o->n_targets++;
	if (o->n_targets == 0)
		cli_usage_error("missing target: give a mount point, a device, LABEL= or UUID=; try '%s --help'",
				program_name);
	o->targets = args;
}

static poptContext parse_options(int argc, const char **argv, struct su_options *o)
{
	poptContext ctx = poptGetContext(program_name, argc, argv, options, 0);
	int rc;

	poptSetOtherOptionHelp(ctx, "[OPTION]... TARGET...");
	*o = (struct su_options){ .wait_seconds = -1 };
	while ((rc = poptGetNextOpt(ctx)) > 0) {
		if (cli_verbosity_option(rc, &o->verbosity))
			continue;
		if (rc == OPT_WAIT)
			wait_arg(ctx, argc, argv, o);
	}
	if (rc != -1)
		cli_popt_fail(ctx, rc);
	validate(ctx, o);
	return ctx;
}

static int severity(enum su_status s)
{
	static const int rank[] = {
		[SU_OK] = 0, [SU_USAGE] = 1, [SU_BUSY] = 2, [SU_FAILED] = 3, [SU_INTERRUPTED] = 4,
	};

	return rank[s];
}

static int exit_status(enum su_status s)
{
	switch (s) {
	case SU_OK: return EXIT_OK;
	case SU_USAGE: return EXIT_USAGE;
	case SU_BUSY: return EXIT_BUSY;
	case SU_FAILED: return EXIT_PARTIAL;
	case SU_INTERRUPTED: return EXIT_INTERRUPTED;
	}
	return EXIT_PARTIAL;
}

int main(int argc, const char **argv)
{
	struct su_options o;
	enum su_status worst = SU_OK;
	uint64_t written = 0;
	size_t unmounted = 0;
	poptContext ctx;

	cli_init("safeunmount", "Write out what is still cached for a filesystem, showing the "
		 "bytes left,\nthen unmount it and optionally power its disk off.\n\n"
		 "TARGET is one of:\n"
		 "  a mount point, or any path inside a mounted filesystem (not on '/')\n"
		 "  a device node: a partition (its filesystems) or a whole disk (every\n"
		 "    filesystem on it and on its partitions); with -P, a device that is\n"
		 "    not mounted is only powered off\n"
		 "  LABEL=label, UUID=uuid, PARTLABEL=label or PARTUUID=uuid (libblkid)\n"
		 "A TARGET is done whole or not at all.");
	cli_set_man_section(8);
	signal(SIGPIPE, SIG_IGN);
	ctx = parse_options(argc, argv, &o);
	install_signals();
	report_init(&o);
	/* the kernel's as root, else udisks'; in a captured tree the kernel's */
	o.backend = unmount_choice_make(o.udisks);
	unmount_choice_note(o.backend);
	for (size_t i = 0; i < o.n_targets && worst != SU_INTERRUPTED; i++) {
		struct safecp_unmount *job;
		struct safecp_unmount_target t;
		enum su_status s = job_resolve(&o, o.targets[i], &job);

		if (s == SU_OK) {
			safecp_unmount_target(job, &t);
			s = t.captured ? job_check_only(&o, job) : job_run(&o, job);
		}
		if (job && safecp_unmount_target(job, &t) == 0) {
			written += t.bytes_written;
			unmounted += t.n_unmounted;
		}
		safecp_unmount_free(job);
		if (severity(s) > severity(worst))
			worst = s;
	}
	report_done(exit_status(worst), written, unmounted);
	safecp_unmount_backend_free(o.backend);
	poptFreeContext(ctx);
	return exit_status(worst);
}
