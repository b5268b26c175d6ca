/* safecp_identical.c: --skip-identical: which record judges a destination's
 * files, and the words for how each was judged.
 *
 * quick compares size and mtime within the destination filesystem's step
 * (fs_traits.h).  hash asks, in this order: the destination's ASC MHL
 * history (the seam mhl_record() below, until the manifest reader is
 * wired in), then the --sums lists a run before wrote, then both copies
 * read.  A list counts for a destination when it lies on that
 * destination's filesystem (it lists what that destination holds), or
 * when there is one destination: a list kept elsewhere with several names
 * what any of them got. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/safecp.h"
#include "util/cleanup.h"

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

/* The seam for ASC MHL: the newest generation in job's DEST/ascmhl as a
 * record (identical.h's struct recorded_sums, basis
 * PLAN_IDENTICAL_MANIFEST, each entry's action carried: failed is never
 * skipped).  NULL until the manifest reader (lib/mhl/mhl_read.h) is
 * wired in here; hash then falls back to the lists and to reading both
 * copies. */
static const struct recorded_sums *mhl_record(const struct safecp_job *job)
{
	(void)job;
	return NULL;
}

static const struct recorded_sums *record_of(const struct safecp_options *o,
					     const struct safecp_job *job,
					     struct recorded_sums *lists)
{
	const struct recorded_sums *mhl = mhl_record(job);

	if (mhl)
		return mhl;
	if (!o->old_lists || (o->n_dests > 1 && o->old_lists_dev != job->plan->dest_dir_dev))
		return NULL;
	*lists = sums_index_recorded(o->old_lists);
	return lists;
}

int identical_judge(const struct safecp_options *o, struct safecp_job *job)
{
	struct recorded_sums lists;
	struct identical_options io = {
		.mode = o->skip_identical,
		.mtime_step_ns = fs_traits_of(job->target)->mtime_step_ns,
	};
	int r;

	if (!o->skip_identical)
		return 0;
	if (io.mode == IDENTICAL_HASH)
		io.recorded = record_of(o, job, &lists);
	r = plan_skip_identical(job->plan, &io);
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
	case PLAN_IDENTICAL_MANIFEST: return "the source's checksum is the ASC MHL manifest's";
	case PLAN_IDENTICAL_LIST: return "the source's checksum is the checksum list's";
	case PLAN_IDENTICAL_CONTENT: return "both copies read: the same xxh128";
	case PLAN_IDENTICAL_NO: break;
	}
	return "not identical";
}
