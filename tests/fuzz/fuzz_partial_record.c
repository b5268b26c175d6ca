/* fuzz_partial_record.c: the record beside a resumable partial (lib/copy/partial_record.c),
 * as a stick can hold any bytes under its name.  An accepted record claims no more than its
 * size, names no path, and its header written again parses back to the same fields. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "copy/partial_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct partial_record r, back;
	char *text = NULL;
	size_t len = 0;

	if (partial_record_parse((const char *)data, size, &r) != 0)
		return 0;
	assert(partial_record_claimed(&r) <= r.size);
	assert(!strchr(r.name, '/') && strcmp(r.name, "..") != 0 && r.name[0]);
	assert(!strchr(r.source_name, '/') && r.source_name[0]);
	assert(partial_record_header(&r, &text, &len) == 0);
	assert(partial_record_parse(text, len, &back) == 0);
	assert(strcmp(back.name, r.name) == 0 && strcmp(back.source_name, r.source_name) == 0);
	assert(back.size == r.size && back.mtime_sec == r.mtime_sec &&
	       back.mtime_nsec == r.mtime_nsec && back.dev == r.dev && back.ino == r.ino &&
	       back.chunk == r.chunk && memcmp(back.nonce, r.nonce, 16) == 0 && back.n == 0);
	partial_record_free(&back);
	partial_record_free(&r);
	free(text);
	return 0;
}
