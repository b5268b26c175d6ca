/* safecp_mhl.c: --mhl: an ASC MHL generation in each destination.
 *
 * Before the first byte, each destination directory's ascmhl/ history is
 * read (lib/mhl): a damaged or hostile one is refused, and so is a chain
 * whose C4 ID of the newest manifest does not match its bytes; the new
 * generation then continues it.  The copy job writes each destination's
 * generation in that destination's thread, before its final sync
 * (lib/copy/lists.h, manifest.h), so "can be removed" covers it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/cli.h"
#include "common/quote.h"
#include "config.h"
#include "copy/manifest.h"
#include "copy/mhl_record.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

struct manifests {
	const struct safecp_options *o;
	const struct copy_prepared *jobs;
	size_t n;
	struct mhl_history *prev[COPY_DESTS_MAX];
	char *root[COPY_DESTS_MAX];
	/* ignore patterns per destination: the lists written there */
	char *ignores[COPY_DESTS_MAX][CHECKSUM_ALG_COUNT];
	size_t n_ignores[COPY_DESTS_MAX];
	struct copy_generation next[COPY_DESTS_MAX]; /* the above, for lib/ */
};

static const char *kind_words(enum mhl_read_kind k)
{
	switch (k) {
	case MHL_READ_OK:
	case MHL_READ_NO_HISTORY: return "no history";
	case MHL_READ_IO: return "cannot be read";
	case MHL_READ_NOT_REGULAR: return "holds a link or special file where a file should be";
	case MHL_READ_TOO_BIG: return "holds a file too large to be a manifest";
	case MHL_READ_DOCTYPE: return "holds a DOCTYPE (refused: entities)";
	case MHL_READ_MALFORMED: return "holds a file that is not well-formed XML (truncated?)";
	case MHL_READ_NOT_MHL: return "holds a file that is not an ASC MHL v2 document";
	case MHL_READ_BAD_VALUE: return "holds a value that is not the schema's form";
	case MHL_READ_BAD_PATH: return "lists a path outside its folder";
	case MHL_READ_DUPLICATE: return "lists a path or generation twice";
	case MHL_READ_BAD_CHAIN: return "has a broken chain";
	case MHL_READ_NO_MEMORY: return "could not be read: out of memory";
	}
	return "is damaged";
}

static void read_history(struct manifests *m, size_t d)
{
	const char *dir = m->jobs[d].plan->dest_dir;
	struct mhl_read_problem why = { 0 };
	enum mhl_read_kind k = mhl_history_read(dir, &m->prev[d], &why);

	if (k == MHL_READ_NO_HISTORY) {
		m->prev[d] = NULL;
		return;
	}
	if (k != MHL_READ_OK) {
		char detail[64] = "";

		if (why.line)
			snprintf(detail, sizeof(detail), ", line %d", why.line);
		else if (why.err)
			snprintf(detail, sizeof(detail), ": %s", strerror(why.err));
		cli_usage_error("the ASC MHL history in %s %s (%s%s): move the ascmhl folder away "
				"or repair it, then copy again", quote(dir), kind_words(k),
				quote(why.file[0] ? why.file : "ascmhl"), detail);
	}
	if (!mhl_record_newest_ok(m->prev[d]))
		cli_usage_error("the ASC MHL history in %s does not match its chain: the newest "
				"manifest's C4 ID differs from ascmhl_chain.xml's; move the ascmhl "
				"folder away or repair it, then copy again", quote(dir));
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

/* Is rel (a destination path relative to the destination directory) the
 * history folder or below it?  Case-blind: FAT and exFAT sticks fold
 * "ASCMHL" onto it. */
static bool in_history_folder(const char *rel)
{
	size_t n = strlen(MHL_FOLDER);

	return strncasecmp(rel, MHL_FOLDER, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

/* A source entry copied to DEST/ascmhl or below would be overwritten by
 * this run's generation and chain (or overwrite the history): refused
 * before the first byte, naming the first such entry (its topmost). */
static void refuse_history_overlap(const struct copy_prepared *job)
{
	const struct plan *p = job->plan;
	char rel[PATH_MAX];

	for (size_t i = 0; i < p->n_entries; i++) {
		if (!plan_dest_rel(p, i, rel, sizeof(rel)) || !in_history_folder(rel))
			continue;
		cli_usage_error("%s would be copied to %s, where --mhl writes the ASC MHL history "
				"of %s: the copy and the history would overwrite each other; leave "
				"it out, copy it to another destination, or copy without --mhl",
				quote(p->entries[i].source->src), quote(p->entries[i].dst),
				quote(job->dest_arg));
	}
}

int manifests_prepare(const struct safecp_options *o, const struct copy_prepared *jobs, size_t n,
		      struct manifests **ret)
{
	struct manifests *m;

	*ret = NULL;
	if (!o->mhl)
		return 0;
	for (size_t d = 0; d < n; d++)
		refuse_history_overlap(&jobs[d]);
	mhl_xml_init();
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->o = o;
	m->jobs = jobs;
	m->n = n;
	for (size_t d = 0; d < n; d++) {
		read_history(m, d);
		m->root[d] = root_name(jobs[d].plan->dest_dir);
		if (!m->root[d]) {
			manifests_free(m);
			return -ENOMEM;
		}
	}
	*ret = m;
	return 0;
}

void manifests_free(struct manifests *m)
{
	if (!m)
		return;
	for (size_t d = 0; d < m->n; d++) {
		mhl_history_free(m->prev[d]);
		free(m->root[d]);
		for (size_t i = 0; i < m->n_ignores[d]; i++)
			free(m->ignores[d][i]);
	}
	free(m);
}

void manifests_ignore(struct manifests *m, size_t d, const char *rel)
{
	char *p = NULL;

	if (!m || m->n_ignores[d] == CHECKSUM_ALG_COUNT || asprintf(&p, "/%s", rel) < 0)
		return;
	m->ignores[d][m->n_ignores[d]++] = p;
}

void manifests_fill(struct manifests *m, struct copy_lists *l)
{
	if (!m)
		return;
	for (size_t d = 0; d < m->n; d++)
		m->next[d] = (struct copy_generation){
			.prev = m->prev[d],
			.judged_by = m->jobs[d].identical_mhl ? &m->jobs[d].identical_rec : NULL,
			.root_name = m->root[d],
			.ignores = (const char *const *)m->ignores[d],
			.n_ignores = m->n_ignores[d],
		};
	l->mhl = m->next;
	l->keep_times = m->o->keep_times;
	l->tool_version = PACKAGE_VERSION;
}
