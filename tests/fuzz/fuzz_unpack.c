/* fuzz_unpack.c: libFuzzer harness for --unpack's first pass
 * (lib/archive/unpack_list.h): arbitrary bytes as an archive, through
 * libarchive's tar and zip readers and its four filters, then the rules.
 *
 * Whatever the bytes, the scan must not crash, leak or hang, and what it
 * accepts must keep the promises the writer relies on: a normalised
 * relative path (no '/' at either end, no "", "." or ".." part, no
 * character util/utf8.h calls unsafe, within PATH_MAX and NAME_MAX); only
 * files, directories,
 * symlinks and hardlinks, without setid or sticky bits; a symlink target
 * that is relative with ".." only in front; a hardlink whose data is an
 * earlier accepted regular file; no accepted path below a non-directory
 * entry; one accepted entry per path (but for a repeated directory); and
 * the total is the sum of the accepted sizes.  The write order built from it
 * (unpack_tree.h) holds each accepted entry once, each directory before
 * its contents, with ends past the descendants.  And the list's memory
 * stays bounded, accepted or not, whole or failed: no name it keeps
 * reaches PATH_MAX, one cut is a prefix of UNPACK_NAME_PREFIX bytes at
 * most, and the names add up to name_bytes, under UNPACK_MAX_NAME_BYTES.
 * gzip input goes through lib/archive's own decoder (unpack_gzip.h). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/unpack_list.h"
#include "archive/unpack_tree.h"
#include "base/utf8.h"

#define CHECK(c) \
	do { \
		if (!(c)) { \
			fprintf(stderr, "fuzz_unpack: %s failed at line %d\n", #c, __LINE__); \
			abort(); \
		} \
	} while (0)

static void check_path(const char *p)
{
	size_t len = strlen(p);

	CHECK(len > 0 && len < PATH_MAX && p[0] != '/' && p[len - 1] != '/');
	for (const char *s = p; *s;) {
		size_t n = strcspn(s, "/");

		CHECK(n > 0 && n <= NAME_MAX);
		CHECK(!(n == 1 && s[0] == '.') && !(n == 2 && s[0] == '.' && s[1] == '.'));
		CHECK(!utf8_has_unsafe(s, n));
		s += n;
		s += *s == '/';
	}
}

static void check_symlink(const char *target)
{
	bool named = false;

	CHECK(target && target[0] && target[0] != '/' && strlen(target) < PATH_MAX);
	CHECK(!utf8_has_unsafe(target, strlen(target)));
	for (const char *s = target; *s;) {
		size_t n = strcspn(s, "/");
		bool up = n == 2 && s[0] == '.' && s[1] == '.';

		CHECK(!(up && named));
		named |= n > 0 && !up && !(n == 1 && s[0] == '.');
		s += n;
		s += *s == '/';
	}
}

/* No accepted entry's proper prefix is an accepted non-directory. */
static void check_prefixes(const struct unpack_list *l, const struct unpack_entry *e)
{
	char buf[PATH_MAX];

	strcpy(buf, e->path);
	for (char *s = strrchr(buf, '/'); s; s = strrchr(buf, '/')) {
		const struct unpack_entry *f;

		*s = '\0';
		f = unpack_list_find(l, buf);
		CHECK(!f || f->type == UNPACK_DIR);
	}
}

static void check_accepted(const struct unpack_list *l, const struct unpack_entry *e,
			   uint64_t *total)
{
	if (e->top)
		return;
	CHECK(e->path);
	check_path(e->path);
	CHECK(e->type == UNPACK_FILE || e->type == UNPACK_DIR || e->type == UNPACK_SYMLINK ||
	      e->type == UNPACK_HARDLINK);
	CHECK((e->perm & 07000) == 0 && !e->encrypted);
	if (e->type == UNPACK_SYMLINK)
		check_symlink(e->link);
	if (e->type == UNPACK_HARDLINK) {
		const struct unpack_entry *d = &l->entries[e->data_from];

		CHECK(e->data_from < e->index && d->type == UNPACK_FILE && d->refusal == UNPACK_OK);
		CHECK(e->size == d->size);
	}
	if (e->type == UNPACK_FILE || e->type == UNPACK_HARDLINK) {
		CHECK(e->size_known && e->size >= 0);
		*total += (uint64_t)e->size;
	}
	if (!e->repeat)
		CHECK(unpack_list_find(l, e->path) == e);
	check_prefixes(l, e);
}

static void check_tree(const struct unpack_list *l)
{
	struct unpack_tree t;
	size_t placed = 0, wanted = 0;

	CHECK(unpack_tree_build(l, &t) == 0);
	for (size_t i = 0; i < t.n_nodes; i++) {
		const struct unpack_node *n = &t.nodes[i];

		CHECK(n->end > i && n->end <= t.n_nodes);
		if (n->parent != UNPACK_NO_PARENT) {
			const struct unpack_node *p = &t.nodes[n->parent];

			CHECK(n->parent < i && p->end >= n->end);
			CHECK(p->entry == UNPACK_IMPLIED || l->entries[p->entry].type == UNPACK_DIR);
			CHECK(strncmp(n->path, p->path, strlen(p->path)) == 0 &&
			      n->path[strlen(p->path)] == '/' && strcmp(n->path + strlen(p->path) + 1, n->name) == 0);
		} else {
			CHECK(strchr(n->path, '/') == NULL);
		}
		if (n->entry != UNPACK_IMPLIED) {
			CHECK(strcmp(l->entries[n->entry].path, n->path) == 0);
			placed++;
		}
	}
	for (size_t i = 0; i < l->n_entries; i++)
		wanted += l->entries[i].refusal == UNPACK_OK && !l->entries[i].top && !l->entries[i].repeat;
	CHECK(placed == wanted);
	unpack_tree_done(&t);
}

/* Whatever the scan's outcome: the names kept are bounded. */
static void check_names(const struct unpack_list *l)
{
	size_t sum = 0;

	for (size_t i = 0; i < l->n_entries; i++) {
		const struct unpack_entry *e = &l->entries[i];
		size_t raw = strlen(e->raw), link = e->link ? strlen(e->link) : 0;

		CHECK(raw < PATH_MAX && link < PATH_MAX);
		CHECK(!e->cut || (raw <= UNPACK_NAME_PREFIX && link <= UNPACK_NAME_PREFIX &&
				  e->refusal == UNPACK_TOO_LONG));
		CHECK(e->cut ? e->raw_len >= raw : e->raw_len == raw);
		sum += raw + link;
	}
	/* the rules put a hardlink's normalised target in place of its
	 * own: never longer */
	CHECK(sum <= l->name_bytes && l->name_bytes <= UNPACK_MAX_NAME_BYTES);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unpack_list *l = NULL;
	uint64_t total = 0;
	size_t refused = 0;

	if (unpack_scan_memory(data, size, &l) == 0) {
		CHECK(l->error == UNPACK_SCAN_OK);
		for (size_t i = 0; i < l->n_entries; i++) {
			const struct unpack_entry *e = &l->entries[i];

			CHECK(e->index == i && e->raw);
			if (e->refusal == UNPACK_OK)
				check_accepted(l, e, &total);
			else
				refused++;
		}
		CHECK(refused == l->n_refused && total == l->total_bytes);
		check_tree(l);
	} else {
		CHECK(l);
		CHECK(l->error != UNPACK_SCAN_OK || l->err == 0);
	}
	check_names(l);
	unpack_list_free(l);
	return 0;
}
