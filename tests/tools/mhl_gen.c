/* mhl_gen.c: lib/mhl from the command line, for tests/tools/test_mhl_check.py.
 *
 *   mhl_gen gen < TOKENS    a generation's XML on stdout
 *   mhl_gen chain SEQ PATH C4 [SEQ PATH C4]...   ascmhl_chain.xml on stdout
 *   mhl_gen name SEQ ROOT EPOCH                  the manifest file name
 *   mhl_gen read DEST       what mhl_history_read() finds, one NUL-terminated field each:
 *                           newest sequence, then per entry path, size, mtime and
 *                           "format=hash:action" fields, then an empty field; or the
 *                           problem's kind on stderr and exit 3
 *
 * TOKENS are NUL-terminated fields (names may hold newlines): creation EPOCH, HOST,
 * TOOL, VERSION, then records "ignore" PATTERN | "file" PATH SIZE MTIME N then N times
 * FORMAT VALUE ACTION HASHDATE | "dir" PATH MTIME N then N times FORMAT CONTENT
 * STRUCTURE HASHDATE | "root" N and the same. The hashes come from the test: this tool
 * computes none. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl/mhl_read.h"
#include "mhl/mhl_write.h"

static char *input;
static size_t input_len, input_at;

static const char *token(void)
{
	const char *t;

	if (input_at >= input_len) {
		fprintf(stderr, "mhl_gen: input ends early\n");
		exit(2);
	}
	t = input + input_at;
	input_at += strlen(t) + 1;
	return t;
}

static void slurp_stdin(void)
{
	size_t cap = 1 << 16;

	input = malloc(cap + 1);
	for (size_t n; input && (n = fread(input + input_len, 1, cap - input_len, stdin)) > 0;) {
		input_len += n;
		if (input_len == cap && !(input = realloc(input, (cap *= 2) + 1)))
			break;
	}
	if (!input)
		exit(2);
	input[input_len] = '\0';
}

static int die(const char *what, int r)
{
	fprintf(stderr, "mhl_gen: %s: %s\n", what, strerror(-r));
	return 1;
}

static int gen(void)
{
	struct mhl_creator c;
	struct mhl_generation *g;
	char *xml;
	size_t len;
	int r;

	slurp_stdin();
	c.creation_time = (time_t)strtoll(token(), NULL, 10);
	c.hostname = token();
	c.tool_name = token();
	c.tool_version = token();
	if ((r = mhl_generation_new(&c, &g)) < 0)
		return die("new", r);
	while (input_at < input_len) {
		const char *kind = token();

		if (strcmp(kind, "ignore") == 0) {
			if ((r = mhl_generation_add_ignore(g, token())) < 0)
				return die("ignore", r);
		} else if (strcmp(kind, "file") == 0) {
			struct mhl_hash h[MHL_FORMAT_COUNT];
			struct mhl_file f;

			f.path = token();
			f.size = strtoull(token(), NULL, 10);
			f.mtime = (time_t)strtoll(token(), NULL, 10);
			f.n_hashes = strtoul(token(), NULL, 10);
			if (f.n_hashes > MHL_FORMAT_COUNT)
				return die("too many hashes", -EINVAL);
			for (size_t i = 0; i < f.n_hashes; i++) {
				h[i].format = (enum mhl_hash_format)mhl_format_from_name(token());
				h[i].value = token();
				h[i].action = (enum mhl_action)mhl_action_from_name(token());
				h[i].hashdate = (time_t)strtoll(token(), NULL, 10);
			}
			f.hashes = h;
			if ((r = mhl_generation_add_file(g, &f)) < 0)
				return die(f.path, r);
		} else if (strcmp(kind, "dir") == 0 || strcmp(kind, "root") == 0) {
			struct mhl_dir_hash h[MHL_FORMAT_COUNT];
			bool root = kind[0] == 'r';
			const char *path = root ? NULL : token();
			time_t mtime = root ? 0 : (time_t)strtoll(token(), NULL, 10);
			size_t n = strtoul(token(), NULL, 10);

			if (n > MHL_FORMAT_COUNT)
				return die("too many hashes", -EINVAL);
			for (size_t i = 0; i < n; i++) {
				h[i].format = (enum mhl_hash_format)mhl_format_from_name(token());
				h[i].content = token();
				h[i].structure = token();
				h[i].hashdate = (time_t)strtoll(token(), NULL, 10);
			}
			r = root ? mhl_generation_set_root(g, h, n)
				 : mhl_generation_add_directory(g, path, mtime, h, n);
			if (r < 0)
				return die(kind, r);
		} else {
			return die(kind, -EINVAL);
		}
	}
	if ((r = mhl_generation_render(g, &xml, &len)) < 0)
		return die("render", r);
	fwrite(xml, 1, len, stdout);
	free(xml);
	mhl_generation_free(g);
	return 0;
}

static int chain(int argc, char **argv)
{
	struct mhl_chain_link links[64];
	size_t n = 0;
	char *xml;
	size_t len;
	int r;

	for (int i = 0; i + 2 < argc && n < 64; i += 3, n++) {
		links[n].sequence = (unsigned)strtoul(argv[i], NULL, 10);
		links[n].path = argv[i + 1];
		links[n].c4 = argv[i + 2];
	}
	if ((r = mhl_chain_render(links, n, &xml, &len)) < 0)
		return die("chain", r);
	fwrite(xml, 1, len, stdout);
	free(xml);
	return 0;
}

static int read_back(const char *dest)
{
	struct mhl_history *h;
	struct mhl_read_problem why;
	const struct mhl_manifest *m;

	if (mhl_history_read(dest, &h, &why) != MHL_READ_OK) {
		fprintf(stderr, "%s %s %d\n", mhl_read_kind_name(why.kind), why.file, why.line);
		return 3;
	}
	m = mhl_history_newest(h);
	printf("%u%c", mhl_history_newest_link(h)->sequence, 0);
	for (size_t i = 0; i < mhl_manifest_count(m); i++) {
		const struct mhl_entry *e = mhl_manifest_entry(m, i);

		printf("%s%c%llu%c%lld%c", e->path, 0, (unsigned long long)e->size, 0,
		       (long long)e->mtime.tv_sec, 0);
		for (int f = 0; f < MHL_FORMAT_COUNT; f++)
			if (e->hash[f])
				printf("%s=%s:%s%c", mhl_format_name((enum mhl_hash_format)f), e->hash[f],
				       mhl_action_name(e->action[f]), 0);
		printf("%c", 0);
	}
	mhl_history_free(h);
	return 0;
}

int main(int argc, char **argv)
{
	char name[512];
	int r;

	if (argc >= 2 && strcmp(argv[1], "gen") == 0)
		return gen();
	if (argc >= 2 && strcmp(argv[1], "chain") == 0)
		return chain(argc - 2, argv + 2);
	if (argc == 5 && strcmp(argv[1], "name") == 0) {
		r = mhl_generation_file_name((unsigned)strtoul(argv[2], NULL, 10), argv[3],
					     (time_t)strtoll(argv[4], NULL, 10), name, sizeof(name));
		if (r < 0)
			return die("name", r);
		puts(name);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "read") == 0)
		return read_back(argv[2]);
	fprintf(stderr, "usage: mhl_gen gen|chain|name|read ...\n");
	return 2;
}
