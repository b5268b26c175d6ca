/* clock.c: see clock.h. */
#include <time.h>

#include "base/clock.h"

static double seconds_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double clock_monotonic(void)
{
	return seconds_of(CLOCK_MONOTONIC);
}

double clock_realtime(void)
{
	return seconds_of(CLOCK_REALTIME);
}

void clock_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}
