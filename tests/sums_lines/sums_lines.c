/* sums_lines: checksum lists made by lib/hash, for tests/bats/sums_lists.bats to
 * hand to xxhsum -c and sha256sum -c.
 *
 *   sums_lines ALGS PREFIX NAME...
 *
 * Reads each NAME (relative to the current directory, as a list's names are)
 * once, in uneven pieces, feeding every algorithm of ALGS ("xxh128,sha256")
 * together as the reader's tap does, and appends its line to PREFIX.<alg> for
 * each. A name an algorithm's list cannot hold is reported on stderr as
 * "left out of <alg>: argument N" (N counts NAMEs from 1), since the name
 * itself may hold a newline. Exit 0, or 1 with a message on any error.
 *
 *   sums_lines -r ALG LIST
 *
 * Reads LIST back line by line with sums_line_parse() and prints each line made
 * again from the name and digest it gave: a list the tools wrote comes out
 * byte for byte the same when both directions agree with them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash/checksum.h"
#include "hash/sums_list.h"

static int hash_file(struct checksum_state *s, const char *name, struct checksum_result *ret)
{
	/* pieces of 1 MiB and then 4097 bytes, so updates do not fall on blocks */
	static const size_t steps[] = { 1 << 20, 4097 };
	static char buf[1 << 20];
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (size_t k = 0;; k++) {
		ssize_t n = read(fd, buf, steps[k % 2]);
		if (n < 0) {
			int e = -errno;
			close(fd);
			return e;
		}
		if (n == 0)
			break;
		checksum_update(s, buf, (size_t)n);
	}
	close(fd);
	checksum_final(s, ret);
	return 0;
}

/* Appends each NAME's lines to the open lists; 0, or 1 with a message. */
static int list_names(FILE *lists[], checksum_set set, int argc, char **argv)
{
	struct checksum_state *s = checksum_new(set);
	int rc = 1;

	if (!s)
		return 1;
	for (int i = 3; i < argc; i++) {
		struct checksum_result res;
		int r = hash_file(s, argv[i], &res);
		if (r < 0) {
			fprintf(stderr, "sums_lines: cannot read argument %d: %s\n", i - 2, strerror(-r));
			goto out;
		}
		for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
			if (!lists[a])
				continue;
			char *line = NULL;
			r = sums_line_alloc(a, checksum_result_text(&res, a), argv[i], &line);
			if (r == SUMS_LINE_UNLISTABLE) {
				fprintf(stderr, "left out of %s: argument %d\n", checksum_alg_name(a), i - 2);
				continue;
			}
			int bad = r != 0 || fputs(line, lists[a]) == EOF;
			free(line);
			if (bad) {
				fprintf(stderr, "sums_lines: no line for argument %d (%d)\n", i - 2, r);
				goto out;
			}
		}
	}
	rc = 0;
out:
	checksum_free(s);
	return rc;
}

/* sums_lines -r ALG LIST: see the top of the file. */
static int reread(const char *alg_name, const char *path)
{
	int alg = checksum_alg_from_name(alg_name);
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0, no = 0;

	if (alg < 0 || !f) {
		fprintf(stderr, "sums_lines: cannot read '%s' as a %s list\n", path, alg_name);
		if (f)
			fclose(f);
		return 1;
	}
	while (rc == 0 && (n = getline(&buf, &cap, f)) > 0) {
		char digest[CHECKSUM_TEXT_MAX], *name = NULL, *line = NULL;
		no++;
		if (sums_line_parse(alg, buf, (size_t)n, digest, &name) != 0 ||
		    sums_line_alloc(alg, digest, name, &line) != 0 || fputs(line, stdout) == EOF) {
			fprintf(stderr, "sums_lines: %s:%d: not read back\n", path, no);
			rc = 1;
		}
		free(name);
		free(line);
	}
	free(buf);
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "-r") == 0)
		return reread(argv[2], argv[3]);

	checksum_set set;
	FILE *lists[CHECKSUM_ALG_COUNT] = { 0 };
	int rc = 1;

	if (argc < 4 || checksum_list_parse(argv[1], CHECKSUM_SET_LISTS, &set, NULL) < 0) {
		fprintf(stderr, "usage: sums_lines ALG[,ALG...] PREFIX NAME...\n");
		return 1;
	}
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		if (!(set & CHECKSUM_BIT(a)))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s.%s", argv[2], checksum_alg_name(a));
		if (!(lists[a] = fopen(path, "w"))) {
			fprintf(stderr, "sums_lines: cannot create '%s': %s\n", path, strerror(errno));
			goto out;
		}
	}
	rc = list_names(lists, set, argc, argv);
out:
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		if (lists[a] && fclose(lists[a]) != 0 && rc == 0) {
			fprintf(stderr, "sums_lines: cannot write the %s list: %s\n",
				checksum_alg_name(a), strerror(errno));
			rc = 1;
		}
	return rc;
}
