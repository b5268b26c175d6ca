/* dest_file.h: a destination file before it has its name.  The one place
 * that knows how a file comes to be on the destination: its temporary
 * name, how it is opened, how it is put under its final name, how it is
 * removed, and how the temporaries of a copy that died are found.
 *
 * A file is written unnamed (O_TMPFILE) where the filesystem allows it and
 * linked into place once it is durable: a crash or a kill -9 frees it.
 * Elsewhere (FAT, exFAT, FUSE) it is written under a hidden temporary name
 * in its directory and renamed into place.  A name that must not be
 * replaced never is: RENAME_NOREPLACE, or where the filesystem lacks it an
 * O_EXCL placeholder (-n) or a look just before the rename.  A temporary
 * name is ours only while we hold it: one taken by someone else is never
 * removed.
 *
 * A copy that is killed (-9, a crash, the power) cannot remove a named
 * temporary; the next copy into the same directory can.  A temporary is
 * stale when the PID in its name is not a live process on this machine.
 * A live PID keeps its file, even if that process is no longer safecp:
 * PIDs are reused, and leaving a dead file is safer than removing a live
 * one.  A copy from another PID namespace into the same directory at the
 * same time would look dead: that case is not handled.  A stick can carry
 * files of any owner: only regular files and symlinks of this user with a
 * single link are taken, looked at without following a link.
 *
 * Next (issue 27): a partial a stopped copy kept, opened again at its
 * durable length, beside dest_file_open(); its record, and its place in
 * the stale scan. */
#ifndef SAFECP_DEST_FILE_H
#define SAFECP_DEST_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct write_plan;
struct writer;
struct writer_hooks;

/* ---------------------------------------------------------------- names */

/* ".safecp-PID-SEQ.tmp": fits in 48 bytes with any PID and SEQ. */
#define STALE_TEMP_NAME_MAX 48

/* Writes the temporary name of this process's seq-th file into buf
 * (STALE_TEMP_NAME_MAX bytes). */
void stale_temp_name(char *buf, pid_t pid, unsigned long seq);

/* True when name is exactly a temporary name; *pid gets its PID.  Pure:
 * digits only, no sign, no leading zero, PID > 0. */
bool stale_temp_parse(const char *name, pid_t *pid);

/* ------------------------------------------------- a file on its way */

/* The destination files one thread makes: where their temporary names
 * come from, and what the filesystem refused once. */
struct dest_files {
	pid_t pid;          /* in the names: looked up once, not per file */
	unsigned long seq;  /* the last name's number */
	bool tmpfile;       /* O_TMPFILE works here, until it fails once */
	bool no_flink;      /* linkat(AT_EMPTY_PATH) refused us once: use /proc */
};

/* tmpfile: the filesystem may have O_TMPFILE (fs_traits.h). */
void dest_files_init(struct dest_files *fs, bool tmpfile);

struct dest_file {
	int dirfd;          /* the directory it goes into: the caller's */
	char *name;         /* its final name there */
	char tmp[STALE_TEMP_NAME_MAX]; /* a temporary name that exists in dirfd, or "" */
	bool unnamed;       /* O_TMPFILE: linked into place, no temporary name */
	struct writer *w;   /* its data; NULL for a symlink or a small file */
};

/* f, to be name in dirfd; nothing is created yet.  0 or -ENOMEM. */
int dest_file_init(struct dest_file *f, int dirfd, const char *name);

/* How a file's writer is opened (writer.h). */
struct dest_open {
	const struct write_plan *plan;
	uint64_t size;      /* expected length */
	int bdev_fd;        /* fuseblk: the device whose cache holds the data, or -1 */
	const struct writer_hooks *hooks;
};

/* A writer on a new file f: unnamed where the filesystem has O_TMPFILE,
 * else under a temporary name.  0, or -errno with nothing to remove. */
int dest_file_open(struct dest_files *fs, struct dest_file *f, const struct dest_open *how);

/* f as a symlink to target, under a temporary name.  0 or -errno. */
int dest_file_symlink(struct dest_files *fs, struct dest_file *f, const char *target);

/* f as a new regular file of mode (less the umask) under a temporary
 * name, for the caller to write: the fd (the caller's to close before
 * dest_file_publish) or -errno. */
int dest_file_create(struct dest_files *fs, struct dest_file *f, mode_t mode);

/* What may stand under the final name. */
enum dest_replace {
	DEST_NEW,        /* the name was free: a file that appeared since is
			  * not replaced (-EEXIST) */
	DEST_REPLACE,    /* the file there is replaced in one step */
	DEST_NO_CLOBBER, /* -n: never replaced, not even in the gap between a
			  * look and the rename (an O_EXCL placeholder) */
};

/* Put f under its name, once it is durable: an unnamed file is linked
 * there (to replace a file: linked under a temporary name and renamed over
 * it) and its writer closed; a named one is renamed.  0, -EEXIST when the
 * name is taken and how keeps it, or -errno; on failure f keeps its
 * temporary name, if any, for dest_file_remove. */
int dest_file_publish(struct dest_files *fs, struct dest_file *f, enum dest_replace how);

/* After -EEXIST: the name, in the directory's own listing, of the file
 * that f's name reaches: the name itself when a file appeared under it,
 * another name the filesystem folds onto it, or NULL when no entry is
 * sure (malloc'd). */
char *dest_file_holder(const struct dest_file *f);

/* Remove f's temporary name, if it has one (its writer closed first). */
void dest_file_remove(struct dest_file *f);

/* Free f's writer and name (not its temporary: dest_file_remove). */
void dest_file_free(struct dest_file *f);

/* --------------------------------------------- dead copies' temporaries */

struct stale_temp {
	char *path;       /* for messages */
	const char *name; /* its name in the directory, inside path */
	size_t dir;       /* the caller's key of that directory (a plan entry) */
	uint64_t bytes;   /* allocated: st_blocks * 512, what removing it frees */
};

struct stale_temps {
	struct stale_temp *v;
	size_t n, cap;
	uint64_t bytes;
};

/* Append the stale temporaries of the directory open on dirfd (regular
 * files and symlinks named like ours, of dead PIDs, owned by this user,
 * with one link) to *list, each with
 * key dir and a path made from dir_path; none when this process may not
 * remove names from it.  Returns 0, or -errno when the directory cannot
 * be read (the list keeps what it had). */
int stale_temps_find_at(int dfd, const char *dir_path, size_t dir,
			struct stale_temps *list);

/* The same for the directory at path (opened without following a final
 * symlink), key 0. */
int stale_temps_find(const char *path, struct stale_temps *list);

/* Remove t (found in the directory now open on dirfd) if it is still a
 * regular file or symlink of ours: 0, or -errno (-ENOENT: already gone). */
int stale_temp_remove(int dfd, const struct stale_temp *t);

void stale_temps_free(struct stale_temps *list);

#endif
