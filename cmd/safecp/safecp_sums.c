/* safecp_sums.c: --checksum and --sums: the checksum lists.
 *
 * One list per algorithm, PREFIX.ALG, its lines relative to the
 * destination directory, so that `cd DEST && sha256sum -c PREFIX.sha256`
 * checks the copy.  The digests come from the one read of the source
 * (file_sums.h); a list names the files that were published.  Here:
 * where each list goes and which destination holds it, refused before
 * the first byte when it cannot be written; the copy job writes them
 * (lib/copy/lists.h: a list on a destination's filesystem by that
 * destination's thread before its final sync), and what it says about
 * them comes back as events, worded here and in safecp_file_events.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/quote.h"
#include "copy/manifest.h"
#include "safecp/tool.h"
#include "base/cleanup.h"

struct sums_list {
	enum checksum_alg alg;
	char *path;      /* PREFIX.ALG as given, for messages */
	char *dir;       /* its directory, as given ("." for a bare name) */
	const char *name;/* its name in dir, inside path */
	int dirfd;
	int holder;      /* the destination on whose filesystem it is, or -1 */
};

struct sums {
	const struct safecp_options *o;
	const struct copy_prepared *jobs;
	size_t n_jobs;
	struct file_sums *fs;
	struct reader_tap tap;
	struct sums_list lists[CHECKSUM_ALG_COUNT];
	struct copy_list to_write[CHECKSUM_ALG_COUNT]; /* the same, for lib/ */
	size_t n_lists;
};

static void list_split(struct sums_list *l)
{
	char *slash = strrchr(l->path, '/');

	if (!slash) {
		l->dir = strdup(".");
		l->name = l->path;
	} else {
		l->dir = slash == l->path ? strdup("/") : strndup(l->path, (size_t)(slash - l->path));
		l->name = slash + 1;
	}
	if (!l->dir)
		cli_usage_error("out of memory");
}

/* Would list l replace a file the copy writes to destination d? */
static bool list_clashes(const struct sums_list *l, const struct plan *p)
{
	char ldir[PATH_MAX], ddir[PATH_MAX], rel[PATH_MAX], *want = NULL;
	bool clash = false;
	size_t dlen;

	if (!realpath(l->dir, ldir) || !realpath(p->dest_dir, ddir))
		return false;
	dlen = strlen(ddir);
	if (strncmp(ldir, ddir, dlen) != 0 || (ldir[dlen] != '/' && ldir[dlen] != '\0'))
		return false;
	if (asprintf(&want, "%s%s%s", ldir[dlen] ? ldir + dlen + 1 : "", ldir[dlen] ? "/" : "",
		     l->name) < 0)
		return false;
	for (size_t i = 0; i < p->n_entries && !clash; i++)
		clash = plan_dest_rel(p, i, rel, sizeof(rel)) && strcmp(rel, want) == 0;
	free(want);
	return clash;
}

static void list_open(struct sums *s, struct sums_list *l)
{
	struct stat st;

	if (l->name[0] == '\0')
		cli_usage_error("--sums %s names a directory: give a prefix such as %s/offload",
				quote(s->o->sums_prefix), s->o->sums_prefix);
	l->dirfd = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (l->dirfd < 0 || fstat(l->dirfd, &st) < 0)
		cli_usage_error("cannot write the checksum list %s: %s %s: %s; make it or choose "
				"another --sums prefix", quote(l->path), "its directory",
				quote(l->dir), strerror(errno));
	l->holder = -1;
	for (size_t d = 0; d < s->n_jobs; d++) {
		const struct plan *p = s->jobs[d].plan;

		if (list_clashes(l, p))
			cli_usage_error("the checksum list %s would replace a file the copy writes to "
					"%s; choose another --sums prefix", quote(l->path),
					quote(s->jobs[d].dest_arg));
		if (l->holder < 0 && st.st_dev == p->dest_dir_dev)
			l->holder = (int)d;
	}
}

int sums_prepare(const struct safecp_options *o, const struct copy_prepared *jobs, size_t n,
		 struct sums **ret)
{
	_cleanup_free_ struct sums *s = NULL;
	int r;

	*ret = NULL;
	if (!o->checksums && !o->mhl)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = o;
	s->jobs = jobs;
	s->n_jobs = n;
	for (int a = 0; o->sums_prefix && a < CHECKSUM_ALG_COUNT; a++) {
		struct sums_list *l = &s->lists[s->n_lists];

		if (!(o->checksums & CHECKSUM_BIT(a)))
			continue;
		l->alg = (enum checksum_alg)a;
		if (asprintf(&l->path, "%s.%s", o->sums_prefix, checksum_alg_name(l->alg)) < 0)
			return -ENOMEM;
		list_split(l);
		list_open(s, l);
		s->n_lists++;
	}
	/* a manifest needs an ASC MHL format: xxh128 when none is asked for */
	r = file_sums_new(jobs[0].plan,
			  o->checksums | (o->mhl && !manifest_formats(o->checksums)
						  ? CHECKSUM_BIT(CHECKSUM_XXH128) : 0),
			  &s->fs);
	if (r < 0)
		return r;
	s->tap = file_sums_tap(s->fs);
	*ret = TAKE_PTR(s);
	return 0;
}

void sums_free(struct sums *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_lists; i++) {
		free(s->lists[i].path);
		free(s->lists[i].dir);
		if (s->lists[i].dirfd >= 0)
			close(s->lists[i].dirfd);
	}
	file_sums_free(s->fs);
	free(s);
}

const struct reader_tap *sums_tap(struct sums *s)
{
	return s ? &s->tap : NULL;
}

const struct file_sums *sums_digests(const struct sums *s)
{
	return s ? s->fs : NULL;
}

void sums_fill(struct sums *s, struct copy_lists *l)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_lists; i++) {
		const struct sums_list *sl = &s->lists[i];

		s->to_write[i] = (struct copy_list){ sl->alg, sl->path, sl->dirfd, sl->name,
						       sl->holder };
	}
	l->sums = s->fs;
	l->lists = s->to_write;
	l->n_lists = s->n_lists;
	l->old_lists = copy_session_old_lists(s->o->session);
}

void sums_warn(struct events *ev, const struct copy_event *e)
{
	const char *alg = checksum_alg_name(e->alg);
	size_t n = (size_t)e->count;

	if (e->kind == COPY_EVENT_LIST_LEFT_OUT)
		events_warn(ev, "%s is left out of %s: %s lists cannot hold a name with a "
			    "newline, carriage return or backslash; check it with a "
			    "sha256 list", quote(e->name), quote(e->path), alg);
	else
		events_warn(ev, "%zu %s left alone as identical %s not in %s: %s not read and "
			    "the last list did not have %s; copy without --skip-identical to "
			    "list %s", n, n == 1 ? "file" : "files", n == 1 ? "is" : "are",
			    quote(e->path), n == 1 ? "it was" : "they were", n == 1 ? "it" : "them",
			    n == 1 ? "it" : "them");
}

void sums_ignore_in(const struct sums *s, struct manifests *m)
{
	for (size_t i = 0; s && m && i < s->n_lists; i++) {
		const struct sums_list *l = &s->lists[i];
		char ldir[PATH_MAX], ddir[PATH_MAX], rel[PATH_MAX];
		size_t dlen;

		if (l->holder < 0 || !realpath(l->dir, ldir) ||
		    !realpath(s->jobs[l->holder].plan->dest_dir, ddir))
			continue;
		dlen = strlen(ddir);
		if (strncmp(ldir, ddir, dlen) != 0 || (ldir[dlen] != '/' && ldir[dlen] != '\0'))
			continue;
		snprintf(rel, sizeof(rel), "%s%s%s", ldir[dlen] ? ldir + dlen + 1 : "",
			 ldir[dlen] ? "/" : "", l->name);
		manifests_ignore(m, (size_t)l->holder, rel);
	}
}
