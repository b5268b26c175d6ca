/* test_backup_name.c: cp's backup names (backup_name.c): which entries
 * are numbered backups of a name, and the name each CONTROL gives in a
 * directory that holds some already. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy/backup_name.h"
#include "test.h"

TEST(numbers_only_of_the_name)
{
	CHECK_U64(backup_number("a", "a.~1~"), 1);
	CHECK_U64(backup_number("a", "a.~12~"), 12);
	CHECK_U64(backup_number("a.txt", "a.txt.~3~"), 3);
	CHECK_U64(backup_number("a", "a.~0~"), 0);   /* from 1 */
	CHECK_U64(backup_number("a", "a.~01~"), 0);  /* no leading zero */
	CHECK_U64(backup_number("a", "a.~1"), 0);
	CHECK_U64(backup_number("a", "a.~1~x"), 0);
	CHECK_U64(backup_number("a", "a.~~"), 0);
	CHECK_U64(backup_number("a", "ab.~1~"), 0);  /* another name's */
	CHECK_U64(backup_number("a", "a~"), 0);
	CHECK_U64(backup_number("a", "a.~99999999999999999999999~"), 0); /* past ULONG_MAX */
}

static int dir_with(const char *const *names, char *path)
{
	int fd;

	strcpy(path, "/tmp/test_backup_name.XXXXXX");
	CHECK(mkdtemp(path) != NULL);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; names[i]; i++)
		close(openat(fd, names[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	return fd;
}

static void dir_remove(int fd, const char *path, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		unlinkat(fd, names[i], 0);
	close(fd);
	rmdir(path);
}

TEST(each_control)
{
	const char *const names[] = { "a", "a.~2~", "a.~10~", "ab.~50~", "b", NULL };
	char path[64], buf[NAME_MAX + 1], long_name[NAME_MAX + 1];
	int fd = dir_with(names, path);

	CHECK_INT(backup_name(fd, "a", BACKUP_SIMPLE, "~", buf), 0);
	CHECK_STR(buf, "a~");
	CHECK_INT(backup_name(fd, "a", BACKUP_SIMPLE, ".bak", buf), 0);
	CHECK_STR(buf, "a.bak");
	CHECK_INT(backup_name(fd, "a", BACKUP_NUMBERED, "~", buf), 0);
	CHECK_STR(buf, "a.~11~"); /* one past the highest, not the count */
	CHECK_INT(backup_name(fd, "a", BACKUP_EXISTING, "~", buf), 0);
	CHECK_STR(buf, "a.~11~");
	CHECK_INT(backup_name(fd, "b", BACKUP_EXISTING, "~", buf), 0);
	CHECK_STR(buf, "b~"); /* none numbered: simple */
	CHECK_INT(backup_name(fd, "b", BACKUP_NUMBERED, "~", buf), 0);
	CHECK_STR(buf, "b.~1~");
	memset(long_name, 'x', NAME_MAX);
	long_name[NAME_MAX] = '\0';
	CHECK_INT(backup_name(fd, long_name, BACKUP_SIMPLE, "~", buf), -ENAMETOOLONG);
	long_name[NAME_MAX - 1] = '\0';
	CHECK_INT(backup_name(fd, long_name, BACKUP_SIMPLE, "~", buf), 0);
	CHECK_INT(backup_name(fd, long_name, BACKUP_NUMBERED, "~", buf), -ENAMETOOLONG);
	dir_remove(fd, path, names);
}

int main(void)
{
	TEST_PLAN(2);
	RUN(numbers_only_of_the_name);
	RUN(each_control);
	return test_summary();
}
