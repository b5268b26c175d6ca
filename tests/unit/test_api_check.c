/* test_api_check.c: <safecp/check.h> as a client sees it, on a small tree
 * in /tmp: a copy checked against its checksum lists (a match, a changed
 * byte, a deleted file, each as its kind through the event queue, polled
 * on its fd), against its ASC MHL history (a file the manifest marked
 * failed; a manifest changed after it was written), and each refusal as
 * its kind with the file and the line.  The fixtures are written with the
 * library's own hash, list and MHL code; the check sees only public calls. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <safecp/check.h>

#include "hash/checksum.h"
#include "hash/sums_list.h"
#include "mhl/mhl_write.h"
#include "test.h"

static char tmp[] = "/tmp/test_api_check.XXXXXX";

static const char *at(const char *rel)
{
	static char buf[4][512];
	static int slot;

	slot = (slot + 1) % 4;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", tmp, rel);
	return buf[slot];
}

static void put_bytes(const char *rel, const char *buf, size_t len)
{
	FILE *f = fopen(at(rel), "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		FAIL_AT("cannot write %s: %m", at(rel));
}

static void put(const char *rel, const char *content)
{
	put_bytes(rel, content, strlen(content));
}

static const char *digest(enum checksum_alg alg, const char *buf, size_t len)
{
	static char out[2][CHECKSUM_TEXT_MAX];
	static int slot;
	struct checksum_state *st = checksum_new(CHECKSUM_BIT(alg));
	struct checksum_result res;

	slot = !slot;
	checksum_update(st, buf, len);
	checksum_final(st, &res);
	snprintf(out[slot], CHECKSUM_TEXT_MAX, "%s", checksum_result_text(&res, alg));
	checksum_free(st);
	return out[slot];
}

/* The list of alg for these names, each with the digest of its content. */
static void put_list(const char *rel, enum checksum_alg alg, const char *const names[][2],
		     size_t n)
{
	char all[2048] = "", line[512];
	size_t len;

	for (size_t i = 0; i < n; i++) {
		const char *d = digest(alg, names[i][1], strlen(names[i][1]));

		if (sums_line_format(alg, d, names[i][0], line, sizeof(line), &len) != 0)
			FAIL_AT("cannot format the line of %s", names[i][0]);
		strcat(all, line);
	}
	put(rel, all);
}

static struct safecp_check *prepared(const char *dir, const char *sums, int want)
{
	struct safecp_check *c = NULL;

	CHECK_INT(safecp_check_new(0, &c), 0);
	if (!c)
		return NULL;
	CHECK_INT(safecp_check_set_dir(c, at(dir)), 0);
	if (sums)
		CHECK_INT(safecp_check_set_sums(c, at(sums)), 0);
	CHECK_INT(safecp_check_prepare(c), want);
	return c;
}

/* Run c to its end through its fd; the outcome of each of the n files
 * in record order into got (and their algorithm into algs). */
static void run(struct safecp_check *c, enum safecp_check_outcome *got, const char **algs,
		size_t n)
{
	struct safecp_check_event ev;
	size_t files = 0;
	int ends = 0, r;

	CHECK_INT(safecp_check_start(c), 0);
	CHECK(safecp_check_fd(c) >= 0);
	while (ends == 0) {
		struct pollfd p = { .fd = safecp_check_fd(c), .events = POLLIN };

		if (poll(&p, 1, 10000) != 1) {
			FAIL_AT("no event within 10 s");
			return;
		}
		while ((r = safecp_check_poll(c, 0, &ev)) == 1) {
			if (ev.kind == SAFECP_CHECK_EVENT_END) {
				ends++;
			} else if (ev.kind == SAFECP_CHECK_EVENT_FILE && ev.index == files &&
				   files < n) {
				CHECK_STR(ev.outcome_name, safecp_check_outcome_name(ev.outcome));
				got[files] = ev.outcome;
				if (algs)
					algs[files] = ev.algorithm;
				files++;
			} else {
				FAIL_AT("event %d for index %zu after %zu files", ev.kind, ev.index,
					files);
			}
		}
		CHECK_INT(r, 0);
	}
	CHECK_INT(files, n);
	CHECK_INT(safecp_check_poll(c, 0, &ev), 0); /* nothing after END */
	CHECK(safecp_check_done(c));
}

TEST(lists_each_outcome_its_kind)
{
	/* sorted by path: a, b, gone, sub/c */
	static const char *const listed[][2] = {
		{ "b", "world" }, { "a", "hello" }, { "sub/c", "deep" }, { "gone", "x" },
	};
	enum safecp_check_outcome got[4];
	const char *algs[4];
	struct safecp_check_reference ref;
	struct safecp_check_list l;
	struct safecp_check_progress p;
	struct safecp_check_place place;
	struct safecp_check *c;

	mkdir(at("copy"), 0755);
	mkdir(at("copy/sub"), 0755);
	put("copy/a", "hello");
	put("copy/b", "wOrld"); /* a byte changed: the same size */
	put("copy/sub/c", "deep");
	put_list("l.sha256", CHECKSUM_SHA256, listed, 4);
	put_list("l.xxh128", CHECKSUM_XXH128, listed, 2); /* a and b: cheaper, compared */

	c = prepared("copy", "l", 0);
	if (!c)
		return;
	CHECK_INT(safecp_check_reference(c, &ref), 0);
	CHECK_INT(ref.mhl, 0);
	CHECK(ref.manifest == NULL);
	CHECK_INT(ref.lists, 2);
	CHECK_INT(ref.files, 4);
	CHECK_INT(safecp_check_list(c, 0, &l), 0);
	CHECK_STR(l.path, at("l.xxh128"));
	CHECK_STR(l.algorithm, "xxh128");
	CHECK_INT(l.files, 2);
	CHECK_INT(safecp_check_list(c, 1, &l), 0);
	CHECK_STR(l.algorithm, "sha256");
	CHECK_INT(l.files, 4);
	CHECK_INT(safecp_check_list(c, 2, &l), -ENOENT);
	CHECK_STR(safecp_check_algorithm(c, 0), "xxh128");
	CHECK_STR(safecp_check_algorithm(c, 1), "sha256");
	CHECK(safecp_check_algorithm(c, 2) == NULL);
	CHECK_INT(safecp_check_place(c, &place), 0);
	CHECK(place.path != NULL && place.fstype != NULL);
	CHECK_INT(safecp_check_progress(c, &p), -ENOENT);
	CHECK_INT(safecp_check_result(c), -ENOENT);
	CHECK_INT(safecp_check_set_dir(c, "/"), -EBUSY);

	run(c, got, algs, 4);
	CHECK_INT(got[0], SAFECP_CHECK_MATCH);     /* a */
	CHECK_INT(got[1], SAFECP_CHECK_DIFFERS);   /* b */
	CHECK_INT(got[2], SAFECP_CHECK_MISSING);   /* gone */
	CHECK_INT(got[3], SAFECP_CHECK_MATCH);     /* sub/c */
	CHECK_STR(algs[0], "xxh128");
	CHECK_STR(algs[3], "sha256");
	CHECK_U64(safecp_check_count(c, SAFECP_CHECK_MATCH), 2);
	CHECK_U64(safecp_check_count(c, SAFECP_CHECK_DIFFERS), 1);
	CHECK_U64(safecp_check_count(c, SAFECP_CHECK_MISSING), 1);
	CHECK_INT(safecp_check_result(c), 2);
	CHECK_INT(safecp_check_progress(c, &p), 0);
	CHECK_U64(p.files_total, 4);
	CHECK_U64(p.files_done, 4);
	CHECK_U64(p.bytes_read, 5 + 5 + 4);
	CHECK(p.sized);
	CHECK(p.read_back != 0);
	safecp_check_free(c);
}

static void c4_of(const char *buf, size_t len, char out[CHECKSUM_TEXT_MAX])
{
	snprintf(out, CHECKSUM_TEXT_MAX, "%s", digest(CHECKSUM_C4, buf, len));
}

/* copy/ascmhl with one generation: same ("abc", verified) and failed
 * ("abc", failed); tamper: the chain's C4 ID is another's. */
static void write_history(bool tamper)
{
	const struct mhl_creator who = { 1700000000, "host", "safecp", "test" };
	char abc[CHECKSUM_TEXT_MAX];
	struct mhl_hash good = { MHL_XXH128, abc, MHL_VERIFIED, 1700000000 };
	struct mhl_hash bad = { MHL_XXH128, abc, MHL_FAILED, 1700000000 };
	const struct mhl_file files[] = {
		{ "same", 3, 1700000000, &good, 1 },
		{ "failed", 3, 1700000000, &bad, 1 },
	};
	struct mhl_generation *g = NULL;
	char name[128], rel[256], c4[CHECKSUM_TEXT_MAX], *xml = NULL, *chain = NULL;
	size_t len = 0, clen = 0;

	snprintf(abc, sizeof(abc), "%s", digest(CHECKSUM_XXH128, "abc", 3));
	CHECK_INT(mhl_generation_new(&who, &g), 0);
	for (size_t i = 0; i < 2; i++)
		CHECK_INT(mhl_generation_add_file(g, &files[i]), 0);
	CHECK_INT(mhl_generation_render(g, &xml, &len), 0);
	CHECK_INT(mhl_generation_file_name(1, "mhl", 1700000000, name, sizeof(name)), 0);
	mkdir(at("mhl/ascmhl"), 0755);
	snprintf(rel, sizeof(rel), "mhl/ascmhl/%s", name);
	put_bytes(rel, xml, len);
	c4_of(tamper ? "other" : xml, tamper ? 5 : len, c4);
	CHECK_INT(mhl_chain_render(&(struct mhl_chain_link){ 1, name, c4 }, 1, &chain, &clen), 0);
	put_bytes("mhl/ascmhl/ascmhl_chain.xml", chain, clen);
	free(xml);
	free(chain);
	mhl_generation_free(g);
}

TEST(mhl_history_the_reference)
{
	enum safecp_check_outcome got[2];
	struct safecp_check_reference ref;
	struct safecp_check_refusal why;
	struct safecp_check *c;

	mkdir(at("mhl"), 0755);
	put("mhl/same", "abc");
	put("mhl/failed", "abc");
	write_history(false);
	c = prepared("mhl", NULL, 0);
	if (!c)
		return;
	CHECK_INT(safecp_check_refusal(c, 0, &why), -ENOENT);
	CHECK_INT(safecp_check_reference(c, &ref), 0);
	CHECK_INT(ref.mhl, 1);
	CHECK(ref.manifest && strstr(ref.manifest, ".mhl"));
	CHECK_INT(ref.lists, 0);
	CHECK_INT(ref.files, 2);
	run(c, got, NULL, 2);
	CHECK_INT(got[0], SAFECP_CHECK_FAILED_BEFORE); /* "failed" sorts first */
	CHECK_INT(got[1], SAFECP_CHECK_MATCH);
	CHECK_INT(safecp_check_result(c), 1);
	safecp_check_free(c);

	write_history(true);
	c = prepared("mhl", NULL, 1);
	CHECK_INT(safecp_check_refusal(c, 0, &why), 0);
	CHECK_INT(why.kind, SAFECP_CHECK_REFUSED_MANIFEST_CHANGED);
	CHECK_STR(why.name, "manifest-changed");
	CHECK(strstr(why.path, "/mhl/ascmhl/0001_mhl_") != NULL);
	CHECK_INT(safecp_check_start(c), -EINVAL);
	safecp_check_free(c);
}

/* A check of dir against sums (NULL: its ascmhl) refused as kind. */
static void refused(const char *dir, const char *sums, enum safecp_check_refusal_kind kind,
		    const char *name, const char *path, enum safecp_record_problem problem,
		    size_t line)
{
	struct safecp_check_refusal why = { 0 };
	struct safecp_check *c = prepared(dir, sums, 1);

	if (!c)
		return;
	if (safecp_check_refusal(c, 0, &why) != 0) {
		FAIL_AT("%s: no refusal, expected %s", dir, name);
		safecp_check_free(c);
		return;
	}
	CHECK_INT(why.kind, kind);
	CHECK_STR(why.name, name);
	CHECK_STR(why.path, path);
	CHECK_INT(why.problem, problem);
	CHECK_INT(why.line, line);
	CHECK_INT(safecp_check_refusal(c, 1, &why), -ENOENT);
	safecp_check_free(c);
}

TEST(refusals_as_kinds)
{
	struct safecp_check *c = NULL;
	struct safecp_check_refusal why;
	static const char *const one[][2] = { { "a", "hello" } };

	CHECK_INT(safecp_check_new(1u << 7, &c), -EINVAL);
	CHECK_INT(safecp_check_new(0, &c), 0);
	CHECK_INT(safecp_check_prepare(c), -EINVAL); /* no directory */
	safecp_check_free(c);
	safecp_check_free(NULL);

	mkdir(at("bare"), 0755);
	refused("bare", NULL, SAFECP_CHECK_REFUSED_NO_HISTORY, "no-history", at("bare/ascmhl"),
		SAFECP_RECORD_NONE, 0);
	refused("bare", "none", SAFECP_CHECK_REFUSED_NO_LISTS, "no-lists", at("none"),
		SAFECP_RECORD_NONE, 0);
	put_list("bad.md5", CHECKSUM_MD5, one, 1);
	put("bad.sha1", "\n0123  short\n");
	refused("bare", "bad", SAFECP_CHECK_REFUSED_LIST, "list-refused", at("bad.sha1"),
		SAFECP_RECORD_BAD_LINE, 2);
	CHECK_INT(symlink("bad.md5", at("link.md5")), 0);
	refused("bare", "link", SAFECP_CHECK_REFUSED_LIST, "list-refused", at("link.md5"),
		SAFECP_RECORD_NOT_REGULAR, 0);
	put("blank.sha256", "\n\n");
	refused("bare", "blank", SAFECP_CHECK_REFUSED_EMPTY, "empty-record", at("bare"),
		SAFECP_RECORD_NONE, 0);
	mkdir(at("hostile"), 0755);
	mkdir(at("hostile/ascmhl"), 0755);
	put("hostile/ascmhl/ascmhl_chain.xml",
	    "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY a \"b\">]>\n<ascmhldirectory/>\n");
	refused("hostile", NULL, SAFECP_CHECK_REFUSED_HISTORY, "history-refused",
		at("hostile/ascmhl/ascmhl_chain.xml"), SAFECP_RECORD_DOCTYPE, 0);

	c = prepared("no/such/dir", NULL, 1);
	CHECK_INT(safecp_check_refusal(c, 0, &why), 0);
	CHECK_INT(why.kind, SAFECP_CHECK_REFUSED_DIR);
	CHECK_INT(why.err, ENOENT);
	safecp_check_free(c);
}

TEST(names_and_cancel)
{
	static const char *const one[][2] = { { "a", "hello" } };
	struct safecp_check *c;

	CHECK_STR(safecp_check_outcome_name(SAFECP_CHECK_MATCH), "match");
	CHECK_STR(safecp_check_outcome_name(SAFECP_CHECK_SIZE_DIFFERS), "size-differs");
	CHECK_STR(safecp_check_outcome_name(SAFECP_CHECK_UNREADABLE), "unreadable");
	CHECK(safecp_check_outcome_name(SAFECP_CHECK_UNREADABLE + 1) == NULL);
	CHECK_STR(safecp_read_back_name(SAFECP_READ_BACK_DEVICE_DROPPED), "device-dropped");
	CHECK(safecp_read_back_name(SAFECP_READ_BACK_CACHED + 1) == NULL);

	mkdir(at("one"), 0755);
	put("one/a", "hello");
	put_list("one.xxh64", CHECKSUM_XXH64, one, 1);
	c = prepared("one", "one", 0);
	if (!c)
		return;
	CHECK_INT(safecp_check_fd(c), -1);
	safecp_check_cancel(c); /* before start: it does not start */
	CHECK_INT(safecp_check_start(c), -ECANCELED);
	safecp_check_free(c);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(lists_each_outcome_its_kind);
	RUN(mhl_history_the_reference);
	RUN(refusals_as_kinds);
	RUN(names_and_cancel);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# cannot remove %s\n", tmp);
	}
	return test_summary();
}
