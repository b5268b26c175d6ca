/* progress_rate.c: the numbers the progress meter shows that the tools
 * derive rather than read: a byte rate over a sliding window of a counter
 * and the ETA it gives.  Declared in progress.h; their format is
 * format.h's.
 *
 * Rate: bytes between the oldest sample still inside the window and now,
 * over the time between them.  A window (3 s by default) rather than the
 * last interval, because the device's counters move in bursts: a window of
 * writeback completes at once, then nothing for a while. */
#include <math.h>

#include "common/progress.h"

double progress_eta(uint64_t left, double rate)
{
	if (left == 0)
		return 0;
	if (!(rate > 0))
		return -1;
	return (double)left / rate;
}

void progress_rate_init(struct progress_rate *r, double window)
{
	*r = (struct progress_rate){ .window = window > 0 ? window : 3.0 };
}

double progress_rate_sample(struct progress_rate *r, double now, uint64_t counter)
{
	const unsigned n = PROGRESS_RATE_SAMPLES;
	unsigned newest = (r->head + r->count + n - 1) % n;
	double span;

	if (r->count > 0 && (counter < r->v[newest] || now < r->t[newest]))
		r->count = 0; /* a new counter, or a clock that went back */
	if (r->count == 0 || now - r->t[newest] >= r->window / n) {
		if (r->count == n) {
			r->head = (r->head + 1) % n;
			r->count--;
		}
		newest = (r->head + r->count) % n;
		r->t[newest] = now;
		r->v[newest] = counter;
		r->count++;
	}
	/* Keep two samples at least, so a caller sampling less often than
	 * the window still gets the rate over its own period. */
	while (r->count > 2 && now - r->t[r->head] > r->window) {
		r->head = (r->head + 1) % n;
		r->count--;
	}
	span = now - r->t[r->head];
	if (span < r->window / 10)
		return -1;
	return (double)(counter - r->v[r->head]) / span;
}

double progress_rate_smooth(double prev, double sample, double dt, double tau)
{
	if (!isfinite(sample) || sample < 0)
		return prev;
	if (!isfinite(prev) || prev < 0 || !(dt > 0) || !(tau > 0))
		return sample;
	return prev + (1 - exp(-dt / tau)) * (sample - prev);
}
