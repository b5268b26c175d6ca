/* holder_words.c: the last line of a busy list, the processes that could
 * not be inspected, in the same words from safeunmount and safecp
 * --unmount. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/holder_words.h"
#include "common/quote.h"
#include "base/cleanup.h"

/* The processes shown by pid and name before "and N more". */
#define UNREADABLE_SHOWN 5

/* Why they could not be inspected: strerror's words, both when the
 * refusals differ (EACCES for a link, EPERM for a namespace). */
static void unreadable_reason(FILE *f, const struct safecp_unmount_busy *b)
{
	int first = b->denied[0].err;

	fprintf(f, ": %s", strerror(-first));
	for (size_t i = 1; i < b->n_denied; i++)
		if (b->denied[i].err != first) {
			fprintf(f, " or %s", strerror(-b->denied[i].err));
			break;
		}
}

/* "(pids 1 (init), 57 (x) and 9 more could not be inspected: Permission
 * denied)": the pids let the user look at them (pid 1 unreadable even to
 * root is a container or a hardened kernel, not a holder); a process name
 * is anybody's choice, so quoted. */
void holder_words_unreadable(FILE *out, const struct safecp_unmount_busy *b)
{
	_cleanup_free_ char *line = NULL;
	size_t len = 0, shown = b->n_denied < UNREADABLE_SHOWN ? b->n_denied : UNREADABLE_SHOWN;
	size_t more = b->unreadable - shown;
	bool one = b->unreadable == 1;
	FILE *f = open_memstream(&line, &len);

	if (!f || shown == 0) {
		/* the job's copy of the list lost the pids (out of memory) */
		if (f)
			fclose(f);
		fprintf(out, "  (%zu %s could not be inspected%s)\n", b->unreadable,
			one ? "process" : "processes",
			geteuid() != 0 ? "; run as root to see them" : "");
		return;
	}
	fprintf(f, "  (%s", one ? "pid" : "pids");
	for (size_t i = 0; i < shown; i++)
		fprintf(f, "%s%d (%s)",
			i == 0 ? " " : i + 1 == shown && more == 0 ? " and " : ", ",
			(int)b->denied[i].pid, quote_bare(b->denied[i].command));
	if (more)
		fprintf(f, " and %zu more", more);
	fprintf(f, " could not be inspected");
	unreadable_reason(f, b);
	if (geteuid() != 0)
		fprintf(f, "; run as root to see %s", one ? "it" : "them");
	fprintf(f, ")\n");
	if (fclose(f) == 0)
		fputs(line, out);
}
