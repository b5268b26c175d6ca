/* copy_dir.c: the destination's directories, made as the plan comes to
 * them.
 *
 * Each is created with mkdirat and opened with O_NOFOLLOW relative to its
 * parent's fd, owner-writable until it is complete, when copy_finish.c
 * gives it its mode and times through the same fd.  A directory that
 * cannot be made is reported and its subtree left out; the rest goes on. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "copy/hook_paths.h"

/* Is st the directory mkdirat just made, and not one a local user put
 * at its name since?  Only we can own it, where the filesystem has
 * owners. */
static bool ours(const struct engine *g, const struct stat *st)
{
	return !g->fs_has_modes || st->st_uid == geteuid();
}

/* Make (or, merging, open) directory idx in its parent, by name: a
 * symlink found there is refused, not followed; a directory that existed
 * must be the one the plan saw, and one that appeared since the plan, or
 * replaced the one we made, is refused too (a user who can write in DEST
 * would otherwise have the copy written into a directory of theirs).
 * -errno on failure. */
static int enter_dir(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	const struct plan_existing *x = plan_existing_of(g->plan, e);
	const char *name = plan_dst_name(g->plan, idx);
	int pfd = copy_dir_fd(g, source_parent(e->source, idx)), fd;
	bool made;
	struct stat st;

	if (pfd < 0)
		return pfd;
	test_hook_dst("dir-create", g->plan, idx);
	/* owner rwx while we fill it; the real mode comes when it is complete */
	made = mkdirat(pfd, name, 0700) == 0;
	if (!made && errno != EEXIST)
		return -errno;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -ENOTDIR : -errno;
	if (fstat(fd, &st) < 0 || (made && !ours(g, &st)) ||
	    (!made && (!e->dst_exists || st.st_dev != x->dst_dev || st.st_ino != x->dst_ino))) {
		close(fd);
		return -ESTALE;
	}
	/* the umask may have taken our own rwx away (umask 0277) */
	if (made && g->fs_has_modes && (st.st_mode & 0700) != 0700 && fchmod(fd, 0700) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	g->made[idx] = made;
	return dirstack_push(&g->dirs, idx, name, fd);
}

/* A directory that could not be made: report it once, count what it
 * would have held as failed, and take its files from the reader. */
static int skip_subtree(struct engine *g, size_t idx, int err)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	int r = 0;

	copy_report_dst(g, idx, COPY_STEP_CREATE, err, false);
	reader_skip(g->cursor, idx + 1, e->source->end);
	for (size_t i = idx + 1; i < e->source->end && r == 0; i++) {
		const struct plan_entry *c = &g->plan->entries[i];

		if (c->source->type == PLAN_SKIP || c->source->type == PLAN_DIR || c->skip_existing)
			continue;
		copy_count_failed(g);
		if (c->source->type != PLAN_FILE)
			continue;
		atomic_fetch_sub(&g->stats->bytes_total, plan_file_bytes(g->plan, i));
		r = copy_drain(g, i);
	}
	g->next = e->source->end;
	return r;
}

int copy_dir(struct engine *g, size_t idx)
{
	int r = enter_dir(g, idx);

	if (r == 0)
		return 0;
	if (copy_fatal_error(r)) {
		copy_report_dst(g, idx, COPY_STEP_CREATE, r, true);
		return r;
	}
	return skip_subtree(g, idx, r);
}

/* The made ones wait for their attributes, a bounded number at a time. */
int copy_leave_dirs(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];

	while (dirstack_top(&g->dirs) != source_parent(e->source, idx) &&
	       dirstack_top(&g->dirs) != PLAN_TOP) {
		dirstack_pop(&g->dirs, finish_dir_popped, g);
		if (g->n_done_dirs >= g->batch_done_dirs) {
			int r = batch_commit(g);

			if (r < 0)
				return r;
			finish_dirs(g, false);
		}
	}
	return 0;
}
