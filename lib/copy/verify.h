/* verify.h: --verify, the one owner of comparing what was written with
 * what the device gives back.
 *
 * A file's bytes are digested (xxh128) chunk by chunk as they pass
 * (struct verify_file); once the file is durable it is read back past
 * the page cache (read_back.h, this module's reading half) and the two
 * digests compared.  The reader does that to the source for
 * verify_source (the file read again), a destination's engine to each
 * written file before it gets its name (verify_written).  The engine's
 * struct verify also keeps the verify counters of the job's stats, the
 * first read-back that came from the cache, and every file named after a
 * match, which it reads back once more at the end (the recheck, the top
 * of verify.c).  It reports nothing itself: its calls say what happened
 * and the engine tells the caller.  Not part of the library's API. */
#ifndef SAFECP_VERIFY_H
#define SAFECP_VERIFY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "copy/read_back.h"
#include "hash/checksum.h"

struct plan;

/* One file's bytes as they passed, and after a match what read back. */
struct verify_file {
	struct checksum_state *hash;    /* NULL: not digested (nothing to compare) */
	char digest[CHECKSUM_TEXT_MAX]; /* after a match: its text; else "" */
	dev_t dev;                      /* after a match: the file, for the recheck */
	ino_t ino;
	uint64_t from;                  /* the bytes before it are not digested here nor
					 * read back: a resumed partial's kept part,
					 * read back before the copy (resume.h) */
};

/* A new digest in f (f zeroed, or reused: its digest starts again).
 * 0, or -ENOMEM (never when f already holds one). */
int verify_file_start(struct verify_file *f);
/* The next len bytes of the file (nothing when f is not digested). */
void verify_file_add(struct verify_file *f, const void *buf, size_t len);
/* The same for a callback (reader_chunk_bytes()): ctx is the verify_file. */
void verify_file_add_bytes(void *ctx, const void *buf, size_t len);
void verify_file_free(struct verify_file *f);

/* f's bytes against what the durable file fd (size bytes) reads back
 * through rb (read_back_file(): fuse, bdev_fd, how; each block read added
 * to *counted, NULL: not counted).  0: the same (f->digest set); 1:
 * different; -errno: the read failed.  f's digest is then final
 * (verify_file_start() to reuse f). */
int verify_file_compare(struct verify_file *f, struct read_back *rb, int fd, uint64_t size,
			bool fuse, int bdev_fd, enum readback_how *how, _Atomic uint64_t *counted);

/* Where a destination's verify counts, for the job's caller (copy_stats). */
struct verify_counts {
	_Atomic uint64_t *bytes;      /* read back and compared */
	_Atomic uint64_t *files;      /* files that read back the same */
	_Atomic uint64_t *mismatched; /* files that read back different */
	_Atomic bool *cached;         /* some read-back came from the cache */
};

struct verify_setup {
	const struct plan *plan; /* the destination's: its paths */
	bool fuse;               /* read_back_file()'s fuse and bdev_fd */
	int bdev_fd;
	const atomic_bool *cancel; /* NULL, or the recheck stops between files once true */
	size_t buf_size;           /* of each read */
	struct verify_counts counts;
};

/* One destination's verify (a NULL one is a copy without --verify: every
 * call below then does nothing).  0 with *ret set, or -ENOMEM. */
struct verify;
int verify_new(const struct verify_setup *s, struct verify **ret);
void verify_free(struct verify *v);

/* Before plan entry `entry` is named: f (of its bytes written) against
 * the durable file fd of size bytes.  0 the same (counted, f keeps what
 * the recheck needs) or nothing to compare (f not digested); -EBADMSG
 * different (counted); -errno unreadable.  *note_cached: true the first
 * time a read-back of this destination came from the cache (the caller
 * says so once; the counts' cached flag is set). */
int verify_written(struct verify *v, struct verify_file *f, size_t entry, int fd, uint64_t size,
		   bool *note_cached);

/* The file of entry (size bytes, f as verify_written left it) is under
 * its name: remembered for the recheck when it read back the same.  Out
 * of memory, it is not read again (it was verified once). */
void verify_named(struct verify *v, const struct verify_file *f, size_t entry, uint64_t size);
/* A batch commit happened (it may have named files): the files of the
 * last one were read back after all the data, the others are read again. */
void verify_committed(struct verify *v);

/* A file the recheck found different now (or unreadable). */
struct verify_bad {
	size_t entry;
	int err;        /* -EBADMSG: read back different; else the read's -errno */
	bool withdrawn; /* taken away from its name (and out of the counts) */
};

/* The recheck has files to read (then the engine says so in its phase). */
bool verify_recheck_due(const struct verify *v);
/* The recheck's next bad file: 1 with *ret set, 0 when it is over,
 * -ECANCELED.  dir_fd: the destination directory the plan's paths start
 * from; root_fd: the destination root, synced before a second pass. */
int verify_recheck_next(struct verify *v, int dir_fd, int root_fd, struct verify_bad *ret);

#endif
