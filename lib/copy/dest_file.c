/* dest_file.c: see dest_file.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/grow.h"
#include "copy/dest_file.h"
#include "copy/partial_record.h"
#include "io/writer.h"
#include "util/pid_alive.h"

#define PREFIX ".safecp-"
#define SUFFIX ".tmp"

/* Names tried after the first is taken, before giving up with -EEXIST. */
#define TEMP_RETRIES 16

/* Entries looked at for the file holding a clashing name: a bound on the
 * error path's cost in a huge directory. */
#define CLASH_SCAN_MAX 100000

void stale_temp_name(char *buf, pid_t pid, unsigned long seq)
{
	snprintf(buf, STALE_TEMP_NAME_MAX, PREFIX "%ld-%lu" SUFFIX, (long)pid, seq);
}

/* A decimal number without sign or leading zero, ending at stop.
 * *end points past it. */
static bool number(const char *s, char stop, unsigned long long max,
		   unsigned long long *ret, const char **end)
{
	unsigned long long v = 0;
	const char *p = s;

	if (*p < '1' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (unsigned long long)(*p - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (*p != stop)
		return false;
	*ret = v;
	*end = p;
	return true;
}

bool stale_temp_parse(const char *name, pid_t *pid)
{
	unsigned long long p, seq;
	const char *s = name;

	if (strncmp(s, PREFIX, strlen(PREFIX)) != 0)
		return false;
	s += strlen(PREFIX);
	if (!number(s, '-', 0x7fffffff, &p, &s))
		return false;
	if (!number(s + 1, '.', (unsigned long)-1, &seq, &s))
		return false;
	if (strcmp(s, SUFFIX) != 0)
		return false;
	*pid = (pid_t)p;
	return true;
}

void dest_files_init(struct dest_files *fs, bool tmpfile)
{
	*fs = (struct dest_files){ .pid = getpid(), .tmpfile = tmpfile };
}

int dest_file_init(struct dest_file *f, int dirfd, const char *name)
{
	*f = (struct dest_file){ .dirfd = dirfd, .name = strdup(name) };
	return f->name ? 0 : -ENOMEM;
}

/* Give f->tmp a fresh temporary name (not yet created).  The sequence
 * number starts at random and jumps again whenever a name was taken
 * (f->tmp still holds it): names a local user creates in advance in a
 * shared directory cannot stop us. */
static void next_name(struct dest_files *fs, struct dest_file *f)
{
	unsigned int jump = 1;

	/* without entropy yet, a jump of 1 still moves on */
	if ((fs->seq == 0 || f->tmp[0]) && getrandom(&jump, sizeof(jump), GRND_NONBLOCK) < 0)
		jump = 1;
	fs->seq += 1 + (jump & 0xffffff);
	stale_temp_name(f->tmp, fs->pid, fs->seq);
}

/* Make f under a fresh temporary name with make(f, arg), which returns
 * -EEXIST when the name is taken (someone else's file: never ours to
 * remove, so the next name is tried); what make returns, and f->tmp
 * empty unless it made something. */
static int make_named(struct dest_files *fs, struct dest_file *f,
		      int (*make)(struct dest_file *f, const void *arg), const void *arg)
{
	int r;

	f->tmp[0] = '\0';
	for (int tries = 0;; tries++) {
		next_name(fs, f);
		r = make(f, arg);
		if (r != -EEXIST || tries == TEMP_RETRIES)
			break;
	}
	if (r < 0)
		f->tmp[0] = '\0';
	return r;
}

static int make_writer(struct dest_file *f, const void *arg)
{
	const struct dest_open *how = arg;

	return writer_open(f->dirfd, f->tmp, how->plan, how->size, how->bdev_fd, how->hooks, &f->w);
}

int dest_file_open(struct dest_files *fs, struct dest_file *f, const struct dest_open *how)
{
	int r;

	if (fs->tmpfile) {
		r = writer_open(f->dirfd, NULL, how->plan, how->size, how->bdev_fd, how->hooks, &f->w);
		if (r == 0) {
			f->unnamed = true;
			return 0;
		}
		if (r != -EOPNOTSUPP && r != -EISDIR && r != -EINVAL)
			return r;
		fs->tmpfile = false;
	}
	return make_named(fs, f, make_writer, how);
}

static int make_symlink(struct dest_file *f, const void *target)
{
	return symlinkat(target, f->dirfd, f->tmp) < 0 ? -errno : 0;
}

int dest_file_symlink(struct dest_files *fs, struct dest_file *f, const char *target)
{
	return make_named(fs, f, make_symlink, target);
}

struct hard_link {
	const char *target;
	dev_t dev;
	ino_t ino;
};

/* The link is made by path (the leader's copy is already named and may
 * be anywhere in the destination), so what it leads to is checked after:
 * a directory on the way swapped for a symlink would have linked another
 * file, which is unlinked again. */
static int make_hard_link(struct dest_file *f, const void *arg)
{
	const struct hard_link *l = arg;
	struct stat st;

	if (linkat(AT_FDCWD, l->target, f->dirfd, f->tmp, 0) < 0)
		return -errno;
	if (fstatat(f->dirfd, f->tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_dev == l->dev && st.st_ino == l->ino)
		return 0;
	unlinkat(f->dirfd, f->tmp, 0);
	return -ESTALE;
}

int dest_file_hard_link(struct dest_files *fs, struct dest_file *f, const char *target, dev_t dev,
			ino_t ino)
{
	return make_named(fs, f, make_hard_link,
			  &(struct hard_link){ .target = target, .dev = dev, .ino = ino });
}

static int make_regular(struct dest_file *f, const void *mode)
{
	int fd = openat(f->dirfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			*(const mode_t *)mode);

	return fd < 0 ? -errno : fd;
}

int dest_file_create(struct dest_files *fs, struct dest_file *f, mode_t mode)
{
	return make_named(fs, f, make_regular, &mode);
}

/* Link an unnamed file as name: by its fd (AT_EMPTY_PATH, which Linux
 * 6.10 allows whoever opened the file; before, only CAP_DAC_READ_SEARCH),
 * else through /proc, a path walk more per file.  ENOENT is what a
 * refused AT_EMPTY_PATH returns, and the /proc link then tells. */
static int link_as(struct dest_files *fs, const struct dest_file *f, const char *name)
{
	char proc[48];

	if (!fs->no_flink) {
		if (linkat(writer_fd(f->w), "", f->dirfd, name, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != ENOENT && errno != EPERM)
			return -errno;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", writer_fd(f->w));
	if (linkat(AT_FDCWD, proc, f->dirfd, name, AT_SYMLINK_FOLLOW) == 0) {
		fs->no_flink = true;
		return 0;
	}
	return -errno;
}

/* No RENAME_NOREPLACE (exfat-fuse, ntfs-3g): claim the name with an
 * O_EXCL placeholder, which fails if anything is there, and rename over
 * our own placeholder; a check-then-rename would overwrite a name made
 * in between. */
static int rename_onto_placeholder(const struct dest_file *f)
{
	int fd = openat(f->dirfd, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	struct stat mine = { 0 }, now;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &mine) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && renameat(f->dirfd, f->tmp, f->dirfd, f->name) == 0)
		return 0;
	r = r ? r : -errno;
	/* only our placeholder, if it is still the one there */
	if (fstatat(f->dirfd, f->name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == mine.st_dev && now.st_ino == mine.st_ino)
		(void)unlinkat(f->dirfd, f->name, 0); /* the error said is r's */
	return r;
}

/* No RENAME_NOREPLACE, and not -n: rename only if lstat finds nothing
 * under the name.  A name made between the two is replaced; on the
 * filesystems that get here (FUSE daemons without RENAME2: exfat-fuse,
 * ntfs-3g, fusefat) every file has the mount's owner and mode, so whoever
 * could make it could as well overwrite any file there.  The placeholder
 * would close that gap but leaves an empty file under the final name if
 * we are killed between its creation and the rename. */
static int rename_if_free(const struct dest_file *f)
{
	struct stat st;

	if (fstatat(f->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	return renameat(f->dirfd, f->tmp, f->dirfd, f->name) < 0 ? -errno : 0;
}

/* The temporary name onto the final one, replacing only as how allows.  A
 * name that must be kept is kept also where the filesystem counts it as
 * the same as a file already there: an exFAT volume compares names through
 * the up-case table it carries, which its last owner wrote (a table that
 * folds the digits makes IMG_0001.JPG and IMG_0002.JPG one name). */
static int rename_into_place(const struct dest_file *f, enum dest_replace how)
{
	bool keep = how != DEST_REPLACE;

	if (renameat2(f->dirfd, f->tmp, f->dirfd, f->name, keep ? RENAME_NOREPLACE : 0) == 0)
		return 0;
	if (errno != EINVAL || !keep)
		return -errno;
	return how == DEST_NO_CLOBBER ? rename_onto_placeholder(f) : rename_if_free(f);
}

/* An unnamed file under its name; onto an existing entry it is linked
 * under a temporary name first and renamed over it, so the old file is
 * replaced in one step. */
static int link_into_place(struct dest_files *fs, struct dest_file *f, enum dest_replace how)
{
	int r = link_as(fs, f, f->name);

	if (r == -EEXIST && how == DEST_REPLACE) {
		next_name(fs, f);
		r = link_as(fs, f, f->tmp);
		if (r < 0)
			f->tmp[0] = '\0';
		else
			r = rename_into_place(f, how);
	}
	return r;
}

int dest_file_publish(struct dest_files *fs, struct dest_file *f, enum dest_replace how)
{
	int r, rc;

	if (!f->unnamed) {
		r = rename_into_place(f, how);
		if (r == 0) {
			f->tmp[0] = '\0';
			dest_partial_forget(f);
		}
		return r;
	}
	r = link_into_place(fs, f, how);
	if (r == 0)
		f->tmp[0] = '\0';
	rc = writer_close(f->w);
	return r < 0 ? r : rc;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* A FUSE daemon on libfuse's high-level API (exfat-fuse, without
 * use_ino) numbers inodes per name, so the two names of one file get two
 * numbers: then the one entry that looks the same must do. */
static bool looks_same(const struct stat *a, const struct stat *b)
{
	return (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT) && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

char *dest_file_holder(const struct dest_file *f)
{
	_cleanup_free_ char *weak = NULL;
	char *found = NULL;
	size_t n_weak = 0, seen = 0;
	struct stat want, st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(f->dirfd, f->name, &want, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	fd = openat(f->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return NULL;
	}
	while (!found && seen++ < CLASH_SCAN_MAX && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(f->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (strcmp(de->d_name, f->name) == 0 || same_file(&st, &want))
			found = strdup(de->d_name);
		else if (looks_same(&st, &want) && n_weak++ == 0)
			weak = strdup(de->d_name);
	}
	closedir(d);
	return found ? found : n_weak == 1 ? TAKE_PTR(weak) : NULL;
}

/* Closed before the unlink: a FUSE filesystem (libfuse without
 * hard_remove) renames a file still open to .fuse_hidden*, and a device
 * that is gone by the release keeps it under that name, which no later
 * copy knows as ours. */
void dest_file_remove(struct dest_file *f)
{
	if (f->dirfd >= 0 && f->tmp[0]) {
		writer_close(f->w);
		(void)unlinkat(f->dirfd, f->tmp, 0); /* gone already is as good */
	}
	f->tmp[0] = '\0';
	dest_partial_forget(f);
}

void dest_file_free(struct dest_file *f)
{
	dest_partial_forget(f); /* only when never named nor removed: a bug's */
	writer_free(f->w);
	f->w = NULL;
	free(f->name);
	f->name = NULL;
}

/* A dead copy's temporary, ours to remove: made by this user; as root any
 * owner's, since with --preserve=ownership root's temporaries get their
 * source's owner before their name (a name that merely looks like ours
 * loses only that name: the file's data goes with its last name). */
static bool mine(const struct stat *st)
{
	return geteuid() == 0 || st->st_uid == geteuid();
}

/* What removing it frees: nothing while another name holds the file (a
 * hard link's temporary, --preserve=links, left by a dead copy). */
static uint64_t frees(const struct stat *st)
{
	return st->st_nlink == 1 ? (uint64_t)st->st_blocks * 512 : 0;
}

static int add(struct stale_temps *list, const char *dir_path, size_t dir, const char *name,
	       const struct stat *st)
{
	size_t dl = strlen(dir_path);
	const char *sep = dl && dir_path[dl - 1] == '/' ? "" : "/";
	char *path;

	if (asprintf(&path, "%s%s%s", dir_path, sep, name) < 0)
		return -ENOMEM;
	if (GROW(list->v, list->cap, list->n + 1, 8) < 0) {
		free(path);
		return -ENOMEM;
	}
	list->v[list->n++] = (struct stale_temp){ path, path + dl + strlen(sep), dir, frees(st),
						  false };
	list->bytes += frees(st);
	return 0;
}

/* A partial (or the partial of a record) that a live copy holds locked
 * (dest_partial.c); a record without its partial is nobody's. */
static bool partial_in_use(int dfd, const char *name, bool record)
{
	char data[PARTIAL_NAME_MAX];
	int fd;
	bool busy;

	snprintf(data, sizeof(data), "%.*s", (int)strlen(name) - (record ? 4 : 0), name);
	fd = openat(dfd, data, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

int stale_temps_find_at(int dfd, const char *dir_path, size_t dir,
			struct stale_temps *list)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_closedir_ DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	struct stat st;
	bool record;
	pid_t pid;
	int r;

	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	/* what we could not remove must not count as free space */
	if (faccessat(dirfd(d), ".", W_OK, AT_EACCESS) < 0)
		return 0;
	while ((errno = 0, de = readdir(d))) {
		bool partial = false;

		if (!(stale_temp_parse(de->d_name, &pid) && !pid_alive(pid)) &&
		    !(partial = partial_name_parse(de->d_name, &record)))
			continue;
		/* ours to remove (mine()); another name of a file only loses
		 * that name */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) || !mine(&st) ||
		    (partial && partial_in_use(dirfd(d), de->d_name, record)))
			continue;
		r = add(list, dir_path, dir, de->d_name, &st);
		if (r < 0)
			return r;
		list->v[list->n - 1].partial = partial;
	}
	return -errno;
}

int stale_temps_find(const char *path, struct stale_temps *list)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : stale_temps_find_at(fd, path, 0, list);
}

int stale_temp_remove(int dfd, const struct stale_temp *t)
{
	struct stat st;

	if (fstatat(dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if ((!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) || !mine(&st))
		return -ENOENT; /* replaced by something that is not ours */
	return unlinkat(dfd, t->name, 0) < 0 ? -errno : 0;
}

void stale_temps_free(struct stale_temps *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->v[i].path);
	free(list->v);
	*list = (struct stale_temps){ 0 };
}
