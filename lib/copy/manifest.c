/* manifest.c: see manifest.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/manifest.h"
#include "copy/small_file.h"
#include "mhl/mhl_write.h"
#include "base/cleanup.h"

#define FOLDER "ascmhl"
#define CHAIN "ascmhl_chain.xml"

static const struct {
	enum checksum_alg alg;
	enum mhl_hash_format format;
} FORMATS[] = {
	{ CHECKSUM_MD5, MHL_MD5 },       { CHECKSUM_SHA1, MHL_SHA1 },
	{ CHECKSUM_C4, MHL_C4 },         { CHECKSUM_XXH64, MHL_XXH64 },
	{ CHECKSUM_XXH3, MHL_XXH3 },     { CHECKSUM_XXH128, MHL_XXH128 },
};
#define N_FORMATS (sizeof(FORMATS) / sizeof(FORMATS[0]))

checksum_set manifest_formats(checksum_set algs)
{
	checksum_set s = 0;

	for (size_t i = 0; i < N_FORMATS; i++)
		if (algs & CHECKSUM_BIT(FORMATS[i].alg))
			s |= CHECKSUM_BIT(FORMATS[i].alg);
	return s;
}

static enum mhl_action action_for(const struct mhl_entry *old, enum mhl_hash_format f,
				  const char *value)
{
	return old && old->hash[f] && strcmp(old->hash[f], value) == 0 ? MHL_VERIFIED
									: MHL_ORIGINAL;
}


/* Is value the history's hash of the path in FORMATS[i]?  With the
 * record, f is its lookup (every generation it trusts: the newest listing
 * the path decides); without, old is the newest generation's entry. */
static bool history_has(const struct manifest_input *in, const struct recorded_file *f,
			const struct mhl_entry *old, size_t i, const char *value)
{
	if (in->judged_by)
		return f->action == RECORDED_GOOD && (f->sums.algs & CHECKSUM_BIT(FORMATS[i].alg)) &&
		       strcmp(f->sums.text[FORMATS[i].alg], value) == 0;
	return action_for(old, FORMATS[i].format, value) == MHL_VERIFIED;
}

/* Entry e under rel with its n hashes: what mhl_generation_add_file()
 * returns.  The size is the source's; the time is its mtime when times are
 * kept, else the generation's time. */
static int add_file(struct mhl_generation *g, const struct manifest_input *in,
		    const struct plan_entry *e, const char *rel, const struct mhl_hash *h, size_t n)
{
	return mhl_generation_add_file(g, &(struct mhl_file){
		.path = rel,
		.size = (uint64_t)e->source->size,
		.mtime = in->keep_times ? e->source->mtime : in->now,
		.hashes = h,
		.n_hashes = n,
	});
}

/* One entry's <hash>; 0, 1 when it cannot be listed, or -errno. */
static int add_entry(struct mhl_generation *g, const struct manifest_input *in, size_t idx)
{
	const struct plan_entry *e = &in->plan->entries[idx];
	const struct mhl_manifest *old_m = in->prev ? mhl_history_newest(in->prev) : NULL;
	struct recorded_file f = { 0 };
	struct mhl_hash h[N_FORMATS];
	char rel[PATH_MAX];
	const struct mhl_entry *old = NULL;
	size_t n = 0;
	int r = 0;

	if (!plan_dest_rel(in->plan, idx, rel, sizeof(rel)))
		return 1;
	/* the history --skip-identical asked knows every generation: a
	 * rerun's generation may list nothing */
	if (in->judged_by)
		r = in->judged_by->lookup(in->judged_by->ctx, rel, &f);
	else if (old_m)
		old = mhl_manifest_find(old_m, rel);
	if (r == -ENOMEM)
		return r;
	if (r <= 0)
		f.sums.algs = 0;
	for (size_t i = 0; i < N_FORMATS; i++) {
		const char *v = file_sums_text(in->sums, idx, FORMATS[i].alg);

		/* a hard link's further name was not read: its first name's */
		if (!v && e->linked)
			v = file_sums_text(in->sums, source_leader(in->plan->tree, idx),
					   FORMATS[i].alg);

		if (v)
			h[n++] = (struct mhl_hash){
				FORMATS[i].format, v,
				history_has(in, &f, old, i, v) ? MHL_VERIFIED : MHL_ORIGINAL,
				in->now };
	}
	if (n == 0)
		return 0; /* not read whole: nothing to say of it */
	r = add_file(g, in, e, rel, h, n);
	return r == -EILSEQ ? 1 : r;
}

/* A file left alone because the history vouched for it
 * (PLAN_IDENTICAL_MANIFEST) had those hashes computed from the source
 * again, and equal.  When its copy was read back past the page cache and
 * matched too (identical.h, --verify), they go on, verified; else the
 * stick's record, not its bytes, was compared, and the file is not
 * listed: the earlier generation's entry stands.  0 (listed, or nothing
 * to carry), or -errno. */
static int carry_vouched(struct mhl_generation *g, const struct manifest_input *in, size_t idx,
			 const char *rel)
{
	const struct plan_entry *e = &in->plan->entries[idx];
	struct recorded_file f = { 0 };
	struct mhl_hash h[N_FORMATS];
	size_t n = 0;
	int r;

	if (!in->judged_by || e->identical_read_back != PLAN_READ_BACK_DEVICE)
		return 0;
	r = in->judged_by->lookup(in->judged_by->ctx, rel, &f);
	if (r <= 0 || f.action != RECORDED_GOOD)
		return r == -ENOMEM ? r : 0;
	for (size_t i = 0; i < N_FORMATS; i++)
		if (f.sums.algs & CHECKSUM_BIT(FORMATS[i].alg))
			h[n++] = (struct mhl_hash){ FORMATS[i].format, f.sums.text[FORMATS[i].alg],
						    MHL_VERIFIED, in->now };
	if (n == 0)
		return 0;
	r = add_file(g, in, &in->plan->entries[idx], rel, h, n);
	return r == -EILSEQ ? 0 : r;
}

/* A file left alone after its source was read for the judgement (both
 * copies, a checksum list, or quick's read back): the source's digests,
 * original where the history does not list them for this path; where it
 * does, verified when the copy was read back past the page cache, else
 * the file is not listed (the earlier entry stands: ASC MHL's history
 * says original once).  0 or -errno. */
static int carry_judged(struct mhl_generation *g, const struct manifest_input *in, size_t idx,
			const char *rel)
{
	const struct plan_entry *e = &in->plan->entries[idx];
	const struct checksum_result *s = plan_existing_of(in->plan, e)->judged_sums;
	bool read_back = e->identical_read_back == PLAN_READ_BACK_DEVICE;
	const struct mhl_manifest *old_m = in->prev ? mhl_history_newest(in->prev) : NULL;
	const struct mhl_entry *old = NULL;
	struct recorded_file f = { 0 };
	struct mhl_hash h[N_FORMATS];
	size_t n = 0;
	int r = 0;

	if (!s)
		return 0;
	if (in->judged_by)
		r = in->judged_by->lookup(in->judged_by->ctx, rel, &f);
	else if (old_m)
		old = mhl_manifest_find(old_m, rel);
	if (r == -ENOMEM)
		return r;
	if (r <= 0)
		f.sums.algs = 0; /* not listed: every hash is original */
	for (size_t i = 0; i < N_FORMATS; i++) {
		const char *v = checksum_result_text(s, FORMATS[i].alg);
		bool known = v && history_has(in, &f, old, i, v);

		if (known && !read_back)
			return 0;
		if (v)
			h[n++] = (struct mhl_hash){ FORMATS[i].format, v,
						    known ? MHL_VERIFIED : MHL_ORIGINAL, in->now };
	}
	if (n == 0)
		return 0;
	r = add_file(g, in, &in->plan->entries[idx], rel, h, n);
	return r == -EILSEQ ? 0 : r;
}

/* A file --skip-identical left alone: listed when this process hashed
 * its source (ASC MHL has no action for a hash taken over unchecked).
 * A file quick left alone is not: it is listed in an earlier generation
 * (or the judgement read it, see identical.h).  0 or -errno. */
static int carry_entry(struct mhl_generation *g, const struct manifest_input *in, size_t idx)
{
	const struct plan_entry *e = &in->plan->entries[idx];
	char rel[PATH_MAX];

	if (!plan_dest_rel(in->plan, idx, rel, sizeof(rel)))
		return 0;
	if (e->identical == PLAN_IDENTICAL_MANIFEST)
		return carry_vouched(g, in, idx, rel);
	return carry_judged(g, in, idx, rel);
}

/* A pattern of the form this file writes for a checksum list written in
 * the destination ("/PATH.ALG", manifest_input.ignores): anchored, no
 * wildcard, escape or negation, naming one file. */
static bool own_pattern(const char *p)
{
	size_t len = strlen(p);

	if (p[0] != '/' || p[len - 1] == '/' || strpbrk(p, "*?[]\\!") || strstr(p, "//"))
		return false;
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		const char *name = checksum_alg_name((enum checksum_alg)a);
		size_t n = strlen(name);

		if (len > n + 2 && p[len - n - 1] == '.' && strcmp(p + len - n, name) == 0)
			return true;
	}
	return false;
}

static int build(const struct manifest_input *in, struct mhl_generation **ret, size_t *unlisted)
{
	struct mhl_generation *g;
	int r = mhl_generation_new(&(struct mhl_creator){ .creation_time = in->now,
							   .tool_name = "safecp",
							   .tool_version = in->tool_version },
				   &g);

	if (r < 0)
		return r;
	/* a rerun keeps the earlier lists' patterns, as the reference keeps
	 * patterns; any other is not ours and not carried (manifest.h); the
	 * defaults come with every new generation */
	if (in->prev && mhl_history_newest(in->prev)) {
		const char *const *old;
		size_t n_old = mhl_manifest_ignores(mhl_history_newest(in->prev), &old);

		for (size_t i = 0; r >= 0 && i < n_old; i++)
			if (own_pattern(old[i]))
				r = mhl_generation_add_ignore(g, old[i]);
	}
	for (size_t i = 0; r >= 0 && i < in->n_ignores; i++)
		r = mhl_generation_add_ignore(g, in->ignores[i]);
	for (size_t i = 0; r >= 0 && i < in->plan->n_entries; i++) {
		if (in->plan->entries[i].source->type != PLAN_FILE)
			continue;
		if (!in->published(in->ctx, i)) {
			if (in->plan->entries[i].identical)
				r = carry_entry(g, in, i);
			continue;
		}
		r = add_entry(g, in, i);
		if (r == 1)
			(*unlisted)++;
	}
	if (r < 0) {
		mhl_generation_free(g);
		return r;
	}
	*ret = g;
	return 0;
}

/* ascmhl/ in the destination directory, made if missing, never a symlink. */
static int open_folder(int dest_dir_fd)
{
	int fd;

	if (mkdirat(dest_dir_fd, FOLDER, 0777) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(dest_dir_fd, FOLDER, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int write_chain(int afd, const struct manifest_input *in, const struct manifest_result *res,
		       const char *xml, size_t len)
{
	const struct mhl_chain *old = in->prev ? mhl_history_chain(in->prev) : NULL;
	size_t n_old = old ? mhl_chain_count(old) : 0;
	_cleanup_free_ struct mhl_chain_link *links = calloc(n_old + 1, sizeof(*links));
	_cleanup_free_ char *chain = NULL;
	char c4[CHECKSUM_TEXT_MAX];
	size_t chain_len;
	int r;

	if (!links)
		return -ENOMEM;
	for (size_t i = 0; i < n_old; i++) {
		const struct mhl_link *l = mhl_chain_link(old, i);

		links[i] = (struct mhl_chain_link){ l->sequence, l->path, l->c4 };
	}
	r = checksum_text_of(CHECKSUM_C4, xml, len, c4);
	if (r < 0)
		return r;
	links[n_old] = (struct mhl_chain_link){ res->sequence, res->file, c4 };
	r = mhl_chain_render(links, n_old + 1, &chain, &chain_len);
	return r < 0 ? r : small_file_write(afd, CHAIN, chain, chain_len, 0666);
}

int manifest_write(int dest_dir_fd, const struct manifest_input *in, struct manifest_result *res)
{
	struct mhl_generation *g = NULL;
	_cleanup_free_ char *xml = NULL;
	_cleanup_close_ int afd = -1;
	size_t len = 0;
	int r;

	*res = (struct manifest_result){ .sequence = in->prev ? mhl_history_next_sequence(in->prev) : 1 };
	res->step = MANIFEST_STEP_BUILD;
	r = build(in, &g, &res->unlisted);
	if (r == 0) {
		res->files = mhl_generation_files(g);
		r = mhl_generation_render(g, &xml, &len);
		mhl_generation_free(g);
	}
	if (r == 0)
		r = mhl_generation_file_name(res->sequence, in->root_name, in->now, res->file,
					     sizeof(res->file));
	if (r < 0)
		return r;
	res->step = MANIFEST_STEP_FOLDER;
	afd = open_folder(dest_dir_fd);
	if (afd < 0)
		return afd;
	res->step = MANIFEST_STEP_WRITE;
	r = small_file_write(afd, res->file, xml, len, 0666);
	if (r < 0)
		return r;
	res->step = MANIFEST_STEP_CHAIN;
	r = write_chain(afd, in, res, xml, len);
	if (r < 0)
		return r;
	/* a new ascmhl/ is an entry of the destination directory; an O_PATH
	 * fd (EBADF) is one whose directory the copy itself made durable */
	res->step = MANIFEST_STEP_FOLDER;
	if (fsync(dest_dir_fd) < 0 && errno != EBADF && errno != EINVAL)
		return -errno;
	res->step = MANIFEST_STEP_NONE;
	return 0;
}
