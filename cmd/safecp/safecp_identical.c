/* safecp_identical.c: --skip-identical's words: the lists of a run
 * before read back (warning about what cannot be read), what a judgement
 * noted (copy/judge.h: which record judged, a history it could not use),
 * and how each file was judged.
 *
 * A record lives on the stick it describes and says nothing of the bytes
 * there now: with --verify every file left alone is read back from the
 * device (identical.h) and one that reads back different is copied again,
 * with a warning naming it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

/* Why a history cannot be used, in words. */
static const char *history_problem(const struct safecp_note *n)
{
	switch (n->problem) {
	case SAFECP_RECORD_IO: return strerror(n->err);
	case SAFECP_RECORD_NOT_REGULAR: return "not a regular file";
	case SAFECP_RECORD_TOO_BIG: return "too large to be a manifest";
	case SAFECP_RECORD_DOCTYPE: return "it declares a DOCTYPE, which is refused";
	case SAFECP_RECORD_MALFORMED: return "not well-formed XML (cut short?)";
	case SAFECP_RECORD_NOT_MHL: return "not an ASC MHL v2 document";
	case SAFECP_RECORD_BAD_VALUE: return "a value not of the schema's form";
	case SAFECP_RECORD_BAD_PATH: return "a listed path that climbs out or is not text";
	case SAFECP_RECORD_DUPLICATE: return "a path or sequence number given twice";
	case SAFECP_RECORD_BAD_CHAIN: return "the chain's links are wrong";
	default: break;
	}
	return "unreadable";
}

/* A history --skip-identical could not use (n->path: the destination
 * directory): the lists or both copies decide instead. */
static void warn_history(const struct safecp_note *n)
{
	const char *dir = n->path, *file = n->file ? n->file : "";
	_cleanup_free_ char *where = NULL;

	if (strcmp(n->name, "history-not-vouched") == 0) {
		msg_warning("the ASC MHL generation %s in %s/ascmhl is not the one its "
			    "ascmhl_chain.xml records (another C4 ID): not trusted; files are "
			    "compared with the --sums lists or by reading both copies",
			    quote(file), quote(dir));
		return;
	}
	if (n->line > 0)
		where = words_format("%s/ascmhl/%s, line %zu", dir, file, n->line);
	else
		where = words_format("%s/ascmhl%s%s", dir, *file ? "/" : "", file);
	msg_warning("cannot use the ASC MHL history %s: %s; files are compared with the "
		    "--sums lists or by reading both copies", quote(where ? where : dir),
		    history_problem(n));
}

/* A file judged identical whose copy read back different (or not at
 * all): copied again, or kept by -n. */
static void warn_differs(const struct safecp_options *o, const struct safecp_note *n)
{
	struct safecp_entry e;

	if (safecp_copy_entry(o->copy, n->dest, n->entry, &e, sizeof(e)) < 0)
		return;
	if (e.kept)
		msg_warning("%s read back from the device is not the source %s, although "
			    "--skip-identical judged it the same: kept (-n); copy it again "
			    "without -n", quote(e.dest), quote(e.source));
	else
		msg_warning("%s read back from the device is not the source %s, although "
			    "--skip-identical judged it the same: it is copied again",
			    quote(e.dest), quote(e.source));
}

void identical_say(const struct safecp_options *o, const struct safecp_note *n)
{
	switch (n->kind) {
	case SAFECP_NOTE_OLD_LIST:
		if (strcmp(n->name, "old-list-unreadable") == 0)
			msg_warning("cannot read the checksum list %s: %s; the files it lists are "
				    "compared by reading both copies", quote(n->path),
				    n->err == EINVAL ? "not a regular file" : strerror(n->err));
		else
			msg_warning("%" PRIu64 " %s of the checksum list %s could not be read; the "
				    "files they name are compared by reading both copies", n->count,
				    n->count == 1 ? "line" : "lines", quote(n->path));
		break;
	case SAFECP_NOTE_HISTORY_NOT_USED:
		warn_history(n);
		break;
	case SAFECP_NOTE_READ_BACK_DIFFERS:
		warn_differs(o, n);
		break;
	default:
		break;
	}
}

size_t identical_read_back_count(const struct safecp_options *o, size_t d,
				 const struct safecp_copy_plan *plan, bool *cached)
{
	struct safecp_entry e;
	size_t n = 0;
	uint64_t seen = 0;

	*cached = false;
	/* up to the last identical entry only: a million entries' paths, built
	 * for nothing on a first copy, were a tenth of a second before its first byte */
	for (size_t i = 0; seen < plan->identical && safecp_copy_entry(o->copy, d, i, &e, sizeof(e)) == 0;
	     i++) {
		if (!e.identical || e.type == SAFECP_ENTRY_DIR || e.type == SAFECP_ENTRY_OTHER)
			continue; /* as the plan's count goes */
		seen++;
		if (!e.read_back)
			continue;
		n++;
		*cached = *cached || e.read_back_cached;
	}
	return n;
}

const char *identical_basis_words(enum safecp_identical_basis basis)
{
	switch (basis) {
	case SAFECP_IDENTICAL_SIZE_MTIME: return "same size and modification time";
	case SAFECP_IDENTICAL_MANIFEST:
		return "the source's checksum is the one the stick's ASC MHL manifest records";
	case SAFECP_IDENTICAL_LIST:
		return "the source's checksum is the one the stick's checksum list records";
	case SAFECP_IDENTICAL_CONTENT: return "both copies read: the same xxh128";
	case SAFECP_IDENTICAL_NO: break;
	}
	return "not identical";
}

/* The -v line's reason for e: what was compared, and whether the stick's
 * bytes were read (identical.h). */
const char *identical_words(const struct safecp_entry *e)
{
	bool rec = e->identical == SAFECP_IDENTICAL_MANIFEST || e->identical == SAFECP_IDENTICAL_LIST;

	if (e->identical == SAFECP_IDENTICAL_CONTENT)
		return e->read_back_cached
			       ? "both copies read, the stick's through the page cache (it could "
				 "not be bypassed): the same xxh128"
			       : "both copies read, the stick's from the device: the same xxh128";
	if ((e->read_back && !e->read_back_cached))
		return e->identical == SAFECP_IDENTICAL_SIZE_MTIME
			       ? "same size and modification time; its copy read back from the "
				 "device: the same xxh128"
			       : e->identical == SAFECP_IDENTICAL_MANIFEST
			       ? "the source's checksum is the one the stick's ASC MHL manifest "
				 "records; its copy read back from the device: the same xxh128"
			       : "the source's checksum is the one the stick's checksum list "
				 "records; its copy read back from the device: the same xxh128";
	if (e->read_back_cached)
		return e->identical == SAFECP_IDENTICAL_SIZE_MTIME
			       ? "same size and modification time; its copy read back through the "
				 "page cache (it could not be bypassed): the same xxh128"
			       : e->identical == SAFECP_IDENTICAL_MANIFEST
			       ? "the source's checksum is the one the stick's ASC MHL manifest "
				 "records; its copy read back through the page cache (it could not "
				 "be bypassed): the same xxh128"
			       : "the source's checksum is the one the stick's checksum list "
				 "records; its copy read back through the page cache (it could not "
				 "be bypassed): the same xxh128";
	if (rec)
		return e->identical == SAFECP_IDENTICAL_MANIFEST
			       ? "the source's checksum is the one the stick's ASC MHL manifest "
				 "records; the stick's bytes were not read"
			       : "the source's checksum is the one the stick's checksum list "
				 "records; the stick's bytes were not read";
	return identical_basis_words(e->identical);
}
