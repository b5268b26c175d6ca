/* test_mhl.c: lib/mhl written and read back, and what the reader refuses.
 *
 * A generation with awkward names (spaces, quotes, & < >, non-ASCII, a newline, a
 * carriage return, a tab) goes through mhl_generation_render() into a real ascmhl
 * folder with a chain, and mhl_history_read() must give back every path, size, mtime,
 * hash and action. The writer must refuse names XML cannot carry or that climb out of
 * the root. The reader gets hostile documents (an entity bomb, an external entity, a
 * truncated file, a huge attribute, paths out of the root, a symlink, a fifo, deep
 * nesting, XInclude) and must refuse each with its kind, without crashing or reading
 * anything outside the folder. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "mhl/mhl_read.h"
#include "mhl/mhl_write.h"

#define C4_A "c41dF3bGD8iqVcrJJQpS6fEsVgg9iKeNHGCCEhK2C2cGYRm2dx8xeFU1wKbkBsCWdefaz82KeyfbBf8Pfkpm4C56cc"
#define C4_B "c42eZGVoPnaooPQKkZQFrwnTKhsHwi8GZftxNyzKBfx3dZJm5Zzuy6JbTA2eZDLdL8PCPQ51f3SvLLBA7V3fjLZ8Nm"

static char root[256];

static void make_root(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/test_mhl.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		FAIL_AT("mkdtemp: %m");
}

static void remove_root(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		FAIL_AT("%s failed", cmd);
}

static void put(const char *name, const void *data, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		FAIL_AT("write %s: %m", path);
	if (fd >= 0)
		close(fd);
}

static void put_str(const char *name, const char *s)
{
	put(name, s, strlen(s));
}

/* A chain naming one manifest, 0001_root_...Z.mhl (its C4 is not checked here). */
#define GEN1 "0001_root_2026-12-01_152157Z.mhl"

static void put_chain(void)
{
	struct mhl_chain_link link = {1, GEN1, C4_A};
	char *xml;
	size_t len;

	CHECK_INT(mhl_chain_render(&link, 1, &xml, &len), 0);
	put("ascmhl/" MHL_CHAIN_FILE, xml, len);
	free(xml);
}

static const char *const awkward[] = {
	"plain.txt",
	"with space/file name.mov",
	"quote\"and'apostrophe.txt",
	"amp&lt<gt>;&amp;.txt",
	"Gr\xc3\xbc\xc3\x9f" "e/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt",
	"new\nline.txt",
	"carriage\rreturn.txt",
	"tab\there.txt",
	"]]>cdata-end.txt",
	"emoji \xf0\x9f\x8e\xa5.mov",
};
#define N_AWKWARD (sizeof(awkward) / sizeof(*awkward))

static struct mhl_generation *awkward_generation(void)
{
	struct mhl_creator c = {1764602517, "host & <name>", "safecp", "0.1 \"test\""};
	struct mhl_generation *g = NULL;

	CHECK_INT(mhl_generation_new(&c, &g), 0);
	if (!g)
		return NULL;
	CHECK_INT(mhl_generation_add_ignore(g, "*.xxh128"), 0);
	CHECK_INT(mhl_generation_add_ignore(g, "ascmhl"), 0); /* a default: not twice */
	for (size_t i = 0; i < N_AWKWARD; i++) {
		/* added in reverse of the schema's order: the writer sorts them */
		struct mhl_hash h[] = {
			{MHL_XXH128, "0123456789ABCDEF0123456789abcdef", MHL_ORIGINAL, 1764602517},
			{MHL_C4, i % 2 ? C4_A : C4_B, MHL_VERIFIED, 1764602518},
			{MHL_MD5, "d41d8cd98f00b204e9800998ecf8427e", (enum mhl_action)(i % 3), 1764602519},
		};
		struct mhl_file f = {awkward[i], 1000 * i + 1, 1700000000 + (time_t)i, h, 3};

		CHECK_INT(mhl_generation_add_file(g, &f), 0);
	}
	CHECK_INT(mhl_generation_files(g), N_AWKWARD);
	return g;
}

TEST(write_then_read_back)
{
	struct mhl_generation *g;
	struct mhl_history *h = NULL;
	struct mhl_read_problem why;
	const struct mhl_manifest *m;
	const char *const *ignores;
	char *xml = NULL, path[512];
	size_t len = 0, n;

	make_root();
	snprintf(path, sizeof(path), "%s/ascmhl", root);
	mkdir(path, 0755);
	g = awkward_generation();
	if (!g)
		return;
	CHECK_INT(mhl_generation_render(g, &xml, &len), 0);
	mhl_generation_free(g);
	CHECK(xml && len == strlen(xml));
	put("ascmhl/" GEN1, xml, len);
	put_chain();
	CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_OK);
	if (!h) {
		FAIL_AT("read: %s in '%s' line %d", mhl_read_kind_name(why.kind), why.file, why.line);
		goto out;
	}
	CHECK_INT(mhl_history_next_sequence(h), 2);
	CHECK_STR(mhl_history_newest_link(h)->c4, C4_A);
	CHECK_STR(mhl_history_newest_link(h)->path, GEN1);
	{
		size_t blen;
		const void *bytes = mhl_history_bytes(h, &blen);

		CHECK(blen == len && memcmp(bytes, xml, len) == 0);
	}
	m = mhl_history_newest(h);
	CHECK_INT(mhl_manifest_count(m), N_AWKWARD);
	for (size_t i = 0; i < N_AWKWARD; i++) {
		const struct mhl_entry *e = mhl_manifest_find(m, awkward[i]);

		if (!e) {
			FAIL_AT("'%s' not read back", awkward[i]);
			continue;
		}
		CHECK(e->has_size && e->has_mtime);
		CHECK_U64(e->size, 1000 * i + 1);
		CHECK_INT(e->mtime.tv_sec, 1700000000 + (time_t)i);
		CHECK_STR(e->hash[MHL_XXH128], "0123456789abcdef0123456789abcdef");
		CHECK_STR(e->hash[MHL_C4], i % 2 ? C4_A : C4_B);
		CHECK_STR(e->hash[MHL_MD5], "d41d8cd98f00b204e9800998ecf8427e");
		CHECK(!e->hash[MHL_SHA1] && !e->hash[MHL_XXH64] && !e->hash[MHL_XXH3]);
		CHECK_INT(e->action[MHL_XXH128], MHL_ORIGINAL);
		CHECK_INT(e->action[MHL_C4], MHL_VERIFIED);
		CHECK_INT(e->action[MHL_MD5], (int)(i % 3));
		CHECK(e->has_action[MHL_MD5]);
	}
	CHECK(mhl_manifest_find(m, "plain") == NULL);
	CHECK(mhl_manifest_find(m, "new line.txt") == NULL); /* the newline kept, not folded */
	n = mhl_manifest_ignores(m, &ignores);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_STR(ignores[0], ".DS_Store");
		CHECK_STR(ignores[1], "ascmhl");
		CHECK_STR(ignores[2], "ascmhl/");
		CHECK_STR(ignores[3], "*.xxh128");
	}
out:
	mhl_history_free(h);
	free(xml);
	remove_root();
}

/* Where needle first occurs in hay after from; -1 when it does not. */
static long at(const char *hay, const char *needle, long from)
{
	const char *p = strstr(hay + from, needle);

	return p ? p - hay : -1;
}

TEST(schema_order_and_escapes)
{
	struct mhl_generation *g = awkward_generation();
	struct mhl_dir_hash root_hash = {MHL_XXH128, "00000000000000000000000000000001",
					 "00000000000000000000000000000002", 1764602517};
	char *xml = NULL;
	size_t len;
	long hash;

	if (!g)
		return;
	CHECK_INT(mhl_generation_add_directory(g, "with space", 1700000000, &root_hash, 1), 0);
	CHECK_INT(mhl_generation_set_root(g, &root_hash, 1), 0);
	CHECK_INT(mhl_generation_render(g, &xml, &len), 0);
	mhl_generation_free(g);
	if (!xml)
		return;
	CHECK(strncmp(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 38) == 0);
	CHECK(at(xml, "<hashlist version=\"2.0\" xmlns=\"urn:ASC:MHL:v2.0\">", 0) > 0);
	/* hashlist: creatorinfo, processinfo, hashes; creatorinfo: date, host, tool */
	CHECK(at(xml, "<creatorinfo>", 0) < at(xml, "<processinfo>", 0));
	CHECK(at(xml, "<processinfo>", 0) < at(xml, "<hashes>", 0));
	CHECK(at(xml, "<creationdate>", 0) < at(xml, "<hostname>host &amp; &lt;name&gt;</hostname>", 0));
	CHECK(at(xml, "<hostname>", 0) < at(xml, "<tool version=\"0.1 &quot;test&quot;\">safecp</tool>", 0));
	/* processinfo: process, roothash, ignore */
	CHECK(at(xml, "<process>transfer</process>", 0) > 0);
	CHECK(at(xml, "<process>", 0) < at(xml, "<roothash>", 0));
	CHECK(at(xml, "<roothash>", 0) < at(xml, "<ignore>", 0));
	CHECK(at(xml, "<pattern>*.xxh128</pattern>", 0) > 0);
	/* hashes: the directory first; in each hash: path, then md5, c4, xxh128 */
	CHECK(at(xml, "<directoryhash>", 0) < at(xml, "<hash>", 0));
	hash = at(xml, "<hash>", 0);
	CHECK(hash > 0 && at(xml, "<path size=", hash) < at(xml, "<md5 ", hash));
	CHECK(at(xml, "<md5 ", hash) < at(xml, "<c4 ", hash));
	CHECK(at(xml, "<c4 ", hash) < at(xml, "<xxh128 ", hash));
	CHECK(at(xml, "<xxh128 ", hash) < at(xml, "</hash>", hash));
	/* the names escaped as XML wants them (the carriage return as a character
	 * reference, or a parser would read it as a newline) */
	CHECK(at(xml, ">amp&amp;lt&lt;gt&gt;;&amp;amp;.txt</path>", 0) > 0);
	CHECK(at(xml, ">carriage&#13;return.txt</path>", 0) > 0);
	CHECK(at(xml, ">]]&gt;cdata-end.txt</path>", 0) > 0);
	CHECK(at(xml, "action=\"original\"", 0) > 0 && at(xml, "action=\"failed\"", 0) > 0);
	free(xml);
}

TEST(writer_refuses_what_xml_or_the_root_cannot_hold)
{
	struct mhl_creator c = {0, "h", "safecp", "1"};
	struct mhl_hash ok = {MHL_XXH64, "0123456789abcdef", MHL_ORIGINAL, 0};
	struct mhl_hash two[] = {ok, ok};
	struct mhl_hash bad_hex = {MHL_XXH64, "0123456789abcdeg", MHL_ORIGINAL, 0};
	struct mhl_hash short_c4 = {MHL_C4, "c4abc", MHL_ORIGINAL, 0};
	struct mhl_hash bad_action = {MHL_XXH64, "0123456789abcdef", (enum mhl_action)7, 0};
	static const char *const refused[] = {
		"", "/abs", "a//b", "a/", "./a", "a/./b", "../a", "a/../../b", "a/..",
		"bad\xff" "utf8", "over\xc0\xaf" "long", "ctl\x01" "char", "esc\x1b", "nonchar\xef\xbf\xbe",
		"surrogate\xed\xa0\x80",
	};
	struct mhl_generation *g = NULL;
	struct mhl_chain_link bad_link = {2, GEN1, C4_A}, bad_c4 = {1, GEN1, "c4xyz"};
	char *xml;
	size_t len;

	CHECK_INT(mhl_generation_new(&c, &g), 0);
	if (!g)
		return;
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		struct mhl_file f = {refused[i], 1, 0, &ok, 1};

		if (mhl_generation_add_file(g, &f) != -EILSEQ)
			FAIL_AT("path %zu ('%s') not refused with EILSEQ", i, refused[i]);
	}
	{
		struct mhl_file f = {"a", 1, 0, &ok, 1};
		struct mhl_file none = {"b", 1, 0, &ok, 0};
		struct mhl_file twice = {"b", 1, 0, two, 2};
		struct mhl_file hex = {"b", 1, 0, &bad_hex, 1};
		struct mhl_file c4 = {"b", 1, 0, &short_c4, 1};
		struct mhl_file act = {"b", 1, 0, &bad_action, 1};

		CHECK_INT(mhl_generation_add_file(g, &f), 0);
		CHECK_INT(mhl_generation_add_file(g, &f), -EEXIST);
		CHECK_INT(mhl_generation_add_file(g, &none), -EINVAL);
		CHECK_INT(mhl_generation_add_file(g, &twice), -EINVAL);
		CHECK_INT(mhl_generation_add_file(g, &hex), -EINVAL);
		CHECK_INT(mhl_generation_add_file(g, &c4), -EINVAL);
		CHECK_INT(mhl_generation_add_file(g, &act), -EINVAL);
		CHECK_INT(mhl_generation_files(g), 1);
	}
	/* many files: the duplicate table grows and still finds every one */
	for (int i = 0; i < 5000; i++) {
		char name[32];
		struct mhl_file f = {name, 1, 0, &ok, 1};

		snprintf(name, sizeof(name), "d%d/f%d", i % 7, i);
		if (mhl_generation_add_file(g, &f) != 0)
			FAIL_AT("add %s", name);
	}
	{
		struct mhl_file f = {"d2/f1234", 1, 0, &ok, 1}; /* 1234 % 7 == 2 */

		CHECK_INT(mhl_generation_add_file(g, &f), -EEXIST);
	}
	CHECK_INT(mhl_generation_add_ignore(g, "two\nlines"), -EINVAL);
	mhl_generation_free(g);
	c.tool_name = "bad\x01";
	g = NULL;
	CHECK_INT(mhl_generation_new(&c, &g), -EINVAL);
	CHECK(g == NULL);
	CHECK_INT(mhl_chain_render(&bad_link, 1, &xml, &len), -EINVAL);
	CHECK_INT(mhl_chain_render(&bad_c4, 1, &xml, &len), -EINVAL);
	CHECK_INT(mhl_chain_render(&bad_c4, 0, &xml, &len), -EINVAL);
}

TEST(file_names_and_dates)
{
	char name[128];
	struct timespec ts;

	CHECK_INT(mhl_generation_file_name(3, "A001", 1764602517, name, sizeof(name)), 0);
	CHECK_STR(name, "0003_A001_2025-12-01_152157Z.mhl");
	CHECK_INT(mhl_generation_file_name(12345, "Card 1", 0, name, sizeof(name)), 0);
	CHECK_STR(name, "12345_Card 1_1970-01-01_000000Z.mhl");
	CHECK_INT(mhl_generation_file_name(0, "A", 0, name, sizeof(name)), -EINVAL);
	CHECK_INT(mhl_generation_file_name(1, "a/b", 0, name, sizeof(name)), -EINVAL);
	CHECK_INT(mhl_generation_file_name(1, "", 0, name, sizeof(name)), -EINVAL);
	CHECK_INT(mhl_generation_file_name(1, "A", 0, name, 10), -ENAMETOOLONG);
	CHECK_INT(mhl_generation_number("0003_A001_2025-12-01_152157Z.mhl"), 3);
	CHECK_INT(mhl_generation_number("12345_x.mhl"), 12345);
	CHECK_INT(mhl_generation_number("003_x.mhl"), 0);
	CHECK_INT(mhl_generation_number("0003_x.xml"), 0);
	CHECK_INT(mhl_generation_number("0003x.mhl"), 0);
	CHECK_INT(mhl_generation_number("0003_../x.mhl"), 0);
	CHECK_INT(mhl_generation_number("99999999999_x.mhl"), 0);

	CHECK(mhl_date_parse("2025-12-01T15:21:57Z", &ts) && ts.tv_sec == 1764602517);
	CHECK(mhl_date_parse("2025-12-01T16:21:57+01:00", &ts) && ts.tv_sec == 1764602517);
	CHECK(mhl_date_parse("2025-12-01T10:21:57-05:00", &ts) && ts.tv_sec == 1764602517);
	CHECK(mhl_date_parse("2025-12-01T15:21:57.25+00:00", &ts) && ts.tv_sec == 1764602517 &&
	      ts.tv_nsec == 250000000);
	CHECK(mhl_date_parse("2025-12-01T15:21:57", &ts) && ts.tv_sec == 1764602517);
	CHECK(!mhl_date_parse("2025-12-01 15:21:57Z", &ts));
	CHECK(!mhl_date_parse("2025-13-01T15:21:57Z", &ts));
	CHECK(!mhl_date_parse("2025-12-01T15:21:57+1:00", &ts));
	CHECK(!mhl_date_parse("2025-12-01T15:21:57Zjunk", &ts));
	CHECK(!mhl_date_parse("2025-12-01T15:21:57.", &ts));
	CHECK(!mhl_date_parse("", &ts));

	/* local time with its offset, read back to the same instant */
	setenv("TZ", "XYZ+05:30", 1);
	tzset();
	{
		char date[MHL_DATE_MAX];

		mhl_date_format(1764602517, date);
		CHECK_STR(date, "2025-12-01T09:51:57-05:30");
		CHECK(mhl_date_parse(date, &ts) && ts.tv_sec == 1764602517);
	}
	unsetenv("TZ");
	tzset();
}

/* One hostile manifest: the chain names it, the read must fail with kind. */
static void expect_manifest(const char *body, size_t len, enum mhl_read_kind kind, const char *what)
{
	struct mhl_history *h = NULL;
	struct mhl_read_problem why;
	enum mhl_read_kind k;

	put("ascmhl/" GEN1, body, len);
	k = mhl_history_read(root, &h, &why);
	if (k != kind)
		FAIL_AT("%s: read gave %s (file '%s' line %d), expected %s", what, mhl_read_kind_name(k),
			why.file, why.line, mhl_read_kind_name(kind));
	else if (k != MHL_READ_OK && (why.kind != kind || strcmp(why.file, GEN1) != 0))
		FAIL_AT("%s: problem says %s in '%s'", what, mhl_read_kind_name(why.kind), why.file);
	if ((h != NULL) != (kind == MHL_READ_OK))
		FAIL_AT("%s: history %s", what, h ? "returned on failure" : "missing");
	mhl_history_free(h);
}

#define HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define OPEN "<hashlist version=\"2.0\" xmlns=\"urn:ASC:MHL:v2.0\">"
#define INFO "<creatorinfo><creationdate>2025-12-01T15:21:57Z</creationdate><hostname>h</hostname>" \
	"<tool version=\"1\">t</tool></creatorinfo><processinfo><process>transfer</process></processinfo>"
#define HASH(path) "<hash><path size=\"1\">" path "</path><xxh64 action=\"original\">0123456789abcdef</xxh64></hash>"
#define DOC(hashes) HEAD OPEN INFO "<hashes>" hashes "</hashes></hashlist>\n"

static void expect_str(const char *body, enum mhl_read_kind kind, const char *what)
{
	expect_manifest(body, strlen(body), kind, what);
}

TEST(reader_refuses_hostile_manifests)
{
	char path[512], *big;
	size_t n;

	make_root();
	snprintf(path, sizeof(path), "%s/ascmhl", root);
	mkdir(path, 0755);
	put_chain();

	expect_str(DOC(HASH("a.txt")), MHL_READ_OK, "the plain document");
	expect_str(HEAD "<!DOCTYPE hashlist [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">"
		   "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">"
		   "<!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\"><!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">"
		   "<!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\"><!ENTITY h \"&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;\">]>"
		   OPEN INFO "<hashes>" HASH("&h;") "</hashes></hashlist>",
		   MHL_READ_DOCTYPE, "entity bomb");
	expect_str(HEAD "<!DOCTYPE hashlist [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>" OPEN INFO
		   "<hashes>" HASH("&x;") "</hashes></hashlist>",
		   MHL_READ_DOCTYPE, "external entity");
	expect_str(HEAD "<!DOCTYPE hashlist SYSTEM \"http://127.0.0.1:9/x.dtd\">" OPEN INFO
		   "<hashes>" HASH("a") "</hashes></hashlist>",
		   MHL_READ_DOCTYPE, "external DTD");
	expect_str(DOC(HASH("&undeclared;")), MHL_READ_MALFORMED, "undeclared entity");
	expect_str(DOC(HASH("a&#0;b")), MHL_READ_MALFORMED, "NUL character reference");
	expect_str(DOC(HASH("../../etc/passwd")), MHL_READ_BAD_PATH, "path out of the root");
	expect_str(DOC(HASH("/etc/passwd")), MHL_READ_BAD_PATH, "absolute path");
	expect_str(DOC(HASH("a/./b")), MHL_READ_BAD_PATH, "dot component");
	expect_str(DOC(HASH("")), MHL_READ_BAD_PATH, "empty path");
	expect_str(DOC(HASH("a") HASH("a")), MHL_READ_DUPLICATE, "path listed twice");
	expect_str(DOC("<hash><xxh64>0123456789abcdef</xxh64></hash>"), MHL_READ_BAD_VALUE, "no path");
	expect_str(DOC("<hash><path size=\"-1\">a</path><xxh64>0123456789abcdef</xxh64></hash>"),
		   MHL_READ_BAD_VALUE, "negative size");
	expect_str(DOC("<hash><path size=\"99999999999999999999\">a</path></hash>"), MHL_READ_BAD_VALUE,
		   "size past 64 bits");
	expect_str(DOC("<hash><path lastmodificationdate=\"yesterday\">a</path></hash>"),
		   MHL_READ_BAD_VALUE, "bad date");
	expect_str(DOC("<hash><path>a</path><xxh64>0123</xxh64></hash>"), MHL_READ_BAD_VALUE, "short hash");
	expect_str(DOC("<hash><path>a</path><xxh64 action=\"trusted\">0123456789abcdef</xxh64></hash>"),
		   MHL_READ_BAD_VALUE, "unknown action");
	expect_str(DOC("<hash><path>a</path><xxh64>0123456789abcdef</xxh64><xxh64>0123456789abcdef</xxh64></hash>"),
		   MHL_READ_DUPLICATE, "format twice");
	expect_str(HEAD "<hashlist version=\"2.0\" xmlns=\"urn:ASC:MHL:v1.1\">" INFO "</hashlist>",
		   MHL_READ_NOT_MHL, "other namespace");
	expect_str(HEAD "<hashlist version=\"1.1\" xmlns=\"urn:ASC:MHL:v2.0\">" INFO "</hashlist>",
		   MHL_READ_NOT_MHL, "other version");
	expect_str(HEAD "<ascmhldirectory xmlns=\"urn:ASC:MHL:DIRECTORY:v2.0\"/>", MHL_READ_NOT_MHL,
		   "a chain where a manifest should be");
	expect_str("", MHL_READ_MALFORMED, "empty file");
	expect_str(DOC("<hash><path>a</path></hash><xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" "
		       "href=\"/etc/passwd\" parse=\"text\"/>"),
		   MHL_READ_OK, "XInclude is not run (the element is foreign and skipped)");

	/* truncated: every cut of a good document fails cleanly */
	{
		const char *doc = DOC(HASH("a") HASH("b"));
		size_t len = strlen(doc);

		for (size_t cut = 0; cut < len - 2; cut += 7)
			expect_manifest(doc, cut, MHL_READ_MALFORMED, "truncated document");
	}
	/* a huge attribute (20 MB) and a huge path (5000 bytes) */
	n = 20u << 20;
	big = malloc(n + 512);
	if (big) {
		int len = snprintf(big, 512, HEAD OPEN INFO "<hashes><hash><path size=\"");

		memset(big + len, '7', n);
		strcpy(big + len + n, "\">a</path></hash></hashes></hashlist>");
		/* libxml2 refuses it (10 MB is its limit without XML_PARSE_HUGE) */
		expect_manifest(big, strlen(big), MHL_READ_MALFORMED, "huge attribute");
		/* 1 MB: libxml2 takes it, the size check does not */
		strcpy(big + len + (1u << 20), "\">a</path></hash></hashes></hashlist>");
		expect_manifest(big, strlen(big), MHL_READ_BAD_VALUE, "long attribute");
		len = snprintf(big, 512, HEAD OPEN INFO "<hashes><hash><path>");
		memset(big + len, 'p', 5000);
		strcpy(big + len + 5000, "</path></hash></hashes></hashlist>");
		expect_manifest(big, strlen(big), MHL_READ_BAD_PATH, "huge path");
		/* deep nesting: libxml2's depth limit, and no recursion of ours */
		len = snprintf(big, 512, HEAD OPEN INFO "<hashes><hash><path>a</path><metadata>");
		for (int i = 0; i < 100000; i++)
			memcpy(big + len + 3 * i, "<x>", 3);
		strcpy(big + len + 300000, "</metadata></hash></hashes></hashlist>");
		expect_manifest(big, strlen(big), MHL_READ_MALFORMED, "deep nesting");
		free(big);
	}
	/* the manifest a symlink (to a file outside) or a fifo */
	snprintf(path, sizeof(path), "%s/ascmhl/" GEN1, root);
	unlink(path);
	CHECK_INT(symlink("/etc/passwd", path), 0);
	{
		struct mhl_history *h = NULL;
		struct mhl_read_problem why;

		CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_NOT_REGULAR);
		unlink(path);
		CHECK_INT(mkfifo(path, 0644), 0);
		CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_NOT_REGULAR);
		unlink(path);
		CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_IO);
		CHECK_INT(why.err, ENOENT);
		CHECK_STR(why.file, GEN1);
		CHECK(h == NULL);
	}
	remove_root();
}

static void expect_chain(const char *body, enum mhl_read_kind kind, const char *what)
{
	struct mhl_history *h = NULL;
	struct mhl_read_problem why;
	enum mhl_read_kind k;

	put_str("ascmhl/" MHL_CHAIN_FILE, body);
	k = mhl_history_read(root, &h, &why);
	if (k != kind)
		FAIL_AT("%s: read gave %s (file '%s' line %d), expected %s", what, mhl_read_kind_name(k),
			why.file, why.line, mhl_read_kind_name(kind));
	mhl_history_free(h);
}

#define CHAIN_OPEN HEAD "<ascmhldirectory xmlns=\"urn:ASC:MHL:DIRECTORY:v2.0\">"
#define LINK(seq, path, c4) "<hashlist sequencenr=\"" seq "\"><path>" path "</path><c4>" c4 "</c4></hashlist>"

TEST(reader_refuses_hostile_chains)
{
	char path[512];
	struct mhl_history *h = NULL;
	struct mhl_read_problem why;

	make_root();
	CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_NO_HISTORY);
	snprintf(path, sizeof(path), "%s/ascmhl", root);
	mkdir(path, 0755);
	CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_NO_HISTORY);
	put_str("ascmhl/" GEN1, DOC(HASH("a")));
	put_str("ascmhl/0002_root_2026-12-02_000000Z.mhl", DOC(HASH("b")));

	expect_chain(CHAIN_OPEN LINK("1", GEN1, C4_A) "</ascmhldirectory>", MHL_READ_OK, "one link");
	/* the newest is the highest number, whatever the order in the file */
	put_str("ascmhl/" MHL_CHAIN_FILE, CHAIN_OPEN LINK("2", "0002_root_2026-12-02_000000Z.mhl", C4_B)
		LINK("1", GEN1, C4_A) "</ascmhldirectory>");
	CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_OK);
	if (h) {
		CHECK_INT(mhl_history_next_sequence(h), 3);
		CHECK_STR(mhl_history_newest_link(h)->c4, C4_B);
		CHECK(mhl_manifest_find(mhl_history_newest(h), "b") != NULL);
		CHECK(mhl_manifest_find(mhl_history_newest(h), "a") == NULL);
		CHECK_INT(mhl_chain_count(mhl_history_chain(h)), 2);
		mhl_history_free(h);
	}
	expect_chain(CHAIN_OPEN "</ascmhldirectory>", MHL_READ_BAD_CHAIN, "no link");
	expect_chain(CHAIN_OPEN LINK("2", GEN1, C4_A) "</ascmhldirectory>", MHL_READ_BAD_CHAIN,
		     "number and name disagree");
	expect_chain(CHAIN_OPEN LINK("1", "../0001_x.mhl", C4_A) "</ascmhldirectory>", MHL_READ_BAD_CHAIN,
		     "a path out of the folder");
	expect_chain(CHAIN_OPEN LINK("1", "/etc/0001_x.mhl", C4_A) "</ascmhldirectory>", MHL_READ_BAD_CHAIN,
		     "an absolute path");
	expect_chain(CHAIN_OPEN LINK("1", GEN1, "c4short") "</ascmhldirectory>", MHL_READ_BAD_CHAIN,
		     "a bad C4 ID");
	expect_chain(CHAIN_OPEN LINK("x", GEN1, C4_A) "</ascmhldirectory>", MHL_READ_BAD_CHAIN,
		     "a bad number");
	expect_chain(CHAIN_OPEN LINK("1", GEN1, C4_A) LINK("1", GEN1, C4_A) "</ascmhldirectory>",
		     MHL_READ_DUPLICATE, "a number twice");
	expect_chain(CHAIN_OPEN LINK("1", GEN1, C4_A), MHL_READ_MALFORMED, "truncated");
	expect_chain(HEAD "<!DOCTYPE a [<!ENTITY x SYSTEM \"/etc/passwd\">]>"
		     "<ascmhldirectory xmlns=\"urn:ASC:MHL:DIRECTORY:v2.0\">"
		     LINK("1", "&x;", C4_A) "</ascmhldirectory>", MHL_READ_DOCTYPE, "a DOCTYPE");
	expect_chain(DOC(HASH("a")), MHL_READ_NOT_MHL, "a manifest where the chain should be");

	/* the chain a symlink; the folder a symlink */
	snprintf(path, sizeof(path), "%s/ascmhl/" MHL_CHAIN_FILE, root);
	unlink(path);
	CHECK_INT(symlink(GEN1, path), 0);
	CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_NOT_REGULAR);
	remove_root();
	make_root();
	snprintf(path, sizeof(path), "%s/ascmhl", root);
	CHECK_INT(symlink("/etc", path), 0);
	CHECK_INT(mhl_history_read(root, &h, &why), MHL_READ_NOT_REGULAR);
	remove_root();
}

TEST(names_of_formats_actions_kinds)
{
	for (int f = 0; f < MHL_FORMAT_COUNT; f++)
		CHECK_INT(mhl_format_from_name(mhl_format_name((enum mhl_hash_format)f)), f);
	for (int a = 0; a < MHL_ACTION_COUNT; a++)
		CHECK_INT(mhl_action_from_name(mhl_action_name((enum mhl_action)a)), a);
	CHECK_INT(mhl_format_from_name("sha256"), -1);
	CHECK_INT(mhl_format_from_name("xxh32"), -1);
	CHECK_STR(mhl_read_kind_name(MHL_READ_DOCTYPE), "doctype");
	CHECK_STR(mhl_read_kind_name(MHL_READ_NO_MEMORY), "no-memory");
	CHECK(mhl_hash_valid(MHL_C4, C4_A));
	CHECK(!mhl_hash_valid(MHL_C4, "c40dF3bGD8iqVcrJJQpS6fEsVgg9iKeNHGCCEhK2C2cGYRm2dx8xeFU1wKbkBsCWdefaz82KeyfbBf8Pfkpm4C56cc"));
	CHECK(mhl_hash_valid(MHL_SHA1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"));
	CHECK(!mhl_hash_valid(MHL_SHA1, "da39a3ee5e6b4b0d3255bfef95601890afd8070"));
}

int main(void)
{
	TEST_PLAN(7);
	RUN(write_then_read_back);
	RUN(schema_order_and_escapes);
	RUN(writer_refuses_what_xml_or_the_root_cannot_hold);
	RUN(file_names_and_dates);
	RUN(reader_refuses_hostile_manifests);
	RUN(reader_refuses_hostile_chains);
	RUN(names_of_formats_actions_kinds);
	return test_summary();
}
