/* check.c: <safecp/check.h> before the first read, over the check's
 * preparation (copy/check_prepare.h): the public kinds and structures are
 * mapped here, and only here, so the library's own may change.  The run
 * is check_run.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/check_internal.h"
#include "api/record_problem.h"
#include "device/fs_traits.h"

int safecp_check_new(unsigned flags, struct safecp_check **ret)
{
	struct safecp_check *c;

	if (flags)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	check_list_init(&c->p.list);
	*ret = c;
	return 0;
}

/* *field = a copy of s, unless prepared. */
static int set_string(const struct safecp_check *c, char **field, const char *s)
{
	char *copy;

	if (c->prepared)
		return -EBUSY;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

int safecp_check_set_dir(struct safecp_check *c, const char *dir)
{
	return set_string(c, &c->dir, dir);
}

int safecp_check_set_sums(struct safecp_check *c, const char *prefix)
{
	return set_string(c, &c->sums, prefix);
}

int safecp_check_prepare(struct safecp_check *c)
{
	int r;

	if (!c->dir)
		return -EINVAL;
	if (c->prepared)
		return -EBUSY;
	c->prepared = true;
	r = check_prepare(c->dir, c->sums, &c->p);
	return r; /* 0, 1 (one refusal) or -ENOMEM */
}

static enum safecp_check_refusal_kind refusal_kind(enum check_refusal_kind k, const char **name)
{
	switch (k) {
	case CHECK_REFUSED_DIR: *name = "dir-unusable"; return SAFECP_CHECK_REFUSED_DIR;
	case CHECK_REFUSED_NO_HISTORY: *name = "no-history"; return SAFECP_CHECK_REFUSED_NO_HISTORY;
	case CHECK_REFUSED_HISTORY: *name = "history-refused"; return SAFECP_CHECK_REFUSED_HISTORY;
	case CHECK_REFUSED_MANIFEST_CHANGED:
		*name = "manifest-changed";
		return SAFECP_CHECK_REFUSED_MANIFEST_CHANGED;
	case CHECK_REFUSED_NO_LISTS: *name = "no-lists"; return SAFECP_CHECK_REFUSED_NO_LISTS;
	case CHECK_REFUSED_LIST: *name = "list-refused"; return SAFECP_CHECK_REFUSED_LIST;
	case CHECK_REFUSED_EMPTY: *name = "empty-record"; return SAFECP_CHECK_REFUSED_EMPTY;
	case CHECK_READY: break;
	}
	*name = "other";
	return SAFECP_CHECK_REFUSED_OTHER;
}

static enum safecp_record_problem list_problem(enum check_list_kind k)
{
	switch (k) {
	case CHECK_LIST_IO: return SAFECP_RECORD_IO;
	case CHECK_LIST_NOT_REGULAR: return SAFECP_RECORD_NOT_REGULAR;
	case CHECK_LIST_BAD_LINE: return SAFECP_RECORD_BAD_LINE;
	case CHECK_LIST_NO_MEMORY: return SAFECP_RECORD_NO_MEMORY;
	case CHECK_LIST_OK: break;
	}
	return SAFECP_RECORD_OTHER;
}

int safecp_check_refusal(const struct safecp_check *c, size_t i, struct safecp_check_refusal *ret)
{
	const struct check_refusal *r = &c->p.refusal;

	if (i > 0 || r->kind == CHECK_READY)
		return -ENOENT;
	*ret = (struct safecp_check_refusal){ .path = r->path, .line = r->line, .err = r->err };
	ret->kind = refusal_kind(r->kind, &ret->name);
	if (r->kind == CHECK_REFUSED_HISTORY)
		ret->problem = record_problem_of_mhl(r->mhl);
	else if (r->kind == CHECK_REFUSED_LIST)
		ret->problem = list_problem(r->list);
	ret->problem_name = safecp_record_problem_name(ret->problem);
	return 0;
}

/* Prepared and not refused: the record and the place are there. */
static bool ready(const struct safecp_check *c)
{
	return c->prepared && c->p.t && c->p.refusal.kind == CHECK_READY;
}

int safecp_check_reference(const struct safecp_check *c, struct safecp_check_reference *ret)
{
	if (!ready(c))
		return -ENOENT;
	*ret = (struct safecp_check_reference){
		.mhl = c->p.mhl != NULL,
		.manifest = c->p.manifest,
		.lists = c->p.n_lists,
		.files = c->p.list.n,
	};
	return 0;
}

int safecp_check_list(const struct safecp_check *c, size_t i, struct safecp_check_list *ret)
{
	if (!ready(c) || i >= c->p.n_lists)
		return -ENOENT;
	*ret = (struct safecp_check_list){
		.path = c->p.lists[i],
		.algorithm = checksum_alg_name(c->p.list_alg[i]),
		.files = c->p.list_files[i],
	};
	return 0;
}

const char *safecp_check_algorithm(const struct safecp_check *c, size_t i)
{
	checksum_set used = 0;

	if (!ready(c))
		return NULL;
	for (size_t e = 0; e < c->p.list.n; e++)
		used |= CHECKSUM_BIT(c->p.list.entries[e].alg);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		if ((used & CHECKSUM_BIT(a)) && i-- == 0)
			return checksum_alg_name(a);
	return NULL;
}

int safecp_check_place(const struct safecp_check *c, struct safecp_check_place *ret)
{
	const struct target *t = c->p.t;
	const struct fs_traits *fs;

	if (!t)
		return -ENOENT;
	fs = fs_traits_of(t);
	*ret = (struct safecp_check_place){
		.path = t->path,
		.mountpoint = t->mountpoint,
		.fstype = t->fstype,
		.format = fs->format_from_blkid ? t->blkid_fstype : NULL,
		.device = t->has_block ? t->devnode : NULL,
		.device_cache = fs->device_cache,
	};
	return 0;
}
