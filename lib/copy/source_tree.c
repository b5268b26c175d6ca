/* source_tree.c: the source tree's entries and its life: an operand
 * examined as cp does, entries appended (their strings in one block
 * each), the counts, the references of the plans that share it.  The
 * walk below a directory is source_walk.c's. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/source_tree.h"
#include "base/grow.h"

struct source_tree *source_tree_new(const struct plan_options *o)
{
	struct source_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->recursive = o->recursive;
	t->follow_symlinks = o->follow_symlinks;
	t->refs = 1;
	return t;
}

void source_tree_unref(struct source_tree *t)
{
	if (!t || --t->refs > 0)
		return;
	for (size_t i = 0; i < t->n_entries; i++)
		free(t->entries[i].src); /* the block holding all three strings */
	free(t->entries);
	free(t);
}

enum plan_entry_type plan_type_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return PLAN_DIR;
	if (S_ISREG(mode))
		return PLAN_FILE;
	if (S_ISLNK(mode))
		return PLAN_SYMLINK;
	return PLAN_SKIP;
}

int source_examine(const struct plan_options *o, const char *arg, struct source_entry *e,
		   struct plan_problem *pr)
{
	bool follow = o->follow_symlinks || !o->recursive;
	int r = follow ? stat(arg, &e->st) : lstat(arg, &e->st);
	char link[PATH_MAX];
	ssize_t n;

	e->src = (char *)arg;
	e->parent = PLAN_TOP;
	if (r < 0)
		return plan_refuse(pr, errno == ENOENT || errno == ENOTDIR ?
				   PLAN_SOURCE_MISSING : PLAN_SOURCE_UNREADABLE, arg, NULL, errno);
	e->type = plan_type_of(e->st.st_mode);
	if (e->type == PLAN_DIR && !o->recursive)
		return plan_refuse(pr, PLAN_OMIT_DIRECTORY, arg, NULL, 0);
	if (e->type == PLAN_SYMLINK) {
		n = readlink(arg, link, sizeof(link) - 1);
		if (n < 0)
			return plan_refuse(pr, PLAN_SOURCE_UNREADABLE, arg, NULL, errno);
		link[n] = '\0';
		e->link_target = strdup(link);
		if (!e->link_target)
			return -ENOMEM;
	}
	return 0;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool source_entry_same(const struct source_entry *a, const struct source_entry *b)
{
	return a->type == b->type && a->st.st_dev == b->st.st_dev &&
	       a->st.st_ino == b->st.st_ino && a->st.st_size == b->st.st_size &&
	       same_time(&a->st.st_mtim, &b->st.st_mtim) &&
	       same_time(&a->st.st_ctim, &b->st.st_ctim) && same_str(a->src, b->src) &&
	       same_str(a->link_target, b->link_target);
}

/* One allocation per entry keeps 100k entries cheap: src\0rel\0link\0,
 * with src_name moved along when it points into src. */
static int pack_strings(struct source_entry *n, const struct source_entry *e)
{
	size_t ls = strlen(e->src) + 1, lr = strlen(e->rel) + 1;
	size_t ll = e->link_target ? strlen(e->link_target) + 1 : 0;
	char *block = malloc(ls + lr + ll);

	if (!block)
		return -ENOMEM;
	n->src = memcpy(block, e->src, ls);
	n->rel = memcpy(block + ls, e->rel, lr);
	n->link_target = ll ? memcpy(block + ls + lr, e->link_target, ll) : NULL;
	if (e->src_name && e->src_name >= e->src && e->src_name < e->src + ls)
		n->src_name = n->src + (e->src_name - e->src);
	return 0;
}

int source_tree_add(struct source_tree *t, const struct source_entry *e, size_t *ret_idx)
{
	struct source_entry *n;

	if (GROW(t->entries, t->cap, t->n_entries + 1, 64) < 0)
		return -ENOMEM;
	n = &t->entries[t->n_entries];
	*n = *e;
	if (pack_strings(n, e) < 0)
		return -ENOMEM;
	n->end = t->n_entries + 1;
	if (ret_idx)
		*ret_idx = t->n_entries;
	t->n_entries++;
	if (n->type == PLAN_DIR)
		t->n_dirs++;
	else if (n->type == PLAN_SKIP)
		t->n_skipped++;
	return 0;
}
