/* safecp_options.c: safecp's command line: the popt table, what each
 * option's value may be, which options go together, cp's operand rules,
 * and --events' file opened before the first byte. */
#include <errno.h>
#include <fcntl.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/path_below.h"
#include "base/cleanup.h"
#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/quote.h"
#include "safecp/safecp_options.h"
#include "base/size.h"

/* --window outside this range is a typo, not a tuning choice */
#define WINDOW_MIN (64ULL << 10)
#define WINDOW_MAX (1ULL << 30)

enum {
	OPT_NO_CLOBBER = 1,
	OPT_FORCE,
	OPT_TARGET,
	OPT_VERIFY,
	OPT_SKIP_IDENTICAL,
	OPT_BENEATH,
	OPT_FEATURES,
	/* cp's metadata (safecp_preserve.c) */
	OPT_PRESERVE,
	OPT_NO_PRESERVE,
	OPT_P,
	OPT_ARCHIVE,
	OPT_NO_DEREF_LINKS,
	OPT_DEREF_L,
	OPT_DEREF_P,
	OPT_DEREF_H,
};

/* popt's view of the command line, before validation */
struct safecp_raw raw;

static struct poptOption options[] = {
	{ "recursive", 'r', POPT_ARG_NONE, &raw.recursive, 0,
	  "copy directories and everything in them", NULL },
	{ NULL, 'R', POPT_ARG_NONE, &raw.recursive, 0, "the same as -r", NULL },
	{ "dereference", 'L', POPT_ARG_NONE, NULL, OPT_DEREF_L,
	  "follow symbolic links in SOURCE (default: copy them as links)", NULL },
	{ "no-dereference", 'P', POPT_ARG_NONE, NULL, OPT_DEREF_P,
	  "copy symbolic links as links, also those named as SOURCE without -r (the "
	  "last of -L, -P and -H counts)", NULL },
	{ NULL, 'H', POPT_ARG_NONE, NULL, OPT_DEREF_H,
	  "follow the symbolic links named as SOURCE, also with -r; copy those below "
	  "them as links", NULL },
	{ NULL, 'd', POPT_ARG_NONE, NULL, OPT_NO_DEREF_LINKS,
	  "the same as --no-dereference --preserve=links", NULL },
	{ "target-directory", 't', POPT_ARG_STRING, NULL, OPT_TARGET,
	  "copy every SOURCE into DIR; repeat for several destinations, each at its "
	  "own pace", "DIR" },
	{ "beneath", '\0', POPT_ARG_STRING, NULL, OPT_BENEATH,
	  "refuse a DEST not written as DIR/... or reached from DIR through a symbolic "
	  "link, '..' or another mount; repeat for several sticks", "DIR" },
	{ "system-disk", '\0', POPT_ARG_NONE, &raw.system_disk, 0,
	  "copy also to the disk the system runs from, or to memory (tmpfs), which "
	  "are refused as no stick", NULL },
	{ "no-target-directory", 'T', POPT_ARG_NONE, &raw.no_target_dir, 0,
	  "treat DEST as a file name, even if it is a directory", NULL },
	{ "update", 'u', POPT_ARG_NONE, &raw.update, 0,
	  "replace an existing file only when it is older than its SOURCE (as the "
	  "stick keeps times); copy missing ones", NULL },
	{ "one-file-system", 'x', POPT_ARG_NONE, &raw.one_file_system, 0,
	  "copy a directory on another filesystem than its SOURCE empty", NULL },
	{ "no-clobber", 'n', POPT_ARG_NONE, NULL, OPT_NO_CLOBBER,
	  "keep existing files (the last of -n and -f counts)", NULL },
	{ "force", 'f', POPT_ARG_NONE, NULL, OPT_FORCE,
	  "replace existing files, read-only ones too (the default; ignored with -n, as cp)",
	  NULL },
	CLI_VERBOSITY_OPTIONS("name each file, the write strategy and why", "print errors only"),
	{ "strategy", '\0', POPT_ARG_STRING, &raw.strategy, 0,
	  "how to bound dirty data: auto, window, direct, sync-window", "NAME" },
	{ "window", '\0', POPT_ARG_STRING, &raw.window, 0,
	  "bytes written ahead of the device (e.g. 16M; default from the device)", "SIZE" },
	{ "sparse", '\0', POPT_ARG_STRING, &raw.sparse, 0,
	  "holes in files: auto (where the source has them, the default), always "
	  "(also for blocks of zeros), never (every byte written); FAT and exFAT get "
	  "zeros", "WHEN" },
	{ "rename-invalid", '\0', POPT_ARG_NONE, &raw.rename_invalid, 0,
	  "give names FAT, exFAT or NTFS cannot hold (or that differ only in case) "
	  "other names, instead of refusing", NULL },
	{ "dry-run", '\0', POPT_ARG_NONE, &raw.dry_run, 0,
	  "show the plan, the target and the strategy; write nothing", NULL },
	{ "progress", '\0', POPT_ARG_STRING, &raw.progress, 0,
	  "bar, plain, json or none (default: bar on a terminal)", "MODE" },
	/* cp's metadata (issue 29: safecp_preserve.c) */
	{ NULL, 'p', POPT_ARG_NONE, NULL, OPT_P,
	  "same as --preserve=mode,ownership,timestamps, kept where the stick can hold "
	  "them (one note says what it cannot)", NULL },
	{ "preserve", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_PRESERVE,
	  "keep these attributes (default: mode,ownership,timestamps): mode (with ACLs), "
	  "ownership (root), timestamps, xattr, context, links, all; one named that the "
	  "stick cannot hold is refused before the first byte; give the list with '='",
	  "LIST" },
	{ "no-preserve", '\0', POPT_ARG_STRING, NULL, OPT_NO_PRESERVE,
	  "do not keep these attributes (the same names); the times are kept unless "
	  "timestamps is given here", "LIST" },
	{ "archive", 'a', POPT_ARG_NONE, NULL, OPT_ARCHIVE,
	  "the same as -dR --preserve=all: everything the stick can hold (one note "
	  "says what it cannot)", NULL },
	{ "verify", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_VERIFY,
	  "read every file back from the device before it gets its name; one that "
	  "differs is not named (exit 4); =source: read every source file twice too",
	  "source" },
	{ "mhl", '\0', POPT_ARG_NONE, &raw.mhl, 0,
	  "write an ASC MHL generation into each destination's ascmhl folder", NULL },
	{ "checksum", '\0', POPT_ARG_STRING, &raw.checksum, 0,
	  "checksum every file as it is read: xxh128, xxh3, xxh64, md5, sha1, sha256 "
	  "(a comma list)", "ALG" },
	{ "sums", '\0', POPT_ARG_STRING, &raw.sums, 0,
	  "write the checksums as PREFIX.ALG lists (xxhsum -c, sha256sum -c; "
	  "default algorithm xxh128)", "PREFIX" },
	{ "events", '\0', POPT_ARG_STRING, &raw.events, 0,
	  "also write the --progress=json events to FILE (for scripts); the progress "
	  "is shown as without it", "FILE" },
	{ "skip-identical", '\0', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL,
	  OPT_SKIP_IDENTICAL,
	  "leave alone files the destination holds already: quick (the default: same "
	  "size and modification time) or hash (the source's checksum against the "
	  "stick's own record, ascmhl or the --sums lists, not its bytes; else both "
	  "copies read); with --verify each file left alone is read back from the "
	  "device, and copied again if it differs; give the mode with '='", "MODE" },
	{ "pack", '\0', POPT_ARG_STRING, &raw.pack, 0,
	  "write the sources as one archive: tar (pax), tar.gz, tar.xz, tar.zst or zip; "
	  "into a directory as NAME.FORMAT after the first SOURCE, else DEST is its name",
	  "FORMAT" },
	{ "check", '\0', POPT_ARG_STRING, &raw.check, 0,
	  "copy nothing: read the copy in DIR back from the device and compare it with "
	  "DIR/ascmhl's newest manifest, or with the --sums lists (exit 4: one differs)", "DIR" },
	{ "unmount", '\0', POPT_ARG_NONE, &raw.unmount, 0,
	  "then unmount each destination whose copy succeeded (through udisks2 without root; "
	  "exit 3: one is busy)",
	  NULL },
	{ "power-off", '\0', POPT_ARG_NONE, &raw.power_off, 0,
	  "then unmount it and power its disk off (a loop device: delete it)", NULL },
	{ "no-resume", '\0', POPT_ARG_NONE, &raw.no_resume, 0,
	  "copy every file from its start: do not go on from where an interrupted copy "
	  "stopped in a large file, nor keep what this one writes of one if it stops", NULL },
	{ "unpack", '\0', POPT_ARG_NONE, &raw.unpack, 0,
	  "extract every entry of each ARCHIVE (tar, tar.gz, .bz2, .xz, .zst, zip) into "
	  "DEST; one unsafe entry refuses them all before the first byte", NULL },
	{ "skip-unsafe", '\0', POPT_ARG_NONE, &raw.skip_unsafe, 0,
	  "with --unpack: leave unsafe entries out, name each, extract the rest (exit 1)", NULL },
	{ "features", '\0', POPT_ARG_NONE, NULL, OPT_FEATURES,
	  "show what this safecp can do, one feature a line with its values (for "
	  "scripts), and exit", NULL },
	{ NULL, '\0', POPT_ARG_INCLUDE_TABLE, cp_compat_options, 0,
	  "cp's options that safecp takes only to say what they do here:", NULL },
	CLI_COMMON_TABLE,
	POPT_TABLEEND
};

static void parse_window(const char *s, struct safecp_options *o)
{
	int r = size_parse(s, &o->window);

	if (r < 0)
		cli_usage_error("invalid window size %s: use a size such as 8M or 32MiB", quote(s));
	if (o->window < WINDOW_MIN || o->window > WINDOW_MAX)
		cli_usage_error("window size %s out of range: use 64K to 1G", quote(s));
}

/* name is one of feature's values (safecp_feature_value()). */
static bool feature_lists(enum safecp_feature feature, const char *name)
{
	const char *v;

	for (unsigned i = 0; (v = safecp_feature_value(feature, i)); i++)
		if (strcmp(v, name) == 0)
			return true;
	return false;
}

/* --checksum NAME,...: each a checksum a list can hold; list is popt's,
 * cut in place into the names. */
static void parse_checksum(char *list, struct safecp_options *o)
{
	const char *whole = quote(list);
	char *save = NULL, *name;

	if (!*list || *list == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		cli_usage_error("empty name in --checksum %s: use names such as xxh128,sha256",
				whole);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (!feature_lists(SAFECP_FEATURE_CHECKSUMS, name))
			cli_usage_error("unknown checksum %s in --checksum: use xxh128, xxh3, xxh64, "
					"md5, sha1 or sha256", quote(name));
		if (o->n_checksums == SAFECP_CHECKSUMS_MAX)
			cli_usage_error("too many names in --checksum %s", whole);
		o->checksums[o->n_checksums++] = name;
	}
}

/* --verify, or --verify=source; a separate word after a bare --verify
 * is an operand. */
static void parse_verify(poptContext ctx, int argc, const char **argv, struct safecp_options *o)
{
	_cleanup_free_ char *a = poptGetOptArg(ctx);

	o->verify = true;
	if (!a || strcmp(a, "source") == 0) {
		o->verify_source = a != NULL;
		return;
	}
	if (cli_give_back_operand(ctx, argc, argv, a))
		return;
	cli_usage_error("unknown value %s for --verify: use --verify or --verify=source", quote(a));
}

/* The values of the string options, checked. */
static void validate_values(struct safecp_options *o, bool progress_given)
{
	if (raw.strategy && safecp_strategy_from_name(raw.strategy, &(enum safecp_strategy){ 0 }) < 0)
		cli_usage_error("unknown strategy %s: use auto, window, direct or sync-window",
				quote(raw.strategy));
	o->strategy = raw.strategy;
	if (raw.window)
		parse_window(raw.window, o);
	if (raw.sparse && strcmp(raw.sparse, "auto") != 0 && strcmp(raw.sparse, "always") != 0 &&
	    strcmp(raw.sparse, "never") != 0)
		cli_usage_error("unknown value %s for --sparse: use auto, always or never",
				quote(raw.sparse));
	o->sparse = raw.sparse;
	if (raw.progress && progress_mode_parse(raw.progress, &o->progress) < 0)
		cli_usage_error("unknown progress mode %s: use bar, plain, json or none",
				quote(raw.progress));
	if (!progress_given)
		o->progress = o->verbosity == VERBOSITY_QUIET ? PROGRESS_NONE
							    : progress_default_mode(stderr);
	if (raw.checksum)
		parse_checksum(raw.checksum, o);
	if (raw.sums && !raw.sums[0])
		cli_usage_error("--sums needs a prefix, such as /media/usb/offload");
	o->sums_prefix = raw.sums;
	o->mhl = raw.mhl;
	o->unmount = raw.unmount;
	o->power_off = raw.power_off;
	if (raw.sums && !o->n_checksums)
		o->checksums[o->n_checksums++] = "xxh128";
	if (raw.pack && !feature_lists(SAFECP_FEATURE_PACK, raw.pack))
		cli_usage_error("unknown archive format %s for --pack: use tar, tar.gz, tar.xz, "
				"tar.zst or zip", quote(raw.pack));
	o->pack = raw.pack != NULL;
	o->pack_format = raw.pack;
}

/* --pack writes one new file, the archive: what acts on the files at
 * the destination one by one has nothing to act on. */
static void validate_pack(const struct safecp_options *o)
{
	const char *bad = o->skip_identical ? "--skip-identical"
			  : o->verify_source ? "--verify=source"
			  : o->mhl ? "--mhl"
			  : o->no_clobber ? "--no-clobber (-n)"
			  : raw.no_preserve ? "--no-preserve"
			  : raw.rename_invalid ? "--rename-invalid" : NULL;

	if (!o->pack)
		return;
	if (bad)
		cli_usage_error("--pack writes one archive file: %s has nothing to act on; leave it "
				"out (the archive keeps the sources' modes and times; --verify "
				"reads the archive back)", bad);
	if (raw.check)
		cli_usage_error("--check copies nothing: it does not take --pack");
}

/* --unpack writes what the archives hold, read once in plan order: what
 * needs the sources as files (a second read, their digests in a record)
 * or a walk (-L, -T) does not apply. */
static void validate_unpack(struct safecp_options *o)
{
	if (raw.pack)
		cli_usage_error("--pack and --unpack do not go together: give one");
	if (o->dereference || raw.no_target_dir || o->verify_source || o->skip_identical ||
	    raw.mhl || raw.checksum || raw.sums)
		cli_usage_error("--unpack takes -t, -n, -f, --verify, --dry-run and the writing "
				"options, not -L, -T, --verify=source, --skip-identical, --mhl, "
				"--checksum or --sums");
	o->unpack = true;
	o->skip_unsafe = raw.skip_unsafe;
	o->recursive = true;
	o->target_directory = true; /* DEST is a directory, as with -t */
}

/* cp's operand rules: with -t every operand is a source; otherwise the last
 * is DEST, and -T allows exactly one source. */
static void validate_operands(poptContext ctx, struct safecp_options *o)
{
	const char **args = poptGetArgs(ctx);
	size_t n = 0;

	while (args && args[n])
		n++;
	if (raw.check) {
		if (n)
			cli_usage_error("--check DIR takes no operand, found %s; try '%s --help'",
					quote(args[0]), program_name);
		if (raw.n_target_dirs || o->verify || raw.checksum || raw.dry_run || raw.mhl ||
		    o->skip_identical || raw.unmount || raw.power_off || raw.n_beneath)
			cli_usage_error("--check copies nothing: it takes --sums, --progress, -v "
					"and -q, not -t, --verify, --checksum, --mhl, "
					"--skip-identical, --unmount, --power-off, --beneath "
					"or --dry-run");
		o->check_dir = raw.check;
		return;
	}
	if (raw.unpack)
		validate_unpack(o);
	if (raw.n_target_dirs && raw.no_target_dir)
		cli_usage_error("cannot combine --target-directory (-t) and --no-target-directory (-T)");
	if (n == 0)
		cli_usage_error("missing file operand; try '%s --help'", program_name);
	if (raw.n_target_dirs) {
		o->sources = args;
		o->n_sources = n;
		for (size_t i = 0; i < raw.n_target_dirs; i++)
			o->dests[i] = raw.target_dirs[i];
		o->n_dests = raw.n_target_dirs;
		o->dest = o->dests[0];
		cp_compat_operands(args, o->n_sources);
		return;
	}
	if (n == 1)
		cli_usage_error("missing destination file operand after %s; try '%s --help'",
				quote(args[0]), program_name);
	if (raw.no_target_dir && n > 2)
		cli_usage_error("extra operand %s with --no-target-directory (-T)", quote(args[2]));
	o->sources = args;
	o->n_sources = n - 1;
	o->dest = o->dests[0] = args[n - 1];
	o->n_dests = 1;
	cp_compat_operands(args, o->n_sources);
}

/* --skip-identical[=quick|hash].  popt takes the next word as the
 * optional argument; only --skip-identical=MODE gives a mode, a separate
 * word is an operand and goes back to popt. */
static void skip_identical_option(poptContext ctx, int argc, const char **argv,
				  struct safecp_options *o)
{
	_cleanup_free_ char *arg = poptGetOptArg(ctx);
	bool attached = false;

	for (int i = 1; arg && i < argc && !attached; i++)
		attached = strncmp(argv[i], "--skip-identical=", 17) == 0 &&
			   strcmp(argv[i] + 17, arg) == 0;
	if (arg && !attached) {
		poptStuffArgs(ctx, (const char *[]){ arg, NULL });
		o->skip_identical = "quick";
	} else if (!arg || strcmp(arg, "quick") == 0) {
		o->skip_identical = "quick";
	} else if (strcmp(arg, "hash") == 0) {
		o->skip_identical = "hash";
	} else {
		cli_usage_error("unknown mode %s for --skip-identical: use quick or hash",
				quote(arg));
	}
}

/* --preserve[=LIST]: as --skip-identical, only an attached LIST is one
 * (cp's --preserve takes no separate word); without, -p's set.
 * --no-preserve=LIST.  In the order given. */
static void preserve_option(poptContext ctx, int argc, const char **argv, int rc,
			    struct safecp_options *o)
{
	_cleanup_free_ char *arg = poptGetOptArg(ctx);
	bool attached = false;

	if (rc == OPT_NO_PRESERVE) {
		raw.no_preserve = true;
		preserve_list(o, arg ? arg : "", false);
		return;
	}
	for (int i = 1; arg && i < argc && !attached; i++)
		attached = strncmp(argv[i], "--preserve=", 11) == 0 && strcmp(argv[i] + 11, arg) == 0;
	if (arg && !attached)
		poptStuffArgs(ctx, (const char *[]){ arg, NULL });
	if (attached)
		preserve_list(o, arg, true);
	else
		preserve_p(o);
}

/* -t DIR, once per destination; the same directory twice is a typo. */
static void add_target_dir(poptContext ctx)
{
	char *dir = poptGetOptArg(ctx);

	if (!dir)
		cli_usage_error("out of memory");
	if (raw.n_target_dirs == SAFECP_DESTINATIONS_MAX)
		cli_usage_error("too many destinations: at most %d -t options", SAFECP_DESTINATIONS_MAX);
	for (size_t i = 0; i < raw.n_target_dirs; i++)
		if (strcmp(raw.target_dirs[i], dir) == 0)
			cli_usage_error("destination %s given twice: give each -t DIR once", quote(dir));
	raw.target_dirs[raw.n_target_dirs++] = dir;
}

/* --beneath DIR, once per root a destination must stay in. */
static void add_beneath(poptContext ctx)
{
	char *dir = poptGetOptArg(ctx);

	if (!dir)
		cli_usage_error("out of memory");
	if (!dir[0])
		cli_usage_error("--beneath needs a directory, not an empty word");
	if (raw.n_beneath == SAFECP_DESTINATIONS_MAX)
		cli_usage_error("too many --beneath directories: at most %d", SAFECP_DESTINATIONS_MAX);
	raw.beneath[raw.n_beneath++] = dir;
}

/* Every DEST is written under one --beneath DIR (the longest that fits
 * is its root); the plan then reaches it from there (plan.h). */
static void assign_beneath(struct safecp_options *o)
{
	for (size_t d = 0; raw.n_beneath && d < o->n_dests; d++) {
		const char *best = NULL;

		for (size_t i = 0; i < raw.n_beneath; i++)
			if (path_below(raw.beneath[i], o->dests[d]) &&
			    (!best || strlen(raw.beneath[i]) > strlen(best)))
				best = raw.beneath[i];
		if (!best)
			cli_usage_error("destination %s is not under %s%s: write it as DIR/... of a "
					"--beneath DIR", quote(o->dests[d]), quote(raw.beneath[0]),
					raw.n_beneath > 1 ? " or another --beneath directory" : "");
		o->beneath[d] = best;
	}
}

/* --events FILE: the JSON events for a script, beside the bar or lines the
 * user sees.  Opened before the first byte is copied, so that a FILE that
 * cannot be written refuses the run; the copy's kind only (--check and
 * --unpack have their own outputs). */
static void open_events(const char *path, struct safecp_options *o)
{
	if (!path[0])
		cli_usage_error("--events needs a file name");
	if (o->progress == PROGRESS_JSON)
		cli_usage_error("--events with --progress=json: the events go to standard "
				"output already");
	if (o->check_dir || o->unpack)
		cli_usage_error("--events is for copies, not with --check or --unpack");
	/* O_NONBLOCK: a FIFO nobody reads fails (ENXIO) rather than hang */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);

	if (fd < 0 || fcntl(fd, F_SETFL, 0) < 0 || !(o->events_out = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		cli_usage_error("cannot open %s for the events: %s", quote(path), strerror(e));
	}
}

/* Parses argv into *o; exits EXIT_USAGE on any mistake.  The operand
 * strings live in the returned context. */

poptContext parse_options(int argc, const char **argv, struct safecp_options *o)
{
	poptContext ctx = poptGetContext(program_name, argc, argv, options, 0);
	bool progress_given;
	int rc;

	poptSetOtherOptionHelp(ctx, "[OPTION]... SOURCE... DEST  or  --unpack ARCHIVE... DEST");
	*o = (struct safecp_options){ .keep_times = true };
	preserve_init(o);
	while ((rc = poptGetNextOpt(ctx)) > 0) {
		if (cli_verbosity_option(rc, &o->verbosity))
			continue;
		switch (rc) {
		case OPT_NO_CLOBBER: o->no_clobber = true; o->force = o->interactive = false; break;
		case OPT_FORCE: o->force = true; break; /* cp 9.1: ignored with -n */
		case OPT_TARGET: add_target_dir(ctx); break;
		case OPT_BENEATH: add_beneath(ctx); break;
		case OPT_VERIFY: parse_verify(ctx, argc, argv, o); break;
		case OPT_SKIP_IDENTICAL: skip_identical_option(ctx, argc, argv, o); break;
		case OPT_FEATURES: features_print(); exit(EXIT_OK);
		case OPT_P: preserve_p(o); break;
		case OPT_PRESERVE:
		case OPT_NO_PRESERVE: preserve_option(ctx, argc, argv, rc, o); break;
		case OPT_ARCHIVE: preserve_archive(o); raw.recursive = 1; raw.deref = 'P'; break;
		case OPT_NO_DEREF_LINKS: preserve_list(o, "links", true); raw.deref = 'P'; break;
		case OPT_DEREF_L: raw.deref = 'L'; break;
		case OPT_DEREF_P: raw.deref = 'P'; break;
		case OPT_DEREF_H: raw.deref = 'H'; break;
		default: cp_compat_option(ctx, argc, argv, rc, o); break;
		}
	}
	if (rc != -1)
		cli_popt_fail(ctx, rc);
	if (raw.skip_unsafe && !raw.unpack)
		cli_usage_error("--skip-unsafe goes with --unpack");
	progress_given = raw.progress != NULL;
	o->recursive = raw.recursive;
	o->dereference = raw.deref == 'L';
	o->no_dereference = raw.deref == 'P';
	o->dereference_operands = raw.deref == 'H';
	o->target_directory = raw.n_target_dirs > 0;
	o->no_target_directory = raw.no_target_dir;
	o->update = raw.update;
	o->one_file_system = raw.one_file_system;
	o->dry_run = raw.dry_run;
	o->rename_invalid = raw.rename_invalid;
	o->system_disk = raw.system_disk;
	o->no_resume = raw.no_resume;
	validate_values(o, progress_given);
	preserve_validate(o);
	replacing_validate(o);
	validate_pack(o);
	validate_operands(ctx, o);
	assign_beneath(o);
	if (raw.events)
		open_events(raw.events, o);
	/* the archive itself gets the time it was written and a new file's
	 * mode; the sources' are in it */
	if (o->pack) {
		o->keep_times = o->keep_mode = false;
		o->recursive = true;
	}
	return ctx;
}
