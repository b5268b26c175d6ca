/* reader_lend.c: a large file's chunks lent to the write, and taken back.
 *
 * A file of LEND_MIN bytes or more is lent instead of read: each chunk
 * names its range of the source (a dup of the fd) and each destination's
 * writer splices the source's pages to its file (io/file_move.h), so no
 * byte is copied or mapped in user space.  The loop (reader.c) only asks
 * the kernel to read the range ahead (WILLNEED), so a slow card is read
 * while the stick writes.  The bytes are read when the write takes them,
 * so the check that the file did not change is made again after its
 * last write, per destination (reader_chunk_written); a source truncated
 * under us makes the write fail with EFAULT.  With several destinations
 * a lent chunk is not hashed: each destination takes the source's own
 * pages, which the first reader keeps in the cache, and a detached
 * cursor's second reader lends the file again, from the cache when it
 * is still there, else from the source, checked by size and times like
 * every read, not byte for byte (only --verify reads the bytes; it
 * keeps them in the ring and hashed, as do shared checksums).  Per
 * byte, N destinations then cost N splices, not a copy into the ring,
 * a hash, and a second copy and hash for the laggard.
 *
 * A tap (per-file checksums) with one destination must see the bytes:
 * for it each lent chunk is also mapped and populated
 * (MADV_POPULATE_READ, which fails where a touch would raise SIGBUS) and
 * read under a SIGBUS guard (reader.c): a file that shrinks under it
 * ends there, flagged changed.  The write then takes the bytes from that
 * mapping: with its page tables already paid for, pinning the pages
 * costs less than splicing them.  Several cursors and --verify read:
 * their hashes are the engine's or the ring's.
 *
 * Each lent chunk's fd (and mapping) waits in a queue until its release:
 * one cursor gives chunks back in order, so the oldest goes
 * (lend_return_oldest); several each in their own, so a chunk's fd is
 * closed once every cursor is past it in the ring (reclaim). */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "copy/reader_internal.h"
#include "copy/source_tree.h"
#include "io/ring.h"
#include "base/size.h"

/* smaller files are read: a pipe per file and (with a tap) the mmap,
 * populate and munmap cost more than the copy they save */
#define LEND_MIN (1u << 20)

/* A large file is lent unless its bytes are needed here: by --verify's
 * hashes, or by a tap that several destinations share (one alone maps
 * the chunk for it).  A second reader lends what its first one does. */
bool lend_file(const struct reader *r, const struct source_entry *e)
{
	const struct reader *f = r->first;

	return !f->feed && !f->bytes_seen && !(f->tap.chunk && f->n > 1) &&
	       e->size >= LEND_MIN;
}

/* Map and populate m's len bytes of fd at off. */
static bool map_lent(struct lent *m, int fd, uint64_t off, size_t len)
{
	m->map_len = (size_t)round_up_u64(len, (uint64_t)sysconf(_SC_PAGESIZE));
	m->map = mmap(NULL, m->map_len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return false;
	}
	if (madvise(m->map, m->map_len, MADV_POPULATE_READ) < 0) {
		munmap(m->map, m->map_len);
		m->map = NULL;
		return false;
	}
	return true;
}

/* Several cursors release lent chunks each in its own order: a chunk's
 * fd is closed once every cursor is past it, here before the next is
 * lent, and at the end.  (Such chunks are never mapped: no tap; nor
 * dropped: several destinations keep what was read.) */
static void reclaim(struct reader *r)
{
	uint64_t oldest = ring_oldest(r->ring);

	for (;;) {
		int fd;

		pthread_mutex_lock(&r->lent_lock);
		if (r->lent_len == 0 || r->lent[r->lent_head].seq >= oldest) {
			pthread_mutex_unlock(&r->lent_lock);
			return;
		}
		fd = r->lent[r->lent_head].fd;
		r->lent_head = (r->lent_head + 1) % READER_RECORDS;
		r->lent_len--;
		pthread_mutex_unlock(&r->lent_lock);
		close(fd);
	}
}

/* Lend chunk c's want bytes of fd to the write, in place of the slot's
 * buffer, which then holds nothing (its bytes in the ring still bound
 * how far ahead the source is read); false (nothing lent) when any
 * step fails, and the chunk is then read. */
bool lend_chunk(struct reader *r, int fd, struct reader_chunk *c, size_t want, bool drop)
{
	struct lent m = { .drop = drop, .seq = ring_produced(r->ring) };

	if (r->n > 1)
		reclaim(r);
	if (r->lent_len == READER_RECORDS)
		return false;
	if (r->tap.chunk && !map_lent(&m, fd, c->offset, want))
		return false;
	m.fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (m.fd < 0) {
		if (m.map)
			munmap(m.map, m.map_len);
		return false;
	}
	if (!m.map)
		posix_fadvise(fd, (off_t)c->offset, (off_t)want, POSIX_FADV_WILLNEED);
	pthread_mutex_lock(&r->lent_lock);
	r->lent[(r->lent_head + r->lent_len++) % READER_RECORDS] = m;
	pthread_mutex_unlock(&r->lent_lock);
	if (m.map)
		c->buf = m.map;
	c->mapped = m.map != NULL;
	c->src_fd = m.fd;
	return true;
}

/* Give back the oldest lent chunk, c, and drop its pages when we should
 * (c NULL: at the end, nothing to drop). */
void lend_return_oldest(struct reader *r, const struct reader_chunk *c)
{
	struct lent m;

	pthread_mutex_lock(&r->lent_lock);
	m = r->lent[r->lent_head];
	r->lent_head = (r->lent_head + 1) % READER_RECORDS;
	r->lent_len--;
	pthread_mutex_unlock(&r->lent_lock);
	if (m.map)
		munmap(m.map, m.map_len);
	if (c && m.drop)
		reader_drop_pages(m.fd, c->offset, c->len, c->last);
	close(m.fd);
}

/* The reader's threads are gone: close what is still lent. */
void lend_return_all(struct reader *r)
{
	while (r->lent_len > 0)
		lend_return_oldest(r, NULL);
}
