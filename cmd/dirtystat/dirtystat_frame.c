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

#include "base/clock.h"
#include "common/progress.h"
#include "dirtystat/dirtystat.h"
#include "device/fs_traits.h"
#include "device/target.h"

void frame_done(struct frame *fr)
{
	for (size_t i = 0; i < fr->n_rows; i++)
		device_entry_done(&fr->rows[i].dev);
	free(fr->rows);
	for (size_t i = 0; i < fr->n_files; i++) {
		free(fr->files[i].fstype);
		free(fr->files[i].blockdev);
	}
	free(fr->files);
	memset(fr, 0, sizeof(*fr));
}

/* The rows to read: every listed device, or the directory arguments'. */
static int frame_rows(const struct sources *src, struct frame *fr)
{
	struct device_entry *list = src->dirs;
	size_t n = src->n_dirs;
	int r = 0;

	if (src->n_args == 0) {
		r = devices_list(&list, &n);
		if (r < 0)
			return r;
	}
	fr->rows = calloc(n ? n : 1, sizeof(*fr->rows));
	if (!fr->rows)
		r = -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++) {
		if (src->n_args == 0) {
			fr->rows[i].dev = list[i]; /* take ownership */
			memset(&list[i], 0, sizeof(list[i]));
		} else {
			r = device_entry_copy(&list[i], &fr->rows[i].dev);
		}
		if (r >= 0)
			fr->n_rows++;
	}
	if (src->n_args == 0)
		devices_list_free(list, n);
	return r;
}

static void row_read(struct dev_row *row, const struct frame *fr)
{
	const char *disk = row->dev.has_block ? row->dev.name : NULL;
	int r;

	row->rate = NAN;
	row->eta = NAN;
	row->s.t_mono = fr->t_mono;
	row->s.t_real = fr->t_real;
	row->s.sys = fr->sys;
	if (!row->dev.bdi[0] && !disk)
		return; /* tmpfs and the like: nothing accounts its pages */
	r = dirty_device_read_with(row->dev.bdi, disk, &fr->sys, &row->s.dev);
	/* a device that vanished between listing and reading keeps its row
	 * with unknown figures: not a failure of the whole reading */
	row->have = r >= 0;
	row->s.have_dev = row->have;
}

static const struct dev_row *row_find(const struct frame *fr, const struct dev_row *like)
{
	for (size_t i = 0; fr && i < fr->n_rows; i++) {
		const struct device_entry *a = &fr->rows[i].dev, *b = &like->dev;

		if (a->major == b->major && a->minor == b->minor && strcmp(a->bdi, b->bdi) == 0 &&
		    strcmp(a->name, b->name) == 0)
			return &fr->rows[i];
	}
	return NULL;
}

#define RATE_TAU 3.0 /* seconds */

uint64_t noise_bytes(void)
{
	return 2 * dirty_percpu_error();
}

static void row_rate(struct dev_row *row, const struct frame *prev)
{
	const struct dev_row *old = row_find(prev, row);

	if (!row->have)
		return;
	if (dirty_device_pending(&row->s.dev) <= noise_bytes())
		row->eta = 0;
	if (!old || !old->have)
		return;
	/* writeback completes in bursts (8 MiB quanta, journal commits): the
	 * rate between two frames flips 16/32 MiB/s on a 20 MiB/s stick, so
	 * the one shown is averaged over RATE_TAU seconds, and a trickle
	 * gets no ETA (progress.h PROGRESS_ETA_FLOOR): "waiting" */
	row->rate = progress_rate_smooth(old->rate, dirty_write_rate(&old->s, &row->s),
					 row->s.t_mono - old->s.t_mono, RATE_TAU);
	if (row->eta != 0)
		row->eta = row->rate < PROGRESS_ETA_FLOOR ? -1 : dirty_eta(&row->s, row->rate);
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
	if (row->s.dev.source == DIRTY_SOURCE_DEBUGFS)
		return dirty_device_pending(&row->s.dev) > noise_bytes();
	/* an estimate is the system's figure, true of no device in
	 * particular: only writes on their way to it single a device out */
	return row->s.dev.inflight_writes > 0 || (isfinite(row->rate) && row->rate > 0);
}

static void file_read(struct file_figures *ff, const char *path)
{
	ff->err = cachestat_path(path, &ff->fc);
}

static void arg_read(struct file_figures *ff, const struct path_arg *a)
{
	ff->err = a->fd >= 0 ? cachestat_opath(a->fd, &ff->fc) : cachestat_path(a->path, &ff->fc);
}

static int frame_files(const struct sources *src, struct frame *fr)
{
	fr->files = calloc(src->n_args ? src->n_args : 1, sizeof(*fr->files));
	if (!fr->files)
		return -ENOMEM;
	for (size_t i = 0; i < src->n_args; i++) {
		const struct path_arg *a = &src->args[i];
		struct file_row *f;

		if (a->kind != ARG_FILE)
			continue;
		f = &fr->files[fr->n_files++];
		f->path = a->path;
		f->fstype = target_fs_name(a->t) ? strdup(target_fs_name(a->t)) : NULL;
		arg_read(&f->file, a);
		if (fs_traits_of(a->t)->device_cache && a->t->has_block) {
			f->blockdev = strdup(a->t->devnode);
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
	int r;

	fr.t_mono = clock_monotonic();
	fr.t_real = clock_realtime();
	fr.interval = prev ? fr.t_mono - prev->t_mono : NAN;
	*ret_what = "the system counters in '/proc/meminfo' and '/proc/vmstat'";
	r = dirty_system_read(&fr.sys);
	if (r >= 0) {
		*ret_what = "the block devices in '/sys/block'";
		r = frame_rows(src, &fr);
	}
	for (size_t i = 0; r >= 0 && i < fr.n_rows; i++) {
		row_read(&fr.rows[i], &fr);
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
