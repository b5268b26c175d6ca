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
 * A large file is written as a resumable partial instead (issue 27,
 * dest_partial.c): under a hidden name made from its final name, with a
 * record beside it of what it is a prefix of and how far it is durable
 * (partial_record.h), written down in this machine's state
 * (partial_state.h).  A copy that stops keeps it (dest_file_stop); the
 * next copy of that file opens it again at the length the session
 * checked (dest_file_open_partial).  Only one process writes a partial:
 * it holds a lock on it (flock) while it does, and the stale scan takes
 * a partial that is locked for no one's to remove. */
#ifndef SAFECP_DEST_FILE_H
#define SAFECP_DEST_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct dest_partial;
struct partial_digests;
struct partial_record;
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
	struct dest_partial *partial; /* a resumable partial (tmp is its name), or NULL */
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

/* What makes f a resumable partial. */
struct dest_resume {
	const struct partial_record *rec; /* its record's header; its n digests are
					   * the chunks kept (0: a new partial) */
	uint64_t from;       /* bytes kept: rec->n * rec->chunk */
	dev_t dev;           /* from > 0: the partial the session checked */
	ino_t ino;
	const char *state_dir;  /* this machine's (partial_state.h) */
	const char *fs_uuid;    /* the destination filesystem's, or NULL */
	bool stable_ino;        /* its inode numbers survive a remount (not FUSE) */
};

/* A writer on f as a resumable partial: a new one (res->from 0, created
 * O_EXCL: -EEXIST when its name is taken), or the one the session
 * checked, cut to res->from.  Its record is written (temporary, fsync,
 * rename) and this machine's state notes it before any data.  0, or
 * -errno with nothing of the partial's left but what was there before;
 * the caller may then write f with dest_file_open(). */
int dest_file_open_partial(struct dest_files *fs, struct dest_file *f, const struct dest_open *how,
			   const struct dest_resume *res);

/* The partial's record lists each chunk the device now holds: once the
 * writer confirmed a chunk, the data is made durable (fdatasync) and its
 * digest (from d, entry idx) appended and made durable.  Nothing for a
 * file that is no partial.  A record that cannot be written stops
 * growing (the partial is then resumable up to what it lists); never an
 * error of the copy. */
void dest_file_partial_note(struct dest_file *f, const struct partial_digests *d, size_t idx);

/* The copy stopped (cancelled, or a device error): a partial whose
 * record lists a chunk keeps its name and record for the next run, and
 * the bytes its record lists are returned; any other temporary is
 * removed (0). */
uint64_t dest_file_stop(struct dest_file *f);

/* f as a symlink to target, under a temporary name.  0 or -errno. */
int dest_file_symlink(struct dest_files *fs, struct dest_file *f, const char *target);

/* f as another name of the file at path target (the copy of a hard
 * link's first name, durable already), under a temporary name: -ESTALE
 * when what the path led to is not the file (dev, ino) said.  0 or
 * -errno. */
int dest_file_hard_link(struct dest_files *fs, struct dest_file *f, const char *target, dev_t dev,
			ino_t ino);

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

/* Remove f's temporary name, if it has one (its writer closed first); a
 * partial's record and state entry with it. */
void dest_file_remove(struct dest_file *f);

/* Free f's writer and name (not its temporary: dest_file_remove). */
void dest_file_free(struct dest_file *f);

/* dest_partial.c, for dest_file.c: f is named or removed, so its
 * partial's record goes, and this machine's note of it. */
void dest_partial_forget(struct dest_file *f);

/* --------------------------------------------- dead copies' temporaries */

struct stale_temp {
	char *path;       /* for messages */
	const char *name; /* its name in the directory, inside path */
	size_t dir;       /* the caller's key of that directory (a plan entry) */
	uint64_t bytes;   /* allocated: st_blocks * 512, what removing it frees */
	bool partial;     /* a partial's data or record (partial_record.h): stale
			   * unless the session resumes it */
};

struct stale_temps {
	struct stale_temp *v;
	size_t n, cap;
	uint64_t bytes;
};

/* Append the stale temporaries of the directory open on dirfd (regular
 * files and symlinks named like ours, of dead PIDs, owned by this user,
 * with one link; and partials and their records of this user with one
 * link, but those whose partial some process holds locked) to *list, each with
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
