/* reader_internal.h: the reader's state, shared by its parts.  Not part
 * of the library's API (that is reader.h).
 *
 *   reader.c         the loop: a thread reads the wanted files, in plan
 *                    order, into a ring with one cursor per destination
 *   reader_feed.c    a stream feed's entry into the ring, for a file's
 *   reader_lend.c    a large file's chunks lent to the write, and taken back
 *   reader_second.c  a detached cursor's second reader: the detach, the
 *                    first read's hashes it is checked against
 *   reader_cursor.c  the consumers' side: take, skip, give back, leave
 *   reader_chunk.c   a consumer's check of a lent chunk after its write
 *
 * A second reader runs the same loop as the first, with one cursor:
 * `first` names the first reader (itself for the first), whose lock and
 * counters every reader shares, and `second` a second reader's state on
 * the cursor it serves (NULL in the first). */
#ifndef SAFECP_READER_INTERNAL_H
#define SAFECP_READER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "copy/dirstack.h"
#include "copy/verify.h"
#include "copy/reader_chunk.h"

/* chunks in the ring at most, whatever their size: as many can be lent */
#define READER_RECORDS 1024u
/* the least an arena slot holds (reader.c: arena_slot()) */
#define READER_SMALL_SLOT (1u << 20)

struct plan;
struct ring;
struct source_entry;
struct source_feed;
struct source_tree;

/* A published chunk lent from the source, until its release.  Chunks
 * are released in order (each cursor in its own), so these form a
 * queue. */
struct lent {
	void *map;               /* its mapping, for a tap; NULL: none */
	size_t map_len;
	int fd;                  /* a dup of the source's: the chunk's src_fd */
	bool drop;               /* drop the pages behind us after the write */
	uint64_t seq;            /* its slot in the ring */
};

/* A cursor's second reader (reader_second.c), from its detach on. */
struct reader_second {
	/* set by the first reader's thread, under the first's lock */
	bool detached;
	size_t entry;            /* where it goes on */
	uint64_t offset;
	void *expect;            /* tsearch tree of struct expect */
	_Atomic size_t at;       /* where the second reader is: the first
				  * stores expectations only ahead of it */
	struct reader *reader;   /* started by the cursor's consumer */
};

struct reader_cursor {
	struct reader *r;        /* the reader whose ring it takes from */
	unsigned idx;            /* its cursor in that ring */
	const struct plan *plan; /* its destination's plan: which files it writes */
	size_t skip_from, skip_to; /* under the first's lock */
	bool left;               /* under the first's lock */
	struct reader_second second;
};

struct reader {
	const struct source_tree *tree; /* the source tree every plan shares */
	const struct source_feed *feed; /* NULL: the tree's files (source_feed.h) */
	bool *want;               /* per entry: some cursor writes this file */
	size_t chunk, align;
	size_t slot;              /* an arena slot's bytes (<= chunk): a feed's claims */
	struct ring *ring;
	atomic_bool *cancel;
	pthread_t thread;
	bool started;
	bool hashing;             /* chunks are hashed for a second read */
	bool bytes_seen;          /* a consumer hashes the bytes: map nothing */
	bool holes;               /* a SOURCE_HOLES file's holes are chunks of
				   * their own (reader_chunk.hole): --sparse
				   * is not never */
	struct verify_file src;   /* verify_source: this file's first read */
	struct read_back src_rb;  /*   and its second (verify.h) */
	struct reader_tap tap;    /* the first reader only */
	unsigned n;
	struct reader_cursor *cursors;
	struct reader *first;     /* the first reader: itself, or the one a second serves */
	struct reader_second *second; /* a second reader's; NULL: the first */
	const struct reader_start *starts; /* the first reader's (reader_opts) */
	size_t n_starts;
	size_t start_entry;       /* where reading starts: a second reader's */
	uint64_t start_offset;    /*   cursor's place */
	/* the first's: its cursors' skips, leaving, detaching and expectations */
	pthread_mutex_t lock;
	/* reader thread only */
	struct dirstack dirs;
	size_t bad_dir_end;  /* files before this index lie under a directory */
	int bad_dir_err;     /*   that could not be opened, with this error */
	size_t at_entry;     /* the chunk being read: where a detached */
	uint64_t at_offset;  /*   cursor goes on when the ring holds none */
	bool *uncached;      /* the first: file was not cached before we read it */
	/* the first reader's counters, of all readers */
	_Atomic uint64_t bytes_read, bytes_reread, mismatches;
	_Atomic unsigned detached;
	/* published lent chunks not yet released, oldest first, under lent_lock */
	pthread_mutex_t lent_lock;
	struct lent lent[READER_RECORDS];
	unsigned lent_head, lent_len;
};

/* reader.c: a reader's construction, and the loop's steps the other
 * parts take. */
int reader_new(const struct plan *const *plans, unsigned n, size_t chunk, size_t align,
	       unsigned slots, atomic_bool *cancel, struct reader **ret);
int reader_run(struct reader *r);
bool reader_should_stop(const struct reader *r);
bool reader_wants(const struct plan *p, size_t idx);
bool reader_skipped(struct reader *r, size_t idx);
void *reader_claim(struct reader *r, size_t idx, uint64_t offset, size_t bytes);
void reader_publish(struct reader *r, struct reader_chunk *c);
bool reader_publish_end(struct reader *r, struct reader_chunk *c, int err, bool changed);
void reader_drop_pages(int fd, uint64_t off, size_t len, bool last);

/* reader_feed.c: a stream feed's entry idx into the ring; false when
 * told to stop. */
bool feed_read(struct reader *r, size_t idx);

/* reader_lend.c */
bool lend_file(const struct reader *r, const struct source_entry *e);
bool lend_chunk(struct reader *r, int fd, struct reader_chunk *c, size_t want, bool drop);
void lend_return_oldest(struct reader *r, const struct reader_chunk *c);
void lend_return_all(struct reader *r);

/* reader_second.c */
void second_detach(struct reader *r, unsigned lag);
void second_note(struct reader *r, struct reader_chunk *c);
int second_start(struct reader_cursor *k);
void second_end(struct reader_cursor *k);

#endif
