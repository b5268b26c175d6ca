/* format.h: the one human form of durations and rates in every tool.
 *
 *	duration  "0:24", "59:59", "1:02:03"   M:SS under an hour, else H:MM:SS
 *	rate      "12.3 MiB/s", "0 B/s"        a size per second
 *	size      "543 MiB", "1.00 GiB"        size_format() of util/size.h
 *
 * The bar's ETA, dirtystat's ETA column and its --watch lines, and the
 * closing lines all go through these, so one job reads the same in each
 * tool.  Unknown (negative, NaN) is "?"; a tool that has words of its own
 * for a case ("waiting", "-") says them before asking for a number. */
#ifndef SAFECP_FORMAT_H
#define SAFECP_FORMAT_H

#include <stddef.h>

/* Rounded up, so a running job never shows 0:00 (0.3 s is "0:01", 59.6 s
 * "1:00", 3599.5 s "1:00:00"); 0 is "0:00"; ">99:59:59" past that.  buf
 * must hold FORMAT_DURATION_MAX bytes. */
#define FORMAT_DURATION_MAX 16
const char *format_duration(char *buf, size_t size, double seconds);

/* bytes/s to the nearest byte, through size_format(); infinities are
 * unknown too.  buf must hold FORMAT_RATE_MAX bytes. */
#define FORMAT_RATE_MAX 24
const char *format_rate(char *buf, size_t size, double bytes_per_s);

#endif
