/* safecp_waiting.h: the progress event with the bytes of other data a
 * destination's device has to write before ours (safecp_json.c; the
 * figure is safecp_snapshot.c's, from lib/dirty). */
#ifndef SAFECP_WAITING_H
#define SAFECP_WAITING_H

#include <stdint.h>
#include "safecp/tool.h"

/* jsonev_progress() with "waiting_other_bytes": other (0: none seen). */
void jsonev_progress_waiting(struct jsonev *j, const struct snapshot *s, uint64_t other);

#endif
