/* check_internal.h: the handle behind <safecp/check.h>, shared by
 * lib/api/check.c (the record and the place, before the first read) and
 * lib/api/check_run.c (the job, its events and figures). */
#ifndef SAFECP_API_CHECK_INTERNAL_H
#define SAFECP_API_CHECK_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include <safecp/check.h>

#include "copy/check.h"
#include "copy/check_prepare.h"

struct safecp_check {
	char *dir;
	char *sums;              /* the lists' prefix, or NULL: DIR/ascmhl */
	bool prepared;           /* prepare ran (the record is read, or refused) */
	struct check_prepared p;
	struct check_job *job;   /* after start */
	atomic_bool cancelled;
};

#endif
