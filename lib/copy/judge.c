/* judge.c: see judge.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "copy/judge.h"
#include "copy/read_back.h"
#include "device/fs_traits.h"

/* hash's first record: the newest generation, or NULL (none, or not
 * usable: a note says why). */
static const struct recorded_sums *history_record(const struct plan *p, struct judge_result *ret,
						  int *err)
{
	switch (mhl_record_open(p->dest_dir, &ret->mhl, &ret->why)) {
	case MHL_RECORD_OK:
		ret->mhl_recorded = mhl_record_recorded(ret->mhl);
		return &ret->mhl_recorded;
	case MHL_RECORD_NONE:
		break;
	case MHL_RECORD_NO_MEMORY:
		*err = -ENOMEM;
		break;
	case MHL_RECORD_C4_MISMATCH:
		ret->note = JUDGE_HISTORY_NOT_VOUCHED;
		break;
	case MHL_RECORD_UNREADABLE:
		ret->note = JUDGE_HISTORY_UNREADABLE;
		break;
	}
	return NULL;
}

/* quick with manifests: the history, to ask whether a file is listed in
 * any generation at all, or NULL (none is).  No note: a damaged history
 * is refused where the manifest is prepared. */
static const struct recorded_sums *listing_record(const struct plan *p, struct judge_result *ret,
						  int *err)
{
	enum mhl_record_kind k = mhl_record_open(p->dest_dir, &ret->mhl, NULL);

	if (k == MHL_RECORD_NO_MEMORY)
		*err = -ENOMEM;
	if (k != MHL_RECORD_OK)
		return NULL;
	ret->mhl_recorded = mhl_record_recorded(ret->mhl);
	return &ret->mhl_recorded;
}

int judge_dest(struct plan *p, const struct target *t, const struct judge_options *o,
	       struct judge_result *ret)
{
	struct recorded_sums lists;
	struct identical_options io = {
		.mode = o->mode,
		.mtime_step_ns = fs_traits_of(t)->mtime_step_ns,
		.keep_algs = o->manifest_algs,
		.read_back = o->verify,
		.fuse = fs_traits_of(t)->fuse,
		.bdev_fd = -1,
	};
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	if (!o->mode)
		return 0;
	if (io.mode == IDENTICAL_HASH) {
		io.recorded = history_record(p, ret, &r);
		if (!io.recorded && o->old_lists && o->old_lists_count) {
			lists = sums_index_recorded(o->old_lists);
			io.recorded = &lists;
		}
	} else if (o->manifest_algs) {
		io.recorded = listing_record(p, ret, &r);
		io.listed_only = true;
	}
	if (r < 0)
		return r;
	io.bdev_fd = io.fuse ? read_back_device_open(t) : -1;
	r = plan_skip_identical(p, &io);
	if (io.bdev_fd >= 0)
		close(io.bdev_fd);
	return r;
}

void judge_result_done(struct judge_result *r)
{
	mhl_record_free(r->mhl);
	r->mhl = NULL;
}
