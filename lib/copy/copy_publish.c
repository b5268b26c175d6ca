/* copy_publish.c: a durable item of the batch under its name.
 *
 * Its metadata goes onto the open file first (a symlink's onto its
 * temporary name: copy_meta.c).  Then dest_file.c links or renames it into place,
 * replacing only what the plan saw and meant to replace: a name the plan
 * saw free is never replaced.  When it is taken after all (someone made
 * it during the copy, or the filesystem counts the name as the same as
 * another's, as an exFAT up-case table can), the file is dropped and the
 * error names both: ours and the one holding the name; -n keeps what
 * appeared, as it asks.  Once named, the file is copied whatever comes
 * after, and --verify remembers it for the recheck at the end (verify.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "io/writer.h"
#include "base/cleanup.h"
#include "base/grow.h"
#include "util/debug.h"
#include "copy/hook_paths.h"

char *dst_sibling_path(const struct plan *p, size_t idx, const char *holder)
{
	const char *name = plan_dst_name(p, idx);
	char dst[PATH_MAX];
	size_t dlen, nlen = strlen(name);
	char *path;

	plan_dst_path(p, idx, dst);
	dlen = strlen(dst);
	if (nlen > dlen || strcmp(dst + dlen - nlen, name) != 0)
		return strdup(holder);
	path = malloc(dlen - nlen + strlen(holder) + 1);
	if (path) {
		memcpy(path, dst, dlen - nlen);
		strcpy(path + dlen - nlen, holder);
	}
	return path;
}

/* The name the plan saw free is taken (EEXIST at publish): true, and the
 * item is reported and dropped, unless it is -n's case: the very name
 * appeared, or no file holding it was found, and it is kept. */
static bool name_clash(struct engine *g, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	_cleanup_free_ char *holder = NULL, *path = NULL;

	if (e->dst_exists)
		return false; /* -n, and the plan's own file: kept */
	holder = dest_file_holder(&it->file);
	if (g->plan->opts.no_clobber && (!holder || strcmp(holder, it->file.name) == 0))
		return false;
	path = holder ? dst_sibling_path(g->plan, it->entry, holder) : NULL;
	DEBUG(DEBUG_COPY, "name clash: '%s' taken by '%s'", it->file.name, path ? path : "?");
	item_drop(g, it, COPY_STEP_NAME_CLASH, -EEXIST, path);
	return true;
}

const struct copied_inode *copy_leader_copied(const struct engine *g, size_t idx)
{
	size_t lo = 0, hi = g->n_leaders;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->leaders[mid].idx == idx)
			return &g->leaders[mid];
		if (g->leaders[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A file that may lead a link group: its copy's inode, for the followers
 * to check their links against (in entry order: items are named so). */
static void note_leader(struct engine *g, const struct batch_item *it)
{
	const struct source_entry *s = g->plan->entries[it->entry].source;
	struct stat st;

	if (!g->plan->tree->n_links || !(s->flags & SOURCE_NLINK) || (s->flags & SOURCE_FOLLOWER) ||
	    fstatat(it->file.dirfd, it->file.name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (GROW(g->leaders, g->cap_leaders, g->n_leaders + 1, 64) < 0)
		return; /* its followers then fail: reported, not lost */
	g->leaders[g->n_leaders++] = (struct copied_inode){ .idx = it->entry, .dev = st.st_dev,
							     .ino = st.st_ino };
}

void publish_done(struct engine *g, const struct batch_item *it)
{
	note_leader(g, it);
	verify_named(g->verify, &it->vf, it->entry, it->size);
	atomic_fetch_add(&g->stats->files_done, 1);
	g->published[it->entry] = true;
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_FILE_DONE, .entry = it->entry });
}

/* fusefat gives a renamed file the rename's time: the source's again, on
 * the final name (step 5's directory fsync makes it durable). */
static void times_again(struct engine *g, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	const struct timespec times[2] = { source_atim(e->source), source_mtim(e->source) };

	if (g->o->keep_times &&
	    utimensat(it->file.dirfd, it->file.name, times, AT_SYMLINK_NOFOLLOW) < 0)
		copy_report_dst(g, it->entry, COPY_STEP_ATTRS, -errno, false);
}

/* Replaced only where the plan saw a file and -n does not keep it. */
static enum dest_replace replace_rule(const struct engine *g, const struct batch_item *it)
{
	if (g->plan->opts.no_clobber)
		return DEST_NO_CLOBBER;
	return g->plan->entries[it->entry].dst_exists ? DEST_REPLACE : DEST_NEW;
}

static int put_in_place(struct engine *g, struct batch_item *it)
{
	bool renamed = !it->file.unnamed;
	int r;

	test_hook_dst("publish", g->plan, it->entry);
	r = dest_file_publish(&g->files, &it->file, replace_rule(g, it));
	if (r == 0 && renamed && g->times_after_rename)
		times_again(g, it);
	return r;
}

/* -n, and the name appeared during the copy: kept, as -n asks. */
static void kept(struct engine *g, struct batch_item *it)
{
	dest_file_remove(&it->file);
	item_forget_bytes(g, it);
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_SKIPPED, .entry = it->entry,
					   .skip = COPY_SKIP_APPEARED });
}

int publish_item(struct engine *g, struct batch_item *it)
{
	/* --backup, named early (journaled: the journal keeps the order) */
	int r = item_needs_backup(g, it) ? item_backup(g, it) : 0;

	if (copy_fatal_error(r))
		return item_fatal(g, it, COPY_STEP_BACKUP, r);
	if (r < 0)
		return 0; /* dropped */
	r = put_in_place(g, it);
	if (copy_fatal_error(r))
		return item_fatal(g, it, COPY_STEP_RENAME, r);
	it->settled = true; /* renamed, kept or dropped: not batch_abort's */
	if (r == 0) {
		it->renamed = true;
	} else if (r == -EEXIST && name_clash(g, it)) {
		/* reported and dropped */
	} else if (r == -EEXIST && g->plan->opts.no_clobber) {
		kept(g, it);
	} else {
		item_drop_dst(g, it, COPY_STEP_RENAME, r);
	}
	return 0;
}
