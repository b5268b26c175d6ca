/* check_prepare.c: see check_prepare.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy/check_prepare.h"
#include "copy/mhl_record.h"
#include "base/cleanup.h"

/* p->refusal of kind about path (a copy); 1, or -ENOMEM. */
static int refuse(struct check_prepared *p, enum check_refusal_kind kind, const char *path,
		  int err)
{
	p->refusal.kind = kind;
	p->refusal.err = err;
	p->refusal.path = strdup(path);
	return p->refusal.path ? 1 : -ENOMEM;
}

/* "dir/ascmhl", or "dir/ascmhl/file" for a file not "" */
static char *mhl_path(const char *dir, const char *file)
{
	char *s;

	if (asprintf(&s, "%s/%s%s%s", dir, MHL_FOLDER, file[0] ? "/" : "", file) < 0)
		return NULL;
	return s;
}

static int refuse_mhl(struct check_prepared *p, enum check_refusal_kind kind, const char *dir,
		      const char *file, int err)
{
	_cleanup_free_ char *path = mhl_path(dir, file);

	return path ? refuse(p, kind, path, err) : -ENOMEM;
}

/* Paths the newest generation does not list, from the newest older one
 * that does (those the chain vouches for). */
static int add_older(const char *dir, struct check_list *l)
{
	struct mhl_record *rec = NULL;
	int r = 0;

	if (mhl_record_open(dir, &rec, NULL) != MHL_RECORD_OK)
		return 0;
	for (size_t i = 0; i < mhl_record_older_count(rec) && r == 0; i++)
		r = check_list_add_manifest(mhl_record_older(rec, i), l);
	mhl_record_free(rec);
	return r;
}

static int load_mhl(const char *dir, struct check_prepared *p)
{
	struct mhl_read_problem why = { 0 };
	enum mhl_read_kind k = mhl_history_read(dir, &p->mhl, &why);
	int r;

	if (k == MHL_READ_NO_HISTORY)
		return refuse_mhl(p, CHECK_REFUSED_NO_HISTORY, dir, "", 0);
	if (k != MHL_READ_OK) {
		r = refuse_mhl(p, CHECK_REFUSED_HISTORY, dir, why.file, k == MHL_READ_IO ? why.err : 0);
		p->refusal.mhl = k;
		p->refusal.line = why.line > 0 ? (size_t)why.line : 0;
		return r;
	}
	p->manifest = mhl_history_newest_link(p->mhl)->path;
	if (!check_mhl_c4_matches(p->mhl))
		return refuse_mhl(p, CHECK_REFUSED_MANIFEST_CHANGED, dir, p->manifest, 0);
	if (check_list_from_mhl(p->mhl, &p->list) < 0 || add_older(dir, &p->list) < 0)
		return -ENOMEM;
	return 0;
}

/* PREFIX.ALG for every algorithm a list can hold: those found. */
static int load_sums(const char *prefix, struct check_prepared *p)
{
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		_cleanup_free_ char *path = NULL;
		struct check_list_problem why = { 0 };
		size_t files = 0;
		int r;

		if (!(CHECKSUM_SET_LISTS & CHECKSUM_BIT(a)))
			continue;
		if (asprintf(&path, "%s.%s", prefix, checksum_alg_name(a)) < 0) {
			path = NULL;
			return -ENOMEM;
		}
		if (check_list_load_sums(path, a, &p->list, &files, &why) == CHECK_LIST_OK) {
			p->list_alg[p->n_lists] = a;
			p->list_files[p->n_lists] = files;
			p->lists[p->n_lists++] = TAKE_PTR(path);
			continue;
		}
		if (why.kind == CHECK_LIST_IO && why.err == ENOENT)
			continue;
		r = refuse(p, CHECK_REFUSED_LIST, path, why.err);
		p->refusal.list = why.kind;
		p->refusal.line = why.line;
		return r;
	}
	return p->n_lists ? 0 : refuse(p, CHECK_REFUSED_NO_LISTS, prefix, 0);
}

int check_prepare(const char *dir, const char *sums_prefix, struct check_prepared *p)
{
	int r;

	*p = (struct check_prepared){ 0 };
	check_list_init(&p->list);
	r = target_probe(dir, &p->t);
	if (r < 0)
		return refuse(p, CHECK_REFUSED_DIR, dir, -r);
	r = sums_prefix ? load_sums(sums_prefix, p) : load_mhl(dir, p);
	if (r != 0)
		return r;
	check_list_finish(&p->list);
	if (p->list.n == 0)
		return refuse(p, CHECK_REFUSED_EMPTY, dir, 0);
	return 0;
}

void check_prepared_free(struct check_prepared *p)
{
	check_list_free(&p->list);
	mhl_history_free(p->mhl);
	for (size_t i = 0; i < p->n_lists; i++)
		free(p->lists[i]);
	target_free(p->t);
	free(p->refusal.path);
	*p = (struct check_prepared){ 0 };
}
