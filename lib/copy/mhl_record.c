/* mhl_record.c: the newest ASC MHL generation as identical.h's record
 * (mhl_record.h): the chain's C4 ID checked against the manifest's bytes,
 * then each lookup maps the entry's hash formats onto checksum.h's
 * algorithms (ASC MHL's formats are all among them) and its actions onto
 * good or failed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy/mhl_record.h"

struct mhl_record {
	struct mhl_history *h;
	const struct mhl_manifest *newest;
};

static const enum checksum_alg alg_of[MHL_FORMAT_COUNT] = {
	[MHL_MD5] = CHECKSUM_MD5,     [MHL_SHA1] = CHECKSUM_SHA1,
	[MHL_C4] = CHECKSUM_C4,       [MHL_XXH64] = CHECKSUM_XXH64,
	[MHL_XXH3] = CHECKSUM_XXH3,   [MHL_XXH128] = CHECKSUM_XXH128,
};

/* Do the bytes of h's newest generation have the C4 ID its link records? */
static int newest_matches_chain(const struct mhl_history *h, bool *ret)
{
	const struct mhl_link *link = mhl_history_newest_link(h);
	struct checksum_state *s = checksum_new(CHECKSUM_BIT(CHECKSUM_C4));
	struct checksum_result res;
	size_t len = 0;
	const void *bytes = mhl_history_bytes(h, &len);

	if (!s)
		return -ENOMEM;
	checksum_update(s, bytes, len);
	checksum_final(s, &res);
	checksum_free(s);
	*ret = link && strcmp(res.text[CHECKSUM_C4], link->c4) == 0;
	return 0;
}

void mhl_record_free(struct mhl_record *r)
{
	if (!r)
		return;
	mhl_history_free(r->h);
	free(r);
}

enum mhl_record_kind mhl_record_open(const char *dir, struct mhl_record **ret,
				     struct mhl_read_problem *why)
{
	struct mhl_read_problem scratch;
	struct mhl_history *h = NULL;
	struct mhl_record *r;
	enum mhl_read_kind k;
	bool matches = false;

	*ret = NULL;
	why = why ? why : &scratch;
	k = mhl_history_read(dir, &h, why);
	if (k == MHL_READ_NO_HISTORY)
		return MHL_RECORD_NONE;
	if (k == MHL_READ_NO_MEMORY)
		return MHL_RECORD_NO_MEMORY;
	if (k != MHL_READ_OK)
		return MHL_RECORD_UNREADABLE;
	if (newest_matches_chain(h, &matches) < 0) {
		mhl_history_free(h);
		return MHL_RECORD_NO_MEMORY;
	}
	if (!matches) {
		const struct mhl_link *link = mhl_history_newest_link(h);

		memset(why, 0, sizeof(*why));
		snprintf(why->file, sizeof(why->file), "%s", link ? link->path : "");
		mhl_history_free(h);
		return MHL_RECORD_C4_MISMATCH;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		mhl_history_free(h);
		return MHL_RECORD_NO_MEMORY;
	}
	r->h = h;
	r->newest = mhl_history_newest(h);
	*ret = r;
	return MHL_RECORD_OK;
}

const char *mhl_record_generation(const struct mhl_record *r)
{
	const struct mhl_link *link = mhl_history_newest_link(r->h);

	return link ? link->path : "";
}

static int lookup(const void *ctx, const char *rel, struct recorded_file *ret)
{
	const struct mhl_record *r = ctx;
	const struct mhl_entry *e = mhl_manifest_find(r->newest, rel);

	if (!e)
		return 0;
	*ret = (struct recorded_file){ .action = RECORDED_GOOD };
	for (int f = 0; f < MHL_FORMAT_COUNT; f++) {
		enum checksum_alg alg = alg_of[f];

		if (!e->hash[f])
			continue;
		if (e->has_action[f] && e->action[f] == MHL_FAILED)
			ret->action = RECORDED_FAILED;
		if (strlen(e->hash[f]) != checksum_text_len(alg))
			continue; /* not this format's digest: never matched */
		ret->sums.algs |= CHECKSUM_BIT(alg);
		snprintf(ret->sums.text[alg], sizeof(ret->sums.text[alg]), "%s", e->hash[f]);
	}
	return 1;
}

struct recorded_sums mhl_record_recorded(const struct mhl_record *r)
{
	return (struct recorded_sums){ .lookup = lookup, .ctx = r,
				       .basis = PLAN_IDENTICAL_MANIFEST };
}
