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

static const char *kind_words(enum mhl_read_kind k)
{
	switch (k) {
	case MHL_READ_OK:
	case MHL_READ_NO_HISTORY: return "no history";
	case MHL_READ_IO: return "cannot be read";
	case MHL_READ_NOT_REGULAR: return "holds a link or special file where a file should be";
	case MHL_READ_TOO_BIG: return "holds a file too large to be a manifest";
	case MHL_READ_DOCTYPE: return "holds a DOCTYPE (refused: entities)";
	case MHL_READ_MALFORMED: return "holds a file that is not well-formed XML (truncated?)";
	case MHL_READ_NOT_MHL: return "holds a file that is not an ASC MHL v2 document";
	case MHL_READ_BAD_VALUE: return "holds a value that is not the schema's form";
	case MHL_READ_BAD_PATH: return "lists a path outside its folder";
	case MHL_READ_DUPLICATE: return "lists a path or generation twice";
	case MHL_READ_BAD_CHAIN: return "has a broken chain";
	case MHL_READ_NO_MEMORY: return "could not be read: out of memory";
	}
	return "is damaged";
}

/* Destination d's history refused, in words. */
static char *history_words(const struct copy_finding *f, const char *dir)
{
	const struct mhl_read_problem *why = f->history;
	char detail[64] = "";

	if (f->kind == COPY_REFUSED_HISTORY_CHAIN)
		return words_format("the ASC MHL history in %s does not match its chain: the newest "
				    "manifest's C4 ID differs from ascmhl_chain.xml's; move the "
				    "ascmhl folder away or repair it, then copy again", quote(dir));
	if (why->line)
		snprintf(detail, sizeof(detail), ", line %d", why->line);
	else if (why->err)
		snprintf(detail, sizeof(detail), ": %s", strerror(why->err));
	return words_format("the ASC MHL history in %s %s (%s%s): move the ascmhl folder away or "
			    "repair it, then copy again", quote(dir), kind_words(why->kind),
			    quote(why->file[0] ? why->file : "ascmhl"), detail);
}

void mhl_say(const struct safecp_options *o, const struct copy_finding *f,
	     const struct copy_prepared *jobs)
{
	const struct copy_prepared *job = &jobs[f->dest];
	const struct plan *p = job->plan;
	_cleanup_free_ char *msg = NULL;

	if (f->kind == COPY_REFUSED_HISTORY_OVERLAP) {
		msg = words_format("%s would be copied to %s, where --mhl writes the ASC MHL history "
				   "of %s: the copy and the history would overwrite each other; "
				   "leave it out, copy it to another destination, or copy without "
				   "--mhl", quote(p->entries[f->entry].source->src),
				   quote(p->entries[f->entry].dst), quote(job->dest_arg));
		report_refusal(o, "mhl-overlap", msg);
		return;
	}
	msg = history_words(f, p->dest_dir);
	report_refusal(o, f->kind == COPY_REFUSED_HISTORY_CHAIN ? "mhl-chain" : "mhl-damaged", msg);
}
