/* partial_state.c: see partial_state.h.
 *
 * The file is "safecp-partials 1" and one line per partial:
 *     FS INO STAMP HEADER16HEX PID
 * A line out of form is dropped when the file is next written. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "copy/partial_state.h"
#include "util/whole_file.h"

#define MAGIC "safecp-partials 1\n"
#define FILE_NAME "partials"
#define LOCK_NAME "partials.lock"
#define TEMP_NAME "partials.new"

void partial_key_of(int fd, const char *uuid, uint64_t header_hash, bool stable_ino,
		    struct partial_key *ret)
{
	struct statx stx;
	struct statfs sf;
	int gen = 0;

	memset(ret, 0, sizeof(*ret));
	if (uuid && *uuid && strlen(uuid) < 60 && !strpbrk(uuid, " \n"))
		snprintf(ret->fs, sizeof(ret->fs), "uuid:%s", uuid);
	else if (fstatfs(fd, &sf) == 0 && (sf.f_fsid.__val[0] || sf.f_fsid.__val[1]))
		snprintf(ret->fs, sizeof(ret->fs), "fsid:%08x%08x", (unsigned)sf.f_fsid.__val[0],
			 (unsigned)sf.f_fsid.__val[1]);
	else
		strcpy(ret->fs, "-");
	strcpy(ret->stamp, "-");
	if (stable_ino && statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &stx) == 0) {
		ret->ino = stx.stx_ino;
		if (ioctl(fd, FS_IOC_GETVERSION, &gen) == 0)
			snprintf(ret->stamp, sizeof(ret->stamp), "gen:%u", (unsigned)gen);
		else if (stx.stx_mask & STATX_BTIME)
			snprintf(ret->stamp, sizeof(ret->stamp), "btime:%lld.%09u",
				 (long long)stx.stx_btime.tv_sec, stx.stx_btime.tv_nsec);
	}
	ret->header = header_hash;
}

bool partial_state_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int n;

	/* the XDG spec: a relative XDG_STATE_HOME is invalid, ignore it */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, size, "%s/safecp", xdg);
	else if (geteuid() == 0)
		n = snprintf(buf, size, "/var/lib/safecp");
	else if (home && home[0] == '/')
		n = snprintf(buf, size, "%s/.local/state/safecp", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* mkdir -p of dir, the last part 0700. */
static int make_dir(const char *dir)
{
	char path[PATH_MAX];

	if (strlen(dir) >= sizeof(path))
		return -ENAMETOOLONG;
	strcpy(path, dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(path, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

/* The directory open and locked: the state's lock fd, dir's fd in *dfd. */
static int lock_state(const char *dir, int *dfd)
{
	int d, l, r = make_dir(dir);

	if (r < 0)
		return r;
	d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return -errno;
	l = openat(d, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (l < 0 || flock(l, LOCK_EX) < 0) {
		r = -errno;
		if (l >= 0)
			close(l);
		close(d);
		return r;
	}
	*dfd = d;
	return l;
}

static void key_line(const struct partial_key *k, pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, "%s %llu %s %016llx %ld\n", k->fs, (unsigned long long)k->ino,
		 k->stamp, (unsigned long long)k->header, (long)pid);
}

/* Does line (without its PID) name k?  *pid gets the PID. */
static bool line_is(const char *line, size_t len, const struct partial_key *k, pid_t *pid)
{
	char want[256], *end;
	size_t n;
	long p;

	key_line(k, 0, want, sizeof(want));
	n = strlen(want) - 2; /* up to the PID: "...HEX " */
	if (len <= n || memcmp(line, want, n) != 0)
		return false;
	errno = 0;
	p = strtol(line + n, &end, 10);
	if (errno || end != line + len || p <= 0)
		return false;
	*pid = (pid_t)p;
	return true;
}

/* The state's lines (after the magic) into *text, or an empty one. */
static int read_state(int dfd, char **text, size_t *len)
{
	int r = whole_file_read_at(dfd, FILE_NAME, O_NOFOLLOW, PARTIAL_STATE_MAX, text, len);
	size_t m = strlen(MAGIC);

	if (r == -ENOENT || (r == 0 && (*len < m || memcmp(*text, MAGIC, m) != 0))) {
		if (r == 0)
			free(*text);
		*text = strdup("");
		*len = 0;
		return *text ? 0 : -ENOMEM;
	}
	if (r == 0) {
		memmove(*text, *text + m, *len - m + 1);
		*len -= m;
	}
	return r;
}

/* Write the state: text's lines but the one naming k (and the oldest
 * past the bound), then add (if not NULL). */
static int write_state(int dfd, const char *text, const struct partial_key *k,
		       const char *add)
{
	_cleanup_fclose_ FILE *f = NULL;
	const char *p = text;
	size_t lines = 0, skip;
	pid_t pid;
	int fd;

	for (const char *q = text; *q; q++)
		lines += *q == '\n';
	skip = lines + 1 > PARTIAL_STATE_ENTRIES ? lines + 1 - PARTIAL_STATE_ENTRIES : 0;
	fd = openat(dfd, TEMP_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	fputs(MAGIC, f);
	for (const char *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		if (skip > 0) {
			skip--;
			continue;
		}
		if (!line_is(p, (size_t)(nl - p), k, &pid))
			fwrite(p, 1, (size_t)(nl - p) + 1, f);
	}
	if (add)
		fputs(add, f);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		return -errno;
	return renameat(dfd, TEMP_NAME, dfd, FILE_NAME) < 0 ? -errno : 0;
}

static int change(const char *dir, const struct partial_key *k, bool add)
{
	_cleanup_close_ int dfd = -1;
	_cleanup_close_ int lock = lock_state(dir, &dfd);
	_cleanup_free_ char *text = NULL;
	char line[256];
	size_t len;
	int r;

	if (lock < 0)
		return lock;
	r = read_state(dfd, &text, &len);
	if (r < 0)
		return r;
	key_line(k, getpid(), line, sizeof(line));
	return write_state(dfd, text, k, add ? line : NULL);
}

int partial_state_add(const char *dir, const struct partial_key *k)
{
	return change(dir, k, true);
}

int partial_state_remove(const char *dir, const struct partial_key *k)
{
	return change(dir, k, false);
}

int partial_state_find(const char *dir, const struct partial_key *k, pid_t *pid)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = read_state(dfd, &text, &len);
	if (r < 0)
		return r;
	for (const char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		if (line_is(p, (size_t)(nl - p), k, pid))
			return 1;
	return 0;
}
