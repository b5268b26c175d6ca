/* test_text_cols.c: the columns a name takes on a terminal, and the end
 * of it that fits (cmd/common/text_cols.h), for the bar and dirtystat. */
#include <stdbool.h>
#include <string.h>

#include "common/text_cols.h"
#include "test.h"

TEST(widths)
{
	CHECK_INT(text_cols(""), 0);
	CHECK_INT(text_cols("IMG_0001.JPG"), 12);
	CHECK_INT(text_cols("caf\xc3\xa9"), 4);             /* é precomposed */
	CHECK_INT(text_cols("cafe\xcc\x81"), 4);            /* e + combining acute */
	CHECK_INT(text_cols("\xe6\x97\xa5\xe6\x9c\xac"), 4); /* 日本: wide */
	CHECK_INT(text_cols("a\033[2Jb"), 6);               /* ESC is one '?' */
	CHECK_INT(text_cols("x\xff"), 2);                   /* a bad byte, one '?' */
}

TEST(one_char)
{
	bool unsafe;
	size_t cols;

	CHECK_INT(text_char("\xe6\x97\xa5!", &unsafe, &cols), 3);
	CHECK(!unsafe && cols == 2);
	CHECK_INT(text_char("\xe2\x80\xae" "abc", &unsafe, &cols), 3); /* bidi override */
	CHECK(unsafe && cols == 1);
}

TEST(tails)
{
	CHECK_STR(text_tail("DCIM/100CANON/IMG_0001.JPG", 12), "IMG_0001.JPG");
	CHECK_STR(text_tail("short", 12), "short");
	/* a wide character that does not fit whole is left out */
	CHECK_STR(text_tail("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 3), "\xe8\xaa\x9e");
	/* never an accent without its letter */
	CHECK_STR(text_tail("cafe\xcc\x81", 1), "e\xcc\x81");
	CHECK_STR(text_tail("e\xcc\x81", 0), "");
}

int main(void)
{
	TEST_PLAN(3);
	RUN(widths);
	RUN(one_char);
	RUN(tails);
	return test_summary();
}
