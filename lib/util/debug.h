/* debug.h: developer tracing behind $SAFECP_DEBUG, separate from the
 * user's --verbose.  SAFECP_DEBUG=writer,target (or "all") enables areas;
 * lines go to stderr prefixed with the area.  This is the one place lib/
 * writes to a stream, and only when a developer asked for it. */
#ifndef SAFECP_DEBUG_H
#define SAFECP_DEBUG_H

#include <stdbool.h>

enum debug_area {
	DEBUG_TARGET = 1 << 0,
	DEBUG_DIRTY = 1 << 1,
	DEBUG_WRITER = 1 << 2,
	DEBUG_COPY = 1 << 3,
	DEBUG_UNMOUNT = 1 << 4,
	DEBUG_PROGRESS = 1 << 5,
};

bool debug_enabled(enum debug_area area);
void debug_log(enum debug_area area, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define DEBUG(area, ...) \
	do { \
		if (debug_enabled(area)) \
			debug_log(area, __VA_ARGS__); \
	} while (0)

#endif
