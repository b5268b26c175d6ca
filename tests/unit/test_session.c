/* test_session.c: lib/copy/session, a copy from its arguments to its end
 * through the one event queue, on a temporary tree under /tmp (a system
 * disk or no disk at all: refused unless system_disk says it is meant). */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/session.h"
#include "plan_tree.h"

static const struct copy_session_options opts = {
	.plan = { .recursive = true },
	.keep_times = true,
	.system_disk = true,
};

/* A session with options o copying src to dest. */
static struct copy_session *session_of(const struct copy_session_options *o, const char *src,
				       const char *dest)
{
	struct copy_session *s = NULL;

	CHECK_INT(copy_session_new(o, &s), 0);
	CHECK_INT(copy_session_add_source(s, src), 0);
	CHECK_INT(copy_session_add_dest(s, dest, NULL), 0);
	return s;
}

/* Events until every destination's last one; counts of each kind. */
static void run_to_end(struct copy_session *s, size_t n_dests, unsigned *kinds)
{
	size_t ended = 0;
	struct copy_event ev;

	CHECK_INT(copy_session_start(s), 0);
	while (ended < n_dests) {
		int r = copy_session_poll(s, 10000, &ev);

		if (r != 1) {
			FAIL_AT("poll returned %d with %zu of %zu ended", r, ended, n_dests);
			return;
		}
		kinds[ev.kind]++;
		ended += ev.kind == COPY_EVENT_DEST_END;
		copy_event_done(&ev);
	}
	CHECK(copy_session_done(s));
}

static void same_bytes(const char *a, const char *b)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "cmp -s %s %s", a, b);
	if (system(cmd) != 0)
		FAIL_AT("%s differs from %s", b, a);
}

TEST(copies_a_tree_and_says_so_through_events)
{
	struct copy_session *s;
	unsigned kinds[COPY_EVENT_DEST_END + 1] = { 0 };
	struct copy_prepare_failure bad;
	int result = -1;

	tree_new();
	mkdirs("src", "src/sub", NULL);
	mkfile("src/a", 70000);
	mkfile("src/sub/b", 3);
	mkdirs("d1", "d2", NULL);
	s = session_of(&opts, "src", "d1");
	CHECK_INT(copy_session_add_dest(s, "d2", NULL), 0);
	CHECK_INT(copy_session_prepare(s, &bad), 0);
	CHECK_INT(copy_session_add_source(s, "more"), -EBUSY);
	CHECK_U64(copy_session_plan(s, 1)->total_bytes, 70003);
	run_to_end(s, 2, kinds);
	CHECK_INT(kinds[COPY_EVENT_FILE_DONE], 4);   /* 2 files on each */
	CHECK_INT(kinds[COPY_EVENT_FILE_START], 8);  /* and src, src/sub */
	CHECK_INT(kinds[COPY_EVENT_ERROR], 0);
	CHECK_INT(kinds[COPY_EVENT_DEST_END], 2);
	for (size_t d = 0; d < 2; d++) {
		CHECK(copy_session_result(s, d, &result));
		CHECK_INT(result, 0);
		CHECK_U64(atomic_load(&copy_session_stats(s, d)->bytes_confirmed), 70003);
	}
	same_bytes("src/a", "d1/src/a");
	same_bytes("src/sub/b", "d2/src/sub/b");
	copy_session_free(s);
	tree_done();
}

TEST(refusals_are_kinds_and_all_of_them_come)
{
	struct copy_session_options here = opts;
	struct copy_session *s;
	const struct copy_finding *r;
	struct copy_prepare_failure bad;

	tree_new();
	mkdirs("src", "d1", NULL);
	mkfile("src/a", 1);
	here.system_disk = false;
	s = session_of(&here, "src", "d1");
	/* /tmp is the system disk or no disk here, never a stick */
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	r = copy_session_finding(s, 0);
	CHECK(r && (r->kind == COPY_REFUSED_SYSTEM_DISK || r->kind == COPY_REFUSED_NO_DISK));
	CHECK_INT(copy_session_start(s), -EINVAL);
	copy_session_free(s);

	s = session_of(&opts, "nothere", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	r = copy_session_finding(s, 0);
	CHECK(r && r->kind == COPY_REFUSED_PLAN && r->problem->kind == PLAN_SOURCE_MISSING);
	CHECK_INT(copy_session_poll(s, 0, &(struct copy_event){ 0 }), 0);
	copy_session_free(s);
	tree_done();
}

/* --pack is a mode: the sources walked once, a name unpacking would
 * refuse is refused by entry, a FIFO is a note (when nothing is
 * refused), and the archive is what the destination gets. */
TEST(pack_mode_findings_and_archive)
{
	struct copy_session_options here = opts;
	struct copy_session *s;
	const struct copy_finding *f;
	struct copy_prepare_failure bad;
	unsigned kinds[COPY_EVENT_DEST_END + 1] = { 0 };
	int result = -1;
	struct stat st;

	here.mode = COPY_MODE_PACK;
	here.pack_format = PACK_TAR;
	tree_new();
	mkdirs("src", "d1", NULL);
	mkfile("src/a", 5000);
	mkfile("src/bad\033name", 1);
	s = session_of(&here, "src", "d1/src.tar");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	f = copy_session_finding(s, 0);
	CHECK(f && f->kind == COPY_REFUSED_PACK_NAME);
	CHECK(f && strstr(t_rel(&copy_session_pack_tree(s)->entries[f->entry]), "bad") != NULL);
	CHECK_U64(copy_session_n_prepared(s), 0); /* no destination planned */
	copy_session_free(s);

	CHECK_INT(unlink("src/bad\033name"), 0);
	CHECK_INT(mkfifo("src/fifo", 0600), 0);
	s = session_of(&here, "src", "d1/src.tar");
	CHECK_INT(copy_session_prepare(s, &bad), 0);
	f = copy_session_finding(s, 0);
	CHECK(f && f->kind == COPY_NOTE_PACK_SKIPPED && !f->deferred);
	CHECK_U64(copy_session_plan(s, 0)->n_files, 1); /* the archive */
	run_to_end(s, 1, kinds);
	CHECK(copy_session_result(s, 0, &result));
	CHECK_INT(result, 0);
	CHECK(stat("d1/src.tar", &st) == 0 && st.st_size > 5000);
	CHECK(system("tar -tf d1/src.tar | grep -qx 'src/a'") == 0);
	copy_session_free(s);
	tree_done();
}

/* --unpack is a mode: every archive's entries checked first; an unsafe
 * one refuses the run, or with skip_unsafe is counted and left out while
 * the rest is planned and written. */
TEST(unpack_mode_refuses_or_skips_unsafe_entries)
{
	struct copy_session_options here = opts;
	struct copy_session *s;
	const struct copy_finding *f;
	struct copy_prepare_failure bad;
	unsigned kinds[COPY_EVENT_DEST_END + 1] = { 0 };
	int result = -1;

	here.mode = COPY_MODE_UNPACK;
	tree_new();
	mkdirs("in", "d1", NULL);
	mkfile("in/ok.txt", 3000);
	CHECK(system("tar -cf a.tar -C in ok.txt && tar -rPf a.tar /etc/hostname") == 0);
	s = session_of(&here, "a.tar", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	f = copy_session_finding(s, 0);
	CHECK(f && f->kind == COPY_REFUSED_UNPACK_ENTRIES && f->count == 1);
	copy_session_free(s);

	here.skip_unsafe = true;
	s = session_of(&here, "a.tar", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 0);
	f = copy_session_finding(s, 0);
	CHECK(f && f->kind == COPY_NOTE_UNPACK_SKIPPED && f->count == 1);
	CHECK_U64(copy_session_unpack_skipped(s), 1);
	CHECK_U64(copy_session_plan(s, 0)->n_files, 1);
	run_to_end(s, 1, kinds);
	CHECK(copy_session_result(s, 0, &result));
	CHECK_INT(result, 0);
	same_bytes("in/ok.txt", "d1/ok.txt");
	copy_session_free(s);
	tree_done();
}

/* Every thread but the caller's blocks SIGINT (and the other asynchronous
 * signals), so the caller's handler or sigwait gets it: true. */
static bool only_main_takes_sigint(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	bool ok = true;
	int threads = 0;

	while (d && (de = readdir(d))) {
		char path[300], line[128];
		FILE *f;

		if (de->d_name[0] == '.' || atoi(de->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (strncmp(line, "SigBlk:", 7) == 0) {
				threads++;
				ok = ok && (strtoull(line + 7, NULL, 16) & (1ULL << (SIGINT - 1)));
			}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return ok && threads > 0;
}

TEST(cancel_stops_and_leaves_no_partial_file)
{
	struct copy_session *s;
	unsigned kinds[COPY_EVENT_DEST_END + 1] = { 0 };
	struct copy_prepare_failure bad;
	int result = 0;
	struct stat st;

	tree_new();
	mkdirs("src", "d1", NULL);
	mkfile("src/big", 256 << 20); /* long enough to be cancelled at its start */
	s = session_of(&opts, "src", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 0);
	CHECK_INT(copy_session_start(s), 0);
	CHECK(only_main_takes_sigint());
	copy_session_cancel(s);
	while (!copy_session_done(s))
		poll(NULL, 0, 5);
	CHECK(copy_session_result(s, 0, &result));
	CHECK_INT(result, -ECANCELED);
	/* the queue ends with the destination's end */
	for (struct copy_event ev; copy_session_poll(s, 0, &ev) == 1; copy_event_done(&ev))
		kinds[ev.kind]++;
	CHECK_INT(kinds[COPY_EVENT_DEST_END], 1);
	CHECK_INT(kinds[COPY_EVENT_FILE_DONE], 0);
	CHECK(stat("d1/src/big", &st) < 0);
	copy_session_free(s);
	tree_done();
}

/* The kind of the first finding (or -1). */
static int first_kind(const struct copy_session *s)
{
	const struct copy_finding *f = copy_session_finding(s, 0);

	return f ? (int)f->kind : -1;
}

TEST(lists_and_manifests_are_placed_before_the_first_byte)
{
	struct copy_session_options here = opts;
	unsigned kinds[COPY_EVENT_DEST_END + 1] = { 0 };
	struct copy_prepare_failure bad;
	struct copy_session *s;
	struct stat st;

	tree_new();
	mkdirs("src", "d1", "src/ascmhl");
	mkfile("src/a", 5);
	here.checksums = CHECKSUM_BIT(CHECKSUM_MD5);
	/* a prefix that names a directory, a directory that is not there */
	here.sums_prefix = "d1/";
	s = session_of(&here, "src/a", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	CHECK_INT(first_kind(s), COPY_REFUSED_LIST_NAME);
	copy_session_free(s);
	here.sums_prefix = "nodir/sums";
	s = session_of(&here, "src/a", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	CHECK_INT(first_kind(s), COPY_REFUSED_LIST_DIR);
	if (first_kind(s) == COPY_REFUSED_LIST_DIR) {
		CHECK_STR(copy_session_finding(s, 0)->path, "nodir/sums.md5");
		CHECK_INT(copy_session_finding(s, 0)->err, ENOENT);
	}
	copy_session_free(s);
	/* a list where the copy writes a file */
	here.sums_prefix = "d1/a";
	mkfile("src/a.md5", 1);
	s = session_of(&here, "src/a.md5", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	CHECK_INT(first_kind(s), COPY_REFUSED_LIST_CLASH);
	copy_session_free(s);
	/* a source that lands in the history folder; a damaged history */
	here.sums_prefix = NULL;
	here.manifests = true;
	s = session_of(&here, "src", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 0); /* src/ascmhl lands in d1/src */
	copy_session_free(s);
	s = session_of(&here, "src/ascmhl", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	CHECK_INT(first_kind(s), COPY_REFUSED_HISTORY_OVERLAP);
	copy_session_free(s);
	mkdirs("d2", "d2/ascmhl", NULL);
	mkfile("d2/ascmhl/ascmhl_chain.xml", 40); /* not XML */
	s = session_of(&here, "src/a", "d2");
	CHECK_INT(copy_session_prepare(s, &bad), 1);
	CHECK_INT(first_kind(s), COPY_REFUSED_HISTORY_DAMAGED);
	if (first_kind(s) == COPY_REFUSED_HISTORY_DAMAGED)
		CHECK_INT(copy_session_finding(s, 0)->history->kind, MHL_READ_MALFORMED);
	copy_session_free(s);
	/* placed well: the list and the generation are written by the run */
	here.sums_prefix = "d1/sums";
	s = session_of(&here, "src/a", "d1");
	CHECK_INT(copy_session_prepare(s, &bad), 0);
	run_to_end(s, 1, kinds);
	CHECK_INT(kinds[COPY_EVENT_ERROR], 0);
	CHECK(stat("d1/sums.md5", &st) == 0 && st.st_size > 32);
	CHECK(stat("d1/ascmhl/ascmhl_chain.xml", &st) == 0);
	copy_session_free(s);
	tree_done();
}

int main(void)
{
	RUN(copies_a_tree_and_says_so_through_events);
	RUN(refusals_are_kinds_and_all_of_them_come);
	RUN(cancel_stops_and_leaves_no_partial_file);
	RUN(pack_mode_findings_and_archive);
	RUN(unpack_mode_refuses_or_skips_unsafe_entries);
	RUN(lists_and_manifests_are_placed_before_the_first_byte);
	return test_summary();
}
