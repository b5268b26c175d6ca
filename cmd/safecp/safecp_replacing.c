/* safecp_replacing.c: what happens to a file the copy would replace, as
 * cp's -i and -b/--backup/-S ask.
 *
 * -i asks during the plan, every question before the first byte is
 * written (the library calls ask_replace() from safecp_copy_prepare()),
 * and reads the answers from standard input, a line each, as cp does: the
 * terminal when it is one, else what a script feeds (end of input: no).
 * --backup's CONTROL words and VERSION_CONTROL, SIMPLE_BACKUP_SUFFIX are
 * cp's (coreutils 9.1), abbreviations included. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/quote.h"
#include "safecp/safecp_options.h"
#include "safecp/tool.h"

static const struct {
	const char *word;
	enum safecp_backup how;
} controls[] = {
	{ "none", SAFECP_BACKUP_NONE },         { "off", SAFECP_BACKUP_NONE },
	{ "simple", SAFECP_BACKUP_SIMPLE },     { "never", SAFECP_BACKUP_SIMPLE },
	{ "existing", SAFECP_BACKUP_EXISTING }, { "nil", SAFECP_BACKUP_EXISTING },
	{ "numbered", SAFECP_BACKUP_NUMBERED }, { "t", SAFECP_BACKUP_NUMBERED },
};
#define N_CONTROLS (sizeof(controls) / sizeof(controls[0]))

/* A word or an unambiguous start of one (argmatch's rule: starts of
 * several words are fine when they mean the same). */
static enum safecp_backup control_of(const char *word, const char *from)
{
	int found = -1;
	bool ambiguous = false;
	size_t l = strlen(word);

	for (size_t i = 0; l && i < N_CONTROLS; i++) {
		if (strcmp(word, controls[i].word) == 0)
			return controls[i].how;
		if (strncmp(word, controls[i].word, l) != 0)
			continue;
		if (found >= 0 && controls[found].how != controls[i].how)
			ambiguous = true;
		found = (int)i;
	}
	if (found < 0 || ambiguous)
		cli_usage_error("%s argument %s for %s: use none (off), simple (never), existing "
				"(nil) or numbered (t)", ambiguous ? "ambiguous" : "invalid",
				quote(word), from);
	return controls[found].how;
}

/* popt's strings, the last given, kept for the run */
static char *control_given, *suffix_given;

void replacing_backup(struct safecp_options *o, char *control)
{
	o->backup_asked = true;
	if (control) {
		free(control_given);
		o->backup_control = control_given = control;
	}
}

void replacing_suffix(struct safecp_options *o, char *suffix)
{
	o->backup_asked = true;
	free(suffix_given);
	o->backup_suffix = suffix_given = suffix;
}

void replacing_validate(struct safecp_options *o)
{
	const char *env = getenv("VERSION_CONTROL");

	if (!o->backup_asked)
		return;
	if (o->no_clobber)
		cli_usage_error("options --backup and --no-clobber are mutually exclusive: give "
				"one (-b keeps the old file under a backup name, -n keeps it "
				"under its own)");
	o->backup = o->backup_control ? control_of(o->backup_control, "--backup")
		    : env && *env ? control_of(env, "$VERSION_CONTROL")
				  : SAFECP_BACKUP_EXISTING;
	if (!o->backup_suffix && (env = getenv("SIMPLE_BACKUP_SUFFIX")) && *env &&
	    !strchr(env, '/'))
		o->backup_suffix = env;
	if (o->backup_suffix && (!*o->backup_suffix || strchr(o->backup_suffix, '/')))
		cli_usage_error("invalid suffix %s for -S: give a non-empty one without '/'",
				quote(o->backup_suffix));
}

int ask_replace(void *data, const char *source, const char *dest)
{
	char *line = NULL;
	size_t cap = 0;
	bool yes;

	(void)data;
	(void)source;
	fprintf(stderr, "%s: overwrite %s? ", program_name, quote(dest));
	fflush(stderr);
	yes = getline(&line, &cap, stdin) > 0 && rpmatch(line) == 1;
	free(line);
	return yes;
}

int replacing_set(const struct safecp_options *o, struct safecp_copy *c)
{
	int r = 0;

	if (o->interactive)
		r = safecp_copy_set_ask_replace(c, ask_replace, NULL);
	if (r == 0 && o->backup != SAFECP_BACKUP_NONE)
		r = safecp_copy_set_backup(c, o->backup, o->backup_suffix);
	return r;
}
