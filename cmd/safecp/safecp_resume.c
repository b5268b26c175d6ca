/* safecp_resume.c: an interrupted copy's partials, as preparing found
 * them: one going on from where it stopped, or one that cannot and is
 * removed (the file then copied whole), in words. */
#include <inttypes.h>
#include <string.h>

#include "base/size.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/tool.h"

/* Why a partial is not resumed, after "cannot be resumed: ". */
static const char *why_words(const char *why)
{
	static const struct { const char *why, *words; } map[] = {
		{ "record", "its record is unreadable or not in safecp's form" },
		{ "source", "it is of another source file (its name, size, modification time "
			    "or inode differ)" },
		{ "machine", "this machine did not write it (a partial is resumed only by the "
			     "machine that wrote it)" },
		{ "prefix", "its first part is not the source's" },
		{ "chunk", "it was written in other chunk sizes" },
		{ "partial", "it is not a file of yours, or shorter than its record says" },
		{ "read-back", "read back from the device, its first part is not what was "
			       "written" },
	};

	for (size_t i = 0; why && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].why, why) == 0)
			return map[i].words;
	return "it is not what its record says";
}

void resume_say(const struct safecp_options *o, const struct safecp_note *n)
{
	char kept[SIZE_FORMAT_MAX], claimed[SIZE_FORMAT_MAX];

	if (n->kind == SAFECP_NOTE_PARTIAL_DISCARDED) {
		msg_note("%s: an interrupted copy left part of it, which cannot be resumed: %s; "
			 "%s", quote(n->path), why_words(n->why),
			 o->dry_run ? "it would be removed and the file copied whole"
				    : "it is removed and the file copied whole");
		return;
	}
	size_format(kept, sizeof(kept), n->count);
	size_format(claimed, sizeof(claimed), n->claimed);
	if (n->rewritten)
		msg_note("%s: an interrupted copy kept %s of it, but read back from the device "
			 "it differs after %s: the copy %s on from there", quote(n->path),
			 claimed, kept, o->dry_run ? "would go" : "goes");
	else if (n->count < n->claimed)
		msg_note("%s: an interrupted copy kept %s of it, but the source differs after "
			 "%s: the copy %s on from there", quote(n->path), claimed, kept,
			 o->dry_run ? "would go" : "goes");
	else
		msg_note("%s: an interrupted copy kept %s of it: the copy %s on from there",
			 quote(n->path), kept, o->dry_run ? "would go" : "goes");
}

uint64_t resume_bytes(const struct safecp_options *o, size_t d)
{
	struct safecp_note n;
	uint64_t sum = 0;

	for (size_t i = 0; safecp_copy_note(o->copy, i, &n, sizeof(n)) == 0; i++)
		if (n.kind == SAFECP_NOTE_RESUMED && n.dest == d)
			sum += n.count;
	return sum;
}
