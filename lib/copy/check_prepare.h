/* check_prepare.h: what a check (check.h) needs before its first read,
 * or the one reason it cannot be made.
 *
 * In order, each step needing the one before: the directory's facts
 * (target_probe()); the reference, either DIR/ascmhl (its newest
 * generation, whose bytes must have the C4 ID the chain records, plus,
 * for the paths it does not list, the older generations the chain vouches
 * for: a rerun with -n lists only what it copied) or every PREFIX.ALG
 * list found of the algorithms a list can hold (a missing one is no
 * problem, one that cannot be used refuses the check: never a part of a
 * reference used); and a reference that lists at least one file, since a
 * check that read nothing would pass and let a card be erased.
 *
 * No words: the refusal is a kind with the path it is about. */
#ifndef SAFECP_CHECK_PREPARE_H
#define SAFECP_CHECK_PREPARE_H

#include <stddef.h>

#include "copy/check.h"
#include "copy/check_input.h"
#include "device/target.h"
#include "mhl/mhl_read.h"

enum check_refusal_kind {
	CHECK_READY = 0,
	CHECK_REFUSED_DIR,              /* target_probe() failed: err */
	CHECK_REFUSED_NO_HISTORY,       /* path: DIR/ascmhl, which holds no history */
	CHECK_REFUSED_HISTORY,          /* path: DIR/ascmhl or the file in it; mhl, line, err */
	CHECK_REFUSED_MANIFEST_CHANGED, /* path: DIR/ascmhl/NEWEST, not the one the chain records */
	CHECK_REFUSED_NO_LISTS,         /* path: the prefix, of which no list exists */
	CHECK_REFUSED_LIST,             /* path: the list; list, line, err */
	CHECK_REFUSED_EMPTY,            /* path: DIR; the reference lists no file */
};

struct check_refusal {
	enum check_refusal_kind kind;
	char *path;                /* malloc'd */
	enum mhl_read_kind mhl;    /* CHECK_REFUSED_HISTORY */
	enum check_list_kind list; /* CHECK_REFUSED_LIST */
	size_t line;               /* 1-based, 0 when unknown */
	int err;                   /* an errno value, or 0 */
};

struct check_prepared {
	struct target *t;          /* of DIR */
	struct check_list list;    /* the reference, finished */
	struct mhl_history *mhl;   /* the history, or NULL (lists) */
	const char *manifest;      /*   its newest manifest's name in ascmhl/ */
	char *lists[CHECKSUM_ALG_COUNT]; /* the lists found, PREFIX.ALG */
	enum checksum_alg list_alg[CHECKSUM_ALG_COUNT];
	size_t list_files[CHECKSUM_ALG_COUNT]; /* lines each held */
	size_t n_lists;
	struct check_refusal refusal; /* CHECK_READY, or why not */
};

/* Prepare the check of dir against the lists of sums_prefix, or against
 * dir/ascmhl when it is NULL.  0: ready; 1: refused (p->refusal); -ENOMEM.
 * p is to be freed with check_prepared_free() whatever the result. */
int check_prepare(const char *dir, const char *sums_prefix, struct check_prepared *p);
void check_prepared_free(struct check_prepared *p);

#endif
