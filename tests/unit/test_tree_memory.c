/* test_tree_memory.c: what a large tree and its plans cost (issue 28).
 *
 * 200,000 synthetic entries (one top directory, 200 directories of 999
 * files, camera-like names) go through plan_build_given() into an empty
 * directory, then plan_build_given_beside() into a second one.  The
 * allocator's own count (mallinfo2: bytes in use plus mmapped blocks)
 * before and after each says what the tree and the first plan cost per
 * entry beyond the names themselves (target <= 100 bytes), and what a
 * further destination costs (target <= 32 bytes).  The paths are then
 * rebuilt from the names and compared with what they must be: a smaller
 * tree that lost a name would not pass. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/plan_given.h"
#include "plan_tree.h"

#define N_DIRS 200
#define N_FILES 999
#define N_ENTRIES (1 + N_DIRS * (1 + N_FILES))

#define MAX_PER_ENTRY 100.0     /* tree + one plan, beyond the names */
#define MAX_PER_DEST 32.0       /* each further destination */

#if defined(__SANITIZE_ADDRESS__)
#define ALLOCATOR_IS_OURS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOCATOR_IS_OURS 0
#endif
#endif
#ifndef ALLOCATOR_IS_OURS
#define ALLOCATOR_IS_OURS 1
#endif

static size_t heap_bytes(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

struct synthetic {
	struct source_found *v;
	char (*names)[32];
	size_t name_bytes; /* each name with its NUL, as the tree keeps them */
};

/* Entry i's name: "DCIM" at the top, "d-NNN" directories, "IMG_NNNNNN.JPG" files. */
static void synthetic_make(struct synthetic *s)
{
	struct timespec t = { .tv_sec = 1700000000, .tv_nsec = 123456789 };
	size_t i = 0;

	s->v = calloc(N_ENTRIES, sizeof(*s->v));
	s->names = calloc(N_ENTRIES, sizeof(*s->names));
	if (!s->v || !s->names)
		abort();
	s->v[i] = (struct source_found){ .type = PLAN_DIR, .parent = PLAN_TOP, .src = "card:DCIM",
					 .rel = "DCIM", .name = "DCIM" };
	s->v[i].st.st_mode = S_IFDIR | 0755;
	s->name_bytes = sizeof("card:DCIM") + sizeof("DCIM") * 2;
	i++;
	for (size_t d = 0; d < N_DIRS; d++) {
		size_t dir = i;

		snprintf(s->names[i], sizeof(s->names[i]), "d-%03zu", d);
		s->v[i] = (struct source_found){ .type = PLAN_DIR, .parent = 0, .name = s->names[i] };
		s->v[i].st.st_mode = S_IFDIR | 0755;
		s->name_bytes += strlen(s->names[i]) + 1;
		i++;
		for (size_t f = 0; f < N_FILES; f++, i++) {
			snprintf(s->names[i], sizeof(s->names[i]), "IMG_%06zu.JPG", i);
			s->v[i] = (struct source_found){ .type = PLAN_FILE, .parent = dir,
							 .name = s->names[i] };
			s->v[i].st.st_mode = S_IFREG | 0644;
			s->v[i].st.st_size = (off_t)(i % 8193);
			s->v[i].st.st_mtim = t;
			s->v[i].st.st_atim = t;
			s->name_bytes += strlen(s->names[i]) + 1;
		}
	}
}

static void synthetic_free(struct synthetic *s)
{
	free(s->v);
	free(s->names);
}

/* Every entry's source path, rel and destination path as they must be. */
static void check_paths(const struct plan *p, const struct synthetic *s, const char *dest)
{
	char want[PATH_MAX], got[PATH_MAX];
	size_t bad = 0;

	for (size_t i = 0; i < p->n_entries && bad < 5; i++) {
		size_t parent = s->v[i].parent;
		const char *dir = i == 0 ? "" : "/", *pname;

		pname = i == 0 || parent == 0 ? "" : s->names[parent];
		snprintf(want, sizeof(want), "%s/DCIM%s%s%s%s", dest, dir, pname,
			 i && parent ? "/" : "", i ? s->names[i] : "");
		if (plan_dst(p, i, got, sizeof(got)) < 0 || strcmp(got, want) != 0) {
			FAIL_AT("entry %zu goes to \"%s\", expected \"%s\"", i, got, want);
			bad++;
		}
		snprintf(want, sizeof(want), "DCIM%s%s%s%s", dir, pname, i && parent ? "/" : "",
			 i ? s->names[i] : "");
		if (source_rel(p->entries[i].source, got, sizeof(got)) < 0 ||
		    strcmp(got, want) != 0) {
			FAIL_AT("entry %zu is shown as \"%s\", expected \"%s\"", i, got, want);
			bad++;
		}
	}
}

TEST(bytes_per_entry)
{
	const struct plan_options o = { .recursive = true };
	struct synthetic s = { 0 };
	struct plan *first = NULL, *second = NULL;
	char d1[PATH_MAX], d2[PATH_MAX];
	size_t before, one, two;
	double per_entry, per_dest;

	tree_new();
	CHECK_INT(mkdir("one", 0755), 0);
	CHECK_INT(mkdir("two", 0755), 0);
	snprintf(d1, sizeof(d1), "%s/one", tmp_root);
	snprintf(d2, sizeof(d2), "%s/two", tmp_root);
	synthetic_make(&s);
	before = heap_bytes();
	CHECK_INT(plan_build_given(s.v, N_ENTRIES, d1, &o, &first, NULL), 0);
	one = heap_bytes();
	if (first)
		CHECK_INT(plan_build_given_beside(first, d2, &o, &second, NULL), 0);
	two = heap_bytes();
	if (!first || !second)
		goto out;
	CHECK_U64(first->n_entries, N_ENTRIES);
	CHECK_U64(second->n_entries, N_ENTRIES);
	CHECK_U64(first->n_files, N_DIRS * N_FILES);
	per_entry = ((double)(one - before) - (double)s.name_bytes) / N_ENTRIES;
	per_dest = (double)(two - one) / N_ENTRIES;
	printf("# tree + first plan: %.1f bytes per entry beyond %zu bytes of names; "
	       "a further destination: %.1f bytes per entry\n", per_entry, s.name_bytes,
	       per_dest);
	if (!ALLOCATOR_IS_OURS)
		test_skip_reason = "ASan's allocator: mallinfo2 counts its own";
	else {
		CHECK(one > before);
		CHECK(per_entry <= MAX_PER_ENTRY);
		CHECK(per_dest <= MAX_PER_DEST);
	}
	check_paths(first, &s, d1);
	check_paths(second, &s, d2);
out:
	plan_free(second);
	plan_free(first);
	synthetic_free(&s);
	tree_done();
}

int main(void)
{
	TEST_PLAN(1);
	RUN(bytes_per_entry);
	return test_summary();
}
