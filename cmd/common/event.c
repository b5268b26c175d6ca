/* event.c: the event framing and the shared error event of event.h.
 *
 * "t" has 6 decimals everywhere: microseconds are as fine as
 * CLOCK_REALTIME is worth to a script, and one precision lets a reader
 * merge the lines of several tools without caring which wrote them.
 * errno names come from glibc's strerrorname_np(); an errno it does not
 * know keeps its number and a null name. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "common/event.h"

#define EVENT_T_DECIMALS 6

double event_now(void)
{
	return clock_realtime();
}

void event_begin(struct json *j, const char *name, double t)
{
	json_object_begin(j);
	json_kv_string(j, "event", name);
	json_kv_double(j, "t", t, EVENT_T_DECIMALS);
}

void event_end(struct json *j)
{
	json_object_end(j);
	json_line_end(j);
}

void event_error_begin(struct json *j, double t, enum event_subject kind, const char *name,
		       int err, const char *message)
{
	err = abs(err);
	event_begin(j, "error", t);
	json_kv_name(j, kind == EVENT_DEVICE ? "device" : "path", name);
	if (err) {
		json_kv_u64(j, "errno", (uint64_t)err);
		json_kv_string(j, "errno_name", strerrorname_np(err));
		json_kv_string(j, "error", strerror(err));
	} else {
		json_kv_null(j, "errno");
		json_kv_null(j, "errno_name");
		json_kv_null(j, "error");
	}
	json_kv_string(j, "message", message);
}
