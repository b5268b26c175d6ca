/* plan_names.c: the name rules of the destination filesystem over a plan.
 *
 * One destination directory at a time, in plan order (dest_dir for the
 * top-level entries, then every PLAN_DIR entry: pre-order, so a
 * directory's own name is settled before its contents are looked at):
 *   1. the names already there (only when the directory exists), by
 *      collision key (name_key: upper case on FAT, exFAT and NTFS), in a
 *      tsearch tree of slots;
 *   2. each child in strcmp order: a name the rules refuse, or whose key
 *      is taken by an earlier child or by a different existing name, is a
 *      problem; a name that is fine claims its slot;
 *   3. with rename, the children of step 2 that were refused get the
 *      first free name of name_map(), then name_numbered() 2, 3, ..., and
 *      are rewritten with their descendants, then classified again.
 * The existing names are read by path (O_NOFOLLOW below dest_dir): the
 * engine checks each merged directory's identity again when it opens it,
 * so this listing is advice about names, not trust in the path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/grow.h"
#include "copy/plan.h"
#include "copy/plan_internal.h"
#include "copy/plan_names.h"

#define NO_ENTRY SIZE_MAX

/* One collision key of a directory. */
struct slot {
	char *key;
	char *existing;  /* an existing name with this key, or NULL */
	bool ambiguous;  /* several existing names have it (ntfs-3g keeps them) */
	size_t claim;    /* the plan entry written under it, or NO_ENTRY */
};

struct child {
	size_t idx;
	enum name_problem problem;
	unsigned char ch;
	bool needs_name; /* rename: refused in step 2 */
};

struct ctx {
	struct plan *p;
	enum name_fs fs;
	bool rename;
	struct plan_names *out;
	size_t cap_problems, cap_renames;
};

static int slot_cmp(const void *a, const void *b)
{
	return strcmp(((const struct slot *)a)->key, ((const struct slot *)b)->key);
}

static void slot_free(void *v)
{
	struct slot *s = v;

	free(s->key);
	free(s->existing);
	free(s);
}

/* The slot of name's key, made when it is new; NULL when out of memory. */
static struct slot *slot_get(struct ctx *c, void **root, const char *name)
{
	struct slot probe = { .key = name_key(c->fs, name, strlen(name)) }, *s;
	void *node;

	if (!probe.key)
		return NULL;
	node = tfind(&probe, root, slot_cmp);
	if (node) {
		free(probe.key);
		return *(struct slot **)node;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		free(probe.key);
		return NULL;
	}
	s->key = probe.key;
	s->claim = NO_ENTRY;
	if (!tsearch(s, root, slot_cmp)) {
		slot_free(s);
		return NULL;
	}
	return s;
}

/* Can name go into slot s?  Not when another entry of the plan goes there,
 * nor when a different existing name (or two) holds its key. */
static bool slot_free_for(const struct slot *s, const char *name)
{
	return s->claim == NO_ENTRY &&
	       (!s->existing || (!s->ambiguous && strcmp(s->existing, name) == 0));
}

/* Step 1.  A directory that cannot be read adds no names: the engine
 * reports it when it gets there. */
static int read_existing(struct ctx *c, const char *dir, bool top, void **root)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (top ? 0 : O_NOFOLLOW));
	_cleanup_closedir_ DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct slot *s;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		s = slot_get(c, root, de->d_name);
		if (!s)
			return -ENOMEM;
		if (!s->existing) {
			s->existing = strdup(de->d_name);
			if (!s->existing)
				return -ENOMEM;
		} else if (strcmp(s->existing, de->d_name) != 0) {
			s->ambiguous = true;
		}
	}
	return 0;
}

static int add_problem(struct ctx *c, enum plan_problem_kind kind, const char *path,
		       const char *path2, uint64_t need, uint64_t have)
{
	struct plan_names *o = c->out;
	struct plan_problem *pr;
	int r;

	if (GROW(o->problems, c->cap_problems, o->n_problems + 1, 8) < 0)
		return -ENOMEM;
	pr = &o->problems[o->n_problems];
	*pr = (struct plan_problem){ .kind = PLAN_OK };
	r = plan_problem_set(pr, kind, path, path2);
	if (r < 0)
		return r;
	pr->need = need;
	pr->have = have;
	o->n_problems++;
	return 0;
}

/* Entry idx's source path, for a message, in buf (PATH_MAX). */
static const char *src_of(const struct plan *p, size_t idx, char *buf)
{
	return source_path(p->entries[idx].source, buf, PATH_MAX) < 0 ? "?" : buf;
}

static int refuse_name(struct ctx *c, const struct child *k)
{
	char src[PATH_MAX], dst[PATH_MAX];

	src_of(c->p, k->idx, src);
	plan_dst_path(c->p, k->idx, dst);
	if (k->problem == NAME_RESERVED)
		return add_problem(c, PLAN_NAME_RESERVED, src, dst, 0, 0);
	return add_problem(c, PLAN_NAME_INVALID, src, dst, k->problem, k->ch);
}

static int refuse_clash(struct ctx *c, const char *dir, size_t idx, const struct slot *s)
{
	char other[PATH_MAX], src[PATH_MAX];

	src_of(c->p, idx, src);
	if (s->claim != NO_ENTRY)
		return add_problem(c, PLAN_NAME_CLASH, src, plan_dst_path(c->p, s->claim, other), 0,
				   0);
	if (plan_join(other, dir, s->existing) < 0)
		snprintf(other, sizeof(other), "%s", s->existing);
	return add_problem(c, PLAN_NAME_CLASH, src, other, 0, 1);
}

/* Step 2 for one child. */
static int check_child(struct ctx *c, const char *dir, void **root, struct child *k)
{
	const char *name = plan_dst_name(c->p, k->idx);
	struct slot *s;

	k->problem = name_check(c->fs, name, strlen(name), &k->ch);
	if (k->problem != NAME_OK) {
		k->needs_name = c->rename;
		return c->rename ? 0 : refuse_name(c, k);
	}
	if (!name_fs_folds_case(c->fs))
		return 0;
	s = slot_get(c, root, name);
	if (!s)
		return -ENOMEM;
	if (slot_free_for(s, name)) {
		s->claim = k->idx;
		return 0;
	}
	k->needs_name = c->rename;
	return c->rename ? 0 : refuse_clash(c, dir, k->idx, s);
}

/* A renamed merged directory is no longer where its dead copies'
 * temporaries are: they are not removed, nor counted as free. */
static void drop_stale(struct plan *p, size_t first, size_t end)
{
	struct stale_temps *st = &p->stale;
	size_t kept = 0;

	for (size_t i = 0; i < st->n; i++) {
		if (st->v[i].dir != PLAN_TOP && st->v[i].dir >= first && st->v[i].dir < end) {
			st->bytes -= st->v[i].bytes;
			free(st->v[i].path);
			continue;
		}
		st->v[kept++] = st->v[i];
	}
	st->n = kept;
}

/* e's destination moved: what is there now (plan_view.c's rules), looked
 * at only where its parent exists. */
static int reclassify(struct ctx *c, size_t i)
{
	struct plan *p = c->p;
	struct plan_entry *e = &p->entries[i];
	struct plan_problem pb = { .kind = PLAN_OK };
	size_t parent = source_parent(e->source, i);
	bool had = e->dst_exists;
	struct plan_existing x = { 0 };
	char src[PATH_MAX], dst[PATH_MAX];
	struct plan_src ps;
	int r;

	e->dst_exists = e->skip_existing = e->dst_regular = false;
	e->identical = PLAN_IDENTICAL_NO;
	if (had) /* its record stays its own, emptied */
		p->existing[e->existing] = x;
	if (parent != PLAN_TOP && !p->entries[parent].dst_exists)
		return 0;
	plan_src_of(e->source, &ps, src);
	r = plan_classify_dst(&p->opts, &ps, plan_dst_path(p, i, dst), e, &x, &pb);
	if (e->dst_exists && plan_set_existing(p, e, &x, had) < 0)
		r = -ENOMEM;
	if (r < 0 && pb.kind == PLAN_OK)
		return r;
	if (pb.kind != PLAN_OK) {
		r = add_problem(c, pb.kind, pb.path, pb.path2, pb.need, pb.have);
		if (r >= 0)
			c->out->problems[c->out->n_problems - 1].err = pb.err;
	}
	plan_problem_done(&pb);
	return r < 0 && r != -ENOMEM ? 0 : r;
}

static int add_rename(struct ctx *c, const struct child *k, const char *old_dst)
{
	struct plan_names *o = c->out;

	if (GROW(o->renames, c->cap_renames, o->n_renames + 1, 8) < 0)
		return -ENOMEM;
	o->renames[o->n_renames] = (struct plan_rename){
		.entry = k->idx, .old_dst = strdup(old_dst), .problem = k->problem, .ch = k->ch,
	};
	if (!o->renames[o->n_renames].old_dst)
		return -ENOMEM;
	o->n_renames++;
	return 0;
}

/* Rename child k (and so what is below it) to dir/name.  A path that no
 * longer fits is refused, once for the first entry it happens to. */
static int rename_entry(struct ctx *c, const char *dir, const struct child *k, const char *name)
{
	struct plan *p = c->p;
	struct plan_entry *e = &p->entries[k->idx];
	char old[PATH_MAX], dst[PATH_MAX], src[PATH_MAX];
	int r;

	plan_dst_path(p, k->idx, old);
	if (plan_join(dst, dir, name) < 0)
		return add_problem(c, PLAN_NAME_TOO_LONG, src_of(p, k->idx, src), NULL, 0, 0);
	r = add_rename(c, k, old);
	if (r >= 0)
		r = plan_rename_entry(p, k->idx, name);
	if (r >= 0 && e->source->type == PLAN_DIR && e->dst_exists)
		drop_stale(p, k->idx, e->source->end);
	/* below a refused entry nothing more is looked at: one problem, not one per file */
	for (size_t i = k->idx, refused_end = 0; r >= 0 && i < e->source->end; i++) {
		const struct plan_entry *f = &p->entries[i];
		size_t before = c->out->n_problems;

		if (plan_dst(p, i, dst, sizeof(dst)) < 0) {
			r = i < refused_end ? 0 :
			    add_problem(c, PLAN_NAME_TOO_LONG, src_of(p, i, src), NULL, 0, 0);
			refused_end = MAX(refused_end, f->source->end);
			continue;
		}
		if (i >= refused_end)
			r = reclassify(c, i);
		if (c->out->n_problems > before)
			refused_end = f->source->end;
	}
	return r;
}

/* Step 3 for one child: the first name whose slot is free. */
static int name_child(struct ctx *c, const char *dir, void **root, const struct child *k)
{
	const char *name = plan_dst_name(c->p, k->idx);
	char mapped[NAME_BUF], cand[NAME_BUF];

	name_map(c->fs, name, strlen(name), mapped);
	for (unsigned long n = 1;; n++) {
		struct slot *s;

		if (n == 1)
			memcpy(cand, mapped, sizeof(cand));
		else
			name_numbered(c->fs, mapped, n, cand);
		s = slot_get(c, root, cand);
		if (!s)
			return -ENOMEM;
		if (slot_free_for(s, cand)) {
			s->claim = k->idx;
			break;
		}
	}
	return rename_entry(c, dir, k, cand);
}

/* Entries with no name of their own to check: devices (not written), "."
 * (cp -r . DEST) and a DEST that is merged into (-rT: the user named it,
 * and on a case-insensitive filesystem any case names that directory). */
static bool no_name(const struct plan *p, size_t j)
{
	const struct plan_entry *e = &p->entries[j];
	const char *name = plan_dst_name(p, j);

	return e->source->type == PLAN_SKIP || !name || strcmp(name, ".") == 0 ||
	       (j == 0 && p->dest_root_entry == 0);
}

static int check_dir(struct ctx *c, size_t d)
{
	struct plan *p = c->p;
	bool top = d == PLAN_TOP;
	char buf[PATH_MAX];
	_cleanup_free_ char *dir = strdup(top ? p->dest_dir : plan_dst_path(p, d, buf));
	size_t first = top ? 0 : d + 1, end = top ? p->n_entries : p->entries[d].source->end;
	_cleanup_free_ struct child *kids = NULL;
	size_t nk = 0, cap = 0;
	void *root = NULL;
	int r = dir ? 0 : -ENOMEM;

	if (r >= 0 && name_fs_folds_case(c->fs) && (top || p->entries[d].dst_exists))
		r = read_existing(c, dir, top, &root);
	for (size_t j = first; r >= 0 && j < end; j = p->entries[j].source->end) {
		if (no_name(p, j))
			continue;
		if (GROW(kids, cap, nk + 1, 16) < 0) {
			r = -ENOMEM;
			break;
		}
		kids[nk] = (struct child){ .idx = j };
		r = check_child(c, dir, &root, &kids[nk++]);
	}
	for (size_t i = 0; r >= 0 && i < nk; i++)
		if (kids[i].needs_name)
			r = name_child(c, dir, &root, &kids[i]);
	tdestroy(root, slot_free);
	return r;
}

int plan_names_check(struct plan *p, enum name_fs fs, bool rename, struct plan_names *ret)
{
	struct ctx c = { .p = p, .fs = fs, .rename = rename, .out = ret };
	int r;

	*ret = (struct plan_names){ 0 };
	r = check_dir(&c, PLAN_TOP);
	for (size_t i = 0; r >= 0 && i < p->n_entries; i++)
		if (p->entries[i].source->type == PLAN_DIR)
			r = check_dir(&c, i);
	if (r < 0) {
		plan_names_done(ret);
		return r;
	}
	if (ret->n_renames)
		plan_count(p);
	return (int)MIN(ret->n_problems, (size_t)INT32_MAX);
}

void plan_names_done(struct plan_names *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_problems; i++)
		plan_problem_done(&r->problems[i]);
	for (size_t i = 0; i < r->n_renames; i++)
		free(r->renames[i].old_dst);
	free(r->problems);
	free(r->renames);
	*r = (struct plan_names){ 0 };
}
