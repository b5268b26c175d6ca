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

/* Also through symlinks: a destination symlink leading to the source, or
 * a source symlink (copied as a link) leading to the destination. */
static bool same_file(const struct plan_src *s, const char *dst, const struct stat *d)
{
	struct stat t;

	if (s->dev == d->st_dev && s->ino == d->st_ino)
		return true;
	if (S_ISLNK(d->st_mode) && stat(dst, &t) == 0 && s->dev == t.st_dev && s->ino == t.st_ino)
		return true;
	return s->type == PLAN_SYMLINK && stat(s->path, &t) == 0 && t.st_dev == d->st_dev &&
	       t.st_ino == d->st_ino;
}

const char *plan_src_of(const struct source_entry *e, struct plan_src *ret, char buf[PATH_MAX])
{
	*ret = (struct plan_src){ .type = e->type, .dev = e->dev, .ino = e->ino,
				  .path = source_path(e, buf, PATH_MAX) < 0 ? "?" : buf };
	return ret->path;
}

int plan_classify_dst(const struct plan_options *o, const struct plan_src *s, const char *dst,
		      struct plan_entry *e, struct plan_existing *x, struct plan_problem *pr)
{
	struct stat d;

	*x = (struct plan_existing){ 0 };
	if (s->type == PLAN_SKIP)
		return 0;
	if (lstat(dst, &d) < 0)
		return errno == ENOENT ? 0 : plan_refuse(pr, PLAN_DEST_MISSING, dst, dst, errno);
	e->dst_exists = true;
	x->dst_dev = d.st_dev;
	x->dst_ino = d.st_ino;
	if (same_file(s, dst, &d))
		return plan_refuse(pr, PLAN_SAME_FILE, s->path, dst, 0);
	if (S_ISDIR(d.st_mode)) {
		if (s->type == PLAN_DIR)
			return 0; /* merged into */
		if (o->no_clobber) {
			e->skip_existing = true; /* GNU cp -n: silently kept */
			return 0;
		}
		return plan_refuse(pr, PLAN_NONDIR_ONTO_DIR, s->path, dst, EISDIR);
	}
	if (s->type == PLAN_DIR) /* even with -n, as GNU cp */
		return plan_refuse(pr, PLAN_DIR_ONTO_NONDIR, s->path, dst, ENOTDIR);
	/* cp neither writes through a link that leads nowhere nor replaces it */
	if (S_ISLNK(d.st_mode) && s->type == PLAN_FILE && !o->no_clobber &&
	    !o->remove_destination && o->backup == BACKUP_NONE && access(dst, F_OK) < 0 &&
	    errno == ENOENT)
		return plan_refuse(pr, PLAN_DEST_DANGLING, s->path, dst, ENOENT);
	x->dst_old_size = (uint64_t)d.st_size;
	x->dst_mtim = d.st_mtim;
	x->dst_mode = d.st_mode;
	e->dst_regular = S_ISREG(d.st_mode);
	e->skip_existing = o->no_clobber;
	if (!e->skip_existing && o->backup == BACKUP_NONE && S_ISREG(d.st_mode) &&
	    d.st_nlink == 1)
		x->dst_freed = (uint64_t)d.st_blocks * 512;
	return 0;
}

int plan_add_entry(struct plan_builder *b, const struct plan_entry *e,
		   const struct plan_existing *x, const char *top_dst, const char *top_name)
{
	struct plan *p = b->p;
	struct plan_entry *n;

	if (GROW(p->entries, b->cap, p->n_entries + 1, 1024) < 0)
		return -ENOMEM;
	n = &p->entries[p->n_entries];
	*n = *e;
	n->dst_named = false;
	if (e->dst_exists && plan_set_existing(p, n, x, false) < 0)
		return -ENOMEM;
	if (top_dst && plan_name_top(p, p->n_entries, top_dst, top_name) < 0)
		return -ENOMEM;
	p->n_entries++;
	return 0;
}

int plan_add_child(void *builder, size_t idx)
{
	struct plan_builder *b = builder;
	const struct source_entry *s = &b->p->tree->entries[idx];
	size_t parent = source_parent(s, idx);
	struct plan_entry e = { 0 };
	struct plan_existing x = { 0 };
	const char *name = source_name(s);
	char src[PATH_MAX];
	struct plan_src ps;
	int r = 0;

	if (idx != b->p->n_entries || parent == PLAN_TOP) /* entry i of the plan is entry i of the tree */
		return -EINVAL;
	/* the walk names the directory it could not join to, another
	 * destination the entry */
	if (plan_dst_cached(b, parent) < 0 ||
	    b->parent_len + 1 + strlen(name) >= PATH_MAX) {
		if (b->first)
			plan_src_of(s, &ps, src);
		else
			plan_src_of(&b->p->tree->entries[parent], &ps, src);
		return plan_refuse(b->problem, PLAN_NAME_TOO_LONG, src, NULL, ENAMETOOLONG);
	}
	if (b->p->entries[parent].dst_exists) { /* in a new directory nothing can exist yet */
		char dst[PATH_MAX];

		if (plan_join(dst, b->parent_dst, name) < 0)
			return -ENAMETOOLONG;
		plan_src_of(s, &ps, src);
		r = plan_classify_dst(b->opts, &ps, dst, &e, &x, b->problem);
	}
	return r < 0 ? r : plan_add_entry(b, &e, &x, NULL, NULL);
}

/* The destination path of the parent the last children had, kept: a
 * directory's children come one after another. */
int plan_dst_cached(struct plan_builder *b, size_t parent)
{
	if (b->parent_valid && b->parent_idx == parent)
		return 0;
	b->parent_valid = false;
	if (plan_dst(b->p, parent, b->parent_dst, sizeof(b->parent_dst)) < 0)
		return -ENAMETOOLONG;
	b->parent_len = strlen(b->parent_dst);
	if (b->parent_len > 0 && b->parent_dst[b->parent_len - 1] == '/')
		b->parent_len--; /* plan_join() adds no second '/' */
	b->parent_idx = parent;
	b->parent_valid = true;
	return 0;
}

void plan_link_sources(struct plan *p)
{
	struct plan_entry *e = p->n_entries ? realloc(p->entries, p->n_entries * sizeof(*e)) : NULL;

	source_tree_trim(p->tree);
	if (e) /* a million entries: no room to spare (a failed shrink keeps it) */
		p->entries = e;
	for (size_t i = 0; i < p->n_entries; i++)
		p->entries[i].source = &p->tree->entries[i];
}

void plan_links_here(struct plan *p, bool fs_links)
{
	for (size_t i = 0; i < p->n_entries; i++) {
		struct plan_entry *e = &p->entries[i];
		size_t leader = source_leader(p->tree, i);

		/* a leader left alone as identical is the group's file there */
		e->linked = fs_links && leader != PLAN_TOP && !e->skip_existing &&
			    (!p->entries[leader].skip_existing || p->entries[leader].identical);
	}
	plan_count(p);
}

void plan_count(struct plan *p)
{
	p->n_existing_kept = p->n_symlinks = p->n_files = p->n_identical = 0;
	p->total_bytes = p->apparent_bytes = p->identical_bytes = 0;
	for (size_t i = 0; i < p->n_entries; i++) {
		const struct plan_entry *e = &p->entries[i];
		const struct source_entry *s = e->source;

		if (s->type == PLAN_DIR || s->type == PLAN_SKIP)
			continue;
		if (e->identical) {
			p->n_identical++;
			p->identical_bytes += s->size;
		} else if (e->skip_existing)
			p->n_existing_kept++;
		else if (s->type == PLAN_SYMLINK)
			p->n_symlinks++;
		else {
			p->n_files++;
			p->total_bytes += e->linked ? 0 : plan_file_bytes(p, i);
			p->apparent_bytes += e->linked ? 0 : s->size;
		}
	}
}

uint64_t plan_file_bytes(const struct plan *p, size_t idx)
{
	return p->holes ? source_data_bytes(p->tree, idx) : p->entries[idx].source->size;
}

void plan_set_holes(struct plan *p, bool fs_holes)
{
	p->holes = fs_holes && p->opts.sparse != SPARSE_NEVER;
	plan_count(p);
}
