/* lists.h: the checksum lists and the ASC MHL generation written beside
 * a copy, from the one read's digests (file_sums.h), naming what each
 * destination published.
 *
 * A list on a destination's filesystem, and that destination's manifest,
 * are written by its own thread after its last file and before its final
 * sync, so "can be removed" covers them and they name what it holds; a
 * list elsewhere is written once the copy ends (copy_job_write_lists())
 * and names what any destination got.  All through small_file.h
 * (temporary, durable, renamed).  What they say goes to the job's event
 * queue (copy_events.h). */
#ifndef SAFECP_LISTS_H
#define SAFECP_LISTS_H

#include <stdbool.h>
#include <stddef.h>

#include "copy/copy_events.h"
#include "copy/file_sums.h"
#include "copy/identical.h"
#include "copy/plan.h"
#include "copy/sums_index.h"
#include "mhl/mhl_read.h"

/* A checksum list: PREFIX.ALG, its lines relative to the destination
 * directory (`cd DEST && sha256sum -c PREFIX.sha256`). */
struct copy_list {
	enum checksum_alg alg;
	const char *path;   /* as given, for events */
	int dirfd;          /* its directory */
	const char *name;   /* its name in dirfd */
	int holder;         /* the destination on whose filesystem it is, or -1 */
};

/* --mhl: one destination's next ASC MHL generation (manifest.h). */
struct copy_generation {
	const struct mhl_history *prev;       /* NULL: the first */
	const struct recorded_sums *judged_by; /* --skip-identical's record, or NULL */
	const char *root_name;
	const char *const *ignores;
	size_t n_ignores;
};

struct copy_lists {
	const struct file_sums *sums;         /* the digests of the one read */
	const struct copy_list *lists;
	size_t n_lists;
	/* --skip-identical: the last run's lists, for files left alone */
	const struct sums_index *old_lists;
	const struct copy_generation *mhl;    /* per destination; NULL: no manifests */
	bool keep_times;
	const char *tool_version;
};

/* The destinations, as the lists see them: published[d][idx] says entry
 * idx is under its name on destination d. */
struct copy_lists_dests {
	const struct plan *const *plans;
	const bool *const *published;
	size_t n;
};

/* Write the lists destination holder holds (-1: those no destination
 * holds) and, for a destination (dest_dir_fd its directory), its
 * manifest; events go to q as about destination holder (or 0).  Returns
 * how many failed. */
unsigned copy_lists_write(const struct copy_lists *l, const struct copy_lists_dests *d, int holder,
			  int dest_dir_fd, struct event_queue *q);

#endif
