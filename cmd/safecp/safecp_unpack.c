/* safecp_unpack.c: --unpack ARCHIVE... DEST.
 *
 * Before the first byte: every archive's headers are read once and
 * checked together (the library's rules, one list for all archives,
 * since their entries meet on one destination); each
 * refused entry is named with what is wrong.  By default one refusal
 * refuses everything (EXIT_USAGE); --skip-unsafe leaves the refused
 * entries out and the run ends EXIT_PARTIAL.  The accepted entries
 * become the plan's entries, so the destination's checks (space, file size, names, what is there
 * already) are those of any copy, and the engine writes them as it
 * writes any copy.  The library does that (safecp_copy_set_unpack());
 * here are the words for what it finds (<safecp/copy.h>). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "base/cleanup.h"
#include "base/size.h"

static const char *special_words(const char *special)
{
	static const struct { const char *name, *words; } kinds[] = {
		{ "char-device", "it is a character device" },
		{ "block-device", "it is a block device" },
		{ "fifo", "it is a FIFO" },
		{ "socket", "it is a socket" },
	};

	for (size_t i = 0; special && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(special, kinds[i].name) == 0)
			return kinds[i].words;
	return "it is neither a file, a directory nor a link";
}

/* Why entry e is refused, without the entry's own name. */
static char *why(const struct safecp_unsafe_entry *e)
{
	/* the rules whose words name nothing else */
	static const struct { const char *why, *words; } plain[] = {
		{ "absolute", "its path is absolute" },
		{ "dotdot", "its path has a '..' component" },
		{ "empty-component", "its path is empty or has an empty component" },
		{ "control-byte", "its path or link target holds a control character, an invisible "
				  "or bidirectional one, or bytes that are not UTF-8" },
		{ "too-long", "its path, a component of it or its link target is too long" },
		{ "size", "its size is unknown or negative" },
		{ "encrypted", "it is encrypted" },
	};
	const char *other = e->other ? e->other : "", *link = e->link ? e->link : "";

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (strcmp(e->why, plain[i].why) == 0)
			return strdup(plain[i].words);
	if (strcmp(e->why, "special-file") == 0)
		return strdup(special_words(e->special));
	if (strcmp(e->why, "setid-mode") == 0)
		return words_format("its mode %#o has setuid, setgid or sticky bits", e->mode);
	if (strcmp(e->why, "link-escapes") == 0)
		return words_format("it is a symbolic link to %s, which is absolute, empty or leads "
				    "out of the destination", quote(link));
	if (strcmp(e->why, "through-symlink") == 0)
		return words_format("its path passes through %s, a symbolic link in the archive",
				    quote(other));
	if (strcmp(e->why, "through-file") == 0)
		return words_format("its path passes through %s, which the archive holds as a "
				    "file, not a directory", quote(other));
	if (strcmp(e->why, "duplicate") == 0)
		return words_format("the archives hold %s already: one would replace the other",
				    quote(other));
	if (strcmp(e->why, "hardlink-outside") == 0)
		return words_format("it is a hard link to %s, which is no regular file earlier in "
				    "its archive", quote(link));
	if (strcmp(e->why, "hardlink-later") == 0)
		return words_format("it is a hard link to %s, which comes later in the archive",
				    quote(link));
	return strdup("it is unsafe");
}

/* One refusal in words on stderr and, for scripts, as a JSON event. */
static void say(const struct safecp_options *o, const char *kind, const char *msg)
{
	cli_error("%s", msg ? msg : "out of memory");
	if (msg && o->progress == PROGRESS_JSON && !o->dry_run) {
		struct jsonev j;

		jsonev_init(&j, stdout, NULL);
		jsonev_refused(&j, kind, msg);
	}
}

/* Refusals named one by one; past these, one line counts the rest (a
 * hostile archive may hold a million of them). */
#define REFUSALS_SHOWN 20

static void say_refused(const struct safecp_options *o, const struct safecp_unsafe_entry *e)
{
	const char *archive = e->archive;
	_cleanup_free_ char *w = why(e);
	_cleanup_free_ char *cut = e->cut ? words_format("... (%zu bytes)", e->length) : NULL;
	_cleanup_free_ char *msg = NULL;

	/* two quote() results in one line: the ring of buffers holds both;
	 * a name too long to keep is its first bytes and its length */
	msg = o->skip_unsafe
	      ? words_format("skipping entry %s%s of %s: %s", quote(e->name), cut ? cut : "",
			     quote(archive), w ? w : "")
	      : words_format("unsafe entry %s%s in %s: %s", quote(e->name), cut ? cut : "",
			     quote(archive), w ? w : "");
	say(o, e->why, msg);
}

/* Every refused entry, the first REFUSALS_SHOWN named.  Returns the count. */
static size_t say_all_refused(const struct safecp_options *o)
{
	struct safecp_unsafe_entry e;
	size_t refused = 0;

	for (; safecp_copy_unsafe_entry(o->copy, refused, &e, sizeof(e)) == 0; refused++)
		if (refused < REFUSALS_SHOWN)
			say_refused(o, &e);
	if (refused > REFUSALS_SHOWN) {
		_cleanup_free_ char *msg = words_format(
			o->skip_unsafe ? "... and %zu more entries skipped" :
					 "... and %zu more unsafe entries",
			refused - REFUSALS_SHOWN);

		say(o, "more-refused", msg);
	}
	return refused;
}

/* An archive that cannot be read: its words, and the JSON kind (the
 * refusal's name). */
static char *scan_words(const struct refusal *r)
{
	const char *sep = r->detail ? ": " : "", *detail = r->detail ? r->detail : "";
	const char *archive = quote(r->path);

	if (strcmp(r->name, "archive-unreadable") == 0)
		return words_format("cannot open the archive %s: %s%s", archive, strerror(r->err),
				    r->err == EINVAL ? " (give a regular file)" : "");
	if (strcmp(r->name, "archive-format") == 0)
		return words_format("cannot unpack %s: not a tar or zip archive (compressed with gzip, "
				    "bzip2, xz or zstd at most)%s%s", archive, sep, detail);
	if (strcmp(r->name, "archive-damaged") == 0)
		return words_format("cannot unpack %s: damaged after %" PRIu64 " entries%s%s; nothing "
				    "was written; check the archive or fetch it again", archive,
				    r->need, sep, detail);
	if (strcmp(r->name, "archive-too-many") == 0)
		return words_format("cannot unpack %s: more than %" PRIu64 " entries; unpack it with "
				    "another tool", archive, r->have);
	if (strcmp(r->name, "archive-names-too-large") == 0)
		return words_format("cannot unpack %s: its names take more than %" PRIu64 " MiB; "
				    "unpack it with another tool", archive, r->have >> 20);
	return words_format("cannot read the archive %s: out of memory", archive);
}

/* The entries written out of archive order wait in the spool: refused
 * before the first byte when it has no room. */
static void spool_no_room(const struct refusal *r)
{
	char need[SIZE_FORMAT_MAX], have[SIZE_FORMAT_MAX];

	size_format(need, sizeof(need), r->need);
	size_format(have, sizeof(have), r->have);
	if (r->err == ENOSPC)
		cli_error("cannot unpack: %s of entries come out of the archives' order and wait in "
			  "%s, which has %s free; nothing was written; set TMPDIR to a directory "
			  "with room", need, quote(r->path), have);
	else
		cli_error("cannot unpack: %s of entries come out of the archives' order and wait in "
			  "%s: %s; nothing was written; set TMPDIR to a directory with room",
			  need, quote(r->path), strerror(r->err));
}

void unpack_say(const struct safecp_options *o, const struct refusal *r)
{
	if (r->kind == SAFECP_REFUSED_ARCHIVE) {
		_cleanup_free_ char *msg = scan_words(r);

		say(o, r->name, msg);
	} else if (r->kind == SAFECP_REFUSED_SPOOL) {
		spool_no_room(r);
	} else {
		size_t refused = say_all_refused(o);

		cli_error("%zu unsafe %s: nothing was written; unpack the rest with --skip-unsafe",
			  refused, refused == 1 ? "entry" : "entries");
	}
}

void unpack_note(const struct safecp_options *o)
{
	say_all_refused(o);
}
