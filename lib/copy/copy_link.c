/* copy_link.c: the further names of a file the tree holds under several
 * (--preserve=links, source_links.c): each made a hard link to its
 * leader's copy, never before that copy is durable under its name. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/grow.h"
#include "copy/copy.h"
#include "copy/copy_internal.h"

/* A follower (source_links.c): another name of its leader's copy, made
 * only once that copy is durable under its name.  A leader in the open
 * batch is not yet: the follower waits for the batch's commit, with a
 * dup of its directory's fd (the engine may have left that directory by
 * then), and joins the next batch (copy_links_deferred()), so a tree of
 * pairs costs no extra commit.  A leader that was not copied fails it
 * too: they are one file. */
static int link_now(struct engine *g, size_t idx)
{
	size_t leader = source_leader(g->plan->tree, idx);
	const struct plan_entry *l = &g->plan->entries[leader];
	/* identical, left alone: the file there is the group's */
	const struct copied_inode there = {
		leader, l->identical ? plan_existing_of(g->plan, l)->dst_dev : 0,
		l->identical ? plan_existing_of(g->plan, l)->dst_ino : 0 };
	const struct copied_inode *c = l->identical ? &there : copy_leader_copied(g, leader);
	char target[PATH_MAX];
	struct batch_item it;
	int r = copy_item_start(g, idx, &it);

	it.size = 0; /* no bytes of its own: bytes_total has none */
	if (r == 0 && !c) /* its first name was not copied: reported about that name */
		return copy_link_failed(g, &it, plan_dst_path(g->plan, leader, target));
	if (r == 0)
		r = dest_file_hard_link(&g->files, &it.file, plan_dst_path(g->plan, leader, target),
					c->dev, c->ino);
	return r < 0 ? copy_item_open_failed(g, &it, r) : batch_add(g, &it);
}

int copy_link(struct engine *g, size_t idx)
{
	const struct batch *b = &g->batch;
	size_t leader = source_leader(g->plan->tree, idx);
	int fd;

	if (leader == PLAN_TOP)
		return -EINVAL;
	if (g->published[leader] || g->plan->entries[leader].identical || b->n == 0 ||
	    leader < b->items[0].entry)
		return link_now(g, idx);
	fd = batch_parent_fd(g, source_parent(g->plan->entries[idx].source, idx));
	if (fd >= 0 && (fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		fd = -errno;
	if (fd >= 0 && GROW(g->deferred, g->cap_deferred, g->n_deferred + 1, 16) < 0) {
		close(fd);
		fd = -ENOMEM;
	}
	if (fd < 0)
		return fd;
	g->deferred[g->n_deferred++] = (struct batch_dir){ idx, fd };
	return 0;
}

int copy_links_deferred(struct engine *g)
{
	struct batch_dir *v = g->deferred;
	size_t n = g->n_deferred;
	int r = 0;

	g->deferred = NULL;
	g->n_deferred = g->cap_deferred = 0;
	for (size_t i = 0; i < n; i++) {
		struct batch *b = &g->batch;
		size_t parent = source_parent(g->plan->entries[v[i].idx].source, v[i].idx);
		bool have = false;

		for (size_t k = 0; k < b->n_dirs && !have; k++)
			have = b->dirs[k].idx == parent;
		/* its directory's fd where batch_parent_fd() looks first */
		if (r == 0 && !have && GROW(b->dirs, b->cap_dirs, b->n_dirs + 1, 16) == 0) {
			b->dirs[b->n_dirs++] = (struct batch_dir){ parent, v[i].fd };
			v[i].fd = -1;
		}
		if (v[i].fd >= 0)
			close(v[i].fd);
		if (r == 0)
			r = link_now(g, v[i].idx);
	}
	free(v);
	return r;
}

void copy_links_drop(struct engine *g)
{
	for (size_t i = 0; i < g->n_deferred; i++)
		close(g->deferred[i].fd);
	free(g->deferred);
	g->deferred = NULL;
	g->n_deferred = g->cap_deferred = 0;
}
