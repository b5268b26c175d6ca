/* test_process_umask.c: lib/util/process_umask, the umask read without
 * the umask(0)/umask(old) window in which another thread sees 0. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/process_umask.h"
#include "test.h"

TEST(parse)
{
	static const char status[] = "Name:\tx\nUmask:\t0027\nState:\tR (running)\n";
	mode_t m = 0;

	CHECK_INT(process_umask_parse(status, sizeof(status) - 1, &m), 0);
	CHECK_INT(m, 027);
	CHECK_INT(process_umask_parse("Umask:\t0777", 11, &m), 0);
	CHECK_INT(m, 0777);
	CHECK_INT(process_umask_parse("Name:\tx\n", 8, &m), -ENOENT);
	CHECK_INT(process_umask_parse("Umask:\t\n", 8, &m), -ENOENT);
	CHECK_INT(process_umask_parse("Umask:\t0028\n", 12, &m), -ENOENT);
	CHECK_INT(process_umask_parse("Umask:\t01777\n", 13, &m), -ENOENT);
	/* a line cut short by the buffer is no mask */
	CHECK_INT(process_umask_parse("Umasx:\t0022\nUmask:", 18, &m), -ENOENT);
}

static atomic_bool stop;

static void *reader_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		(void)process_umask();
	return NULL;
}

/* The umask the kernel holds for us, read as another process would. */
static mode_t kernel_umask(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	mode_t m = 01000;

	if (fd >= 0)
		close(fd);
	if (n > 0 && process_umask_parse(buf, (size_t)n, &m) < 0)
		m = 01000;
	return m;
}

/* Two threads reading it while a third watches: the mask never moves. */
TEST(reading_never_changes_it)
{
	pthread_t t[2];
	int moved = 0;

	umask(027);
	CHECK_INT(process_umask(), 027);
	atomic_store(&stop, false);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, reader_loop, NULL);
	for (int i = 0; i < 20000; i++)
		if (kernel_umask() != 027)
			moved++;
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_INT(moved, 0);
	CHECK_INT(kernel_umask(), 027);
}

int main(void)
{
	RUN(parse);
	RUN(reading_never_changes_it);
	return test_summary();
}
