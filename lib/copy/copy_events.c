/* copy_events.c: see copy_events.h. */
#include <stdlib.h>
#include <string.h>

#include "copy/copy_events.h"

void copy_events_emit(struct event_queue *q, const struct copy_event *ev)
{
	struct copy_event own = *ev;

	if (!q)
		return;
	own.path = ev->path ? strdup(ev->path) : NULL;
	own.name = ev->name ? strdup(ev->name) : NULL;
	if (!event_queue_push(q, &own))
		copy_event_done(&own);
}

void copy_event_done(struct copy_event *ev)
{
	if (!ev)
		return;
	free(ev->path);
	free(ev->name);
	ev->path = ev->name = NULL;
}
