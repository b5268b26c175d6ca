/* test_source_links.c: which entries of a tree are one file under several
 * names (source_links.c): groups by (st_dev, st_ino) among files whose
 * st_nlink says they have other names, the first in write order leading;
 * an inode met once, or on another device, is no group. */
#include <stdlib.h>

#include "copy/source_tree.h"
#include "test.h"

struct file {
	const char *name;
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
};

static struct source_tree *tree_of(const struct file *f, size_t n)
{
	const struct plan_options o = { .recursive = true };
	struct source_tree *t = source_tree_new(&o);
	struct source_found top = { .type = PLAN_DIR, .parent = PLAN_TOP, .src = "src",
				    .rel = "src" };

	top.st.st_mode = S_IFDIR | 0755;
	CHECK_INT(source_tree_add(t, &top, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		struct source_found e = { .type = PLAN_FILE, .parent = 0, .name = f[i].name };

		e.st.st_mode = S_IFREG | 0644;
		e.st.st_dev = f[i].dev;
		e.st.st_ino = f[i].ino;
		e.st.st_nlink = f[i].nlink;
		CHECK_INT(source_tree_add(t, &e, NULL), 0);
	}
	return t;
}

TEST(groups_lead_by_write_order)
{
	const struct file f[] = {
		{ "a", 1, 10, 2 }, { "b", 1, 11, 1 }, { "c", 1, 10, 2 }, { "d", 1, 12, 3 },
		{ "e", 1, 12, 3 }, { "f", 1, 12, 3 }, { "g", 1, 13, 2 }, { "h", 2, 10, 2 },
	};
	struct source_tree *t = tree_of(f, sizeof(f) / sizeof(f[0]));

	CHECK_INT(source_tree_link_groups(t), 0);
	CHECK_U64(t->n_links, 3);
	/* entry i + 1 is f[i] (entry 0 is the directory) */
	CHECK_U64(source_leader(t, 1), PLAN_TOP); /* a leads */
	CHECK_U64(source_leader(t, 2), PLAN_TOP); /* b has one name */
	CHECK_U64(source_leader(t, 3), 1);        /* c is a */
	CHECK_U64(source_leader(t, 4), PLAN_TOP); /* d leads */
	CHECK_U64(source_leader(t, 5), 4);
	CHECK_U64(source_leader(t, 6), 4);
	CHECK_U64(source_leader(t, 7), PLAN_TOP); /* g's other name is outside */
	CHECK_U64(source_leader(t, 8), PLAN_TOP); /* h: another device's inode 10 */
	CHECK_U64(source_leader(t, 0), PLAN_TOP);
	source_tree_unref(t);
}

/* Ten thousand names of one file, in a tree of more: every one follows
 * the first; the sort keeps it O(n log n). */
TEST(a_large_group)
{
	enum { N = 20000 };
	struct file *f = calloc(N, sizeof(*f));
	char (*names)[16] = calloc(N, sizeof(*names));
	struct source_tree *t;

	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "n%05zu", i);
		f[i] = (struct file){ names[i], 1, i % 2 ? 7 : 1000 + i, i % 2 ? N / 2 : 1 };
	}
	t = tree_of(f, N);
	CHECK_INT(source_tree_link_groups(t), 0);
	CHECK_U64(t->n_links, N / 2 - 1);
	CHECK_U64(source_leader(t, 2), PLAN_TOP); /* f[1]: the first of inode 7 */
	CHECK_U64(source_leader(t, N), 2);        /* f[N - 1] */
	CHECK_U64(source_leader(t, 1), PLAN_TOP); /* one name */
	source_tree_unref(t);
	free(names);
	free(f);
}

/* No file with another name: no groups, and nothing sorted (qsort of
 * none is given no array: UBSan's nonnull report under --sanitize) */
TEST(no_links)
{
	const struct file f[] = { { "a", 1, 10, 1 }, { "b", 1, 11, 1 } };
	struct source_tree *t = tree_of(f, 2);

	CHECK_INT(source_tree_link_groups(t), 0);
	CHECK_U64(t->n_links, 0);
	CHECK_U64(source_leader(t, 1), PLAN_TOP);
	source_tree_unref(t);
}

int main(void)
{
	TEST_PLAN(3);
	RUN(groups_lead_by_write_order);
	RUN(a_large_group);
	RUN(no_links);
	return test_summary();
}
