/* target_handle.h: what <safecp/target.h>'s handle holds, for the other
 * files of lib/api (dirty.c selects the devices of targets).  Not public. */
#ifndef SAFECP_API_TARGET_HANDLE_H
#define SAFECP_API_TARGET_HANDLE_H

#include <safecp/target.h>

#include "device/target.h"

struct safecp_target {
	struct target *t;
};

#endif
