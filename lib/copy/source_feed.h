/* source_feed.h: where the reader (reader.h) gets the bytes of plan
 * entry i.
 *
 * The default feed, the one every copy uses (no feed given), is the
 * plan's own files: the reader opens entry i from its directory's fd by
 * name (dirstack.h), reads it or lends it to the write (which splices
 * it), and checks it is still the file the plan saw.  Those bytes are a file's, so the reader may lend them,
 * read a chunk again at its offset (a detached cursor's second read,
 * verify_source) and drop them from the page cache behind itself.  That
 * feed lives in reader.c, with the lent chunks (reader_lend.c) and the
 * second readers (reader_second.c) it needs.
 *
 * A job may give a stream feed instead: the bytes of entry i come from a
 * producer (an archive being written of other files, an archive being
 * read), in order, once.  The plan's st_size of such an entry is an
 * estimate (the space check's bound), never checked: the entry is as
 * long as the feed makes it.  Such bytes cannot be lent and cannot be
 * read again at an offset, so with several destinations a cursor that
 * falls behind is not detached to a second read: the ring holds the
 * producer back and every destination goes at the slowest one's pace,
 * memory still bounded by the ring.  The alternative, producing the
 * stream a second time for the laggard, would read every source twice
 * and run the compressor twice, and a second run need not give the same
 * bytes (a source that changed in between), which nothing could check.
 * For the same reason a stream feed refuses verify_source (-EINVAL from
 * reader_start()).
 *
 * The contract, all of it on the reader's thread:
 * - Order: open(entry) is called for the regular-file entries some
 *   destination writes, in increasing plan order, each at most once,
 *   and each open is followed by reads of that entry and one close
 *   before the next open.  Entries no destination wants are never
 *   opened; one every destination gave up on (reader_skip()) may be
 *   closed before its end.
 * - open: 0, or -errno: the entry ends at once (one empty last chunk
 *   with that error) and close is not called.
 * - read(buf, len, end): buf is aligned to the write plan's mem_align
 *   (at least 4096) and len is the reader's chunk, a multiple of it.  The
 *   feed fills all len bytes unless the entry ends inside them: it
 *   returns the count and sets *end when no byte follows (the count may
 *   then be anything from 0 to len, so the reader never asks past the
 *   end to learn it).  A short count without *end is taken as -EIO.  So
 *   every chunk but an entry's last is whole, which is what the writer
 *   needs (io/writer.h); re-chunking is the feed's work.
 *   -errno: the entry fails with that error; no further read of it.
 * - close(changed): after the end, an error, a skip or a stop; sets
 *   *changed when the bytes cannot be trusted (a source changed while
 *   the feed read it): the entry's last chunk is then flagged changed
 *   and no destination publishes it.  0 or -errno, which becomes the
 *   entry's error if it had none.
 * - Cancel: the reader checks the job's cancel flag between reads and
 *   passes it to open (NULL: none); a feed whose read may take long (a
 *   compressor eating a large file that compresses to little) watches it
 *   and returns -ECANCELED.
 * - Ownership: the caller owns the feed and its ctx; the reader never
 *   frees either, and both must outlive reader_free() (the job's
 *   copy_job_free()).  What the feed opens (source files, an archive)
 *   is the feed's to close, in close() or in its own free. */
#ifndef SAFECP_SOURCE_FEED_H
#define SAFECP_SOURCE_FEED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct source_feed_ops {
	int (*open)(void *ctx, size_t entry, atomic_bool *cancel);
	ssize_t (*read)(void *ctx, void *buf, size_t len, bool *end);
	int (*close)(void *ctx, bool *changed);
};

struct source_feed {
	const struct source_feed_ops *ops;
	void *ctx;
};

#endif
