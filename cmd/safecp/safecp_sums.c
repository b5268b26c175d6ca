/* safecp_sums.c: --checksum and --sums: the checksum lists.
 *
 * One list per algorithm, PREFIX.ALG, its lines relative to the
 * destination directory, so that `cd DEST && sha256sum -c PREFIX.sha256`
 * checks the copy.  The digests come from the one read of the source
 * (file_sums.h); a list names the files that were published.  Where
 * each list goes and which destination holds it is decided and refused before
 * the first byte when it cannot be written (lib/copy/session_lists.c);
 * the copy job writes them (lib/copy/lists.h: a list on a destination's
 * filesystem by that destination's thread before its final sync), and
 * what the session and the job say about them is worded here and in
 * safecp_file_events.c. */
#include <stdlib.h>
#include <string.h>

#include "common/quote.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

/* A list's directory, as given ("." for a bare name). */
static char *list_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

void sums_say(const struct safecp_options *o, const struct refusal *r)
{
	_cleanup_free_ char *msg = NULL, *dir = NULL;

	if (r->kind == SAFECP_REFUSED_LIST_CLASH) {
		msg = words_format("the checksum list %s would replace a file the copy writes to "
				   "%s; choose another --sums prefix", quote(r->path),
				   quote(o->dests[r->dest]));
	} else if (r->err == 0) { /* the prefix names a folder */
		dir = words_format("%soffload", r->path);
		msg = words_format("--sums %s names a directory: give a prefix such as %s",
				   quote(r->path), quote(dir ? dir : "offload"));
	} else {
		dir = list_dir(r->path);
		msg = words_format("cannot write the checksum list %s: its directory %s: %s; make "
				   "it or choose another --sums prefix", quote(r->path),
				   quote(dir ? dir : "?"), strerror(r->err));
	}
	report_refusal(o, r->name, msg);
}

void sums_warn(struct events *ev, const struct safecp_copy_event *e,
	       const struct safecp_event_detail *x)
{
	const char *alg = x->algorithm ? x->algorithm : "?";
	size_t n = (size_t)x->count;

	if (e->kind == SAFECP_EVENT_LIST_LEFT_OUT)
		events_warn(ev, "%s is left out of %s: %s lists cannot hold a name with a "
			    "newline, carriage return or backslash; check it with a "
			    "sha256 list", quote(x->name), quote(e->path), alg);
	else
		events_warn(ev, "%zu %s left alone as identical %s not in %s: %s not read and "
			    "the last list did not have %s; copy without --skip-identical to "
			    "list %s", n, n == 1 ? "file" : "files", n == 1 ? "is" : "are",
			    quote(e->path), n == 1 ? "it was" : "they were", n == 1 ? "it" : "them",
			    n == 1 ? "it" : "them");
}
