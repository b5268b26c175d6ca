/* copy_file.c: one file (or symlink) of the plan into its destination
 * file (dest_file.h), then into the batch (copy_batch.c) that waits for
 * its data, makes it durable and puts it under its name.
 *
 * A file streams from the reader's ring into a writer on an unnamed file
 * (or, where the filesystem has none, a hidden temporary name), chunk by
 * chunk: a chunk the source lent is spliced from its page cache, any
 * other written from its buffer.  What the reader found wrong with the
 * source (a read error, a file that changed, a second read that gave
 * other bytes) drops the file and the copy goes on; an error of the
 * destination stops it. */
#include <errno.h>
#include <string.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "copy/holes.h"
#include "copy/resume.h"
#include "io/writer.h"
#include "copy/hook_paths.h"
#include "base/cleanup.h"

/* How a file's stream ended. */
enum stream_end {
	STREAM_WHOLE,          /* every byte written */
	STREAM_SOURCE_ERROR,   /* reading the source failed */
	STREAM_CHANGED,        /* the source changed while read */
	STREAM_REREAD_DIFFERS, /* a second read of it gave other bytes (verify_source) */
};

int copy_item_start(struct engine *g, size_t idx, struct batch_item *it)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	int fd;

	memset(it, 0, sizeof(*it));
	it->entry = idx;
	it->file.dirfd = -1;
	it->size = plan_file_bytes(g->plan, idx);
	fd = batch_parent_fd(g, source_parent(e->source, idx));
	if (fd < 0)
		return fd;
	return dest_file_init(&it->file, fd, plan_dst_name(g->plan, idx));
}

int copy_drain(struct engine *g, size_t idx)
{
	struct reader_chunk c;
	int r;

	do {
		r = reader_next(g->cursor, &c);
		if (r != 0)
			return copy_cancelled(g) ? -ECANCELED : r < 0 ? r : -EIO;
		reader_release(g->cursor, &c);
		if (c.entry != idx)
			return -EIO; /* out of step with the reader: a bug */
	} while (!c.last);
	return 0;
}

/* Bytes of c before from: a partial kept here ends inside it. */
static size_t skip_to(const struct reader_chunk *c, uint64_t from)
{
	return from > c->offset ? (size_t)(from - c->offset) : 0;
}

/* A hole of len bytes: left a hole where the destination keeps them,
 * else written as zeros (through the writer, so they are bounded and
 * counted as any bytes). */
static int write_hole(struct engine *g, struct batch_item *it, uint64_t len)
{
	int r = 0;

	if (g->plan->holes)
		return writer_skip(it->file.w, len);
	while (r == 0 && len > 0) {
		size_t n = (size_t)MIN(len, (uint64_t)READER_ZEROS);

		r = writer_write(it->file.w, reader_zeros(), n);
		len -= n;
	}
	return r;
}

/* --sparse=always: the whole blocks of zeros in buf (the chunk starts
 * at a multiple of HOLES_BLOCK in the file, as every chunk does) become
 * holes, the rest is written. */
static int write_punched(struct batch_item *it, const char *buf, size_t len)
{
	int r = 0;

	while (r == 0 && len > 0) {
		size_t n = holes_zero_run(buf, len, true);

		r = n ? writer_skip(it->file.w, n) : 0;
		buf += n;
		len -= n;
		n = r == 0 ? holes_zero_run(buf, len, false) : 0;
		r = n ? writer_write(it->file.w, buf, n) : r;
		buf += n;
		len -= n;
	}
	return r;
}

/* A chunk the source lent and no tap mapped is spliced from the source;
 * any other is written from its buffer; a hole is a hole (write_hole()).
 * Only its bytes from `from` on: a partial kept here may end inside a
 * chunk the reader started earlier for another destination (both are
 * multiples of 4096: aligned). */
static int write_chunk(struct engine *g, struct batch_item *it, const struct reader_chunk *c,
		       uint64_t from)
{
	size_t skip = skip_to(c, from);

	if (c->hole)
		return write_hole(g, it, c->len - skip);
	if (c->lent && !c->mapped)
		return writer_splice(it->file.w, &g->mover, c->src_fd, c->offset + skip,
				     c->len - skip);
	/* the reader kept the bytes in the ring for it (bytes_seen) */
	if (g->plan->holes && g->plan->opts.sparse == SPARSE_ALWAYS)
		return write_punched(it, (const char *)c->buf + skip, c->len - skip);
	return writer_write(it->file.w, (const char *)c->buf + skip, c->len - skip);
}

/* Where the stream ended (enum stream_end; *src_err: the source's read
 * error), or -errno when the destination failed. */
static int stream_file(struct engine *g, struct batch_item *it, int *src_err)
{
	struct reader_chunk c;
	uint64_t before;
	int r;

	for (;;) {
		if (copy_cancelled(g))
			return -ECANCELED;
		r = reader_next(g->cursor, &c);
		/* a reader told to stop ends its ring early: not a bug then */
		if (r != 0)
			return copy_cancelled(g) ? -ECANCELED : r < 0 ? r : -EIO;
		if (c.entry != it->entry) {
			reader_release(g->cursor, &c);
			return -EIO;
		}
		test_hook_source("chunk-write", g->plan->entries[it->entry].source);
		/* kept on the device already (read for another destination),
		 * and with --verify read back before the copy */
		if (!c.err && !c.changed && c.offset + c.len <= it->from && !c.last) {
			reader_release(g->cursor, &c);
			continue;
		}
		before = writer_data(it->file.w);
		r = c.err || c.changed ? 0 : write_chunk(g, it, &c, it->from);
		if (r >= 0)
			dest_file_partial_note(&it->file, g->digests, it->entry);
		/* the bytes we wrote, while the slot is still ours: once released
		 * the reader fills it again (never mapped: --verify reads) */
		if (r >= 0 && !c.err && !c.changed)
			reader_chunk_bytes(&c, skip_to(&c, it->from), verify_file_add_bytes, &it->vf);
		reader_chunk_written(&c, r);
		reader_release(g->cursor, &c);
		/* found by the write (a lent chunk): the rest must not reach
		 * the next file */
		if ((c.err || c.changed) && !c.last) {
			reader_skip(g->cursor, it->entry, it->entry + 1);
			if (copy_drain(g, it->entry) == -ECANCELED)
				return -ECANCELED;
		}
		if (c.err) {
			*src_err = c.err;
			return STREAM_SOURCE_ERROR;
		}
		if (c.changed)
			return STREAM_CHANGED;
		if (c.reread_differs)
			return STREAM_REREAD_DIFFERS;
		if (r < 0)
			return r;
		/* what reached the file: not a hole, nor what a partial keeps */
		atomic_fetch_add(&g->stats->bytes_written, writer_data(it->file.w) - before);
		if (c.last) {
			/* a stream feed's entry ends where the feed ends it (a
			 * file's ends at its size, or it changed); a file with
			 * holes has the data it has, not what the walk saw */
			uint64_t n = writer_data(it->file.w);

			atomic_fetch_add(&g->stats->bytes_total, n - it->size);
			it->size = n;
			return STREAM_WHOLE;
		}
	}
}

static void on_confirmed(void *ctx, uint64_t delta)
{
	struct engine *g = ctx;

	atomic_fetch_add(&g->stats->bytes_confirmed, delta);
}

static void on_switch(void *ctx, enum write_strategy to, enum writer_switch_reason why)
{
	struct engine *g = ctx;
	size_t idx = atomic_load(&g->stats->current);

	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_STRATEGY, .entry = idx,
					   .strategy = to, .why = why });
}

/* A large file as a resumable partial (resume.h), kept or new; a new one
 * whose name is taken (a partial another copy writes now) is written as
 * any other file.  A kept one that is no longer what the session checked
 * cannot be: the reader starts the file where the partial ends. */
static int open_file(struct engine *g, struct batch_item *it, const struct dest_open *how)
{
	const struct resume_plan *rp = g->o->resume;
	const struct resume_file *rf = resume_plan_find(rp, it->entry);
	int r;

	if (!rf)
		return dest_file_open(&g->files, &it->file, how);
	r = dest_file_open_partial(&g->files, &it->file, how, &(struct dest_resume){
		.rec = &rf->rec, .from = rf->from, .dev = rf->dev, .ino = rf->ino,
		.state_dir = rp->state_dir, .fs_uuid = rp->fs_uuid,
		.stable_ino = rp->stable_ino });
	if (r == 0) {
		it->from = rf->from;
		return 0;
	}
	/* what the start counted as on the device is not */
	if (rf->from) {
		atomic_fetch_sub(&g->stats->bytes_resumed, rf->from);
		atomic_fetch_sub(&g->stats->bytes_written, rf->from);
		atomic_fetch_sub(&g->stats->bytes_confirmed, rf->from);
		return r; /* -ESTALE: changed since the check; a device error as it is */
	}
	return r == -ENOMEM ? r : dest_file_open(&g->files, &it->file, how);
}

/* Drop a file that could not be copied; the copy goes on. */
static void fail_item(struct engine *g, struct batch_item *it, enum copy_step step,
		      int err, const char *path)
{
	item_drop(g, it, step, err, path);
	item_done(it);
}

int copy_link_failed(struct engine *g, struct batch_item *it, const char *leader_dst)
{
	fail_item(g, it, COPY_STEP_LINK, -ENOENT, leader_dst);
	return 0;
}

/* Opening it failed: the copy stops, or it is dropped and its chunks
 * must not reach the next file. */
int copy_item_open_failed(struct engine *g, struct batch_item *it, int err)
{
	const struct plan_entry *e = &g->plan->entries[it->entry];
	char dst[PATH_MAX];

	if (copy_fatal_error(err)) {
		copy_report_dst(g, it->entry, COPY_STEP_CREATE, err, true);
		item_done(it);
		return err;
	}
	plan_dst_path(g->plan, it->entry, dst);
	if (e->source->type != PLAN_FILE || e->linked) { /* no chunks come for it */
		fail_item(g, it, COPY_STEP_CREATE, err, dst);
		return 0;
	}
	reader_skip(g->cursor, it->entry, it->entry + 1);
	fail_item(g, it, COPY_STEP_CREATE, err, dst);
	return copy_drain(g, it->entry);
}

/* The stream ended without the whole file: dropped, for the source's
 * reason; 0 (the copy goes on). */
static int source_failed(struct engine *g, struct batch_item *it, enum stream_end why,
			 int src_err)
{
	char src_buf[PATH_MAX];
	const char *src = source_path(g->plan->entries[it->entry].source, src_buf,
				      sizeof(src_buf)) < 0 ? "?" : src_buf;

	if (why == STREAM_REREAD_DIFFERS) {
		atomic_fetch_add(&g->stats->files_mismatched, 1);
		fail_item(g, it, COPY_STEP_SOURCE_VERIFY, -EBADMSG, src);
	} else {
		fail_item(g, it, why == STREAM_SOURCE_ERROR ? COPY_STEP_READ : COPY_STEP_CHANGED,
			  why == STREAM_SOURCE_ERROR ? src_err : 0, src);
	}
	return 0;
}

int copy_file(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	struct writer_hooks hooks = { g, on_confirmed, on_switch };
	struct dest_open how = { g->o->wplan, (uint64_t)e->source->size, g->bdev_fd, &hooks };
	struct batch_item it;
	int r, src_err = 0;

	/* a file larger than a window bounds itself: commit the batch first */
	if ((uint64_t)e->source->size > g->o->wplan->window && (r = batch_commit(g)) < 0)
		return r;
	r = copy_item_start(g, idx, &it);
	if (r == 0 && g->verify)
		r = verify_file_start(&it.vf);
	if (r == 0)
		r = open_file(g, &it, &how);
	it.vf.from = it.from; /* the kept part was read back before the copy */
	if (r < 0)
		return copy_item_open_failed(g, &it, r);
	r = stream_file(g, &it, &src_err);
	if (r > STREAM_WHOLE)
		return source_failed(g, &it, (enum stream_end)r, src_err);
	if (r == 0)
		r = writer_start_data(it.file.w);
	if (r < 0) {
		if (r != -ECANCELED)
			item_fatal(g, &it, COPY_STEP_WRITE, r);
		item_stop(g, &it); /* a partial is kept for the next run */
		item_forget_bytes(g, &it);
		item_done(&it);
		return r;
	}
	return batch_add(g, &it);
}

int copy_symlink(struct engine *g, size_t idx)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	struct batch_item it;
	int r = copy_item_start(g, idx, &it);

	if (r == 0)
		r = dest_file_symlink(&g->files, &it.file, source_link(e->source));
	return r < 0 ? copy_item_open_failed(g, &it, r) : batch_add(g, &it);
}
