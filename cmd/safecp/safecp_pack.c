/* safecp_pack.c: --pack=FORMAT, the sources as one archive file.
 *
 * The library (safecp_copy_set_pack()) walks the sources once,
 * before any destination is planned; each destination's plan then holds
 * one file, the archive, which every later check (space, FAT's limit,
 * the name rules, sizing) and the engine treat as any file.  The words
 * for what goes wrong are here: a source that cannot be packed or whose
 * name unpacking would refuse, a source that fails the archive, an
 * archive too large for the filesystem. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cli.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "base/cleanup.h"
#include "base/size.h"
#include "base/utf8.h"

static enum safecp_skip_reason skip_reason(mode_t m)
{
	if (S_ISFIFO(m))
		return SAFECP_SKIP_FIFO;
	if (S_ISSOCK(m))
		return SAFECP_SKIP_SOCKET;
	if (S_ISCHR(m) || S_ISBLK(m))
		return SAFECP_SKIP_DEVICE;
	return SAFECP_SKIP_OTHER;
}

/* A name --unpack would refuse (base/utf8.h's unsafe characters), in an
 * entry's path in the archive (r->path) or a symlink's target (path2). */
static void say_unsafe(const struct refusal *r)
{
	if (!r->path2)
		cli_error("cannot pack %s: its name holds a control character, an invisible "
			  "or bidirectional one, or bytes that are not UTF-8, which unpacking "
			  "refuses; rename it", quote(r->path));
	else
		cli_error("cannot pack %s: it is a symbolic link to %s, which holds a control "
			  "character, an invisible or bidirectional one, or bytes that are "
			  "not UTF-8, which unpacking refuses; change the link",
			  quote(r->path), quote(r->path2));
}

void pack_unsafe_end(size_t n)
{
	cli_error("%zu unsafe %s: nothing was written", n, n == 1 ? "name" : "names");
}

void pack_say(const struct safecp_options *o, const struct refusal *r)
{
	if (r->kind == SAFECP_REFUSED_PACK_NAME) {
		say_unsafe(r);
	} else if (r->kind == SAFECP_REFUSED_DEST_CLASH) {
		cli_error("%s and another source would both be %s in the archive; rename "
			  "one of them", quote(r->path), quote(r->path2));
	} else {
		_cleanup_free_ char *msg = words_problem(r, NULL);

		cli_error("%s", msg ? msg : "out of memory");
	}
}

void pack_note(const struct safecp_options *o, const struct safecp_note *n)
{
	if (o->verbosity >= VERBOSITY_NORMAL)
		msg_warning("skipping %s: %s", quote(n->path),
			    words_skip_reason(skip_reason((mode_t)n->mode)));
}

/* The archive could not be made from its sources. */
char *words_pack_failed(const struct safecp_options *o, const struct safecp_entry *archive,
			enum safecp_copy_step step, int err)
{
	const char *src = NULL;
	int src_err = 0;

	if (!safecp_copy_pack_failed(o->copy, &src, &src_err))
		return words_format("cannot pack into %s: %s; it was not written (nothing is left "
				    "under its name): pack again", quote(archive->dest),
				    strerror(err ? err : EIO));
	if (step == SAFECP_STEP_CHANGED || src_err == 0)
		return words_format("%s changed while it was packed; the archive %s was not written "
				    "(nothing is left under its name): pack again",
				    quote(src), quote(archive->dest));
	return words_format("cannot read %s: %s; the archive %s was not written (nothing is "
			    "left under its name): make it readable or leave it out, and pack "
			    "again", quote(src), strerror(src_err), quote(archive->dest));
}

/* FILE_TOO_BIG of an archive: its bound is more than the limit. */
char *words_pack_too_big(const struct safecp_options *o, const struct refusal *p,
			 const struct safecp_target_facts *t)
{
	char size[SIZE_FORMAT_MAX];
	_cleanup_free_ char *where = t ? words_where(t) : NULL;

	size_format(size, sizeof(size), p->need);
	return words_format("the archive %s could be up to %s, more than one file can hold on %s "
			    "(at most %" PRIu64 " bytes); pack fewer sources into each archive, "
			    "or use a stick formatted as exFAT or ext4", quote(p->path2), size,
			    where ? where : "the destination", p->have);
}
