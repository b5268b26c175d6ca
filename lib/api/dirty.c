/* dirty.c: <safecp/dirty.h> over the dirty part: a reading is the system's
 * figures (dirty/dirty.h), a device list (dirty/devices.h) and each
 * device's figures, mapped here, and only here, onto the public
 * structures, which are filled up to the size the caller passes.
 *
 * A selection is a reading without figures: its entries are what a later
 * reading "like" it reads again, without listing the devices. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <safecp/dirty.h>

#include "api/fill.h"
#include "api/target_handle.h"
#include "base/clock.h"
#include "base/cleanup.h"
#include "dirty/cachestat.h"
#include "dirty/devices.h"
#include "dirty/dirty.h"

struct safecp_dirty {
	bool every;                /* listed: every device (else chosen ones) */
	bool read;                 /* figures taken (else a selection) */
	double t_mono, t_real;
	struct dirty_system sys;
	uint64_t error;            /* dirty_percpu_error() */
	struct device_entry *devs;
	size_t n;
	struct dirty_device *figs; /* n of them, valid where have[i] */
	bool *have;
};

void safecp_dirty_free(struct safecp_dirty *d)
{
	if (!d)
		return;
	devices_list_free(d->devs, d->n);
	free(d->figs);
	free(d->have);
	free(d);
}

/* The entries of like, or every device listed now. */
static int dirty_entries(struct safecp_dirty *d, const struct safecp_dirty *like)
{
	int r = 0;

	d->every = !like || like->every;
	if (d->every)
		return devices_list(&d->devs, &d->n);
	d->devs = calloc(like->n ? like->n : 1, sizeof(*d->devs));
	if (!d->devs)
		return -ENOMEM;
	for (size_t i = 0; i < like->n && r >= 0; i++) {
		r = device_entry_copy(&like->devs[i], &d->devs[i]);
		if (r >= 0)
			d->n++;
	}
	return r;
}

/* A device that vanished between the listing and the reading keeps its
 * entry with no figures: not a failure of the whole reading. */
static int dirty_figures_read(struct safecp_dirty *d)
{
	d->figs = calloc(d->n ? d->n : 1, sizeof(*d->figs));
	d->have = calloc(d->n ? d->n : 1, sizeof(*d->have));
	if (!d->figs || !d->have)
		return -ENOMEM;
	d->error = dirty_percpu_error();
	for (size_t i = 0; i < d->n; i++) {
		const struct device_entry *e = &d->devs[i];

		if (!e->bdi[0] && !e->has_block)
			continue; /* tmpfs and the like: nothing counts its pages */
		d->have[i] = dirty_device_read_with(e->bdi, e->has_block ? e->name : NULL,
						    &d->sys, &d->figs[i]) >= 0;
	}
	d->read = true;
	return 0;
}

int safecp_dirty_read(const struct safecp_dirty *like, struct safecp_dirty **ret,
		      enum safecp_dirty_part *ret_part)
{
	enum safecp_dirty_part part = SAFECP_DIRTY_PART_SYSTEM;
	struct safecp_dirty *d;
	int r;

	if (!ret)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->t_mono = clock_monotonic();
	d->t_real = clock_realtime();
	r = dirty_system_read(&d->sys);
	if (r >= 0) {
		part = SAFECP_DIRTY_PART_DEVICES;
		r = dirty_entries(d, like);
	}
	if (r >= 0)
		r = dirty_figures_read(d);
	if (r < 0) {
		if (ret_part)
			*ret_part = part;
		safecp_dirty_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

static bool entry_same(const struct device_entry *a, const struct device_entry *b)
{
	return a->major == b->major && a->minor == b->minor && strcmp(a->bdi, b->bdi) == 0 &&
	       strcmp(a->name, b->name) == 0;
}

/* t's device from list, or made from t alone; nothing when d has it. */
static int select_add(struct safecp_dirty *d, const struct target *t,
		      const struct device_entry *list, size_t n)
{
	const struct device_entry *found = devices_find(list, n, t);
	struct device_entry e;
	int r;

	r = found ? device_entry_copy(found, &e) : device_entry_from_target(t, &e);
	if (r < 0)
		return r;
	for (size_t i = 0; i < d->n; i++) {
		if (entry_same(&d->devs[i], &e)) {
			device_entry_done(&e);
			return 0;
		}
	}
	d->devs[d->n++] = e;
	return 0;
}

int safecp_dirty_select(const struct safecp_target *const *targets, size_t n,
			struct safecp_dirty **ret)
{
	struct device_entry *list = NULL;
	struct safecp_dirty *d;
	size_t n_list = 0;
	int r = 0;

	if (!ret || (n && !targets))
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->devs = calloc(n ? n : 1, sizeof(*d->devs));
	if (!d->devs)
		r = -ENOMEM;
	/* without the list an entry holds the target's mount point only */
	if (r >= 0)
		(void)devices_list(&list, &n_list);
	for (size_t i = 0; i < n && r >= 0; i++)
		r = select_add(d, targets[i]->t, list, n_list);
	devices_list_free(list, n_list);
	if (r < 0) {
		safecp_dirty_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

int safecp_dirty_system(const struct safecp_dirty *d, struct safecp_dirty_system *ret,
			size_t size)
{
	const struct dirty_system *s = &d->sys;
	struct safecp_dirty_system o = {
		.time = d->t_mono,
		.realtime = d->t_real,
		.dirty = s->dirty,
		.writeback = s->writeback,
		.writeback_tmp = s->writeback_tmp,
		.thresh = s->thresh,
		.bg_thresh = s->bg_thresh,
		.throttle = dirty_freerun_ceiling(s),
		.dirty_ratio = s->dirty_ratio,
		.dirty_background_ratio = s->dirty_background_ratio,
		.dirty_bytes = s->dirty_bytes,
		.dirty_background_bytes = s->dirty_background_bytes,
		.dirty_expire_cs = s->dirty_expire_cs,
		.dirty_writeback_cs = s->dirty_writeback_cs,
	};

	if (!d->read)
		return -ENODATA;
	return api_fill(ret, size, &o, sizeof(o));
}

size_t safecp_dirty_count(const struct safecp_dirty *d)
{
	return d ? d->n : 0;
}

int safecp_dirty_device(const struct safecp_dirty *d, size_t i, struct safecp_dirty_device *ret,
			size_t size)
{
	const struct device_entry *e;
	struct safecp_dirty_device o;

	if (i >= d->n)
		return -ENOENT;
	e = &d->devs[i];
	o = (struct safecp_dirty_device){
		.name = e->name,
		.has_block = e->has_block,
		.major = e->major,
		.minor = e->minor,
		.bdi = e->bdi[0] ? e->bdi : NULL,
		.fstype = e->fstype,
		.removable = e->removable,
		.size = e->size_bytes,
		.mountpoints = (const char *const *)e->mountpoints,
		.n_mountpoints = e->n_mountpoints,
	};
	return api_fill(ret, size, &o, sizeof(o));
}

static int figures_fill(const struct dirty_device *f, double t, uint64_t error,
			struct safecp_dirty_figures *ret, size_t size)
{
	struct safecp_dirty_figures o = {
		.time = t,
		.source = f->source == DIRTY_SOURCE_DEBUGFS ? SAFECP_DIRTY_DEBUGFS :
							      SAFECP_DIRTY_ESTIMATE,
		.dirty = f->dirty,
		.writeback = f->writeback,
		.error = error,
		.bdi_thresh = f->bdi_thresh,
		.dirtied = f->dirtied,
		.written = f->written,
		.bandwidth = f->bandwidth,
		.has_block_stat = f->has_block_stat,
		.bytes_written = f->sectors_written * 512,
		.inflight_reads = f->inflight_reads,
		.inflight_writes = f->inflight_writes,
	};

	return api_fill(ret, size, &o, sizeof(o));
}

int safecp_dirty_figures(const struct safecp_dirty *d, size_t i,
			 struct safecp_dirty_figures *ret, size_t size)
{
	if (i >= d->n)
		return -ENOENT;
	if (!d->read || !d->have[i])
		return -ENODATA;
	return figures_fill(&d->figs[i], d->t_mono, d->error, ret, size);
}

int safecp_dirty_device_read(const char *bdi, const char *disk,
			     struct safecp_dirty_figures *ret, size_t size)
{
	struct dirty_device f;
	double t = clock_monotonic();
	int r;

	if (!ret)
		return -EINVAL;
	r = dirty_device_read(bdi, disk, &f);
	if (r < 0)
		return r;
	return figures_fill(&f, t, dirty_percpu_error(), ret, size);
}

const char *safecp_dirty_source_name(enum safecp_dirty_source source)
{
	switch (source) {
	case SAFECP_DIRTY_DEBUGFS: return dirty_source_name(DIRTY_SOURCE_DEBUGFS);
	case SAFECP_DIRTY_ESTIMATE: return dirty_source_name(DIRTY_SOURCE_ESTIMATE);
	}
	return NULL;
}

static void sample_of(const struct safecp_dirty_figures *f, struct dirty_sample *s)
{
	*s = (struct dirty_sample){
		.t_mono = f->time,
		.have_dev = true,
		.dev = {
			.source = f->source == SAFECP_DIRTY_DEBUGFS ? DIRTY_SOURCE_DEBUGFS :
								      DIRTY_SOURCE_ESTIMATE,
			.written = f->written,
			.bandwidth = f->bandwidth,
			.has_block_stat = f->has_block_stat,
			.sectors_written = f->bytes_written / 512,
		},
	};
}

double safecp_dirty_rate(const struct safecp_dirty_figures *older,
			 const struct safecp_dirty_figures *newer)
{
	struct dirty_sample a, b;

	sample_of(older, &a);
	sample_of(newer, &b);
	return dirty_write_rate(&a, &b);
}

static int file_fill(const struct file_cache *fc, struct safecp_dirty_file *ret, size_t size)
{
	struct safecp_dirty_file o = {
		.cached = fc->cached,
		.dirty = fc->dirty,
		.writeback = fc->writeback,
		.evicted = fc->evicted,
		.recently_evicted = fc->recently_evicted,
	};

	return api_fill(ret, size, &o, sizeof(o));
}

int safecp_dirty_file(const char *path, struct safecp_dirty_file *ret, size_t size)
{
	struct file_cache fc;
	int r;

	if (!path || !ret)
		return -EINVAL;
	r = cachestat_path(path, &fc);
	return r < 0 ? r : file_fill(&fc, ret, size);
}

int safecp_dirty_file_fd(int fd, struct safecp_dirty_file *ret, size_t size)
{
	struct file_cache fc;
	int fl = fcntl(fd, F_GETFL), r;

	if (fl < 0)
		return -errno;
	if (!ret)
		return -EINVAL;
	/* cachestat(2) takes no O_PATH descriptor: cachestat_opath() reopens it */
	r = fl & O_PATH ? cachestat_opath(fd, &fc) : cachestat_fd(fd, 0, 0, &fc);
	return r < 0 ? r : file_fill(&fc, ret, size);
}
