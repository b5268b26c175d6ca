/* record_problem.h: what is wrong with a record's file (an ASC MHL
 * history, a checksum list) as <safecp/check.h>'s enum safecp_record_problem,
 * for the check (check.c) and the copy's --mhl and --skip-identical
 * (copy_findings.c).  Not public. */
#ifndef SAFECP_API_RECORD_PROBLEM_H
#define SAFECP_API_RECORD_PROBLEM_H

#include <safecp/check.h>

#include "mhl/mhl_problem.h"

enum safecp_record_problem record_problem_of_mhl(enum mhl_read_kind k);

#endif
