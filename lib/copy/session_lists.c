/* session_lists.c: what a session writes beside the copy, placed and
 * checked before the first byte: the checksum lists PREFIX.ALG (each on
 * the filesystem of the destination that holds it, or on none) and each
 * destination's next ASC MHL generation, which continues the history
 * already there.  A list that cannot be written or would replace a
 * copied file, a history that is damaged or whose chain does not vouch
 * for its newest manifest, a source that would land in the history
 * folder: each a refusal.  The copy job writes them (lists.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "copy/manifest.h"
#include "copy/session_internal.h"
#include "mhl/mhl_format.h"

/* dir's path relative to dest_dir when dir is dest_dir or below it
 * (both resolved); false otherwise. */
static bool rel_below(const char *dir, const char *dest_dir, char *rel, size_t size)
{
	char real_dir[PATH_MAX], real_dest[PATH_MAX];
	size_t n;

	if (!realpath(dir, real_dir) || !realpath(dest_dir, real_dest))
		return false;
	n = strlen(real_dest);
	if (strncmp(real_dir, real_dest, n) != 0 || (real_dir[n] != '/' && real_dir[n] != '\0'))
		return false;
	return (size_t)snprintf(rel, size, "%s", real_dir[n] ? real_dir + n + 1 : "") < size;
}

/* The list's path relative to destination d's directory, when it is
 * inside it. */
static bool list_rel(const struct copy_session *s, const struct session_list *l, size_t d,
		     char *rel, size_t size)
{
	char dir_rel[PATH_MAX];

	if (!rel_below(l->dir, s->prep[d].plan->dest_dir, dir_rel, sizeof(dir_rel)))
		return false;
	return (size_t)snprintf(rel, size, "%s%s%s", dir_rel, *dir_rel ? "/" : "", l->name) < size;
}

/* Would list l replace a file the copy writes to destination d? */
static bool list_clashes(const struct copy_session *s, const struct session_list *l, size_t d)
{
	const struct plan *p = s->prep[d].plan;
	char want[PATH_MAX], rel[PATH_MAX];

	if (!list_rel(s, l, d, want, sizeof(want)))
		return false;
	for (size_t i = 0; i < p->n_entries; i++)
		if (plan_dest_rel(p, i, rel, sizeof(rel)) && strcmp(rel, want) == 0)
			return true;
	return false;
}

static int list_split(struct session_list *l)
{
	char *slash = strrchr(l->path, '/');

	if (!slash) {
		l->dir = strdup(".");
		l->name = l->path;
	} else {
		l->dir = slash == l->path ? strdup("/") : strndup(l->path, (size_t)(slash - l->path));
		l->name = slash + 1;
	}
	return l->dir ? 0 : -ENOMEM;
}

/* List l's directory opened, its holder found, its clashes refused. */
static int list_place(struct copy_session *s, struct session_list *l)
{
	struct stat st;
	int r = 0;

	l->holder = -1;
	l->dirfd = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->dirfd < 0 || fstat(l->dirfd, &st) < 0)
		return session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_LIST_DIR,
							       .err = errno }, l->path);
	for (size_t d = 0; r == 0 && d < s->n_prepared; d++) {
		if (list_clashes(s, l, d))
			r = session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_LIST_CLASH,
								    .dest = d }, l->path);
		if (l->holder < 0 && st.st_dev == s->prep[d].plan->dest_dir_dev)
			l->holder = (int)d;
	}
	return r;
}

static int lists_place(struct copy_session *s)
{
	int r = 0;

	if (!s->o.sums_prefix || !s->o.checksums)
		return 0;
	if (!*s->o.sums_prefix || s->o.sums_prefix[strlen(s->o.sums_prefix) - 1] == '/')
		return session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_LIST_NAME },
				    s->o.sums_prefix);
	for (int a = 0; r == 0 && a < CHECKSUM_ALG_COUNT; a++) {
		struct session_list *l = &s->lists[s->n_lists];

		if (!(s->o.checksums & CHECKSUM_BIT(a)))
			continue;
		l->alg = (enum checksum_alg)a;
		l->dirfd = -1;
		if (asprintf(&l->path, "%s.%s", s->o.sums_prefix, checksum_alg_name(l->alg)) < 0)
			return -ENOMEM;
		s->n_lists++;
		r = list_split(l);
		if (r == 0)
			r = list_place(s, l);
	}
	return r;
}

/* Is rel the history folder or below it?  Case-blind: FAT and exFAT
 * fold "ASCMHL" onto it. */
static bool in_history_folder(const char *rel)
{
	size_t n = strlen(MHL_FOLDER);

	return strncasecmp(rel, MHL_FOLDER, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

/* A source copied into DEST/ascmhl would be overwritten by the new
 * generation or overwrite the history: its topmost entry refused. */
static int history_overlap(struct copy_session *s, size_t d)
{
	const struct plan *p = s->prep[d].plan;
	char rel[PATH_MAX];

	for (size_t i = 0; i < p->n_entries; i++)
		if (plan_dest_rel(p, i, rel, sizeof(rel)) && in_history_folder(rel))
			return session_find(s, &(struct copy_finding){
				.kind = COPY_REFUSED_HISTORY_OVERLAP, .dest = d, .entry = i }, NULL);
	return 0;
}

/* The destination directory's own name, for the manifest's file name. */
static char *root_name(const char *dir)
{
	char real[PATH_MAX];
	const char *slash;

	if (!realpath(dir, real))
		return strdup("root");
	slash = strrchr(real, '/');
	return strdup(slash && slash[1] ? slash + 1 : "root");
}

/* Destination d's history read: the next generation continues it. */
static int history_read(struct copy_session *s, size_t d)
{
	const char *dir = s->prep[d].plan->dest_dir;
	struct mhl_read_problem *why = &s->history_why[d];
	enum mhl_read_kind k = mhl_history_read(dir, &s->history[d], why);

	why->kind = k;
	if (k == MHL_READ_NO_MEMORY)
		return -ENOMEM;
	if (k == MHL_READ_NO_HISTORY)
		s->history[d] = NULL;
	else if (k != MHL_READ_OK)
		return session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_HISTORY_DAMAGED,
							       .dest = d, .history = why }, NULL);
	else if (!mhl_record_newest_ok(s->history[d]))
		return session_find(s, &(struct copy_finding){ .kind = COPY_REFUSED_HISTORY_CHAIN,
							       .dest = d }, NULL);
	s->root[d] = root_name(dir);
	return s->root[d] ? 0 : -ENOMEM;
}

static int histories_read(struct copy_session *s)
{
	int r = 0;

	if (!s->o.manifests)
		return 0;
	mhl_xml_init();
	for (size_t d = 0; r == 0 && d < s->n_prepared; d++)
		r = history_overlap(s, d);
	for (size_t d = 0; r == 0 && d < s->n_prepared; d++)
		r = history_read(s, d);
	return r;
}

/* A list written inside a destination directory is in its manifest's
 * ignore patterns. */
static int ignore_lists(struct copy_session *s)
{
	for (size_t i = 0; s->o.manifests && i < s->n_lists; i++) {
		const struct session_list *l = &s->lists[i];
		char rel[PATH_MAX];
		size_t d = (size_t)l->holder;

		if (l->holder < 0 || !list_rel(s, l, d, rel, sizeof(rel)))
			continue;
		if (asprintf(&s->ignores[d][s->n_ignores[d]], "/%s", rel) < 0)
			return -ENOMEM;
		s->n_ignores[d]++;
	}
	return 0;
}

int session_lists_prepare(struct copy_session *s)
{
	int r = lists_place(s);

	if (r == 0)
		r = histories_read(s);
	return r < 0 ? r : ignore_lists(s);
}

checksum_set session_manifest_algs(const struct copy_session *s)
{
	checksum_set mhl = manifest_formats(s->o.checksums);

	if (!s->o.manifests)
		return 0;
	/* a manifest needs an ASC MHL format: xxh128 when none is asked */
	return mhl ? mhl : CHECKSUM_BIT(CHECKSUM_XXH128);
}

int session_lists_start(struct copy_session *s, struct copy_job_hooks *h)
{
	int r;

	if (!s->o.checksums && !s->o.manifests)
		return 0;
	if (!s->sums) { /* a start tried again after a failure has them */
		r = file_sums_new(s->prep[0].plan, s->o.checksums | session_manifest_algs(s),
				  &s->sums);
		if (r < 0)
			return r;
	}
	s->tap = file_sums_tap(s->sums);
	for (size_t i = 0; i < s->n_lists; i++) {
		const struct session_list *l = &s->lists[i];

		s->to_write[i] = (struct copy_list){ l->alg, l->path, l->dirfd, l->name, l->holder };
	}
	for (size_t d = 0; s->o.manifests && d < s->n_prepared; d++)
		s->next[d] = (struct copy_generation){
			.prev = s->history[d],
			.judged_by = s->prep[d].identical_mhl ? &s->prep[d].identical_rec : NULL,
			.root_name = s->root[d],
			.ignores = (const char *const *)s->ignores[d],
			.n_ignores = s->n_ignores[d],
		};
	s->run_lists = (struct copy_lists){
		.sums = s->sums,
		.lists = s->to_write,
		.n_lists = s->n_lists,
		.old_lists = s->old_lists,
		.mhl = s->o.manifests ? s->next : NULL,
		.keep_times = s->o.keep_times,
		.tool_version = PACKAGE_VERSION,
	};
	h->tap = &s->tap;
	h->lists = &s->run_lists;
	return 0;
}

void session_lists_free(struct copy_session *s)
{
	for (size_t i = 0; i < s->n_lists; i++) {
		free(s->lists[i].path);
		free(s->lists[i].dir);
		if (s->lists[i].dirfd >= 0)
			close(s->lists[i].dirfd);
	}
	for (size_t d = 0; d < COPY_DESTS_MAX; d++) {
		mhl_history_free(s->history[d]);
		free(s->root[d]);
		for (size_t i = 0; i < s->n_ignores[d]; i++)
			free(s->ignores[d][i]);
	}
	file_sums_free(s->sums);
}
