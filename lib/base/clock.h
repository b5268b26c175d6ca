/* clock.h: the project's one clock: seconds as a double. */
#ifndef SAFECP_CLOCK_H
#define SAFECP_CLOCK_H

/* CLOCK_MONOTONIC: for durations and rates. */
double clock_monotonic(void);
/* CLOCK_REALTIME: for timestamps in events. */
double clock_realtime(void);
/* Sleep ms milliseconds (a signal may cut it short: callers poll). */
void clock_sleep_ms(long ms);

#endif
