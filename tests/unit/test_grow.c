/* test_grow.c: lib/util/grow, the one array growth. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/grow.h"
#include "test.h"

struct pair {
	int a, b;
};

TEST(grows_by_doubling_from_first)
{
	struct pair *p = NULL;
	size_t cap = 0;

	CHECK_INT(GROW(p, cap, 1, 4), 0);
	CHECK_U64(cap, 4);
	for (int i = 0; i < 4; i++)
		p[i] = (struct pair){ i, -i };
	CHECK_INT(GROW(p, cap, 4, 4), 0); /* room already */
	CHECK_U64(cap, 4);
	CHECK_INT(GROW(p, cap, 5, 4), 0);
	CHECK_U64(cap, 8);
	CHECK_INT(GROW(p, cap, 33, 4), 0);
	CHECK_U64(cap, 64);
	CHECK_INT(p[3].a, 3); /* kept */
	CHECK_INT(p[3].b, -3);
	free(p);
}

TEST(overflow_is_enomem_and_leaves_the_array)
{
	struct pair *p = NULL;
	size_t cap = 0;

	CHECK_INT(GROW(p, cap, 2, 2), 0);
	p[1].a = 7;
	CHECK_INT(GROW(p, cap, SIZE_MAX / 2 + 2, 2), -ENOMEM);
	CHECK_INT(GROW(p, cap, SIZE_MAX / sizeof(*p) + 1, 2), -ENOMEM);
	CHECK_U64(cap, 2);
	CHECK_INT(p[1].a, 7);
	free(p);
}

int main(void)
{
	RUN(grows_by_doubling_from_first);
	RUN(overflow_is_enomem_and_leaves_the_array);
	return test_summary();
}
