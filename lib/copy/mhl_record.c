/* mhl_record.c: the ASC MHL history as identical.h's record
 * (mhl_record.h): the newest generation (mhl_history_read()), then the
 * older ones the chain names, newest first, each used only when its bytes
 * have the C4 ID its link records; the first one that cannot be read or
 * does not match ends the list (older ones are not used).  A lookup asks
 * them in that order: the newest generation that lists a path decides
 * (a rerun that hashed nothing lists nothing).  Each entry's hash formats
 * map onto checksum.h's algorithms (ASC MHL's are all among them) and its
 * actions onto good or failed.
 *
 * The folder is on a stick someone else may have written, and each older
 * generation is kept parsed (about three times its bytes): so a file
 * already read under another name (one inode hard-linked as every
 * generation costs nothing on the stick) is passed over, and the older
 * generations read stop at OLDER_MAX_BYTES in all or OLDER_MAX_COUNT
 * files (the files only they list are then copied again, or reported
 * unlisted by --check: a cost in time, never a wrong answer). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/mhl_record.h"
#include "base/cleanup.h"
#include "base/grow.h"
#include "util/whole_file.h"

/* Bounds of the older generations read (see above): half a largest
 * manifest in bytes, and files enough for years of daily offloads. */
#define OLDER_MAX_BYTES ((uint64_t)MHL_READ_MAX_BYTES / 2)
#define OLDER_MAX_COUNT 4096

struct file_id {
	dev_t dev;
	ino_t ino;
};

struct mhl_record {
	struct mhl_history *h;
	const struct mhl_manifest *newest;
	struct mhl_manifest **older; /* newest first */
	size_t n_older, cap_older;
	/* the generation files read (the newest first), and their bytes */
	struct file_id *seen;
	size_t n_seen, cap_seen;
	uint64_t older_bytes;
};

static const enum checksum_alg alg_of[MHL_FORMAT_COUNT] = {
	[MHL_MD5] = CHECKSUM_MD5,     [MHL_SHA1] = CHECKSUM_SHA1,
	[MHL_C4] = CHECKSUM_C4,       [MHL_XXH64] = CHECKSUM_XXH64,
	[MHL_XXH3] = CHECKSUM_XXH3,   [MHL_XXH128] = CHECKSUM_XXH128,
};

/* Do len bytes have the C4 ID link records? */
static int c4_matches(const struct mhl_link *link, const void *bytes, size_t len, bool *ret)
{
	char c4[CHECKSUM_TEXT_MAX];
	int r = checksum_text_of(CHECKSUM_C4, bytes, len, c4);

	*ret = r == 0 && link && strcmp(c4, link->c4) == 0;
	return r;
}

static int newest_matches_chain(const struct mhl_history *h, bool *ret)
{
	size_t len = 0;
	const void *bytes = mhl_history_bytes(h, &len);

	return c4_matches(mhl_history_newest_link(h), bytes, len, ret);
}

bool mhl_record_newest_ok(const struct mhl_history *h)
{
	bool ok = false;

	return newest_matches_chain(h, &ok) == 0 && ok;
}

void mhl_record_free(struct mhl_record *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_older; i++)
		mhl_manifest_free(r->older[i]);
	free(r->older);
	free(r->seen);
	mhl_history_free(r->h);
	free(r);
}

/* Is st's file one already read?  If not, it is now: 0 new, 1 seen,
 * -ENOMEM. */
static int seen_before(struct mhl_record *r, const struct stat *st)
{
	for (size_t i = 0; i < r->n_seen; i++)
		if (r->seen[i].dev == st->st_dev && r->seen[i].ino == st->st_ino)
			return 1;
	if (GROW(r->seen, r->cap_seen, r->n_seen + 1, 4) < 0)
		return -ENOMEM;
	r->seen[r->n_seen++] = (struct file_id){ st->st_dev, st->st_ino };
	return 0;
}

/* link's file in the ascmhl folder afd, read whole if it is a regular
 * file not read before and within the bounds: 1 read (*bytes, *len),
 * 2 passed over (read before), 0 not usable (the search ends), -ENOMEM. */
static int read_generation(struct mhl_record *r, int afd, const struct mhl_link *link,
			   char **bytes, size_t *len)
{
	_cleanup_close_ int fd = openat(afd, link->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	char proc[48];
	struct stat st;
	int e;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	e = seen_before(r, &st);
	if (e != 0)
		return e < 0 ? e : 2;
	if (r->n_older >= OLDER_MAX_COUNT || (uint64_t)st.st_size > OLDER_MAX_BYTES - r->older_bytes)
		return 0;
	/* that very inode, however its name changes meanwhile */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	e = whole_file_read_at(AT_FDCWD, proc, 0, OLDER_MAX_BYTES - r->older_bytes, bytes, len);
	if (e < 0)
		return e == -ENOMEM ? e : 0;
	r->older_bytes += *len;
	return 1;
}

/* One older generation of link, if it is the one the chain records: 1
 * added or passed over (a file read before), 0 not usable (the search
 * ends), -ENOMEM. */
static int add_older(struct mhl_record *r, int afd, const struct mhl_link *link)
{
	_cleanup_free_ char *bytes = NULL;
	struct mhl_manifest *m = NULL;
	bool matches = false;
	size_t len = 0;
	/* cut short meanwhile, it no longer matches the chain's C4 */
	int e = read_generation(r, afd, link, &bytes, &len);

	if (e != 1)
		return e == 2 ? 1 : e;
	if (c4_matches(link, bytes, len, &matches) < 0)
		return -ENOMEM;
	if (!matches)
		return 0;
	switch (mhl_manifest_parse(bytes, len, link->path, &m, NULL)) {
	case MHL_READ_OK: break;
	case MHL_READ_NO_MEMORY: return -ENOMEM;
	default: return 0;
	}
	if (GROW(r->older, r->cap_older, r->n_older + 1, 4) < 0) {
		mhl_manifest_free(m);
		return -ENOMEM;
	}
	r->older[r->n_older++] = m;
	return 1;
}

/* The chain's older links, newest first, while each is usable. */
static int read_older(struct mhl_record *r, const char *dir)
{
	const struct mhl_chain *c = mhl_history_chain(r->h);
	size_t n = mhl_chain_count(c);
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int afd = dfd < 0 ? -1 : openat(dfd, MHL_FOLDER, O_RDONLY | O_DIRECTORY |
							 O_NOFOLLOW | O_CLOEXEC);
	const struct mhl_link *newest = mhl_history_newest_link(r->h);
	struct stat st;
	int k = 1;

	/* the newest, already read, is a file seen (by name: mhl_history_read()
	 * read it so, and a swap since only costs one more read) */
	if (afd >= 0 && newest && fstatat(afd, newest->path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    seen_before(r, &st) < 0)
		return -ENOMEM;
	/* the last link is the newest, already read */
	for (size_t i = n > 0 ? n - 1 : 0; afd >= 0 && k == 1 && i-- > 0;)
		k = add_older(r, afd, mhl_chain_link(c, i));
	return k < 0 ? k : 0;
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
	if (read_older(r, dir) < 0) {
		mhl_record_free(r);
		return MHL_RECORD_NO_MEMORY;
	}
	*ret = r;
	return MHL_RECORD_OK;
}

size_t mhl_record_older_count(const struct mhl_record *r)
{
	return r->n_older;
}

const struct mhl_manifest *mhl_record_older(const struct mhl_record *r, size_t i)
{
	return i < r->n_older ? r->older[i] : NULL;
}

static int lookup(const void *ctx, const char *rel, struct recorded_file *ret)
{
	const struct mhl_record *r = ctx;
	const struct mhl_entry *e = mhl_manifest_find(r->newest, rel);

	for (size_t i = 0; !e && i < r->n_older; i++)
		e = mhl_manifest_find(r->older[i], rel);
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
