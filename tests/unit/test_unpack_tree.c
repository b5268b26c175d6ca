/* test_unpack_tree.c: --unpack's write order (lib/archive/unpack_tree.h) and the
 * data reader (unpack_data.h) on archives written here with libarchive: the
 * order is pre-order with siblings by first appearance, implied directories get
 * nodes, ends cover descendants; the reader goes back by reopening, gives a
 * hardlink its target's bytes, fills a sparse entry's holes with zeros, and
 * refuses an archive changed since the first pass. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/unpack_data.h"
#include "archive/unpack_list.h"
#include "archive/unpack_tree.h"
#include "test.h"

static char path[64];

static struct archive *writer(void)
{
	struct archive *a = archive_write_new();
	int fd;

	strcpy(path, "/tmp/test_unpack_tree.XXXXXX");
	fd = mkstemp(path);

	archive_write_set_format_pax(a);
	archive_write_open_fd(a, fd);
	return a;
}

static void finish(struct archive *a)
{
	archive_write_close(a);
	archive_write_free(a); /* the fd stays open: the process ends soon */
}

/* A file of size bytes: byte i is i % 251 + (tag), or a hole (sparse:
 * data only in [hole_to, size)). */
static void put(struct archive *a, const char *name, mode_t type, const char *link, size_t size,
		int tag, size_t hole_to)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
	if (link)
		archive_entry_set_hardlink(e, link);
	archive_entry_set_size(e, (la_int64_t)size);
	if (hole_to)
		archive_entry_sparse_add_entry(e, (la_int64_t)hole_to, (la_int64_t)(size - hole_to));
	archive_write_header(a, e);
	/* the writer takes the whole file and leaves the holes out */
	for (size_t i = 0; i < size; i++) {
		unsigned char c = i < hole_to ? 0 : (unsigned char)(i % 251 + (size_t)tag);

		archive_write_data(a, &c, 1);
	}
	archive_entry_free(e);
}

static struct unpack_list *scanned(void)
{
	struct unpack_list *l;

	CHECK_INT(unpack_scan(path, &l), 0);
	CHECK_INT(l->n_refused, 0);
	return l;
}

TEST(order)
{
	struct archive *a = writer();
	struct unpack_list *l;
	struct unpack_tree t;

	put(a, "a/x", AE_IFREG, NULL, 10, 0, 0);
	put(a, "b/y", AE_IFREG, NULL, 10, 0, 0);
	put(a, "a/z", AE_IFREG, NULL, 10, 0, 0);
	put(a, "a/", AE_IFDIR, NULL, 0, 0, 0);
	put(a, "c", AE_IFREG, NULL, 10, 0, 0);
	finish(a);
	l = scanned();
	CHECK_INT(unpack_tree_build(l, &t), 0);
	CHECK_INT(t.n_nodes, 6);
	static const char *const want[] = {"a", "a/x", "a/z", "b", "b/y", "c"};
	for (size_t i = 0; i < t.n_nodes && i < 6; i++)
		CHECK_STR(t.nodes[i].path, want[i]);
	CHECK_STR(t.nodes[2].name, "z");
	CHECK_INT(t.nodes[0].end, 3);
	CHECK_INT(t.nodes[0].entry, 3);        /* a/ came last but keeps its place */
	CHECK(t.nodes[3].entry == UNPACK_IMPLIED); /* b is only implied */
	CHECK_INT(t.nodes[3].end, 5);
	CHECK_INT(t.nodes[4].parent, 3);
	CHECK(t.nodes[5].parent == UNPACK_NO_PARENT);
	CHECK_INT(t.backward_steps, 1);        /* b/y after a/z */
	unpack_tree_done(&t);
	unpack_list_free(l);
	unlink(path);
}

/* Entry idx's bytes through the reader, in 4096-byte reads. */
static ssize_t read_all(struct unpack_data *d, size_t idx, char *buf, size_t cap)
{
	size_t got = 0;
	bool end = false;
	int r = unpack_data_open(d, idx, NULL);

	if (r < 0)
		return r;
	while (!end) {
		ssize_t n = unpack_data_read(d, buf + got, 4096, &end);

		if (n < 0)
			return n;
		if (!end && n != 4096)
			return -EPROTO;
		got += (size_t)n;
		if (got + 4096 > cap)
			return -E2BIG;
	}
	return (ssize_t)got;
}

static bool bytes_ok(const char *buf, size_t size, int tag, size_t hole_to)
{
	for (size_t i = 0; i < size; i++)
		if ((unsigned char)buf[i] != (i < hole_to ? 0 : (unsigned char)(i % 251 + (size_t)tag)))
			return false;
	return true;
}

TEST(data)
{
	struct archive *a = writer();
	struct unpack_list *l;
	struct unpack_data *d;
	static char buf[1 << 20];

	put(a, "one", AE_IFREG, NULL, 10000, 1, 0);
	put(a, "two", AE_IFREG, NULL, 8192, 2, 0);
	put(a, "hard", AE_IFREG, "one", 0, 0, 0);
	put(a, "sparse", AE_IFREG, NULL, 300000, 3, 200000);
	put(a, "empty", AE_IFREG, NULL, 0, 0, 0);
	finish(a);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size < 200000); /* the hole is not in it */
	l = scanned();
	CHECK_INT(unpack_data_new(l, NULL, NULL, &d), 0);
	CHECK_INT(read_all(d, 1, buf, sizeof(buf)), 8192);
	CHECK(bytes_ok(buf, 8192, 2, 0));
	CHECK_INT(unpack_data_reopens(d), 0);
	CHECK_INT(read_all(d, 0, buf, sizeof(buf)), 10000); /* back: a reopen */
	CHECK(bytes_ok(buf, 10000, 1, 0));
	CHECK_INT(unpack_data_reopens(d), 1);
	CHECK_INT(read_all(d, 2, buf, sizeof(buf)), 10000); /* the hardlink: one's bytes */
	CHECK(bytes_ok(buf, 10000, 1, 0));
	CHECK_INT(unpack_data_reopens(d), 2);
	CHECK_INT(read_all(d, 3, buf, sizeof(buf)), 300000);
	CHECK(bytes_ok(buf, 300000, 3, 200000));
	CHECK_INT(read_all(d, 4, buf, sizeof(buf)), 0);
	/* the archive replaced by another: its headers are not the first pass's */
	a = archive_write_new();
	archive_write_set_format_pax(a);
	archive_write_open_filename(a, path);
	put(a, "other", AE_IFREG, NULL, 10, 0, 0);
	finish(a);
	CHECK_INT(read_all(d, 0, buf, sizeof(buf)), -ESTALE);
	unpack_data_free(d);
	unpack_list_free(l);
	unlink(path);
}

/* In tree order an archive is read once: what the order wants after a
 * later entry (b/y), or twice (a/x, through the hardlink), waits in the
 * spool.  And the archive read is the one the scan pinned, whatever is
 * at its path by then (audit turn 3 M6, L3). */
TEST(spooled)
{
	struct archive *a = writer();
	struct unpack_list *l;
	struct unpack_tree t;
	struct unpack_data *d;
	static char buf[1 << 20];
	char moved[sizeof(path) + 8];
	static const size_t size[] = { 5000, 70000, 3000 };
	static const int tag[] = { 1, 2, 3 };

	put(a, "a/x", AE_IFREG, NULL, size[0], tag[0], 0);
	put(a, "b/y", AE_IFREG, NULL, size[1], tag[1], 0);
	put(a, "a/z", AE_IFREG, NULL, size[2], tag[2], 0);
	put(a, "hard", AE_IFREG, "a/x", 0, 0, 0);
	finish(a);
	l = scanned();
	CHECK_INT(unpack_tree_build(l, &t), 0);
	CHECK_INT(unpack_data_new(l, &t, "/tmp", &d), 0);
	CHECK_U64(unpack_data_spool_bytes(d), size[0] + size[1]);
	/* another file where the archive was: the data come from the pinned one */
	snprintf(moved, sizeof(moved), "%s.moved", path);
	CHECK(rename(path, moved) == 0);
	a = archive_write_new();
	archive_write_set_format_pax(a);
	archive_write_open_filename(a, path);
	put(a, "other", AE_IFREG, NULL, 10, 0, 0);
	finish(a);
	for (size_t i = 0; i < t.n_nodes; i++) {
		size_t e = t.nodes[i].entry, k;

		if (e == UNPACK_IMPLIED || l->entries[e].type == UNPACK_DIR)
			continue;
		k = l->entries[e].data_from == 0 ? 0 : l->entries[e].data_from == 1 ? 1 : 2;
		CHECK_INT(read_all(d, e, buf, sizeof(buf)), (ssize_t)size[k]);
		CHECK(bytes_ok(buf, size[k], tag[k], 0));
	}
	CHECK_INT(unpack_data_reopens(d), 0);
	unpack_data_free(d);
	unpack_tree_done(&t);
	unpack_list_free(l);
	unlink(moved);
	unlink(path);
}

int main(void)
{
	RUN(order);
	RUN(data);
	RUN(spooled);
	return test_summary();
}
