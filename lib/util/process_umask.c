/* process_umask.c: the umask from /proc/self/status, so that no thread
 * ever sees it changed (process_umask.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "util/process_umask.h"

int process_umask_parse(const char *status, size_t len, mode_t *ret)
{
	static const char key[] = "Umask:";
	const char *p = status, *end = status + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;

		if ((size_t)(line_end - p) > sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1)) {
			const char *q = p + sizeof(key) - 1;
			unsigned long v = 0;
			int digits = 0;

			while (q < line_end && (*q == ' ' || *q == '\t'))
				q++;
			for (; q < line_end && *q >= '0' && *q <= '7' && digits < 5; q++, digits++)
				v = v * 8 + (unsigned long)(*q - '0');
			if (digits == 0 || q != line_end || v > 0777)
				return -ENOENT;
			*ret = (mode_t)v;
			return 0;
		}
		p = line_end + 1;
	}
	return -ENOENT;
}

mode_t process_umask(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	_cleanup_close_ int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	char status[4096]; /* "Umask:" is near the top */
	size_t len = 0;
	mode_t m;

	while (fd >= 0 && len < sizeof(status)) {
		ssize_t n = read(fd, status + len, sizeof(status) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (process_umask_parse(status, len, &m) == 0)
		return m;
	pthread_mutex_lock(&lock);
	m = umask(0);
	umask(m);
	pthread_mutex_unlock(&lock);
	return m;
}
