/* test_file_move.c: bytes moved file to file through a pipe (io/file_move.h):
 * several pipes' worth from an offset, a source that ends early, a side
 * that refuses splice. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/file_move.h"
#include "test.h"

#define BIG ((3u << 20) + 4321)

static char dir[] = "/tmp/safecp-file-move-XXXXXX";
static unsigned char pattern[BIG], back[BIG];

/* no period: a move from the wrong offset shows */
static void fill(void)
{
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < BIG; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		pattern[i] = (unsigned char)x;
	}
}

static int open_in(const char *name, size_t len)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, pattern, len) != (ssize_t)len)
		FAIL_AT("cannot write %s: %m", path);
	return fd;
}

static int open_out(const char *name, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | flags, 0600);
	if (fd < 0)
		FAIL_AT("cannot create %s: %m", path);
	return fd;
}

/* out holds exactly pattern[from, from + len) */
static bool holds(int out, size_t from, size_t len)
{
	struct stat st;

	if (fstat(out, &st) < 0 || (size_t)st.st_size != len)
		return false;
	if (pread(out, back, len, 0) != (ssize_t)len)
		return false;
	return memcmp(back, pattern + from, len) == 0;
}

/* A 1 MiB pipe: the move takes several steps, the second one from an
 * offset inside the source, each appended at the file position. */
TEST(moves_several_pipes_from_an_offset)
{
	struct file_mover m;
	size_t moved = 0;
	int in = open_in("in", BIG), out = open_out("out", 0);

	file_mover_init(&m, 1u << 20);
	CHECK_INT(file_move(&m, in, 0, out, 4096, &moved), 0);
	CHECK_INT(moved, 4096);
	CHECK_INT(file_move(&m, in, 4096, out, BIG - 4096, &moved), 0);
	CHECK_INT(moved, BIG - 4096);
	CHECK(m.capacity > 0 && m.capacity <= (1u << 20));
	CHECK(!m.no_splice);
	CHECK(holds(out, 0, BIG));
	file_mover_done(&m);
	CHECK_INT(m.rd, -1);
	close(in);
	close(out);
}

/* A source shorter than the move: -EFAULT, as a write from an unreadable
 * mapping; what the source had reached the file. */
TEST(short_source_is_efault)
{
	struct file_mover m;
	size_t moved = 0;
	int in = open_in("short", 100000), out = open_out("out2", 0);

	file_mover_init(&m, 1u << 16);
	CHECK_INT(file_move(&m, in, 0, out, 200000, &moved), -EFAULT);
	CHECK_INT(moved, 100000);
	CHECK(holds(out, 0, 100000));
	moved = 1;
	CHECK_INT(file_move(&m, in, 100000, out, 10, &moved), -EFAULT);
	CHECK_INT(moved, 0);
	file_mover_done(&m);
	close(in);
	close(out);
}

/* splice refuses an O_APPEND file (EINVAL): the bytes go through the
 * mover's buffer, then and on every later move. */
TEST(refused_splice_reads_and_writes)
{
	struct file_mover m;
	size_t moved = 0;
	int in = open_in("in3", BIG), out = open_out("out3", O_APPEND);

	file_mover_init(&m, 1u << 20);
	CHECK_INT(file_move(&m, in, 0, out, (1u << 20) + 1, &moved), 0);
	CHECK_INT(moved, (1u << 20) + 1);
	CHECK(m.no_splice);
	CHECK_INT(m.rd, -1);
	CHECK_INT(file_move(&m, in, (1u << 20) + 1, out, BIG - (1u << 20) - 1, &moved), 0);
	CHECK(holds(out, 0, BIG));
	file_mover_done(&m);
	close(in);
	close(out);
}

/* A destination that fails (a read-only fd): its errno, not -EFAULT. */
TEST(destination_error_is_its_errno)
{
	struct file_mover m;
	size_t moved = 0;
	int in = open_in("in4", 8192), out;
	char path[64];

	snprintf(path, sizeof(path), "%s/in4", dir);
	out = open(path, O_RDONLY | O_CLOEXEC);
	file_mover_init(&m, 1u << 16);
	CHECK_INT(file_move(&m, in, 0, out, 8192, &moved), -EBADF);
	CHECK_INT(moved, 0);
	file_mover_done(&m);
	close(in);
	close(out);
}

int main(void)
{
	char cmd[96];
	int rc;

	TEST_PLAN(4);
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %m\n");
		return 1;
	}
	fill();
	RUN(moves_several_pipes_from_an_offset);
	RUN(short_source_is_efault);
	RUN(refused_splice_reads_and_writes);
	RUN(destination_error_is_its_errno);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	rc = system(cmd);
	return rc == 0 ? test_summary() : 1;
}
