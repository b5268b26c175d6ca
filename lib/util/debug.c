/* debug.c: $SAFECP_DEBUG area mask and the trace line writer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/debug.h"

static const struct {
	const char *name;
	enum debug_area area;
} areas[] = {
	{ "target", DEBUG_TARGET }, { "dirty", DEBUG_DIRTY },
	{ "writer", DEBUG_WRITER }, { "copy", DEBUG_COPY },
	{ "unmount", DEBUG_UNMOUNT }, { "progress", DEBUG_PROGRESS },
};

static int parse_mask(void)
{
	const char *env = getenv("SAFECP_DEBUG");
	int mask = 0;

	if (!env)
		return 0;
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++) {
		const char *p = strstr(env, areas[i].name);

		if (strstr(env, "all") || (p && (p == env || p[-1] == ',')))
			mask |= areas[i].area;
	}
	return mask;
}

bool debug_enabled(enum debug_area area)
{
	static int mask = -1;

	if (mask < 0)
		mask = parse_mask();
	return mask & area;
}

void debug_log(enum debug_area area, const char *fmt, ...)
{
	struct timespec ts;
	const char *name = "?";
	va_list ap;

	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (areas[i].area == area)
			name = areas[i].name;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "[%ld.%03ld %s] ", (long)ts.tv_sec, ts.tv_nsec / 1000000, name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
