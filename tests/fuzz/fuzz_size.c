/* fuzz_size.c: size_parse and size_format (lib/size.c), and the --progress mode words
 * (cmd/progress.c).  The input is the string typed after --window and the like.  A
 * parsed size formats to text that parses back within the format's three significant
 * digits; the first 8 input bytes as a number must format too. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "common/progress.h"
#include "base/size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(uint64_t v)
{
	char buf[SIZE_FORMAT_MAX];
	uint64_t back = 0, diff;
	int r;

	size_format(buf, sizeof(buf), v);
	assert(memchr(buf, 0, sizeof(buf)));
	r = size_parse(buf, &back);
	if (r == -ERANGE) {
		assert(v >= (UINT64_C(1) << 63)); /* "16.0 EiB" is 2^64: out of range */
		return;
	}
	assert(r == 0);
	diff = back > v ? back - v : v - back;
	if (diff > v / 100 + 1) {
		fprintf(stderr, "size_format(%llu) = '%s' parses as %llu\n", (unsigned long long)v, buf,
			(unsigned long long)back);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size);
	uint64_t v, raw = 0;
	enum progress_mode mode;

	if (size_parse(s, &v) == 0)
		round_trip(v);
	memcpy(&raw, data, size < sizeof(raw) ? size : sizeof(raw));
	round_trip(raw);
	if (raw) {
		assert(round_up_u64(raw >> 1, raw) % raw == 0);
		assert(round_down_u64(raw >> 1, raw) == 0);
	}
	(void)progress_mode_parse(s, &mode);
	free(s);
	return 0;
}
