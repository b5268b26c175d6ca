/* fuzz_duration.c: cli_parse_seconds (cmd/cli.c), the parser behind
 * dirtystat --watch=SECONDS and safeunmount --wait=SECONDS.  Whatever the
 * bytes, an accepted duration is finite and within the bounds asked for,
 * a refused one leaves the result alone, and one accepted under the
 * strict bounds is accepted under the loose ones too. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "common/cli.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size);
	double strict = -1, loose = -1;
	int rs, rl;

	if (!s)
		return 0;
	rs = cli_parse_seconds(s, false, 86400.0, &strict);
	rl = cli_parse_seconds(s, true, HUGE_VAL, &loose);
	assert(rs == 0 || rs == -EINVAL);
	assert(rl == 0 || rl == -EINVAL);
	if (rs == 0)
		assert(isfinite(strict) && strict > 0 && strict <= 86400.0 && rl == 0 && loose == strict);
	else
		assert(strict == -1);
	if (rl == 0)
		assert(isfinite(loose) && loose >= 0);
	else
		assert(loose == -1);
	free(s);
	return 0;
}
