/* session_internal.h: the session's state, shared by its four files:
 * session_run.c (the lifecycle, the findings, the run), session_sources.c
 * (the sources read before any destination: old lists, the pack's walk,
 * the archives), session_dest.c (one destination planned and checked)
 * and session_lists.c (the checksum lists and manifests written beside
 * the copy). */
#ifndef SAFECP_SESSION_INTERNAL_H
#define SAFECP_SESSION_INTERNAL_H

#include "copy/lists.h"
#include "copy/pack.h"
#include "copy/reader.h"
#include "copy/resume.h"
#include "copy/session.h"
#include "copy/unpack_feed.h"

struct copy_session {
	struct copy_session_options o;
	char **sources;
	size_t n_sources, cap_sources;
	char *dirs[COPY_DESTS_MAX];
	char *beneath[COPY_DESTS_MAX];
	size_t n_dests;
	struct copy_prepared prep[COPY_DESTS_MAX];
	struct plan_problem plan_problem[COPY_DESTS_MAX]; /* plan_build()'s refusal */
	struct judge_result judged[COPY_DESTS_MAX];
	size_t n_prepared;
	struct copy_finding *findings;
	size_t n_findings, cap_findings, n_refusals;
	size_t n_deferred;                /* of the refusals, those deferred */
	char **paths;                     /* the findings' paths */
	size_t n_paths, cap_paths;
	bool prepared;
	bool ready;                       /* prepare() returned 0 */
	/* the sources as read */
	struct sums_index *old_lists;
	dev_t old_lists_dev;
	struct source_tree *pack_tree;
	struct plan_problem pack_problem;
	struct pack_feed *pack_feed;
	struct unpack_list *unpack_list;
	struct unpack_feed *unpack_feed;
	size_t unpack_skipped;
	/* what is written beside the copy (session_lists.c) */
	struct session_list {
		enum checksum_alg alg;
		char *path;          /* PREFIX.ALG */
		char *dir;           /* its directory ("." for a bare name) */
		const char *name;    /* its name in dir, inside path */
		int dirfd;
		int holder;          /* the destination on whose filesystem it is, or -1 */
	} lists[CHECKSUM_ALG_COUNT];
	size_t n_lists;
	struct mhl_history *history[COPY_DESTS_MAX]; /* NULL: none yet */
	struct mhl_read_problem history_why[COPY_DESTS_MAX];
	char *root[COPY_DESTS_MAX];       /* the manifest's root name */
	char *ignores[COPY_DESTS_MAX][CHECKSUM_ALG_COUNT]; /* the lists in it */
	size_t n_ignores[COPY_DESTS_MAX];
	struct file_sums *sums;
	struct reader_tap tap;
	struct copy_list to_write[CHECKSUM_ALG_COUNT];
	struct copy_generation next[COPY_DESTS_MAX];
	struct copy_lists run_lists;
	/* the large files written as partials, kept ones resumed (session_resume.c) */
	struct resume_plan resume[COPY_DESTS_MAX];
	bool resuming;                    /* resume plans were made */
	struct partial_digests *digests;
	struct reader_start *starts;
	size_t n_starts;
	struct reader_tap taps[2];        /* the lists' and the partials' */
	struct reader_tap tap_both;
	/* the run */
	struct copy_dest job_dests[COPY_DESTS_MAX];
	struct copy_job *job;
};

/* A finding kept (refusals counted); 0 or -ENOMEM.  path is copied. */
int session_find(struct copy_session *s, const struct copy_finding *f, const char *path);
/* session_sources.c: what is read before any destination.  0, or -errno
 * (*stage: where). */
int session_read_sources(struct copy_session *s, enum copy_prepare_stage *stage);
void session_sources_free(struct copy_session *s);
/* session_dest.c: destination i planned and checked.  0, 1 when a refusal
 * that is not deferred stops the preparation, or -errno (*stage). */
int session_prepare_dest(struct copy_session *s, size_t i, enum copy_prepare_stage *stage);
/* session_lists.c: the lists and manifests placed and checked (after
 * every destination is planned), then handed to the job at start.
 * 0, or -errno. */
int session_lists_prepare(struct copy_session *s);
int session_lists_start(struct copy_session *s, struct copy_job_hooks *h);
void session_lists_free(struct copy_session *s);
/* session_resume.c: which large files are written as resumable partials
 * and where kept ones go on (after every destination and the lists are
 * prepared: the source's prefixes are read once for all); findings for
 * each kept partial.  0, or -errno. */
int session_resume_prepare(struct copy_session *s);
/* The job's digests, tap and starts; the destinations' plans. */
int session_resume_start(struct copy_session *s, struct copy_job_hooks *h);
void session_resume_free(struct copy_session *s);
/* The formats the manifests list (0 without manifests); a source read
 * to judge a file identical is hashed in them too. */
checksum_set session_manifest_algs(const struct copy_session *s);

#endif
