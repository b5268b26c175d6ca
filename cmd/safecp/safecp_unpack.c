/* safecp_unpack.c: --unpack ARCHIVE... DEST.
 *
 * Before the first byte: every archive's headers are read once and
 * checked together (lib/archive/unpack_list.h: the rules, one list for
 * all archives, since their entries meet on one destination); each
 * refused entry is named with what is wrong.  By default one refusal
 * refuses everything (EXIT_USAGE); --skip-unsafe leaves the refused
 * entries out and the run ends EXIT_PARTIAL.  The accepted entries
 * become the plan's source tree (unpack_tree.h's order; plan_given.h),
 * so the destination's checks (space, file size, names, what is there
 * already) are those of any copy, and the engine writes them as it
 * writes any copy.  The session does that (copy/session.h,
 * COPY_MODE_UNPACK); here are the words for what it finds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/unpack_list.h"
#include "common/cli.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "base/cleanup.h"
#include "base/size.h"

static const char *special_words(enum unpack_type t)
{
	switch (t) {
	case UNPACK_CHAR_DEVICE: return "it is a character device";
	case UNPACK_BLOCK_DEVICE: return "it is a block device";
	case UNPACK_FIFO: return "it is a FIFO";
	case UNPACK_SOCKET: return "it is a socket";
	default: return "it is neither a file, a directory nor a link";
	}
}

/* Why entry e is refused, without the entry's own name. */
static char *why(const struct unpack_list *l, const struct unpack_entry *e)
{
	const char *other = e->other < l->n_entries ? l->entries[e->other].raw : "";
	const char *link = e->link ? e->link : "";

	switch (e->refusal) {
	case UNPACK_ABSOLUTE:
		return words_format("its path is absolute");
	case UNPACK_DOTDOT:
		return words_format("its path has a '..' component");
	case UNPACK_EMPTY_PART:
		return words_format("its path is empty or has an empty component");
	case UNPACK_CONTROL_BYTE:
		return words_format("its path or link target holds a control character, an invisible "
				    "or bidirectional one, or bytes that are not UTF-8");
	case UNPACK_TOO_LONG:
		return words_format("its path, a component of it or its link target is too long");
	case UNPACK_SPECIAL:
		return words_format("%s", special_words(e->type));
	case UNPACK_SETID:
		return words_format("its mode %#o has setuid, setgid or sticky bits", (unsigned)e->perm);
	case UNPACK_LINK_ESCAPES:
		return words_format("it is a symbolic link to %s, which is absolute, empty or leads "
				    "out of the destination", quote(link));
	case UNPACK_THROUGH_LINK:
		return words_format("its path passes through %s, a symbolic link in the archive",
				    quote(other));
	case UNPACK_THROUGH_FILE:
		return words_format("its path passes through %s, which the archive holds as a "
				    "file, not a directory", quote(other));
	case UNPACK_DUPLICATE:
		return words_format("the archives hold %s already: one would replace the other",
				    quote(other));
	case UNPACK_HARDLINK_OUTSIDE:
		return words_format("it is a hard link to %s, which is no regular file earlier in "
				    "its archive", quote(link));
	case UNPACK_HARDLINK_LATER:
		return words_format("it is a hard link to %s, which comes later in the archive",
				    quote(link));
	case UNPACK_SIZE:
		return words_format("its size is unknown or negative");
	case UNPACK_ENCRYPTED:
		return words_format("it is encrypted");
	case UNPACK_OK:
		break;
	}
	return words_format("it is unsafe");
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

static void say_refused(const struct safecp_options *o, const struct unpack_list *l,
			const struct unpack_entry *e)
{
	const char *archive = l->archives[e->archive];
	_cleanup_free_ char *w = why(l, e);
	_cleanup_free_ char *cut = e->cut ? words_format("... (%zu bytes)", e->raw_len) : NULL;
	_cleanup_free_ char *msg = NULL;

	/* two quote() results in one line: the ring of buffers holds both;
	 * a name too long to keep is its first bytes and its length */
	msg = o->skip_unsafe
	      ? words_format("skipping entry %s%s of %s: %s", quote(e->raw), cut ? cut : "",
			     quote(archive), w ? w : "")
	      : words_format("unsafe entry %s%s in %s: %s", quote(e->raw), cut ? cut : "",
			     quote(archive), w ? w : "");
	say(o, unpack_refusal_name(e->refusal), msg);
}

/* Every refused entry, the first REFUSALS_SHOWN named.  Returns the count. */
static size_t say_all_refused(const struct safecp_options *o, const struct unpack_list *l)
{
	size_t refused = 0;

	for (size_t i = 0; i < l->n_entries; i++)
		if (l->entries[i].refusal != UNPACK_OK && refused++ < REFUSALS_SHOWN)
			say_refused(o, l, &l->entries[i]);
	if (refused > REFUSALS_SHOWN) {
		_cleanup_free_ char *msg = words_format(
			o->skip_unsafe ? "... and %zu more entries skipped" :
					 "... and %zu more unsafe entries",
			refused - REFUSALS_SHOWN);

		say(o, "more-refused", msg);
	}
	return refused;
}

static char *scan_words(const struct unpack_list *l, const char *archive, const char **kind)
{
	const char *sep = l->detail ? ": " : "", *detail = l->detail ? l->detail : "";

	switch (l->error) {
	case UNPACK_SCAN_OPEN:
		*kind = "archive-unreadable";
		return words_format("cannot open the archive %s: %s%s", quote(archive), strerror(l->err),
				    l->err == EINVAL ? " (give a regular file)" : "");
	case UNPACK_SCAN_FORMAT:
		*kind = "archive-format";
		return words_format("cannot unpack %s: not a tar or zip archive (compressed with gzip, "
				    "bzip2, xz or zstd at most)%s%s", quote(archive), sep, detail);
	case UNPACK_SCAN_CORRUPT:
		*kind = "archive-damaged";
		return words_format("cannot unpack %s: damaged after %zu entries%s%s; nothing was "
				    "written; check the archive or fetch it again",
				    quote(archive), l->n_entries, sep, detail);
	case UNPACK_SCAN_TOO_MANY:
		*kind = "archive-too-many";
		return words_format("cannot unpack %s: more than %u entries; unpack it with another tool",
				    quote(archive), UNPACK_MAX_ENTRIES);
	case UNPACK_SCAN_NAMES:
		*kind = "archive-names-too-large";
		return words_format("cannot unpack %s: its names take more than %u MiB; unpack it "
				    "with another tool", quote(archive), UNPACK_MAX_NAME_BYTES >> 20);
	case UNPACK_SCAN_OK:
		break;
	}
	*kind = "out-of-memory";
	return words_format("cannot read the archive %s: out of memory", quote(archive));
}

static void scan_failed(const struct safecp_options *o, const struct unpack_list *l,
			const char *archive)
{
	const char *kind;
	_cleanup_free_ char *msg = scan_words(l, archive, &kind);

	say(o, kind, msg);
}

/* The entries written out of archive order wait in the spool
 * (unpack_data.h): refused before the first byte when it has no room. */
static void spool_no_room(const struct copy_finding *f)
{
	char need[SIZE_FORMAT_MAX], have[SIZE_FORMAT_MAX];

	size_format(need, sizeof(need), f->need);
	size_format(have, sizeof(have), f->have);
	if (f->err == ENOSPC)
		cli_error("cannot unpack: %s of entries come out of the archives' order and wait in "
			  "%s, which has %s free; nothing was written; set TMPDIR to a directory "
			  "with room", need, quote(f->path), have);
	else
		cli_error("cannot unpack: %s of entries come out of the archives' order and wait in "
			  "%s: %s; nothing was written; set TMPDIR to a directory with room",
			  need, quote(f->path), strerror(f->err));
}

void unpack_say(const struct safecp_options *o, const struct copy_finding *f)
{
	const struct unpack_list *l = copy_session_unpack_list(o->session);

	if (f->kind == COPY_REFUSED_UNPACK_SCAN) {
		scan_failed(o, l, o->sources[f->archive]);
	} else if (f->kind == COPY_REFUSED_UNPACK_SPOOL) {
		spool_no_room(f);
	} else {
		size_t refused = say_all_refused(o, l);

		if (f->kind == COPY_REFUSED_UNPACK_ENTRIES)
			cli_error("%zu unsafe %s: nothing was written; unpack the rest with "
				  "--skip-unsafe", refused, refused == 1 ? "entry" : "entries");
	}
}
