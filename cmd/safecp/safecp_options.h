/* safecp_options.h: safecp's command line, parsed and checked
 * (safecp_options.c), for main().  Private to cmd/safecp. */
#ifndef SAFECP_CMD_SAFECP_OPTIONS_H
#define SAFECP_CMD_SAFECP_OPTIONS_H

#include <popt.h>
#include <stddef.h>

#include "safecp/tool.h"

/* popt's view of the command line, before validation; main() frees
 * the -t strings and names --events' file from it at the end */
struct safecp_raw {
	int recursive, deref, no_target_dir, dry_run, rename_invalid, mhl, unmount, power_off;
	int unpack, skip_unsafe, system_disk, no_resume, update, one_file_system;
	bool no_preserve;  /* --no-preserve given (--pack refuses it) */
	char *strategy, *window, *progress, *checksum, *sums, *check, *pack, *events;
	char *sparse;
	char *target_dirs[SAFECP_DESTINATIONS_MAX]; /* -t, each one (popt's copies) */
	size_t n_target_dirs;
	char *beneath[SAFECP_DESTINATIONS_MAX];     /* --beneath, each one */
	size_t n_beneath;
};
extern struct safecp_raw raw;

/* safecp_cp_compat.c: cp's options that need no library (a popt table
 * included in safecp's); each one's handling (true: it was one of them;
 * a refusal exits); --strip-trailing-slashes on the sources. */
extern struct poptOption cp_compat_options[];
bool cp_compat_option(poptContext ctx, int argc, const char **argv, int rc,
		      struct safecp_options *o);
void cp_compat_operands(const char **args, size_t n_sources);

/* Parses argv into *o; exits EXIT_USAGE on any mistake.  The operand
 * strings live in the returned context. */
poptContext parse_options(int argc, const char **argv, struct safecp_options *o);

#endif
