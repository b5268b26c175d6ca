/* event.h: the framing of every JSON event line of every tool.
 *
 *	{"event":"progress","t":1767225600.250113,...}
 *
 * Each line is one object that starts with "event" (what happened) and
 * "t" (when: CLOCK_REALTIME seconds since the epoch, with 6 decimals, so
 * lines of two tools sort together), then the event's own fields.  A tool
 * documents its events in its man page; fields are added, never renamed
 * or dropped.
 *
 * One error event for all tools:
 *
 *	{"event":"error","t":T,"path":"/media/usb/a.jpg","errno":28,
 *	 "errno_name":"ENOSPC","error":"No space left on device",
 *	 "message":"cannot write '/media/usb/a.jpg': No space left on device",...}
 *
 * "path" or "device" (one of them: what failed, a JSON name with its
 * *_b64 sibling when not UTF-8, or null), "errno" (the number), its
 * symbolic "errno_name" and strerror(3) text "error" (all three null when
 * no system call failed: a refusal), and "message", the line the tool
 * printed on stderr without its "PROG: " prefix.  Tool fields follow
 * ("step", "fatal", ...). */
#ifndef SAFECP_EVENT_H
#define SAFECP_EVENT_H

#include "common/json.h"

/* CLOCK_REALTIME seconds, for "t". */
double event_now(void);

/* {"event":name,"t":t -- the event's fields follow. */
void event_begin(struct json *j, const char *name, double t);
/* } and the line's end, flushed (json_line_end). */
void event_end(struct json *j);

enum event_subject {
	EVENT_PATH,   /* "path": a file, a directory, a mount point */
	EVENT_DEVICE, /* "device": a device node, LABEL= or UUID= */
};

/* The error event up to its shared fields; the tool's fields follow,
 * then event_end().  err: an errno value of either sign (lib's -errno or
 * errno), 0 when no call failed. */
void event_error_begin(struct json *j, double t, enum event_subject kind, const char *name,
		       int err, const char *message);

#endif
