/* plan_view.c: one destination's entries over the source tree.
 *
 * Each tree entry gets a destination path (the top: plan.c's; below:
 * its parent's and its own name as walked) and what lstat finds there:
 * nothing, a directory to merge into, a file to replace or (-n) keep,
 * or a refusal.  Only entries whose parent exists are looked at: in a
 * directory the copy creates nothing can exist yet. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/plan.h"
#include "copy/plan_internal.h"
#include "base/grow.h"

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Also through symlinks: a destination symlink leading to the source, or
 * a source symlink (copied as a link) leading to the destination. */
static bool same_file(const struct source_entry *s, const struct plan_entry *e,
		      const struct stat *d)
{
	struct stat t;

	if (same_inode(&s->st, d))
		return true;
	if (S_ISLNK(d->st_mode) && stat(e->dst, &t) == 0 && same_inode(&s->st, &t))
		return true;
	return s->type == PLAN_SYMLINK && stat(s->src, &t) == 0 && same_inode(&t, d);
}

int plan_classify_dst(const struct plan_options *o, const struct source_entry *s,
		      struct plan_entry *e, struct plan_problem *pr)
{
	struct stat d;

	if (s->type == PLAN_SKIP)
		return 0;
	if (lstat(e->dst, &d) < 0)
		return errno == ENOENT ? 0 :
		       plan_refuse(pr, PLAN_DEST_MISSING, e->dst, e->dst, errno);
	e->dst_exists = true;
	e->dst_dev = d.st_dev;
	e->dst_ino = d.st_ino;
	if (same_file(s, e, &d))
		return plan_refuse(pr, PLAN_SAME_FILE, s->src, e->dst, 0);
	if (S_ISDIR(d.st_mode)) {
		if (s->type == PLAN_DIR)
			return 0; /* merged into */
		if (o->no_clobber) {
			e->skip_existing = true; /* GNU cp -n: silently kept */
			return 0;
		}
		return plan_refuse(pr, PLAN_NONDIR_ONTO_DIR, s->src, e->dst, EISDIR);
	}
	if (s->type == PLAN_DIR) /* even with -n, as GNU cp */
		return plan_refuse(pr, PLAN_DIR_ONTO_NONDIR, s->src, e->dst, ENOTDIR);
	e->dst_old_size = (uint64_t)d.st_size;
	e->dst_mtim = d.st_mtim;
	e->dst_regular = S_ISREG(d.st_mode);
	e->skip_existing = o->no_clobber;
	if (!e->skip_existing && S_ISREG(d.st_mode) && d.st_nlink == 1)
		e->dst_freed = (uint64_t)d.st_blocks * 512;
	return 0;
}

int plan_add_entry(struct plan_builder *b, const struct plan_entry *e)
{
	struct plan *p = b->p;
	struct plan_entry *n;

	if (GROW(p->entries, b->cap, p->n_entries + 1, 64) < 0)
		return -ENOMEM;
	n = &p->entries[p->n_entries];
	*n = *e;
	n->dst = strdup(e->dst);
	if (!n->dst)
		return -ENOMEM;
	/* dst_name: the literal "." of a copy into dest_dir, or into dst */
	if (e->dst_name && e->dst_name >= e->dst && e->dst_name <= e->dst + strlen(e->dst))
		n->dst_name = n->dst + (e->dst_name - e->dst);
	p->n_entries++;
	return 0;
}

int plan_add_child(void *builder, size_t idx)
{
	struct plan_builder *b = builder;
	const struct source_entry *s = &b->p->tree->entries[idx];
	const struct plan_entry *parent = &b->p->entries[s->parent];
	struct plan_entry e = { 0 };
	char dst[PATH_MAX];
	int r = 0;

	if (idx != b->p->n_entries) /* entry i of the plan is entry i of the tree */
		return -EINVAL;
	/* the walk names the directory it could not join to, another
	 * destination the entry */
	if (plan_join(dst, parent->dst, s->src_name) < 0)
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG,
				   b->first ? s->src : b->p->tree->entries[s->parent].src, NULL,
				   ENAMETOOLONG);
	e.dst = dst;
	e.dst_name = strrchr(dst, '/') + 1; /* plan_join put a '/' before it */
	if (parent->dst_exists) /* in a new directory nothing can exist yet */
		r = plan_classify_dst(b->opts, s, &e, b->problem);
	return r < 0 ? r : plan_add_entry(b, &e);
}

/* dst_name follows to dst's last component unless it is the literal "."
 * of a copy into dest_dir. */
int plan_entry_set_dst(struct plan_entry *e, const char *dst)
{
	bool name_in_dst = e->dst_name && e->dst_name >= e->dst &&
			   e->dst_name <= e->dst + strlen(e->dst);
	char *copy = strdup(dst);
	const char *slash;

	if (!copy)
		return -ENOMEM;
	free(e->dst);
	e->dst = copy;
	slash = strrchr(e->dst, '/');
	if (name_in_dst)
		e->dst_name = slash ? slash + 1 : e->dst;
	return 0;
}

void plan_link_sources(struct plan *p)
{
	for (size_t i = 0; i < p->n_entries; i++)
		p->entries[i].source = &p->tree->entries[i];
}

void plan_count(struct plan *p)
{
	p->n_existing_kept = p->n_symlinks = p->n_files = p->n_identical = 0;
	p->total_bytes = p->identical_bytes = 0;
	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];
		const struct source_entry *s = e->source;

		if (s->type == PLAN_DIR || s->type == PLAN_SKIP)
			continue;
		if (e->identical) {
			p->n_identical++;
			p->identical_bytes += (uint64_t)s->st.st_size;
		} else if (e->skip_existing)
			p->n_existing_kept++;
		else if (s->type == PLAN_SYMLINK)
			p->n_symlinks++;
		else {
			p->n_files++;
			p->total_bytes += (uint64_t)s->st.st_size;
		}
	}
}
