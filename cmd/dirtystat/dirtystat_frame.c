/* dirtystat_frame.c: take one reading (a frame) of everything dirtystat
 * shows, and the rates against the previous one.
 *
 * Every device row is read, shown or not, so that a device that starts
 * writing has a previous reading to rate against.  A row is matched with
 * its predecessor by disk and bdi; a device that appeared since has no
 * rate (NAN) until the next frame. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/progress.h"
#include "dirtystat/dirtystat.h"

void frame_done(struct frame *fr)
{
	safecp_dirty_free(fr->reading);
	free(fr->rows);
	for (size_t i = 0; i < fr->n_files; i++) {
		free(fr->files[i].fstype);
		free(fr->files[i].blockdev);
	}
	free(fr->files);
	memset(fr, 0, sizeof(*fr));
}

/* The rows: every listed device, or the directory arguments'; a device
 * that vanished between listing and reading keeps its row with unknown
 * figures (have false), as do tmpfs and the like, where nothing counts
 * the pages. */
static int frame_rows(struct frame *fr)
{
	size_t n = safecp_dirty_count(fr->reading);

	fr->rows = calloc(n ? n : 1, sizeof(*fr->rows));
	if (!fr->rows)
		return -ENOMEM;
	for (; fr->n_rows < n; fr->n_rows++) {
		struct dev_row *row = &fr->rows[fr->n_rows];

		safecp_dirty_device(fr->reading, fr->n_rows, &row->dev, sizeof(row->dev));
		row->have = safecp_dirty_figures(fr->reading, fr->n_rows, &row->fig,
						 sizeof(row->fig)) == 0;
		row->rate = NAN;
		row->eta = NAN;
	}
	return 0;
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static const struct dev_row *row_find(const struct frame *fr, const struct dev_row *like)
{
	for (size_t i = 0; fr && i < fr->n_rows; i++) {
		const struct safecp_dirty_device *a = &fr->rows[i].dev, *b = &like->dev;

		if (a->major == b->major && a->minor == b->minor && same_name(a->bdi, b->bdi) &&
		    same_name(a->name, b->name))
			return &fr->rows[i];
	}
	return NULL;
}

#define RATE_TAU 3.0 /* seconds */

static uint64_t row_pending(const struct dev_row *row)
{
	return row->fig.dirty + row->fig.writeback;
}

/* Pending bytes at or below this are within the bdi counters' percpu
 * error (both counters summed): shown as clean. */
static uint64_t row_noise(const struct dev_row *row)
{
	return 2 * row->fig.error;
}

static void row_rate(struct dev_row *row, const struct frame *prev)
{
	const struct dev_row *old = row_find(prev, row);

	if (!row->have)
		return;
	if (row_pending(row) <= row_noise(row))
		row->eta = 0;
	if (!old || !old->have)
		return;
	/* writeback completes in bursts (8 MiB quanta, journal commits): the
	 * rate between two frames flips 16/32 MiB/s on a 20 MiB/s stick, so
	 * the one shown is averaged over RATE_TAU seconds, and a trickle
	 * gets no ETA (progress.h PROGRESS_ETA_FLOOR): "waiting" */
	row->rate = progress_rate_smooth(old->rate, safecp_dirty_rate(&old->fig, &row->fig),
					 row->fig.time - old->fig.time, RATE_TAU);
	if (row->eta != 0)
		row->eta = !(row->rate >= PROGRESS_ETA_FLOOR) ? -1 :
			   (double)row_pending(row) / row->rate;
}

/* Without arguments, show what has data on its way to a device, or can
 * be pulled out (with -v: everything); a row once shown stays for the rest of a --watch so it
 * does not flicker away as it drains. */
static bool row_shown(const struct sources *src, const struct dev_row *row,
		      const struct frame *prev)
{
	const struct dev_row *old = row_find(prev, row);

	if (src->n_args > 0 || src->all || row->dev.removable || (old && old->shown))
		return true;
	if (!row->have)
		return false;
	if (row->fig.source == SAFECP_DIRTY_DEBUGFS)
		return row_pending(row) > row_noise(row);
	/* an estimate is the system's figure, true of no device in
	 * particular: only writes on their way to it single a device out */
	return row->fig.inflight_writes > 0 || (isfinite(row->rate) && row->rate > 0);
}

static void file_read(struct file_figures *ff, const char *path)
{
	ff->err = safecp_dirty_file(path, &ff->fc, sizeof(ff->fc));
}

static void arg_read(struct file_figures *ff, const struct path_arg *a)
{
	ff->err = a->fd >= 0 ? safecp_dirty_file_fd(a->fd, &ff->fc, sizeof(ff->fc)) :
			       safecp_dirty_file(a->path, &ff->fc, sizeof(ff->fc));
}

static int frame_files(const struct sources *src, struct frame *fr)
{
	fr->files = calloc(src->n_args ? src->n_args : 1, sizeof(*fr->files));
	if (!fr->files)
		return -ENOMEM;
	for (size_t i = 0; i < src->n_args; i++) {
		const struct path_arg *a = &src->args[i];
		const char *fs = safecp_target_fs_name(a->t);
		const char *cache = safecp_target_cache_device(a->t);
		struct file_row *f;

		if (a->kind != ARG_FILE)
			continue;
		f = &fr->files[fr->n_files++];
		f->path = a->path;
		f->fstype = fs ? strdup(fs) : NULL;
		arg_read(&f->file, a);
		if (cache) {
			f->blockdev = strdup(cache);
			if (f->blockdev)
				file_read(&f->bdev, f->blockdev);
		}
	}
	return 0;
}

int frame_take(const struct sources *src, const struct frame *prev, struct frame *ret,
	       const char **ret_what)
{
	struct frame fr = { 0 };
	enum safecp_dirty_part part = SAFECP_DIRTY_PART_SYSTEM;
	int r;

	r = safecp_dirty_read(src->n_args > 0 ? src->dirs : NULL, &fr.reading, &part);
	if (r < 0) {
		*ret_what = part == SAFECP_DIRTY_PART_SYSTEM ?
			    "the system counters in '/proc/meminfo' and '/proc/vmstat'" :
			    "the block devices in '/sys/block'";
		return r;
	}
	safecp_dirty_system(fr.reading, &fr.sys, sizeof(fr.sys));
	fr.t_mono = fr.sys.time;
	fr.t_real = fr.sys.realtime;
	fr.interval = prev ? fr.t_mono - prev->t_mono : NAN;
	*ret_what = "the block devices in '/sys/block'";
	r = frame_rows(&fr);
	for (size_t i = 0; r >= 0 && i < fr.n_rows; i++) {
		row_rate(&fr.rows[i], prev);
		fr.rows[i].shown = row_shown(src, &fr.rows[i], prev);
	}
	if (r >= 0) {
		*ret_what = "the page cache state of the files";
		r = frame_files(src, &fr);
	}
	if (r < 0) {
		frame_done(&fr);
		return r;
	}
	*ret = fr;
	return 0;
}
