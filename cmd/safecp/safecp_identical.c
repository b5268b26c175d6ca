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
#include "copy/judge.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

/* Why a history cannot be used, in words (mhl_read.h's kinds). */
static const char *history_problem(const struct mhl_read_problem *why)
{
	switch (why->kind) {
	case MHL_READ_IO: return strerror(why->err);
	case MHL_READ_NOT_REGULAR: return "not a regular file";
	case MHL_READ_TOO_BIG: return "too large to be a manifest";
	case MHL_READ_DOCTYPE: return "it declares a DOCTYPE, which is refused";
	case MHL_READ_MALFORMED: return "not well-formed XML (cut short?)";
	case MHL_READ_NOT_MHL: return "not an ASC MHL v2 document";
	case MHL_READ_BAD_VALUE: return "a value not of the schema's form";
	case MHL_READ_BAD_PATH: return "a listed path that climbs out or is not text";
	case MHL_READ_DUPLICATE: return "a path or sequence number given twice";
	case MHL_READ_BAD_CHAIN: return "the chain's links are wrong";
	case MHL_READ_OK: case MHL_READ_NO_HISTORY: case MHL_READ_NO_MEMORY: break;
	}
	return "unreadable";
}

/* A history --skip-identical could not use: the lists or both copies
 * decide instead (copy/judge.h). */
static void warn_history(const struct copy_prepared *job, const struct judge_result *res)
{
	const char *dir = job->plan->dest_dir;
	const struct mhl_read_problem *why = &res->why;
	_cleanup_free_ char *where = NULL;

	if (res->note == JUDGE_HISTORY_NOT_VOUCHED) {
		msg_warning("the ASC MHL generation %s in %s/ascmhl is not the one its "
			    "ascmhl_chain.xml records (another C4 ID): not trusted; files are "
			    "compared with the --sums lists or by reading both copies",
			    quote(why->file), quote(dir));
		return;
	}
	if (res->note != JUDGE_HISTORY_UNREADABLE)
		return;
	if (why->line > 0)
		where = words_format("%s/ascmhl/%s, line %d", dir, why->file, why->line);
	else
		where = words_format("%s/ascmhl%s%s", dir, *why->file ? "/" : "", why->file);
	msg_warning("cannot use the ASC MHL history %s: %s; files are compared with the "
		    "--sums lists or by reading both copies", quote(where ? where : dir),
		    history_problem(why));
}

/* A file judged identical whose copy read back different (or not at
 * all): copied again, or kept by -n. */
static void warn_differs(const struct plan_entry *e)
{
	if (e->skip_existing)
		msg_warning("%s read back from the device is not the source %s, although "
			    "--skip-identical judged it the same: kept (-n); copy it again "
			    "without -n", quote(e->dst), quote(e->source->src));
	else
		msg_warning("%s read back from the device is not the source %s, although "
			    "--skip-identical judged it the same: it is copied again",
			    quote(e->dst), quote(e->source->src));
}

void identical_say(const struct safecp_options *o, const struct copy_finding *f,
		   const struct copy_prepared *jobs)
{
	(void)o;
	switch (f->kind) {
	case COPY_NOTE_LIST_UNREADABLE:
		msg_warning("cannot read the checksum list %s: %s; the files it lists are "
			    "compared by reading both copies", quote(f->path),
			    f->err == EINVAL ? "not a regular file" : strerror(f->err));
		break;
	case COPY_NOTE_LIST_BAD_LINES:
		msg_warning("%" PRIu64 " %s of the checksum list %s could not be read; the files "
			    "they name are compared by reading both copies", f->count,
			    f->count == 1 ? "line" : "lines", quote(f->path));
		break;
	case COPY_NOTE_HISTORY:
		warn_history(&jobs[f->dest], f->judge);
		break;
	case COPY_NOTE_READ_BACK_DIFFERS:
		warn_differs(&jobs[f->dest].plan->entries[f->entry]);
		break;
	default:
		break;
	}
}

size_t identical_read_back_count(const struct safecp_options *o, size_t d, bool *cached)
{
	struct safecp_entry e;
	size_t n = 0;

	*cached = false;
	for (size_t i = 0; safecp_copy_entry(o->copy, d, i, &e, sizeof(e)) == 0; i++) {
		if (!e.identical || !e.read_back)
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
