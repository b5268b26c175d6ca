/* test_partial_state.c: this machine's list of the partials it wrote: an
 * entry added is found with its PID, another key (filesystem, inode,
 * stamp, header) is not, a removed one is gone, the list keeps its bound,
 * junk in the file is no entry, and the state directory follows
 * XDG_STATE_HOME, root and HOME. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "copy/partial_state.h"

static char dir[] = "/tmp/test_partial_state.XXXXXX";

static struct partial_key key(uint64_t header)
{
	struct partial_key k = { .ino = 12, .header = header };

	strcpy(k.fs, "uuid:1234-ABCD");
	strcpy(k.stamp, "gen:7");
	return k;
}

TEST(added_found_removed)
{
	struct partial_key k = key(0xfeed), other = key(0xfeed);
	pid_t pid = 0;

	CHECK_INT(partial_state_find(dir, &k, &pid), 0);
	CHECK_INT(partial_state_add(dir, &k), 0);
	CHECK_INT(partial_state_find(dir, &k, &pid), 1);
	CHECK_INT(pid, getpid());
	other.ino = 13;
	CHECK_INT(partial_state_find(dir, &other, &pid), 0);
	other = k;
	strcpy(other.stamp, "gen:8");
	CHECK_INT(partial_state_find(dir, &other, &pid), 0);
	other = k;
	strcpy(other.fs, "uuid:1234-ABCE");
	CHECK_INT(partial_state_find(dir, &other, &pid), 0);
	other = k;
	other.header = 0xfeee;
	CHECK_INT(partial_state_find(dir, &other, &pid), 0);
	/* added again: one entry, still found; removed: gone */
	CHECK_INT(partial_state_add(dir, &k), 0);
	CHECK_INT(partial_state_remove(dir, &k), 0);
	CHECK_INT(partial_state_find(dir, &k, &pid), 0);
	CHECK_INT(partial_state_remove(dir, &k), 0);
}

TEST(the_oldest_go_past_the_bound)
{
	struct partial_key k0 = key(0), k1 = key(1), last = key(PARTIAL_STATE_ENTRIES - 1),
			   added = key(PARTIAL_STATE_ENTRIES);
	char path[256];
	pid_t pid;
	FILE *f;

	/* a full list written as partial_state_add() writes it */
	snprintf(path, sizeof(path), "%s/partials", dir);
	f = fopen(path, "w");
	fputs("safecp-partials 1\n", f);
	for (uint64_t i = 0; i < PARTIAL_STATE_ENTRIES; i++)
		fprintf(f, "uuid:1234-ABCD 12 gen:7 %016llx 1\n", (unsigned long long)i);
	fclose(f);
	CHECK_INT(partial_state_find(dir, &k0, &pid), 1);
	CHECK_INT(partial_state_find(dir, &last, &pid), 1);
	CHECK_INT(partial_state_add(dir, &added), 0);
	CHECK_INT(partial_state_find(dir, &k0, &pid), 0);
	CHECK_INT(partial_state_find(dir, &k1, &pid), 1);
	CHECK_INT(partial_state_find(dir, &last, &pid), 1);
	CHECK_INT(partial_state_find(dir, &added, &pid), 1);
}

TEST(junk_is_no_entry)
{
	char path[256];
	struct partial_key k = key(0xabc);
	pid_t pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/partials", dir);
	f = fopen(path, "w");
	fputs("safecp-partials 1\nuuid:1234-ABCD 12 gen:7 0000000000000abc -5\n"
	      "uuid:1234-ABCD 12 gen:7 0000000000000abc 7x\n"
	      "uuid:1234-ABCD 12 gen:7 0000000000000abc\n", f);
	fclose(f);
	CHECK_INT(partial_state_find(dir, &k, &pid), 0);
	/* a file without the first line is an empty state */
	f = fopen(path, "w");
	fputs("uuid:1234-ABCD 12 gen:7 0000000000000abc 1\n", f);
	fclose(f);
	CHECK_INT(partial_state_find(dir, &k, &pid), 0);
}

TEST(where_the_state_lives)
{
	char buf[256];

	setenv("XDG_STATE_HOME", "/x/state", 1);
	CHECK(partial_state_dir(buf, sizeof(buf)));
	CHECK_STR(buf, "/x/state/safecp");
	setenv("XDG_STATE_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	CHECK(partial_state_dir(buf, sizeof(buf)));
	CHECK_STR(buf, geteuid() == 0 ? "/var/lib/safecp" : "/home/u/.local/state/safecp");
	unsetenv("XDG_STATE_HOME");
}

TEST(a_key_from_a_file)
{
	char path[256];
	struct partial_key k;
	int fd;

	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	partial_key_of(fd, "0a-b", 5, true, &k);
	CHECK_STR(k.fs, "uuid:0a-b");
	CHECK(k.ino != 0);
	CHECK_U64(k.header, 5);
	partial_key_of(fd, "bad uuid", 5, true, &k);
	CHECK(strncmp(k.fs, "uuid:", 5) != 0);
	partial_key_of(fd, "0a-b", 5, false, &k); /* FUSE: no inode, no stamp */
	CHECK_U64(k.ino, 0);
	CHECK_STR(k.stamp, "-");
	close(fd);
	unlink(path);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		return 1;
	RUN(added_found_removed);
	RUN(the_oldest_go_past_the_bound);
	RUN(junk_is_no_entry);
	RUN(where_the_state_lives);
	RUN(a_key_from_a_file);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
	return test_summary();
}
