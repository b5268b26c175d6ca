/* test_api_copy.c: <safecp/copy.h> as a client sees it, on small trees
 * in /tmp (SAFECP_COPY_SYSTEM_DISK: /tmp is no stick): every option of
 * safecp(1) set through the public calls (refused values, a second mode,
 * too late), checksum lists and an ASC MHL generation written beside a
 * copy, a pack, an unpack whose unsafe entry is refused or left out, and
 * the refusals of lists and histories as their kinds and names.  Only
 * public calls; the trees are made with the shell. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <safecp/copy.h>
#include <safecp/copy_plan.h>

#include "test.h"

static char tmp[] = "/tmp/test_api_copy.XXXXXX";

static void sh(const char *cmd)
{
	char line[1024];

	snprintf(line, sizeof(line), "cd %s && %s", tmp, cmd);
	if (system(line) != 0)
		FAIL_AT("%s failed", cmd);
}

static struct safecp_copy *copy_of(unsigned flags, const char *src, const char *dest)
{
	struct safecp_copy *c = NULL;

	CHECK_INT(safecp_copy_new(flags | SAFECP_COPY_RECURSIVE | SAFECP_COPY_SYSTEM_DISK, &c), 0);
	CHECK_INT(safecp_copy_add_source(c, src), 0);
	CHECK_INT(safecp_copy_add_dest(c, dest), 0);
	return c;
}

/* Events until the one destination's end; its result. */
static int run_to_end(struct safecp_copy *c)
{
	struct safecp_copy_event ev;

	CHECK_INT(safecp_copy_start(c), 0);
	for (;;) {
		int r = safecp_copy_poll(c, 10000, &ev);

		if (r != 1) {
			FAIL_AT("poll returned %d", r);
			return -1;
		}
		if (ev.kind == SAFECP_EVENT_DEST_END)
			return safecp_copy_result(c, 0);
	}
}

static bool exists(const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return stat(path, &st) == 0 && st.st_size > 0;
}

TEST(options_refuse_what_the_library_does_not_know)
{
	const char *crc[] = { "sha256", "crc32" }, *sha[] = { "sha256" };
	struct safecp_copy *c = copy_of(0, "src", "d");

	CHECK_INT(safecp_copy_new(1u << 22, &(struct safecp_copy *){ NULL }), -EINVAL);
	{
		struct safecp_copy *r = NULL;

		CHECK_INT(safecp_copy_new(SAFECP_COPY_RESUME, &r), 0); /* 0.3.0 */
		safecp_copy_free(r);
		r = NULL;
		CHECK_INT(safecp_copy_new(SAFECP_COPY_KEEP_LINKS, &r), 0); /* 0.5.0 */
		safecp_copy_free(r);
	}
	CHECK_INT(safecp_copy_set_strategy(c, "fast", 0), -EINVAL);
	CHECK_INT(safecp_copy_set_strategy(c, "window", 8 << 20), 0);
	CHECK_INT(safecp_copy_set_checksums(c, crc, 2, NULL), -EINVAL);
	CHECK_INT(safecp_copy_set_checksums(c, NULL, 0, "sums"), -EINVAL);
	CHECK_INT(safecp_copy_set_skip_identical(c, "maybe"), -EINVAL);
	CHECK_INT(safecp_copy_set_pack(c, "rar"), -EINVAL);
	CHECK_INT(safecp_copy_set_pack(c, "tar.zst"), 0);
	CHECK_INT(safecp_copy_set_unpack(c, NULL), -EINVAL); /* a second mode */
	CHECK_INT(safecp_copy_add_dest_beneath(c, "d", NULL), -EINVAL);
	CHECK_INT(safecp_copy_prepare(c), 1); /* src is not there */
	CHECK_INT(safecp_copy_set_checksums(c, sha, 1, NULL), -EBUSY);
	CHECK_INT(safecp_copy_prepare(c), -EBUSY);
	/* its plan was refused: nothing to read, and no crash reading it */
	CHECK_INT(safecp_copy_entry(c, 0, 0, &(struct safecp_entry){ 0 }, sizeof(struct safecp_entry)),
		  -ENOENT);
	CHECK_INT(safecp_copy_stale(c, 0, 0, &(const char *){ NULL }, &(uint64_t){ 0 }), -ENOENT);
	safecp_copy_free(c);
}

TEST(lists_and_a_manifest_are_written_beside_the_copy)
{
	const char *algs[] = { "md5", "sha256" };
	struct safecp_copy *c;

	sh("mkdir -p src/sub d && echo one > src/a && echo two > src/sub/b");
	c = copy_of(SAFECP_COPY_MHL, "src", "d");
	CHECK_INT(safecp_copy_set_checksums(c, algs, 2, "d/offload"), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	CHECK(exists("d/src/sub/b"));
	sh("cd d && md5sum --quiet -c offload.md5 && sha256sum --quiet -c offload.sha256");
	sh("grep -q 'src/sub/b' d/offload.sha256 && test -s d/ascmhl/ascmhl_chain.xml");
	/* the next run continues the history: a second generation */
	c = copy_of(SAFECP_COPY_MHL, "src", "d");
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	sh("test $(ls d/ascmhl/*.mhl | wc -l) = 2");
}

/* The first refusal's kind and name. */
static void refused_as(struct safecp_copy *c, enum safecp_refusal_kind kind, const char *name,
		       struct safecp_refusal *r)
{
	CHECK(safecp_copy_prepare(c) >= 1);
	CHECK_INT(safecp_copy_refusal(c, 0, r), 0);
	CHECK_INT(r->kind, kind);
	CHECK_STR(r->name, name);
}

TEST(lists_and_histories_that_cannot_be_written_are_refused_as_kinds)
{
	const char *md5[] = { "md5" };
	struct safecp_refusal r = { 0 };
	struct safecp_copy *c;

	sh("mkdir -p src e/ascmhl && echo one > src/a && echo junk > e/ascmhl/ascmhl_chain.xml");
	c = copy_of(0, "src", "e");
	CHECK_INT(safecp_copy_set_checksums(c, md5, 1, "nowhere/x"), 0);
	refused_as(c, SAFECP_REFUSED_LIST, "sums-unwritable", &r);
	CHECK_STR(r.path, "nowhere/x.md5");
	CHECK_INT(r.err, ENOENT);
	safecp_copy_free(c);
	c = copy_of(0, "src/a", "e");
	CHECK_INT(safecp_copy_set_checksums(c, md5, 1, "e/a"), 0); /* e/a.md5 ... */
	safecp_copy_free(c);
	sh("cp src/a src/a.md5");
	c = copy_of(0, "src/a.md5", "e");
	CHECK_INT(safecp_copy_set_checksums(c, md5, 1, "e/a"), 0); /* ... is copied */
	refused_as(c, SAFECP_REFUSED_LIST_CLASH, "sums-clash", &r);
	safecp_copy_free(c);
	c = copy_of(SAFECP_COPY_MHL, "src", "e");
	refused_as(c, SAFECP_REFUSED_HISTORY, "mhl-damaged", &r);
	CHECK_STR(r.path, "ascmhl_chain.xml");
	{
		struct safecp_refusal_detail x = { 0 };

		CHECK_INT(safecp_copy_refusal_detail(c, 0, &x, sizeof(x)), 0);
		CHECK_INT(x.problem, SAFECP_RECORD_MALFORMED);
		CHECK(!x.deferred);
		CHECK_INT(safecp_copy_refusal_detail(c, 1, &x, sizeof(x)), -ENOENT);
	}
	safecp_copy_free(c);
	CHECK(!exists("e/src/a"));
}

TEST(pack_writes_one_archive)
{
	struct safecp_copy *c;

	sh("mkdir -p card/DCIM p && echo photo > card/DCIM/1.jpg");
	c = copy_of(0, "card", "p");
	CHECK_INT(safecp_copy_set_pack(c, "tar"), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	sh("tar -tf p/card.tar | grep -q 'DCIM/1.jpg'");
}

TEST(unpack_refuses_an_unsafe_entry_or_leaves_it_out)
{
	struct safecp_unsafe_entry e;
	struct safecp_refusal r;
	struct safecp_note n;
	struct safecp_copy *c;

	sh("mkdir -p u && python3 -c \"import tarfile, io; t = tarfile.open('bad.tar', 'w'); "
	   "[t.addfile(tarfile.TarInfo(n), io.BytesIO(b'')) for n in ('ok.txt', '../evil')]\"");
	c = copy_of(0, "bad.tar", "u");
	CHECK_INT(safecp_copy_set_unpack(c, tmp), 0);
	refused_as(c, SAFECP_REFUSED_UNSAFE_ENTRIES, "unsafe-entries", &r);
	CHECK_U64(r.need, 1);
	CHECK_INT(safecp_copy_unsafe_entry(c, 0, &e, sizeof(e)), 0);
	CHECK_STR(e.name, "../evil");
	CHECK_STR(e.why, "dotdot");
	CHECK_STR(e.archive, "bad.tar");
	CHECK_INT(safecp_copy_unsafe_entry(c, 1, &e, sizeof(e)), -ENOENT);
	safecp_copy_free(c);
	c = copy_of(SAFECP_COPY_SKIP_UNSAFE, "bad.tar", "u");
	CHECK_INT(safecp_copy_set_unpack(c, NULL), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(safecp_copy_note(c, 0, &n, sizeof(n)), 0);
	CHECK_INT(n.kind, SAFECP_NOTE_LEFT_OUT);
	CHECK_U64(n.count, 1);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	CHECK(access("u/ok.txt", F_OK) == 0 && access("evil", F_OK) < 0);
}

TEST(the_plan_its_entries_target_and_strategy_are_readable)
{
	struct safecp_target_facts f;
	struct safecp_write_plan w;
	struct safecp_copy_plan p;
	struct safecp_entry e;
	struct safecp_copy *c;
	size_t files = 0;

	/* v/sub/f is on w already, the same size and time */
	sh("mkdir -p v/sub w/v/sub && echo 12345 > v/sub/f && ln -s f v/sub/l && "
	   "cp -p v/sub/f w/v/sub/f");
	c = copy_of(SAFECP_COPY_DRY_RUN, "v", "w");
	CHECK_INT(safecp_copy_plan(c, 0, &p, sizeof(p)), -ENOENT); /* not prepared */
	CHECK(safecp_copy_target(c, 0) == NULL);
	CHECK_INT(safecp_copy_set_skip_identical(c, "quick"), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(safecp_copy_plan(c, 0, &p, sizeof(p)), 0);
	CHECK_U64(p.entries, 4); /* v, v/sub, v/sub/f, v/sub/l */
	CHECK_U64(p.identical, 1);
	CHECK_U64(p.symlinks, 1);
	CHECK_INT(safecp_copy_plan(c, 1, &p, sizeof(p)), -ENOENT);
	for (size_t i = 0; safecp_copy_entry(c, 0, i, &e, sizeof(e)) == 0; i++) {
		files += e.type == SAFECP_ENTRY_FILE;
		if (e.type == SAFECP_ENTRY_FILE) {
			CHECK_STR(e.rel, "v/sub/f");
			CHECK_U64(e.size, 6);
			CHECK_INT(e.identical, SAFECP_IDENTICAL_SIZE_MTIME);
			CHECK(e.kept && e.dest_exists);
		}
		if (e.type == SAFECP_ENTRY_SYMLINK)
			CHECK_STR(e.link_target, "f");
	}
	CHECK_U64(files, 1);
	CHECK_STR(safecp_identical_basis_name(SAFECP_IDENTICAL_SIZE_MTIME), "size-mtime");
	CHECK(safecp_copy_target(c, 0) != NULL);
	CHECK_INT(safecp_target_facts(safecp_copy_target(c, 0), &f, sizeof(f)), 0);
	CHECK(f.mountpoint != NULL && f.name_rules != NULL);
	CHECK_INT(safecp_copy_write_plan(c, 0, &w, sizeof(w)), 0);
	CHECK(w.strategy != SAFECP_STRATEGY_AUTO && safecp_strategy_name(w.strategy) != NULL);
	CHECK(w.chunk > 0 && w.window > 0);
	/* a caller built against a shorter structure gets only its bytes */
	memset(&e, 0x5a, sizeof(e));
	CHECK_INT(safecp_copy_entry(c, 0, 0, &e, offsetof(struct safecp_entry, dest)), 0);
	CHECK(e.source != NULL && *(const unsigned char *)&e.dest == 0x5a);
	safecp_copy_free(c);
}

TEST(events_carry_their_details_and_the_figures_add_up)
{
	const char *md5[] = { "md5" };
	struct safecp_event_detail x;
	struct safecp_copy_figures f;
	struct safecp_source_figures src;
	struct safecp_copy_event ev;
	struct safecp_copy *c;
	unsigned lists = 0, done = 0;
	size_t entry = SIZE_MAX;

	sh("mkdir -p s e2 && head -c 70000 /dev/urandom > s/big && echo z > s/small");
	c = copy_of(0, "s", "e2");
	CHECK_INT(safecp_copy_event_detail(c, &x, sizeof(x)), -ENOENT);
	CHECK_INT(safecp_copy_set_checksums(c, md5, 1, "e2/sums"), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(safecp_copy_figures(c, 0, &f, sizeof(f)), -ENOENT); /* not started */
	CHECK_INT(safecp_copy_start(c), 0);
	while (safecp_copy_poll(c, 10000, &ev) == 1) {
		CHECK_INT(safecp_copy_event_detail(c, &x, sizeof(x)), 0);
		if (ev.kind == SAFECP_EVENT_LIST_WRITTEN) {
			lists++;
			CHECK_STR(x.algorithm, "md5");
			CHECK_U64(x.count, 2);
		}
		if (ev.kind == SAFECP_EVENT_FILE_DONE && ev.path && strstr(ev.path, "big")) {
			done++;
			entry = x.entry;
		}
		if (ev.kind == SAFECP_EVENT_DEST_END)
			break;
	}
	CHECK_INT(lists, 1);
	CHECK_INT(done, 1);
	CHECK(entry != SIZE_MAX);
	if (entry != SIZE_MAX) {
		struct safecp_entry e;

		CHECK_INT(safecp_copy_entry(c, 0, entry, &e, sizeof(e)), 0);
		CHECK_STR(e.rel, "s/big");
	}
	CHECK_INT(safecp_copy_figures(c, 0, &f, sizeof(f)), 0);
	CHECK_INT(f.phase, SAFECP_PHASE_DONE);
	CHECK_INT(safecp_copy_source_figures(c, &src, sizeof(src)), 0);
	CHECK_U64(src.bytes_read, 70002);
	CHECK(!safecp_copy_pack_failed(c, &(const char *){ NULL }, &(int){ 0 }));
	safecp_copy_free(c);
}

/* Files with several names in the tree (one of them also named outside
 * it) keep them as one file with KEEP_LINKS: each group is one inode at
 * the destination with as many names as the tree gives it, its bytes
 * counted once; without the flag each name is a file of its own. */
static ino_t ino_of(const char *rel, nlink_t *nlink)
{
	struct stat st;

	if (stat(rel, &st) < 0) {
		FAIL_AT("no %s", rel);
		return 0;
	}
	*nlink = st.st_nlink;
	return st.st_ino;
}

TEST(hard_links_are_kept_as_one_file)
{
	struct safecp_copy *c;
	struct safecp_copy_plan p;
	nlink_t n1, n2, n3, n4, n5, n6;

	sh("mkdir -p lk/src/a lk/src/b && printf 'one file' > lk/src/a/one && "
	   "ln lk/src/a/one lk/src/b/two && ln lk/src/a/one lk/src/a/three && "
	   "printf 'second' > lk/src/solo && ln lk/src/solo lk/src/a/solo2 && "
	   "printf 'out' > lk/src/b/out && ln lk/src/b/out lk/outside && mkdir lk/d lk/e");
	/* 1100 pairs side by side: most leaders still in the open batch when
	 * their followers come, and more than a batch's 1000 files */
	sh("mkdir lk/src/p && cd lk/src/p && for i in $(seq 1100); do echo $i > $i; ln $i $i.l; done");
	c = copy_of(SAFECP_COPY_KEEP_LINKS, "lk/src", "lk/d");
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(safecp_copy_plan(c, 0, &p, sizeof(p)), 0);
	CHECK_U64(p.files, 6 + 2200);
	CHECK_U64(p.bytes, strlen("one file") + strlen("second") + strlen("out") + 4393);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	CHECK(ino_of("lk/d/src/a/one", &n1) == ino_of("lk/d/src/b/two", &n2));
	CHECK(ino_of("lk/d/src/a/one", &n1) == ino_of("lk/d/src/a/three", &n3));
	CHECK_INT(n1, 3);
	CHECK(ino_of("lk/d/src/solo", &n4) == ino_of("lk/d/src/a/solo2", &n5));
	CHECK_INT(n4, 2);
	ino_of("lk/d/src/b/out", &n6);
	CHECK_INT(n6, 1); /* its other name is not the copy's */
	sh("cmp lk/d/src/b/two lk/src/a/one && cmp lk/d/src/a/solo2 lk/src/solo");
	sh("diff -r lk/src/p lk/d/src/p && [ $(find lk/d/src/p -type f -links 2 | wc -l) = 2200 ] && "
	   "[ $(find lk/d/src/p -type f -printf '%i\\n' | sort -u | wc -l) = 1100 ]");

	c = copy_of(0, "lk/src", "lk/e");
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	CHECK(ino_of("lk/e/src/a/one", &n1) != ino_of("lk/e/src/b/two", &n2));
	CHECK_INT(n1, 1);
}

/* UPDATE (-u): an existing copy is replaced only when older than its
 * source; one as new (to the second, as ext4 keeps times exactly) or
 * newer is kept, and a missing one is copied. */
TEST(update_replaces_only_older_copies)
{
	struct safecp_copy *c;
	struct safecp_copy_plan p;

	sh("mkdir -p up/src up/d && printf one > up/src/older && printf two > up/src/newer && "
	   "printf three > up/src/same && printf four > up/src/missing && cp -a up/src up/d/ && "
	   "rm up/d/src/missing && printf ONE > up/src/older && printf TWO > up/src/newer && "
	   "printf THREE > up/src/same && touch -d '2030-01-01 00:00:00' up/src/older && "
	   "touch -d '2020-01-01 00:00:00' up/src/newer && touch -r up/d/src/same up/src/same");
	c = copy_of(SAFECP_COPY_UPDATE, "up/src", "up/d");
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(safecp_copy_plan(c, 0, &p, sizeof(p)), 0);
	CHECK_U64(p.files, 2);
	CHECK_U64(p.kept, 2);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	sh("[ \"$(cat up/d/src/older)\" = ONE ] && [ \"$(cat up/d/src/newer)\" = two ] && "
	   "[ \"$(cat up/d/src/same)\" = three ] && [ \"$(cat up/d/src/missing)\" = four ]");
}

static int answers_left;

/* -i's callback: yes for the first answers_left questions, then no. */
static int answer(void *data, const char *source, const char *dest)
{
	(*(int *)data)++;
	CHECK(strstr(source, "ask/src/") && strstr(dest, "ask/d/src/"));
	return answers_left-- > 0;
}

static int stop_asking(void *data, const char *source, const char *dest)
{
	return -ECANCELED;
}

/* -i: asked during prepare of each file that would replace one; no keeps
 * it as NO_CLOBBER does; an error stops prepare.  --backup: the old
 * file under its backup name, refused with NO_CLOBBER and odd suffixes. */
TEST(ask_and_backup_before_replacing)
{
	struct safecp_copy *c;
	struct safecp_copy_plan p;
	int asked = 0;

	sh("mkdir -p ask/src ask/d && printf a > ask/src/a && printf b > ask/src/b && "
	   "printf new > ask/src/new && cp -a ask/src ask/d/ && rm ask/d/src/new && "
	   "printf A > ask/src/a && printf B > ask/src/b");
	c = copy_of(0, "ask/src", "ask/d");
	CHECK_INT(safecp_copy_set_ask_replace(c, answer, &asked), 0);
	answers_left = 1;
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(asked, 2);
	CHECK_INT(safecp_copy_plan(c, 0, &p, sizeof(p)), 0);
	CHECK_U64(p.kept, 1);
	CHECK_U64(p.files, 2);
	CHECK_INT(safecp_copy_set_ask_replace(c, answer, &asked), -EBUSY);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	sh("[ \"$(cat ask/d/src/a)\" = A ] && [ \"$(cat ask/d/src/b)\" = b ] && "
	   "[ \"$(cat ask/d/src/new)\" = new ]");
	c = copy_of(0, "ask/src", "ask/d");
	CHECK_INT(safecp_copy_set_ask_replace(c, stop_asking, NULL), 0);
	CHECK_INT(safecp_copy_prepare(c), -ECANCELED);
	safecp_copy_free(c);
	c = copy_of(SAFECP_COPY_NO_CLOBBER, "ask/src", "ask/d");
	CHECK_INT(safecp_copy_set_backup(c, SAFECP_BACKUP_SIMPLE, NULL), -EINVAL);
	safecp_copy_free(c);
	c = copy_of(0, "ask/src", "ask/d");
	CHECK_INT(safecp_copy_set_backup(c, SAFECP_BACKUP_SIMPLE, ""), -EINVAL);
	CHECK_INT(safecp_copy_set_backup(c, SAFECP_BACKUP_SIMPLE, "x/y"), -EINVAL);
	CHECK_INT(safecp_copy_set_backup(c, (enum safecp_backup)9, NULL), -EINVAL);
	CHECK_INT(safecp_copy_set_backup(c, SAFECP_BACKUP_NUMBERED, NULL), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	sh("[ \"$(cat ask/d/src/b)\" = B ] && [ \"$(cat ask/d/src/b.~1~)\" = b ] && "
	   "[ \"$(cat ask/d/src/a.~1~)\" = A ] && [ \"$(cat ask/d/src/new.~1~)\" = new ]");
}

/* --parents: a source at DEST/its path, the directories on it made. */
TEST(parents_make_the_path)
{
	struct safecp_copy *c = NULL;

	sh("mkdir -p pa/s/x/y pa/d && printf f > pa/s/x/y/f && printf g > pa/s/x/g");
	CHECK_INT(safecp_copy_new(SAFECP_COPY_PARENTS | SAFECP_COPY_SYSTEM_DISK, &c), 0);
	CHECK_INT(safecp_copy_add_source(c, "pa/s/x/y/f"), 0);
	CHECK_INT(safecp_copy_add_source(c, "pa/s/x/g"), 0);
	CHECK_INT(safecp_copy_add_dest(c, "pa/d"), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	sh("[ \"$(cat pa/d/pa/s/x/y/f)\" = f ] && [ \"$(cat pa/d/pa/s/x/g)\" = g ]");
}

/* Symbolic links named as sources: -H follows one with RECURSIVE (links
 * below stay links), -P copies one as a link without RECURSIVE, as cp. */
TEST(operand_links_follow_h_and_p)
{
	struct safecp_copy *c = NULL;
	struct stat st;

	sh("mkdir -p ol/real/sub ol/d ol/e ol/f && printf data > ol/real/file && "
	   "ln -s file ol/real/inner && ln -s real ol/dirlink && ln -s real/file ol/filelink");
	c = copy_of(SAFECP_COPY_DEREFERENCE_OPERANDS, "ol/dirlink", "ol/d");
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	CHECK(lstat("ol/d/dirlink", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(lstat("ol/d/dirlink/inner", &st) == 0 && S_ISLNK(st.st_mode));
	c = copy_of(0, "ol/dirlink", "ol/e"); /* -r alone: the link itself */
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	CHECK(lstat("ol/e/dirlink", &st) == 0 && S_ISLNK(st.st_mode));
	c = NULL;
	CHECK_INT(safecp_copy_new(SAFECP_COPY_NO_DEREFERENCE | SAFECP_COPY_SYSTEM_DISK, &c), 0);
	CHECK_INT(safecp_copy_add_source(c, "ol/filelink"), 0);
	CHECK_INT(safecp_copy_add_dest(c, "ol/f"), 0);
	CHECK_INT(safecp_copy_prepare(c), 0);
	CHECK_INT(run_to_end(c), 0);
	safecp_copy_free(c);
	CHECK(lstat("ol/f/filelink", &st) == 0 && S_ISLNK(st.st_mode));
}

int main(void)
{
	if (!mkdtemp(tmp) || chdir(tmp) < 0)
		return 99;
	RUN(options_refuse_what_the_library_does_not_know);
	RUN(lists_and_a_manifest_are_written_beside_the_copy);
	RUN(lists_and_histories_that_cannot_be_written_are_refused_as_kinds);
	RUN(pack_writes_one_archive);
	RUN(unpack_refuses_an_unsafe_entry_or_leaves_it_out);
	RUN(the_plan_its_entries_target_and_strategy_are_readable);
	RUN(events_carry_their_details_and_the_figures_add_up);
	RUN(hard_links_are_kept_as_one_file);
	RUN(update_replaces_only_older_copies);
	RUN(operand_links_follow_h_and_p);
	RUN(ask_and_backup_before_replacing);
	RUN(parents_make_the_path);
	if (chdir("/") == 0) {
		char rm[128];

		snprintf(rm, sizeof(rm), "rm -rf %s", tmp);
		if (system(rm) != 0)
			printf("# could not remove %s\n", tmp);
	}
	return test_summary();
}
