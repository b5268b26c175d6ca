/* faultdev.c: a disk image that fails on demand, for the fault tests.
 *
 * This kernel has no dm-flakey, nbd or fail_make_request, so the failing device is a
 * FUSE filesystem holding one file, "disk", a pass-through to a backing image.  A loop
 * device on that file is a block device whose errors are real block-layer errors: the
 * filesystem on it (ext4, exfat-fuse, ...) sees EIO exactly as from a worn or pulled
 * stick.  Every request is direct I/O (no FUSE page cache between the loop device and
 * this daemon), so a write the daemon fails is a write the filesystem sees fail.
 *
 *   faultdev [--snapshot PATH] IMAGE MOUNTPOINT
 *
 * runs in the foreground until unmounted (or SIGTERM).  "disk" has the size of IMAGE
 * (a counterfeit stick claims that much; see below for what it has).  The file "ctl"
 * takes commands, one per line (`echo vanish >MOUNTPOINT/ctl`), and reading it gives
 * the state and counters:
 *
 *   clear                    pass everything through again (counters stay)
 *   fail-read FROM [LEN]     reads of bytes [FROM, FROM+LEN) fail with EIO (a read
 *                            that starts before FROM is cut short there)
 *   fail-write FROM [LEN]    writes likewise (LEN omitted: to the end)
 *   fail-write-after N       writes fail with EIO once N more bytes were written
 *   vanish                   every read, write, flush and discard fails with EIO
 *   readonly                 writes and discards fail with EROFS
 *   flip-write MINLEN        the next write of MINLEN bytes or more is stored with
 *                            its middle byte inverted, and reported as done (a stick
 *                            that corrupts data silently; metadata writes are smaller)
 *   flip-read-once AT        the next read that covers byte AT returns it inverted,
 *                            once (a card that misreads; reading again gives the truth)
 *   counterfeit REAL wrap|drop
 *                            only REAL bytes exist: offsets past them wrap onto the
 *                            start, or are dropped (writes lost, reads give zeros);
 *                            the first write past REAL first copies the image to the
 *                            --snapshot file (the device as the host last saw it whole)
 *
 * Commands combine (fail-read with counterfeit); `clear` drops them all.  Each injected
 * error is logged on stderr with its offset. */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct range {
	bool on;
	uint64_t from, len; /* len 0: to the end */
};

struct state {
	struct range fail_read, fail_write;
	bool write_budget_on;
	uint64_t write_budget;   /* bytes still allowed with fail-write-after */
	bool vanished, readonly;
	uint64_t real;           /* counterfeit: bytes that exist; 0: off */
	bool wrap;               /* counterfeit: wrap (else drop) */
	/* counters */
	uint64_t bytes_read, bytes_written, failed_reads, failed_writes, dropped_writes;
	bool snapshot_taken;
	uint64_t flip_min;       /* flip-write: armed for a write this large; 0: off */
	uint64_t flipped_writes;
	bool flip_read_on;       /* flip-read-once: armed for byte flip_read_at */
	uint64_t flip_read_at, flipped_reads;
};

static struct {
	int fd;
	uint64_t size;           /* of "disk": the image's */
	const char *snapshot;    /* --snapshot path, or NULL */
	const char *image;
	pthread_mutex_t lock;    /* guards st */
	pthread_rwlock_t io;     /* I/O shared, the snapshot exclusive */
	struct state st;
} g = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .io = PTHREAD_RWLOCK_INITIALIZER };

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("faultdev: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static bool overlaps(const struct range *r, uint64_t off, uint64_t len)
{
	uint64_t end = r->len ? r->from + r->len : UINT64_MAX;

	return r->on && off < end && off + len > r->from;
}

/* ---- the directory: "/", "/disk", "/ctl" ------------------------------- */

static int fd_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (strcmp(path, "/disk") == 0) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = (off_t)g.size;
		st->st_blocks = (blkcnt_t)(g.size / 512);
	} else if (strcmp(path, "/ctl") == 0) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = 4096; /* read gives less; direct_io ignores it */
	} else {
		return -ENOENT;
	}
	return 0;
}

static int fd_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	fill(buf, "ctl", NULL, 0, 0);
	return 0;
}

static int fd_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk") != 0 && strcmp(path, "/ctl") != 0)
		return -ENOENT;
	fi->direct_io = 1;
	return 0;
}

static int fd_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	/* `echo cmd >ctl` truncates first; the disk keeps its size */
	return strcmp(path, "/ctl") == 0 ? 0 : -EPERM;
}

/* ---- control ------------------------------------------------------------ */

static int ctl_status(char *buf, size_t size)
{
	struct state s;

	pthread_mutex_lock(&g.lock);
	s = g.st;
	pthread_mutex_unlock(&g.lock);
	return snprintf(buf, size,
			"size %" PRIu64 "\nvanished %d\nreadonly %d\ncounterfeit %" PRIu64 " %s\n"
			"fail_read %d %" PRIu64 " %" PRIu64 "\nfail_write %d %" PRIu64 " %" PRIu64 "\n"
			"write_budget %d %" PRIu64 "\nbytes_read %" PRIu64 "\nbytes_written %" PRIu64 "\n"
			"failed_reads %" PRIu64 "\nfailed_writes %" PRIu64 "\ndropped_writes %" PRIu64 "\n"
			"snapshot_taken %d\nflipped_writes %" PRIu64 "\nflipped_reads %" PRIu64 "\n",
			g.size, s.vanished, s.readonly, s.real, s.wrap ? "wrap" : "drop",
			s.fail_read.on, s.fail_read.from, s.fail_read.len, s.fail_write.on,
			s.fail_write.from, s.fail_write.len, s.write_budget_on, s.write_budget,
			s.bytes_read, s.bytes_written, s.failed_reads, s.failed_writes,
			s.dropped_writes, s.snapshot_taken, s.flipped_writes, s.flipped_reads);
}

static int ctl_command(char *line)
{
	char word[32] = "", arg3[16] = "";
	uint64_t a = 0, b = 0;
	int n = sscanf(line, "%31s %" SCNu64 " %" SCNu64, word, &a, &b);
	struct state *s = &g.st;

	if (n < 1)
		return 0; /* empty line */
	if (strcmp(word, "clear") == 0) {
		s->fail_read.on = s->fail_write.on = s->write_budget_on = false;
		s->vanished = s->readonly = false;
		s->real = 0;
		s->flip_min = 0;
		s->flip_read_on = false;
	} else if ((strcmp(word, "fail-read") == 0 || strcmp(word, "fail-write") == 0) && n >= 2) {
		struct range *r = word[5] == 'r' ? &s->fail_read : &s->fail_write;

		*r = (struct range){ .on = true, .from = a, .len = n >= 3 ? b : 0 };
	} else if (strcmp(word, "fail-write-after") == 0 && n == 2) {
		s->write_budget_on = true;
		s->write_budget = a;
	} else if (strcmp(word, "flip-read-once") == 0 && n == 2) {
		s->flip_read_on = true;
		s->flip_read_at = a;
	} else if (strcmp(word, "flip-write") == 0 && n == 2 && a > 0) {
		s->flip_min = a;
	} else if (strcmp(word, "vanish") == 0) {
		s->vanished = true;
	} else if (strcmp(word, "readonly") == 0) {
		s->readonly = true;
	} else if (strcmp(word, "counterfeit") == 0 &&
		   sscanf(line, "%*s %" SCNu64 " %15s", &a, arg3) == 2 && a > 0 &&
		   (strcmp(arg3, "wrap") == 0 || strcmp(arg3, "drop") == 0)) {
		s->real = a;
		s->wrap = arg3[0] == 'w';
	} else {
		logf_("unknown command '%s'", line);
		return -EINVAL;
	}
	logf_("command: %s", line);
	return 0;
}

static int ctl_write(const char *buf, size_t size)
{
	char *text = strndup(buf, size), *save = NULL;
	int r = 0;

	if (!text)
		return -ENOMEM;
	pthread_mutex_lock(&g.lock);
	for (char *line = strtok_r(text, "\n", &save); line && r == 0; line = strtok_r(NULL, "\n", &save))
		r = ctl_command(line);
	pthread_mutex_unlock(&g.lock);
	free(text);
	return r < 0 ? r : (int)size;
}

/* ---- the disk ----------------------------------------------------------- */

/* The image as it is now, before the first write past the real size changes it. */
static void take_snapshot(void)
{
	char buf[1 << 16];
	int out;
	off_t off = 0;
	ssize_t n;

	out = open(g.snapshot, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0) {
		logf_("cannot create snapshot '%s': %s", g.snapshot, strerror(errno));
		return;
	}
	while ((n = pread(g.fd, buf, sizeof(buf), off)) > 0) {
		/* sparse: the image is mostly holes, and so stays the copy */
		bool zero = true;

		for (ssize_t i = 0; i < n && zero; i++)
			zero = buf[i] == 0;
		if (!zero && pwrite(out, buf, (size_t)n, off) != n) {
			logf_("cannot write snapshot '%s': %s", g.snapshot, strerror(errno));
			break;
		}
		off += n;
	}
	if (ftruncate(out, off) < 0 || fsync(out) < 0)
		logf_("cannot finish snapshot '%s': %s", g.snapshot, strerror(errno));
	close(out);
	logf_("snapshot of %jd bytes in '%s'", (intmax_t)off, g.snapshot);
}

/* What a request may do, decided under the lock: 0 to go on, or -errno. */
static int admit(bool write, uint64_t off, size_t len, bool *snapshot)
{
	struct state *s = &g.st;
	int r = 0;

	pthread_mutex_lock(&g.lock);
	if (s->vanished)
		r = -EIO;
	else if (write && s->readonly)
		r = -EROFS;
	else if (!write && overlaps(&s->fail_read, off, len) && off >= s->fail_read.from)
		r = -EIO;
	else if (write && overlaps(&s->fail_write, off, len))
		r = -EIO;
	else if (write && s->write_budget_on) {
		if (s->write_budget < len)
			r = -EIO;
		else
			s->write_budget -= len;
	}
	if (r < 0) {
		if (write)
			s->failed_writes++;
		else
			s->failed_reads++;
	} else if (write && s->real && off + len > s->real && !s->snapshot_taken) {
		s->snapshot_taken = true;
		*snapshot = g.snapshot != NULL;
	}
	pthread_mutex_unlock(&g.lock);
	if (r < 0)
		logf_("%s of %zu bytes at %" PRIu64 ": %s", write ? "write" : "read", len, off,
		      strerror(-r));
	return r;
}

/* One piece of a request inside the image: [off, off+len) maps to image offset
 * *at, or nowhere (drop) when *at is UINT64_MAX.  Returns the piece's length. */
static size_t map_piece(uint64_t off, size_t len, uint64_t *at)
{
	uint64_t real;
	bool wrap;

	pthread_mutex_lock(&g.lock);
	real = g.st.real;
	wrap = g.st.wrap;
	pthread_mutex_unlock(&g.lock);
	if (!real) {
		*at = off;
		return len;
	}
	if (off < real) {
		*at = off;
		return (size_t)(off + len > real ? real - off : len);
	}
	if (!wrap) {
		*at = UINT64_MAX;
		return len;
	}
	*at = off % real;
	return (size_t)(*at + len > real ? real - *at : len);
}


/* flip-read-once: the armed byte comes back inverted from this read. */
static void flip_read_if_armed(char *buf, uint64_t off, size_t len)
{
	pthread_mutex_lock(&g.lock);
	if (g.st.flip_read_on && g.st.flip_read_at >= off && g.st.flip_read_at < off + len) {
		buf[g.st.flip_read_at - off] = (char)~buf[g.st.flip_read_at - off];
		g.st.flip_read_on = false;
		g.st.flipped_reads++;
		fprintf(stderr, "faultdev: read the byte at %" PRIu64 " inverted\n", g.st.flip_read_at);
	}
	pthread_mutex_unlock(&g.lock);
}

/* flip-write: the armed write's middle byte is stored inverted, once. */
static void flip_if_armed(uint64_t off, size_t size)
{
	uint64_t at;
	unsigned char byte;
	bool armed;

	pthread_mutex_lock(&g.lock);
	armed = g.st.flip_min && size >= g.st.flip_min;
	if (armed) {
		g.st.flip_min = 0;
		g.st.flipped_writes++;
	}
	pthread_mutex_unlock(&g.lock);
	if (!armed)
		return;
	pthread_rwlock_rdlock(&g.io);
	map_piece(off + size / 2, 1, &at);
	if (at != UINT64_MAX && pread(g.fd, &byte, 1, (off_t)at) == 1) {
		byte = (unsigned char)~byte;
		if (pwrite(g.fd, &byte, 1, (off_t)at) == 1)
			fprintf(stderr, "faultdev: flipped the byte at %" PRIu64 "\n", off + size / 2);
	}
	pthread_rwlock_unlock(&g.io);
}

static int disk_io(bool write, char *buf, size_t size, off_t offset)
{
	uint64_t off = (uint64_t)offset, at;
	bool snap = false;
	size_t done = 0;
	int r;

	if (off >= g.size)
		return 0;
	if (off + size > g.size)
		size = (size_t)(g.size - off);
	/* A read that reaches a bad range gives what lies before it, as a disk completes
	 * the sectors before a medium error: the loop device asks again for the rest,
	 * which then fails, so only the pages over the range see the error. */
	pthread_mutex_lock(&g.lock);
	if (!write && overlaps(&g.st.fail_read, off, size) && off < g.st.fail_read.from)
		size = (size_t)(g.st.fail_read.from - off);
	pthread_mutex_unlock(&g.lock);
	r = admit(write, off, size, &snap);
	if (r < 0)
		return r;
	if (snap) {
		pthread_rwlock_wrlock(&g.io);
		take_snapshot();
		pthread_rwlock_unlock(&g.io);
	}
	pthread_rwlock_rdlock(&g.io);
	while (done < size) {
		size_t n = map_piece(off + done, size - done, &at);
		ssize_t k;

		if (at == UINT64_MAX) {
			if (!write)
				memset(buf + done, 0, n);
			else {
				pthread_mutex_lock(&g.lock);
				g.st.dropped_writes += n;
				pthread_mutex_unlock(&g.lock);
			}
			k = (ssize_t)n;
		} else if (write) {
			k = pwrite(g.fd, buf + done, n, (off_t)at);
		} else {
			k = pread(g.fd, buf + done, n, (off_t)at);
			if (k == 0) { /* past the image's end: a hole */
				memset(buf + done, 0, n);
				k = (ssize_t)n;
			}
		}
		if (k < 0) {
			r = -errno;
			break;
		}
		done += (size_t)k;
	}
	pthread_rwlock_unlock(&g.io);
	if (r < 0)
		return r;
	if (write)
		flip_if_armed(off, size);
	else
		flip_read_if_armed(buf, off, done);
	pthread_mutex_lock(&g.lock);
	if (write)
		g.st.bytes_written += done;
	else
		g.st.bytes_read += done;
	pthread_mutex_unlock(&g.lock);
	return (int)done;
}

static int fd_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	if (strcmp(path, "/ctl") == 0) {
		char text[1024];
		int n = ctl_status(text, sizeof(text));

		if (off >= n)
			return 0;
		if ((size_t)(n - off) < size)
			size = (size_t)(n - off);
		memcpy(buf, text + off, size);
		return (int)size;
	}
	return disk_io(false, buf, size, off);
}

static int fd_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	if (strcmp(path, "/ctl") == 0)
		return ctl_write(buf, size);
	return disk_io(true, (char *)buf, size, off);
}

static int fd_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	bool vanished;

	pthread_mutex_lock(&g.lock);
	vanished = g.st.vanished;
	pthread_mutex_unlock(&g.lock);
	if (vanished)
		return -EIO;
	return fdatasync(g.fd) < 0 ? -errno : 0;
}

/* The loop device turns discards into hole punches. */
static int fd_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
	int r = 0;

	if (strcmp(path, "/disk") != 0)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&g.lock);
	if (g.st.vanished)
		r = -EIO;
	else if (g.st.readonly)
		r = -EROFS;
	else if (g.st.real)
		r = 1; /* a counterfeit stick ignores discards */
	pthread_mutex_unlock(&g.lock);
	if (r)
		return r < 0 ? r : 0;
	return fallocate(g.fd, mode, off, len) < 0 ? -errno : 0;
}

static void *fd_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->direct_io = 1;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	return NULL;
}

static const struct fuse_operations ops = {
	.init = fd_init,
	.getattr = fd_getattr,
	.readdir = fd_readdir,
	.open = fd_open,
	.truncate = fd_truncate,
	.read = fd_read,
	.write = fd_write,
	.fsync = fd_fsync,
	.fallocate = fd_fallocate,
};

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: faultdev [--snapshot PATH] IMAGE MOUNTPOINT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char *fargv[8];
	int i = 1, fargc = 0;
	struct stat st;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--snapshot") == 0 && i + 1 < argc)
			g.snapshot = argv[++i];
		else
			usage();
	}
	if (argc - i != 2)
		usage();
	g.image = argv[i];
	g.fd = open(g.image, O_RDWR | O_CLOEXEC);
	if (g.fd < 0 || fstat(g.fd, &st) < 0) {
		fprintf(stderr, "faultdev: cannot open '%s': %s\n", g.image, strerror(errno));
		return 1;
	}
	g.size = (uint64_t)st.st_size;
	fargv[fargc++] = argv[0];
	fargv[fargc++] = (char *)"-f";
	fargv[fargc++] = (char *)"-o";
	fargv[fargc++] = (char *)"allow_other,fsname=faultdev,subtype=faultdev";
	fargv[fargc++] = argv[i + 1];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &ops, NULL);
}
