/* lists.c: see lists.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "copy/lists.h"
#include "copy/manifest.h"
#include "copy/small_file.h"
#include "hash/sums_list.h"
#include "base/cleanup.h"

/* Was entry idx published on destination d (any, d < 0)? */
static bool published_on(const struct copy_lists_dests *d, int holder, size_t idx)
{
	for (size_t i = 0; i < d->n; i++)
		if ((holder < 0 || (size_t)holder == i) && d->published[i][idx])
			return true;
	return false;
}

/* Was entry idx left alone as identical on destination d (any, d < 0)? */
static bool identical_on(const struct copy_lists_dests *d, int holder, size_t idx)
{
	for (size_t i = 0; i < d->n; i++)
		if ((holder < 0 || (size_t)holder == i) && d->plans[i]->entries[idx].identical)
			return true;
	return false;
}

/* Entry idx's digest for the list: the one read's for a published file;
 * for an identical one (not read), the line the last run's list gave it
 * (--skip-identical), else none (*unknown set). */
static const char *digest_of(const struct copy_lists *l, const struct copy_lists_dests *d,
			     const struct copy_list *list, size_t idx, const char *rel,
			     bool *unknown)
{
	const char *digest = file_sums_text(l->sums, idx, list->alg);
	size_t leader = source_leader(d->plans[0]->tree, idx);

	/* a hard link's further name was not read: its first name's */
	if (!digest && leader != PLAN_TOP)
		digest = file_sums_text(l->sums, leader, list->alg);

	if (published_on(d, list->holder, idx))
		return digest;
	if (!identical_on(d, list->holder, idx))
		return NULL;
	if (!digest && l->old_lists)
		digest = sums_index_text(l->old_lists, rel, list->alg);
	*unknown = !digest;
	return digest;
}

/* The list's text: one line per published file with a digest, and per
 * identical file whose digest is known; names the format cannot hold,
 * and identical files it cannot name, are events. */
static int list_text(const struct copy_lists *l, const struct copy_lists_dests *d,
		     const struct copy_list *list, struct copy_event *base, struct event_queue *q,
		     char **ret, size_t *ret_len, size_t *ret_files)
{
	/* the holder's names (--rename-invalid renames per destination) */
	const struct plan *p = d->plans[list->holder >= 0 ? (size_t)list->holder : 0];
	char rel[PATH_MAX];
	char *buf = NULL;
	size_t len = 0, files = 0, unknown = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_entries; i++) {
		_cleanup_free_ char *line = NULL;
		const char *digest;
		bool missing = false;
		int r;

		if (p->entries[i].source->type != PLAN_FILE || !plan_dest_rel(p, i, rel, sizeof(rel)))
			continue;
		digest = digest_of(l, d, list, i, rel, &missing);
		unknown += missing;
		if (!digest)
			continue;
		r = sums_line_alloc(list->alg, digest, rel, &line);
		if (r == SUMS_LINE_UNLISTABLE) {
			base->kind = COPY_EVENT_LIST_LEFT_OUT;
			base->name = rel;
			copy_events_emit(q, base);
			continue;
		}
		if (r != 0) {
			fclose(f);
			free(buf);
			return r < 0 ? r : -EINVAL;
		}
		fputs(line, f);
		files++;
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	if (unknown) {
		base->kind = COPY_EVENT_LIST_UNKNOWN;
		base->name = NULL;
		base->count = unknown;
		copy_events_emit(q, base);
	}
	*ret = buf;
	*ret_len = len;
	*ret_files = files;
	return 0;
}

static unsigned write_list(const struct copy_lists *l, const struct copy_lists_dests *d,
			   const struct copy_list *list, int holder, struct event_queue *q)
{
	struct copy_event ev = { .dest = holder < 0 ? 0 : (size_t)holder, .alg = list->alg,
				 .path = (char *)list->path };
	_cleanup_free_ char *text = NULL;
	size_t len = 0, files = 0;
	int r = list_text(l, d, list, &ev, q, &text, &len, &files);

	if (r == 0)
		r = small_file_write(list->dirfd, list->name, text, len, 0666);
	ev.name = NULL;
	ev.kind = r < 0 ? COPY_EVENT_LIST_FAILED : COPY_EVENT_LIST_WRITTEN;
	ev.err = r < 0 ? -r : 0;
	ev.count = files;
	copy_events_emit(q, &ev);
	return r < 0;
}

static bool published_here(void *ctx, size_t idx)
{
	const bool *published = ctx;

	return published[idx];
}

static unsigned write_generation(const struct copy_lists *l, const struct copy_lists_dests *d,
				 size_t dest, int dest_dir_fd, struct event_queue *q)
{
	const struct copy_generation *g = &l->mhl[dest];
	const struct plan *p = d->plans[dest];
	struct manifest_result res;
	char path[PATH_MAX];
	struct copy_event ev = { .dest = dest, .path = path };
	int r = manifest_write(dest_dir_fd, &(struct manifest_input){
		.plan = p,
		.sums = l->sums,
		.published = published_here,
		.ctx = (void *)d->published[dest],
		.prev = g->prev,
		.judged_by = g->judged_by,
		.root_name = g->root_name,
		.now = time(NULL),
		.keep_times = l->keep_times,
		.tool_version = l->tool_version,
		.ignores = g->ignores,
		.n_ignores = g->n_ignores,
	}, &res);

	snprintf(path, sizeof(path), "%s/ascmhl/%s", p->dest_dir,
		 res.step == MANIFEST_STEP_CHAIN ? "ascmhl_chain.xml" : res.file);
	ev.kind = r < 0 ? COPY_EVENT_MANIFEST_FAILED : COPY_EVENT_MANIFEST_WRITTEN;
	ev.err = r < 0 ? -r : 0;
	ev.sequence = res.sequence;
	ev.count = res.files;
	ev.unlisted = res.unlisted;
	copy_events_emit(q, &ev);
	return r < 0;
}

unsigned copy_lists_write(const struct copy_lists *l, const struct copy_lists_dests *d, int holder,
			  int dest_dir_fd, struct event_queue *q)
{
	unsigned failed = 0;

	if (!l)
		return 0;
	for (size_t i = 0; i < l->n_lists; i++)
		if (l->lists[i].holder == holder)
			failed += write_list(l, d, &l->lists[i], holder, q);
	if (holder >= 0 && l->mhl && l->sums)
		failed += write_generation(l, d, (size_t)holder, dest_dir_fd, q);
	return failed;
}
