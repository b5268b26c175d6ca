/* safecp_place.c: which disk a destination is on, and what safecp says of
 * it before the first byte.
 *
 * `safecp -r DCIM /media/usb` with no stick mounted there copies onto the
 * system disk, exits 0, and the card is erased next.  A destination on the
 * disk the system runs from (or a system mount), or with no disk at all
 * (tmpfs: gone at power-off; a network filesystem), is refused unless
 * --system-disk says that is meant; one on another fixed disk gets a note.
 * A loop device is an image someone attached on purpose: no word. */
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

static const char *system_what(const char *what)
{
	if (what && strcmp(what, "root") == 0)
		return "the root filesystem";
	if (what && strcmp(what, "system-mount") == 0)
		return "a system mount";
	return "the disk the system runs from";
}

static char *refusal(const struct safecp_options *o, size_t d)
{
	const struct safecp_target_facts *t = dest_facts(o, d);
	struct safecp_copy_plan p = { 0 };
	_cleanup_free_ char *where = t ? words_where(t) : NULL;
	const char *dest = o->dests[d];

	safecp_copy_plan(o->copy, d, &p, sizeof(p));
	if (p.place == SAFECP_PLACE_NO_DISK)
		return words_format("refusing to copy to %s: it is on %s, which is no disk (memory, "
				    "or a network); is the stick mounted there? mount it, or give "
				    "--system-disk to copy there anyway", quote(dest),
				    where ? where : quote(t && t->mount_type ? t->mount_type : "?"));
	return words_format("refusing to copy to %s: it is on %s, %s, not a stick; is the stick "
			    "mounted there? mount it, or give --system-disk to copy there anyway",
			    quote(dest), where ? where : "?", system_what(p.system_what));
}

void place_say(const struct safecp_options *o, size_t d, bool note, const char *kind)
{
	const struct safecp_target_facts *t = dest_facts(o, d);

	if (note) {
		_cleanup_free_ char *where = NULL;

		if (o->verbosity == VERBOSITY_QUIET)
			return;
		where = t ? words_where(t) : NULL;
		fprintf(stderr, "%s: note: %s is on %s, a fixed disk, not a removable one\n",
			program_name, quote(o->dests[d]), where ? where : "?");
		return;
	}
	_cleanup_free_ char *msg = refusal(o, d);

	report_refusal(o, kind, msg);
}
