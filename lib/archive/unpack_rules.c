/* unpack_rules.c: the rules of unpack_list.h, applied to a list of
 * headers.  Pure: the list comes from unpack_scan.c or a unit test.
 *
 * Order of the checks: each entry's own path, type and mode first; then
 * the rules between entries, over an index of the entries sorted by
 * (path, archive order), so the first entry of a path is found by binary
 * search: duplicates, paths through a non-directory (every proper prefix
 * looked up: O(n * depth * log n)), and last the hardlinks, in archive
 * order, so a hardlink to an earlier hardlink finds it already resolved. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "archive/unpack_list.h"
#include "base/cleanup.h"
#include "base/utf8.h"

static const char *const refusal_names[] = {
	[UNPACK_OK] = "ok",
	[UNPACK_ABSOLUTE] = "absolute",
	[UNPACK_DOTDOT] = "dotdot",
	[UNPACK_EMPTY_PART] = "empty-component",
	[UNPACK_CONTROL_BYTE] = "control-byte",
	[UNPACK_TOO_LONG] = "too-long",
	[UNPACK_SPECIAL] = "special-file",
	[UNPACK_SETID] = "setid-mode",
	[UNPACK_LINK_ESCAPES] = "link-escapes",
	[UNPACK_THROUGH_LINK] = "through-symlink",
	[UNPACK_THROUGH_FILE] = "through-file",
	[UNPACK_DUPLICATE] = "duplicate",
	[UNPACK_HARDLINK_OUTSIDE] = "hardlink-outside",
	[UNPACK_HARDLINK_LATER] = "hardlink-later",
	[UNPACK_SIZE] = "size",
	[UNPACK_ENCRYPTED] = "encrypted",
};

const char *unpack_refusal_name(enum unpack_refusal r)
{
	return (size_t)r < ARRAY_SIZE(refusal_names) && refusal_names[r] ? refusal_names[r] : "?";
}

/* A character quote() would escape (util/utf8.h's rule): a control, an
 * invisible or bidirectional format character, a byte not UTF-8. */
static bool has_control(const char *s)
{
	return utf8_has_unsafe(s, strlen(s));
}

/* raw -> "a/b" in out (PATH_MAX): "." parts dropped, one trailing '/'
 * allowed.  An empty result (the top itself) is returned as "". */
static enum unpack_refusal normalise(const char *raw, char *out)
{
	size_t len = strlen(raw), o = 0;
	const char *p = raw, *end;

	if (has_control(raw))
		return UNPACK_CONTROL_BYTE;
	if (raw[0] == '/')
		return UNPACK_ABSOLUTE;
	if (len == 0)
		return UNPACK_EMPTY_PART;
	if (len >= PATH_MAX)
		return UNPACK_TOO_LONG;
	if (raw[len - 1] == '/')
		len--; /* a directory's trailing slash */
	end = raw + len;
	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);

		if (n == 0)
			return UNPACK_EMPTY_PART;
		if (n > NAME_MAX)
			return UNPACK_TOO_LONG;
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return UNPACK_DOTDOT;
		if (!(n == 1 && p[0] == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n + (slash ? 1 : 0);
		/* a slash just before end: the one trailing slash was
		 * dropped above, so this is "a//" */
		if (slash && p == end)
			return UNPACK_EMPTY_PART;
	}
	out[o] = '\0';
	return UNPACK_OK;
}

static size_t depth_of_parent(const char *path)
{
	size_t d = 0;

	for (; *path; path++)
		d += *path == '/';
	return d;
}

/* A symlink at path (normalised) pointing at target: see the file
 * comment of unpack_list.h for why ".." may only lead. */
static enum unpack_refusal check_symlink_target(const char *path, const char *target)
{
	size_t up = 0, depth = depth_of_parent(path);
	bool descended = false;
	const char *p = target;

	if (has_control(target))
		return UNPACK_CONTROL_BYTE;
	if (!*target || *target == '/')
		return UNPACK_LINK_ESCAPES;
	if (strlen(target) >= PATH_MAX)
		return UNPACK_TOO_LONG;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (descended || ++up > depth)
				return UNPACK_LINK_ESCAPES;
		} else if (n > 1 || (n == 1 && p[0] != '.')) {
			descended = true;
		}
		p += n;
		p += *p == '/';
	}
	return UNPACK_OK;
}

static bool special_type(enum unpack_type t)
{
	return t != UNPACK_FILE && t != UNPACK_DIR && t != UNPACK_SYMLINK && t != UNPACK_HARDLINK;
}

/* The rules one entry breaks by itself. */
static int check_own(struct unpack_entry *e)
{
	char buf[PATH_MAX];
	enum unpack_refusal r;

	if (e->cut) { /* too long when listed: raw is only a prefix */
		e->refusal = UNPACK_TOO_LONG;
		return 0;
	}
	r = normalise(e->raw, buf);
	if (r == UNPACK_OK && buf[0] == '\0') {
		e->top = true; /* "./": the destination itself */
		return 0;
	}
	if (r == UNPACK_OK) {
		e->path = strdup(buf);
		if (!e->path)
			return -ENOMEM;
	}
	if (r == UNPACK_OK && special_type(e->type))
		r = UNPACK_SPECIAL;
	if (r == UNPACK_OK && (e->perm & 07000))
		r = UNPACK_SETID;
	if (r == UNPACK_OK && e->encrypted)
		r = UNPACK_ENCRYPTED;
	if (r == UNPACK_OK && e->type == UNPACK_FILE && (!e->size_known || e->size < 0))
		r = UNPACK_SIZE;
	if (r == UNPACK_OK && e->type == UNPACK_SYMLINK)
		r = check_symlink_target(e->path, e->link ? e->link : "");
	e->refusal = r;
	return 0;
}

/* The index: entries with a path, sorted by (path, archive order). */
struct index {
	const struct unpack_list *l;
	size_t *at;
	size_t n;
};

static int cmp_at(const void *a, const void *b, void *list)
{
	const struct unpack_list *l = list;
	const struct unpack_entry *x = &l->entries[*(const size_t *)a];
	const struct unpack_entry *y = &l->entries[*(const size_t *)b];
	int c = strcmp(x->path, y->path);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The first entry (in archive order) whose path is the len bytes of p. */
static const struct unpack_entry *first_of(const struct index *ix, const char *p, size_t len)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = ix->l->entries[ix->at[mid]].path;
		int c = strncmp(m, p, len);

		if (c == 0 && m[len] != '\0')
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->n) {
		const char *m = ix->l->entries[ix->at[lo]].path;

		if (strncmp(m, p, len) == 0 && m[len] == '\0')
			return &ix->l->entries[ix->at[lo]];
	}
	return NULL;
}

static void refuse(struct unpack_entry *e, enum unpack_refusal r, size_t other)
{
	if (e->refusal == UNPACK_OK) {
		e->refusal = r;
		e->other = other;
	}
}

static void check_duplicate(const struct index *ix, struct unpack_entry *e)
{
	const struct unpack_entry *f = first_of(ix, e->path, strlen(e->path));

	if (!f || f == e)
		return;
	if (f->type == UNPACK_DIR && e->type == UNPACK_DIR && e->refusal == UNPACK_OK) {
		e->repeat = true;
		e->other = f->index;
		return;
	}
	refuse(e, UNPACK_DUPLICATE, f->index);
}

/* Every proper prefix of e's path must be a directory or not listed. */
static void check_prefixes(const struct index *ix, struct unpack_entry *e)
{
	for (const char *s = strchr(e->path, '/'); s; s = strchr(s + 1, '/')) {
		const struct unpack_entry *f = first_of(ix, e->path, (size_t)(s - e->path));

		if (f && f->type != UNPACK_DIR) {
			refuse(e, f->type == UNPACK_SYMLINK ? UNPACK_THROUGH_LINK : UNPACK_THROUGH_FILE,
			       f->index);
			return;
		}
	}
}

static int check_hardlink(const struct index *ix, struct unpack_list *l, struct unpack_entry *e)
{
	char buf[PATH_MAX];
	const struct unpack_entry *f;

	if (e->refusal != UNPACK_OK)
		return 0;
	if (!e->link || normalise(e->link, buf) != UNPACK_OK || !buf[0]) {
		refuse(e, UNPACK_HARDLINK_OUTSIDE, SIZE_MAX);
		return 0;
	}
	free(e->link); /* keep the normalised target: the one looked up */
	e->link = strdup(buf);
	if (!e->link)
		return -ENOMEM;
	f = first_of(ix, buf, strlen(buf));
	if (f && f->archive != e->archive) /* its data is in another file */
		f = NULL;
	if (f && f->index >= e->index) {
		refuse(e, UNPACK_HARDLINK_LATER, f->index);
		return 0;
	}
	if (!f || f->refusal != UNPACK_OK || (f->type != UNPACK_FILE && f->type != UNPACK_HARDLINK)) {
		refuse(e, UNPACK_HARDLINK_OUTSIDE, f ? f->index : SIZE_MAX);
		return 0;
	}
	e->data_from = f->data_from;
	e->size = l->entries[f->data_from].size;
	e->size_known = true;
	return 0;
}

static int build_index(struct unpack_list *l, struct index *ix)
{
	ix->l = l;
	ix->n = 0;
	ix->at = malloc((l->n_entries ? l->n_entries : 1) * sizeof(*ix->at));
	if (!ix->at)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_entries; i++)
		if (l->entries[i].path)
			ix->at[ix->n++] = i;
	if (ix->n)
		qsort_r(ix->at, ix->n, sizeof(*ix->at), cmp_at, l);
	return 0;
}

int unpack_rules_check(struct unpack_list *l)
{
	struct index ix;
	int r;

	for (size_t i = 0; i < l->n_entries; i++) {
		struct unpack_entry *e = &l->entries[i];

		free(e->path);
		e->path = NULL;
		e->other = SIZE_MAX;
		e->data_from = i;
		e->top = e->repeat = false;
		r = check_own(e);
		if (r < 0)
			return r;
	}
	r = build_index(l, &ix);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->n_entries; i++)
		if (l->entries[i].path) {
			check_duplicate(&ix, &l->entries[i]);
			check_prefixes(&ix, &l->entries[i]);
		}
	for (size_t i = 0; i < l->n_entries && r == 0; i++)
		if (l->entries[i].type == UNPACK_HARDLINK && l->entries[i].path)
			r = check_hardlink(&ix, l, &l->entries[i]);
	free(ix.at);
	l->n_refused = 0;
	l->total_bytes = 0;
	for (size_t i = 0; i < l->n_entries; i++) {
		const struct unpack_entry *e = &l->entries[i];

		if (e->refusal != UNPACK_OK)
			l->n_refused++;
		else if (!e->top && (e->type == UNPACK_FILE || e->type == UNPACK_HARDLINK) &&
			 e->size > 0)
			l->total_bytes += (uint64_t)e->size;
	}
	return r;
}
