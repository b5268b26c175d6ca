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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/msg.h"
#include "common/quote.h"
#include "copy/judge.h"
#include "copy/manifest.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

void identical_load_lists(struct safecp_options *o)
{
	struct sums_index *idx;

	if (!o->skip_identical || !o->sums_prefix)
		return;
	idx = sums_index_new();
	if (!idx)
		cli_usage_error("out of memory");
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		_cleanup_free_ char *path = NULL;
		size_t bad = 0;
		struct stat st;
		int r;

		if (!(o->checksums & CHECKSUM_BIT(a)))
			continue;
		if (asprintf(&path, "%s.%s", o->sums_prefix, checksum_alg_name(a)) < 0)
			cli_usage_error("out of memory");
		r = sums_index_add_list(idx, (enum checksum_alg)a, path, &bad);
		if (r == -ENOMEM)
			cli_usage_error("out of memory");
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			msg_warning("cannot read the checksum list %s: %s; the files it lists are "
				    "compared by reading both copies", quote(path),
				    r == -EINVAL ? "not a regular file" : strerror(-r));
			continue;
		}
		if (bad)
			msg_warning("%zu %s of the checksum list %s could not be read; the files "
				    "they name are compared by reading both copies", bad,
				    bad == 1 ? "line" : "lines", quote(path));
		if (stat(path, &st) == 0)
			o->old_lists_dev = st.st_dev;
	}
	if (sums_index_algs(idx) == 0) {
		sums_index_free(idx);
		return;
	}
	o->old_lists = idx;
}

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
static void warn_history(const struct safecp_job *job, const struct judge_result *res)
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

/* The formats a manifest lists (safecp_sums.c hashes the copies so). */
static checksum_set mhl_algs(const struct safecp_options *o)
{
	checksum_set s = manifest_formats(o->checksums);

	return s ? s : CHECKSUM_BIT(CHECKSUM_XXH128);
}

/* Files judged identical whose copy read back different (or not at all):
 * copied again, or kept by -n. */
static void warn_differs(const struct safecp_job *job)
{
	const struct plan *p = job->plan;

	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];

		if (!e->read_back_differs)
			continue;
		if (e->skip_existing)
			msg_warning("%s read back from the device is not the source %s, although "
				    "--skip-identical judged it the same: kept (-n); copy it again "
				    "without -n", quote(e->dst), quote(e->source->src));
		else
			msg_warning("%s read back from the device is not the source %s, although "
				    "--skip-identical judged it the same: it is copied again",
				    quote(e->dst), quote(e->source->src));
	}
}

size_t identical_read_back_count(const struct plan *p, bool *cached)
{
	size_t n = 0;

	*cached = false;
	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];

		if (!e->identical || e->identical_read_back == PLAN_READ_BACK_NONE)
			continue;
		n++;
		if (e->identical_read_back == PLAN_READ_BACK_CACHED)
			*cached = true;
	}
	return n;
}

int identical_judge(const struct safecp_options *o, struct safecp_job *job)
{
	struct judge_result res;
	int r = judge_dest(job->plan, job->target, &(struct judge_options){
		.mode = o->skip_identical,
		/* --mhl lists what a judgement read (copy/manifest.h) */
		.manifest_algs = o->mhl ? mhl_algs(o) : 0,
		.verify = o->verify,
		.old_lists = o->old_lists,
		.old_lists_count = o->n_dests == 1 || o->old_lists_dev == job->plan->dest_dir_dev,
	}, &res);

	/* kept: --mhl asks it again, and carries what it vouched for
	 * (job_done frees it) */
	job->identical_mhl = res.mhl;
	job->identical_rec = res.mhl_recorded;
	warn_history(job, &res);
	warn_differs(job);
	if (r < 0) {
		cli_error("cannot compare the files already in %s: %s", quote(job->plan->dest_root),
			  strerror(-r));
		return EXIT_USAGE;
	}
	return 0;
}

const char *identical_basis_name(enum plan_identical basis)
{
	switch (basis) {
	case PLAN_IDENTICAL_QUICK: return "size-mtime";
	case PLAN_IDENTICAL_MANIFEST: return "manifest";
	case PLAN_IDENTICAL_LIST: return "list";
	case PLAN_IDENTICAL_CONTENT: return "content";
	case PLAN_IDENTICAL_NO: break;
	}
	return NULL;
}

const char *identical_basis_words(enum plan_identical basis)
{
	switch (basis) {
	case PLAN_IDENTICAL_QUICK: return "same size and modification time";
	case PLAN_IDENTICAL_MANIFEST:
		return "the source's checksum is the one the stick's ASC MHL manifest records";
	case PLAN_IDENTICAL_LIST:
		return "the source's checksum is the one the stick's checksum list records";
	case PLAN_IDENTICAL_CONTENT: return "both copies read: the same xxh128";
	case PLAN_IDENTICAL_NO: break;
	}
	return "not identical";
}

/* The -v line's reason for e: what was compared, and whether the stick's
 * bytes were read (identical.h). */
const char *identical_words(const struct plan_entry *e)
{
	bool rec = e->identical == PLAN_IDENTICAL_MANIFEST || e->identical == PLAN_IDENTICAL_LIST;

	if (e->identical == PLAN_IDENTICAL_CONTENT)
		return e->identical_read_back == PLAN_READ_BACK_CACHED
			       ? "both copies read, the stick's through the page cache (it could "
				 "not be bypassed): the same xxh128"
			       : "both copies read, the stick's from the device: the same xxh128";
	if (e->identical_read_back == PLAN_READ_BACK_DEVICE)
		return e->identical == PLAN_IDENTICAL_QUICK
			       ? "same size and modification time; its copy read back from the "
				 "device: the same xxh128"
			       : e->identical == PLAN_IDENTICAL_MANIFEST
			       ? "the source's checksum is the one the stick's ASC MHL manifest "
				 "records; its copy read back from the device: the same xxh128"
			       : "the source's checksum is the one the stick's checksum list "
				 "records; its copy read back from the device: the same xxh128";
	if (e->identical_read_back == PLAN_READ_BACK_CACHED)
		return e->identical == PLAN_IDENTICAL_QUICK
			       ? "same size and modification time; its copy read back through the "
				 "page cache (it could not be bypassed): the same xxh128"
			       : e->identical == PLAN_IDENTICAL_MANIFEST
			       ? "the source's checksum is the one the stick's ASC MHL manifest "
				 "records; its copy read back through the page cache (it could not "
				 "be bypassed): the same xxh128"
			       : "the source's checksum is the one the stick's checksum list "
				 "records; its copy read back through the page cache (it could not "
				 "be bypassed): the same xxh128";
	if (rec)
		return e->identical == PLAN_IDENTICAL_MANIFEST
			       ? "the source's checksum is the one the stick's ASC MHL manifest "
				 "records; the stick's bytes were not read"
			       : "the source's checksum is the one the stick's checksum list "
				 "records; the stick's bytes were not read";
	return identical_basis_words(e->identical);
}
