/* safecp_mhl.c: --mhl: an ASC MHL generation in each destination.
 *
 * Before the first byte, each destination directory's ascmhl/ history is
 * read (lib/copy/session_lists.c): a damaged or hostile one is refused,
 * and so is a chain whose C4 ID of the newest manifest does not match its
 * bytes, and a source that would land in the history folder; the new
 * generation then continues it.  The copy job writes each destination's
 * generation in that destination's thread, before its final sync
 * (lib/copy/lists.h, manifest.h), so "can be removed" covers it.  Here:
 * the refusals in words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/quote.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

static const char *problem_words(enum safecp_record_problem p)
{
	switch (p) {
	case SAFECP_RECORD_IO: return "cannot be read";
	case SAFECP_RECORD_NOT_REGULAR: return "holds a link or special file where a file should be";
	case SAFECP_RECORD_TOO_BIG: return "holds a file too large to be a manifest";
	case SAFECP_RECORD_DOCTYPE: return "holds a DOCTYPE (refused: entities)";
	case SAFECP_RECORD_MALFORMED: return "holds a file that is not well-formed XML (truncated?)";
	case SAFECP_RECORD_NOT_MHL: return "holds a file that is not an ASC MHL v2 document";
	case SAFECP_RECORD_BAD_VALUE: return "holds a value that is not the schema's form";
	case SAFECP_RECORD_BAD_PATH: return "lists a path outside its folder";
	case SAFECP_RECORD_DUPLICATE: return "lists a path or generation twice";
	case SAFECP_RECORD_BAD_CHAIN: return "has a broken chain";
	case SAFECP_RECORD_NO_MEMORY: return "could not be read: out of memory";
	default: break;
	}
	return "is damaged";
}

/* Destination r->path2's history refused, in words. */
static char *history_words(const struct refusal *r)
{
	const char *dir = r->path2 ? r->path2 : "?";
	char detail[64] = "";

	if (r->kind == SAFECP_REFUSED_HISTORY_CHAIN)
		return words_format("the ASC MHL history in %s does not match its chain: the newest "
				    "manifest's C4 ID differs from ascmhl_chain.xml's; move the "
				    "ascmhl folder away or repair it, then copy again", quote(dir));
	if (r->line)
		snprintf(detail, sizeof(detail), ", line %zu", r->line);
	else if (r->err)
		snprintf(detail, sizeof(detail), ": %s", strerror(r->err));
	return words_format("the ASC MHL history in %s %s (%s%s): move the ascmhl folder away or "
			    "repair it, then copy again", quote(dir), problem_words(r->problem),
			    quote(r->path && r->path[0] ? r->path : "ascmhl"), detail);
}

void mhl_say(const struct safecp_options *o, const struct refusal *r)
{
	_cleanup_free_ char *msg = NULL;

	if (r->kind == SAFECP_REFUSED_HISTORY_OVERLAP)
		msg = words_format("%s would be copied to %s, where --mhl writes the ASC MHL history "
				   "of %s: the copy and the history would overwrite each other; "
				   "leave it out, copy it to another destination, or copy without "
				   "--mhl", quote(r->path), quote(r->path2), quote(o->dests[r->dest]));
	else
		msg = history_words(r);
	report_refusal(o, r->name, msg);
}
