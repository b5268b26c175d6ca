/* record_problem.c: see record_problem.h. */
#include "api/record_problem.h"

enum safecp_record_problem record_problem_of_mhl(enum mhl_read_kind k)
{
	switch (k) {
	case MHL_READ_IO: return SAFECP_RECORD_IO;
	case MHL_READ_NOT_REGULAR: return SAFECP_RECORD_NOT_REGULAR;
	case MHL_READ_TOO_BIG: return SAFECP_RECORD_TOO_BIG;
	case MHL_READ_DOCTYPE: return SAFECP_RECORD_DOCTYPE;
	case MHL_READ_MALFORMED: return SAFECP_RECORD_MALFORMED;
	case MHL_READ_NOT_MHL: return SAFECP_RECORD_NOT_MHL;
	case MHL_READ_BAD_VALUE: return SAFECP_RECORD_BAD_VALUE;
	case MHL_READ_BAD_PATH: return SAFECP_RECORD_BAD_PATH;
	case MHL_READ_DUPLICATE: return SAFECP_RECORD_DUPLICATE;
	case MHL_READ_BAD_CHAIN: return SAFECP_RECORD_BAD_CHAIN;
	case MHL_READ_NO_MEMORY: return SAFECP_RECORD_NO_MEMORY;
	case MHL_READ_OK: case MHL_READ_NO_HISTORY: break;
	}
	return SAFECP_RECORD_OTHER;
}

const char *safecp_record_problem_name(enum safecp_record_problem p)
{
	static const char *const names[] = {
		[SAFECP_RECORD_NONE] = NULL,
		[SAFECP_RECORD_OTHER] = "other",
		[SAFECP_RECORD_IO] = "io",
		[SAFECP_RECORD_NOT_REGULAR] = "not-regular",
		[SAFECP_RECORD_TOO_BIG] = "too-big",
		[SAFECP_RECORD_DOCTYPE] = "doctype",
		[SAFECP_RECORD_MALFORMED] = "malformed",
		[SAFECP_RECORD_NOT_MHL] = "not-mhl",
		[SAFECP_RECORD_BAD_VALUE] = "bad-value",
		[SAFECP_RECORD_BAD_PATH] = "bad-path",
		[SAFECP_RECORD_DUPLICATE] = "duplicate",
		[SAFECP_RECORD_BAD_CHAIN] = "bad-chain",
		[SAFECP_RECORD_BAD_LINE] = "bad-line",
		[SAFECP_RECORD_NO_MEMORY] = "no-memory",
	};

	return (unsigned)p < sizeof(names) / sizeof(*names) ? names[p] : NULL;
}
