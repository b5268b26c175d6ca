/* test.h: the smallest unit-test kit that reports what failed and where.
 *
 * Each tests/unit/test_*.c is one executable: TEST(name) defines a case,
 * main() lists them with RUN(name) and returns test_summary().  Output is
 * TAP so tests/run can count cases the same way it counts bats cases. */
#ifndef SAFECP_TEST_H
#define SAFECP_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int test_failures_in_case;
static int test_case_no;
static int test_cases_failed;
static const char *test_skip_reason; /* set by a case that cannot check here */

#define TEST(name) static void test_##name(void)

#define RUN(name) \
	do { \
		test_failures_in_case = 0; \
		test_skip_reason = NULL; \
		test_case_no++; \
		test_##name(); \
		printf("%s %d - %s%s%s\n", test_failures_in_case ? "not ok" : "ok", \
		       test_case_no, #name, test_skip_reason ? " # SKIP " : "", \
		       test_skip_reason ? test_skip_reason : ""); \
		if (test_failures_in_case) \
			test_cases_failed++; \
	} while (0)

#define FAIL_AT(...) \
	do { \
		printf("# %s:%d: ", __FILE__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		test_failures_in_case++; \
	} while (0)

#define CHECK(cond) \
	do { \
		if (!(cond)) \
			FAIL_AT("CHECK(%s) failed", #cond); \
	} while (0)

#define CHECK_INT(a, b) \
	do { \
		long long _a = (long long)(a), _b = (long long)(b); \
		if (_a != _b) \
			FAIL_AT("%s == %lld, expected %s == %lld", #a, _a, #b, _b); \
	} while (0)

#define CHECK_U64(a, b) \
	do { \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b); \
		if (_a != _b) \
			FAIL_AT("%s == %" PRIu64 ", expected %" PRIu64, #a, _a, _b); \
	} while (0)

#define CHECK_STR(a, b) \
	do { \
		const char *_a = (a), *_b = (b); \
		if (!_a || !_b || strcmp(_a, _b) != 0) \
			FAIL_AT("%s == \"%s\", expected \"%s\"", #a, _a ? _a : "(null)", \
				_b ? _b : "(null)"); \
	} while (0)

/* Call once, before the first RUN, with the number of RUN lines.  Line
 * buffered, so the cases before a crash (an ASan abort) are still counted. */
#define TEST_PLAN(n) (setvbuf(stdout, NULL, _IOLBF, 0), printf("1..%d\n", (n)))

static inline int test_summary(void)
{
	return test_cases_failed ? 1 : 0;
}

/* Fixture trees live in the source tree; meson passes its path. */
#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

#endif
