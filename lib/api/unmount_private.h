/* unmount_private.h: what lib/api/unmount.c (the handles) and
 * unmount_kinds.c (the internal kinds mapped onto <safecp/unmount.h>'s)
 * share, and the seam the unit test uses to run a public job on a fake
 * backend.  Nothing here is exported (lib/libsafecp.sym: safecp_* only). */
#ifndef SAFECP_API_UNMOUNT_PRIVATE_H
#define SAFECP_API_UNMOUNT_PRIVATE_H

#include <safecp/unmount.h>

#include "unmount/job.h"
#include "unmount/resolve.h"

/* The refusal r as the public one; its strings stay r's. */
void api_unmount_refusal(const struct unmount_refusal *r, struct safecp_unmount_refusal *ret);
void api_unmount_step(const struct unmount_step *s, struct safecp_unmount_step *ret);
void api_unmount_sync(const struct syncer_figures *f, struct safecp_unmount_sync *ret);
/* b's lists as public arrays in *ret_holders and *ret_denied (malloc'd:
 * free both; NULL when empty or out of memory, counts 0 then). */
void api_unmount_busy(const struct unmount_busy *b, struct safecp_unmount_busy *ret,
		      struct safecp_unmount_holder **ret_holders,
		      struct safecp_unmount_holder **ret_denied);
enum safecp_unmount_event_kind api_unmount_event_kind(enum unmount_event_kind k);
/* The plan and the run's findings; the strings stay theirs. */
void api_power_off(const struct poweroff_plan *p, const struct poweroff_result *res,
		   struct safecp_power_off *ret);

/* For tests: a public backend over be (borrowed; never closed), and a
 * target resolved in a captured tree run as if it were this machine's,
 * every step through that (fake) backend. */
int api_unmount_backend_wrap(const struct unmount_backend *be,
			     struct safecp_unmount_backend **ret);
void api_unmount_run_captured(struct safecp_unmount *u);

#endif
