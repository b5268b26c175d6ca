/* safecp_cp_compat.c: GNU cp's options that safecp takes only to say what
 * they mean here (issue 29's rule: every cp 9.1 option is accepted with
 * cp's meaning, or refused before the first byte with one line that says
 * why and what to use).  The options that change a copy live with the
 * rest (safecp_options.c, safecp_preserve.c); these are the ones that
 * need no library: a word on an operand, a no-op, or a refusal. */
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "common/cli.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/safecp_options.h"
#include "safecp/tool.h"

enum {
	OPT_REMOVE_DESTINATION = 1000, /* above safecp's and cli.h's values (which use letters) */
	OPT_REFLINK,
	OPT_LINK,
	OPT_SYMBOLIC_LINK,
	OPT_ATTRIBUTES_ONLY,
	OPT_COPY_CONTENTS,
	OPT_CONTEXT_Z,
	OPT_CONTEXT,
	OPT_KEEP_DIRECTORY_SYMLINK,
	OPT_DEBUG,
	OPT_INTERACTIVE,
	OPT_BACKUP,
	OPT_BACKUP_SIMPLE,
	OPT_SUFFIX,
	OPT_PARENTS,
};

static int strip_slashes;

struct poptOption cp_compat_options[] = {
	{ "strip-trailing-slashes", '\0', POPT_ARG_NONE, &strip_slashes, 0,
	  "remove trailing slashes from each SOURCE (a link 'dir/' is then the link)", NULL },
	{ "remove-destination", '\0', POPT_ARG_NONE, NULL, OPT_REMOVE_DESTINATION,
	  "an existing file is replaced as if removed first: the copy gets a new file's "
	  "mode, a dangling link there is replaced", NULL },
	{ "reflink", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_REFLINK,
	  "auto or never: copies (a clone cannot reach another device); always is refused",
	  "WHEN" },
	{ "context", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_CONTEXT,
	  "accepted as cp takes it without SELinux: ignored (with CTX, a warning)", "CTX" },
	{ NULL, 'Z', POPT_ARG_NONE, NULL, OPT_CONTEXT_Z,
	  "the same as --context, ignored", NULL },
	{ "link", 'l', POPT_ARG_NONE, NULL, OPT_LINK,
	  "refused: a hard link cannot lead to another device; copy instead", NULL },
	{ "symbolic-link", 's', POPT_ARG_NONE, NULL, OPT_SYMBOLIC_LINK,
	  "refused: links to the sources would not travel with the stick; copy instead",
	  NULL },
	{ "attributes-only", '\0', POPT_ARG_NONE, NULL, OPT_ATTRIBUTES_ONLY,
	  "refused: safecp copies data; use cp --attributes-only", NULL },
	{ "copy-contents", '\0', POPT_ARG_NONE, NULL, OPT_COPY_CONTENTS,
	  "refused: devices and FIFOs are skipped with a warning, never read", NULL },
	{ "keep-directory-symlink", '\0', POPT_ARG_NONE, NULL, OPT_KEEP_DIRECTORY_SYMLINK,
	  "refused: safecp writes nothing through a symbolic link on the stick", NULL },
	{ "debug", '\0', POPT_ARG_NONE, NULL, OPT_DEBUG,
	  "-v, and after each file cp's line of how it is written (--dry-run tells more)",
	  NULL },
	{ "interactive", 'i', POPT_ARG_NONE, NULL, OPT_INTERACTIVE,
	  "ask before replacing each existing file, every question before the first "
	  "byte (answers from standard input; the last of -i and -n counts)", NULL },
	{ "backup", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_BACKUP,
	  "keep each file a copy replaces under a backup name first: CONTROL none, "
	  "simple, existing or numbered (default: $VERSION_CONTROL, else existing)",
	  "CONTROL" },
	{ NULL, 'b', POPT_ARG_NONE, NULL, OPT_BACKUP_SIMPLE,
	  "like --backup, without an argument", NULL },
	{ "suffix", 'S', POPT_ARG_STRING, NULL, OPT_SUFFIX,
	  "the simple backups' suffix (default: $SIMPLE_BACKUP_SUFFIX, else ~); implies "
	  "--backup", "SUFFIX" },
	{ "parents", '\0', POPT_ARG_NONE, NULL, OPT_PARENTS,
	  "copy each SOURCE to DEST/its path, making the directories on it (DEST: a "
	  "directory; a path with '..' is refused)", NULL },
	POPT_TABLEEND
};

static _Noreturn void refuse(const char *option, const char *why)
{
	cli_usage_error("%s: %s", option, why);
}

/* The optional argument of option (e.g. "--reflink"), only when attached
 * as option=ARG (cp's optional arguments take no separate word: one is
 * an operand, given back to popt); NULL without. */
static char *attached_arg(poptContext ctx, int argc, const char **argv, const char *option)
{
	char *arg = poptGetOptArg(ctx);
	size_t l = strlen(option);
	bool attached = false;

	for (int i = 1; arg && i < argc && !attached; i++)
		attached = strncmp(argv[i], option, l) == 0 && argv[i][l] == '=' &&
			   strcmp(argv[i] + l + 1, arg) == 0;
	if (arg && !attached) {
		poptStuffArgs(ctx, (const char *[]){ arg, NULL });
		free(arg);
		return NULL;
	}
	return arg;
}

bool cp_compat_option(poptContext ctx, int argc, const char **argv, int rc,
		      struct safecp_options *o)
{
	_cleanup_free_ char *arg = rc == OPT_REFLINK ? attached_arg(ctx, argc, argv, "--reflink")
				 : rc == OPT_CONTEXT ? attached_arg(ctx, argc, argv, "--context")
				 : rc == OPT_BACKUP ? attached_arg(ctx, argc, argv, "--backup")
				 : NULL;

	switch (rc) {
	case OPT_REMOVE_DESTINATION:
		o->remove_destination = true;
		return true;
	case OPT_CONTEXT_Z:
		return true;
	case OPT_CONTEXT:
		if (arg && *arg)
			msg_warning("ignoring --context; it requires an SELinux-enabled kernel");
		return true;
	case OPT_REFLINK:
		if (arg && strcmp(arg, "always") == 0)
			refuse("--reflink=always", "a clone cannot reach another device (the stick): "
			       "leave it out, or use --reflink=auto, which copies");
		if (arg && strcmp(arg, "auto") != 0 && strcmp(arg, "never") != 0)
			cli_usage_error("invalid argument %s for --reflink: use auto, always or never",
					quote(arg));
		return true;
	case OPT_LINK:
		refuse("-l, --link", "a hard link cannot lead to another device, and safecp copies "
		       "to sticks; leave it out to copy");
	case OPT_SYMBOLIC_LINK:
		refuse("-s, --symbolic-link", "links to the sources would not travel with the "
		       "stick; leave it out to copy");
	case OPT_ATTRIBUTES_ONLY:
		refuse("--attributes-only", "safecp copies data; use cp --attributes-only for "
		       "attributes alone");
	case OPT_COPY_CONTENTS:
		refuse("--copy-contents", "devices and FIFOs are skipped with a warning, never "
		       "read (reading one can block or never end); copy their contents with cat");
	case OPT_KEEP_DIRECTORY_SYMLINK:
		refuse("--keep-directory-symlink", "safecp writes nothing through a symbolic link "
		       "on the destination; give the directory it leads to as DEST");
	case OPT_DEBUG:
		o->debug = true;
		o->verbosity = VERBOSITY_VERBOSE;
		return true;
	case OPT_INTERACTIVE:
		o->interactive = true;
		o->no_clobber = false;
		return true;
	case OPT_BACKUP:
		replacing_backup(o, arg); /* its string kept there */
		arg = NULL;
		return true;
	case OPT_BACKUP_SIMPLE:
		replacing_backup(o, NULL);
		return true;
	case OPT_SUFFIX:
		replacing_suffix(o, poptGetOptArg(ctx));
		return true;
	case OPT_PARENTS:
		o->parents = true;
		return true;
	default:
		return false;
	}
}

void cp_compat_operands(const char **args, size_t n_sources)
{
	for (size_t i = 0; strip_slashes && args && i < n_sources; i++) {
		char *a = (char *)args[i]; /* argv's own strings */
		size_t l = strlen(a);

		while (l > 1 && a[l - 1] == '/')
			a[--l] = '\0';
	}
}
