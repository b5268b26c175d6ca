/* session_sources.c: what a session reads before any destination is
 * planned: the checksum lists a run before wrote (--skip-identical may
 * judge by them), the pack's one walk of the sources, or every archive's
 * headers checked together (their entries meet on one destination).
 * What is wrong comes back as findings; nothing is written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "base/utf8.h"
#include "copy/session_internal.h"

/* One old list, PREFIX.ALG; a missing one is no finding. */
static int old_list_read(struct copy_session *s, enum checksum_alg a)
{
	_cleanup_free_ char *path = NULL;
	size_t bad = 0;
	struct stat st;
	int r;

	if (asprintf(&path, "%s.%s", s->o.sums_prefix, checksum_alg_name(a)) < 0)
		return -ENOMEM;
	r = sums_index_add_list(s->old_lists, a, path, &bad);
	if (r == -ENOMEM)
		return r;
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return session_find(s, &(struct copy_finding){ .kind = COPY_NOTE_LIST_UNREADABLE,
							       .err = -r }, path);
	if (bad && (r = session_find(s, &(struct copy_finding){
			    .kind = COPY_NOTE_LIST_BAD_LINES, .count = bad }, path)) < 0)
		return r;
	if (stat(path, &st) == 0)
		s->old_lists_dev = st.st_dev;
	return 0;
}

static int old_lists_read(struct copy_session *s)
{
	int r = 0;

	if (!s->o.skip_identical || !s->o.sums_prefix)
		return 0;
	s->old_lists = sums_index_new();
	if (!s->old_lists)
		return -ENOMEM;
	for (int a = 0; r == 0 && a < CHECKSUM_ALG_COUNT; a++)
		if (s->o.checksums & CHECKSUM_BIT(a))
			r = old_list_read(s, (enum checksum_alg)a);
	if (r == 0 && sums_index_algs(s->old_lists) == 0) {
		sums_index_free(s->old_lists);
		s->old_lists = NULL;
	}
	return r;
}

/* Names --unpack would refuse (base/utf8.h's unsafe characters), in an
 * entry's path in the archive or a symlink's target: each refused by
 * name, as a copy refuses what a destination cannot hold; the entries
 * that are no file, directory or link are left out with a note. */
static int pack_entries_check(struct copy_session *s)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < s->pack_tree->n_entries; i++) {
		const struct source_entry *e = &s->pack_tree->entries[i];
		const char *t = source_link(e);
		char rel[PATH_MAX];

		if (e->type == PLAN_SKIP)
			continue;
		if (source_rel(e, rel, sizeof(rel)) < 0 || utf8_has_unsafe(rel, strlen(rel)) ||
		    (t && utf8_has_unsafe(t, strlen(t))))
			r = session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_PACK_NAME,
								    .entry = i }, NULL);
	}
	/* as a copy notes them when it meets them: not in the archive */
	for (size_t i = 0; r == 0 && s->n_refusals == 0 && i < s->pack_tree->n_entries; i++)
		if (s->pack_tree->entries[i].type == PLAN_SKIP)
			r = session_find(s, &(struct copy_finding){ .kind = COPY_NOTE_PACK_SKIPPED,
								    .entry = i }, NULL);
	return r;
}

static int pack_read(struct copy_session *s)
{
	int r = pack_tree_build((const char *const *)s->sources, s->n_sources,
				s->o.plan.follow_symlinks, &s->pack_tree, &s->pack_problem);

	if (s->pack_problem.kind != PLAN_OK)
		return session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_PACK_SOURCES,
							       .problem = &s->pack_problem }, NULL);
	return r < 0 ? r : pack_entries_check(s);
}

/* Every archive read (the first that cannot be is refused), the rules
 * checked over all of their entries together. */
static int unpack_read(struct copy_session *s, enum copy_prepare_stage *stage)
{
	size_t refused = 0;
	int r;

	s->unpack_list = unpack_list_new();
	if (!s->unpack_list)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_sources; i++)
		if (unpack_list_scan(s->unpack_list, s->sources[i]) < 0)
			return session_find(s, &(struct copy_finding){
				.kind = COPY_REFUSED_UNPACK_SCAN, .archive = i }, NULL);
	*stage = COPY_STAGE_UNPACK_RULES;
	r = unpack_rules_check(s->unpack_list);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->unpack_list->n_entries; i++)
		refused += s->unpack_list->entries[i].refusal != UNPACK_OK;
	if (refused) {
		r = session_find(s, &(struct copy_finding){
			.kind = s->o.skip_unsafe ? COPY_NOTE_UNPACK_SKIPPED : COPY_REFUSED_UNPACK_ENTRIES,
			.count = refused }, NULL);
		if (r < 0 || !s->o.skip_unsafe)
			return r;
	}
	s->unpack_skipped = refused;
	*stage = COPY_STAGE_UNPACK_FEED;
	return unpack_feed_new(s->unpack_list, s->o.spool_dir, &s->unpack_feed);
}

/* The entries written out of the archives' order wait in the spool
 * (unpack_data.h): refused when it has no room. */
static int spool_check(struct copy_session *s)
{
	struct unpack_data *data = unpack_feed_data(s->unpack_feed);
	uint64_t free_bytes = 0;
	int r = unpack_data_spool_room(data, &free_bytes);

	if (r == 0)
		return 0;
	return session_find(s, &(struct copy_finding){
		.kind = COPY_REFUSED_UNPACK_SPOOL, .err = -r,
		.need = unpack_data_spool_bytes(data), .have = free_bytes,
	}, unpack_data_spool_dir(data));
}

int session_read_sources(struct copy_session *s, enum copy_prepare_stage *stage)
{
	int r;

	*stage = COPY_STAGE_OLD_LISTS;
	r = old_lists_read(s);
	if (r < 0)
		return r;
	if (s->o.mode == COPY_MODE_PACK) {
		*stage = COPY_STAGE_PACK_WALK;
		return pack_read(s);
	}
	if (s->o.mode != COPY_MODE_UNPACK)
		return 0;
	r = unpack_read(s, stage);
	if (r < 0 || s->n_refusals || !s->unpack_feed)
		return r;
	return spool_check(s);
}

void session_sources_free(struct copy_session *s)
{
	sums_index_free(s->old_lists);
	pack_feed_free(s->pack_feed);
	pack_tree_free(s->pack_tree);
	plan_problem_done(&s->pack_problem);
	unpack_feed_free(s->unpack_feed);
	unpack_list_free(s->unpack_list);
}

const struct source_tree *copy_session_pack_tree(const struct copy_session *s)
{
	return s->pack_tree;
}

const struct unpack_list *copy_session_unpack_list(const struct copy_session *s)
{
	return s->unpack_list;
}

size_t copy_session_unpack_skipped(const struct copy_session *s)
{
	return s->unpack_skipped;
}
