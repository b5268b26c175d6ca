/* unpack_feed.c: see unpack_feed.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "archive/unpack_tree.h"
#include "copy/unpack_feed.h"

struct unpack_feed {
	const struct unpack_list *list;
	struct unpack_tree tree;
	struct source_found *entries; /* entry i is tree node i; src is owned */
	struct unpack_data *data;
	struct source_feed feed;
};

static int type_mode(const struct unpack_entry *e)
{
	if (!e)
		return S_IFDIR | 0755; /* implied: as mkdir -p under a 022 umask */
	switch (e->type) {
	case UNPACK_DIR: return S_IFDIR | (int)(e->perm & 0777);
	case UNPACK_SYMLINK: return S_IFLNK | 0777;
	default: return S_IFREG | (int)(e->perm & 0777);
	}
}

/* Node i of the tree as the plan's source entry, named ARCHIVE:PATH. */
static int entry_of(struct unpack_feed *f, size_t i, const struct timespec *now)
{
	const struct unpack_node *n = &f->tree.nodes[i];
	const struct unpack_entry *e = n->entry == UNPACK_IMPLIED ? NULL : &f->list->entries[n->entry];
	struct source_found *s = &f->entries[i];
	char *src;

	s->name = n->name;
	s->parent = n->parent == UNPACK_NO_PARENT ? PLAN_TOP : n->parent;
	if (s->parent == PLAN_TOP) { /* below, the tree joins the names */
		if (asprintf(&src, "%s:%s", f->list->archives[n->archive], n->path) < 0)
			return -ENOMEM;
		s->src = src;
		s->rel = n->path;
	}
	s->st.st_mode = (mode_t)type_mode(e);
	s->type = S_ISDIR(s->st.st_mode) ? PLAN_DIR : S_ISLNK(s->st.st_mode) ? PLAN_SYMLINK : PLAN_FILE;
	s->st.st_size = e && s->type == PLAN_FILE ? e->size :
			e && s->type == PLAN_SYMLINK ? (off_t)strlen(e->link) : 0;
	s->st.st_mtim = e && e->mtime_known ? e->mtime : *now;
	s->st.st_atim = s->st.st_mtim;
	s->link_target = s->type == PLAN_SYMLINK ? e->link : NULL;
	return 0;
}

static int feed_open(void *ctx, size_t entry, atomic_bool *cancel)
{
	struct unpack_feed *f = ctx;

	return unpack_data_open(f->data, f->tree.nodes[entry].entry, cancel);
}

static ssize_t feed_read(void *ctx, void *buf, size_t len, bool *end)
{
	struct unpack_feed *f = ctx;

	return unpack_data_read(f->data, buf, len, end);
}

/* an archive's entry cannot change under us the way a file can: the
 * archive is read once more, and its reader checks what it reads */
static int feed_close(void *ctx, bool *changed)
{
	(void)ctx;
	*changed = false;
	return 0;
}

static const struct source_feed_ops feed_ops = { feed_open, feed_read, feed_close };

int unpack_feed_new(const struct unpack_list *l, const char *spool_dir, struct unpack_feed **ret)
{
	struct unpack_feed *f = calloc(1, sizeof(*f));
	struct timespec now;
	int r = f ? 0 : -ENOMEM;

	clock_gettime(CLOCK_REALTIME, &now);
	if (r == 0) {
		f->list = l;
		r = unpack_tree_build(l, &f->tree) < 0 ? -ENOMEM : 0;
	}
	if (r == 0) {
		f->entries = calloc(f->tree.n_nodes ? f->tree.n_nodes : 1, sizeof(*f->entries));
		r = f->entries ? 0 : -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < f->tree.n_nodes; i++)
		r = entry_of(f, i, &now);
	if (r == 0 && unpack_data_new(l, &f->tree, spool_dir, &f->data) < 0)
		r = -ENOMEM;
	if (r < 0) {
		unpack_feed_free(f);
		return r;
	}
	f->feed = (struct source_feed){ &feed_ops, f };
	*ret = f;
	return 0;
}

const struct source_found *unpack_feed_entries(const struct unpack_feed *f, size_t *n)
{
	*n = f->tree.n_nodes;
	return f->entries;
}

const struct source_feed *unpack_feed_source(const struct unpack_feed *f)
{
	return &f->feed;
}

struct unpack_data *unpack_feed_data(const struct unpack_feed *f)
{
	return f->data;
}

void unpack_feed_free(struct unpack_feed *f)
{
	if (!f)
		return;
	for (size_t i = 0; f->entries && i < f->tree.n_nodes; i++)
		free((char *)f->entries[i].src);
	free(f->entries);
	unpack_data_free(f->data);
	unpack_tree_done(&f->tree);
	free(f);
}
