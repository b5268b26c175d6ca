/* dirtystat_render.c: the three faces of a frame: the table (one-shot
 * and the tty --watch screen), one line per reading (--watch into a pipe
 * or file), and JSON lines (--json).
 *
 * The table is laid out like lsblk: cells first, then column widths from
 * the widest cell, text left-aligned and numbers right-aligned.  Names
 * (devices, mount points, files) go through quote_bare(): bare when they
 * are plain, shell-quoted with $'\e' escapes when they hold anything
 * unsafe (cmd/quote.h), so a strange mount point can neither move the
 * cursor of the screen we redraw nor pass for another.  emit() still
 * turns any unsafe character left in a line into '?'.  JSON carries raw byte
 * counts and null for anything unknown, in common/event.h's framing (a
 * "reading" event per frame, the tools' shared "error" event); the man
 * page documents every field, so a field added here is a field added
 * there. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/cleanup.h"
#include "base/grow.h"
#include "dirtystat/dirtystat.h"
#include "common/event.h"
#include "common/format.h"
#include "common/json.h"
#include "common/quote.h"
#include "common/text_cols.h"
#include "base/size.h"

#define NCOLS 7
#define CELL_MAX 48 /* numbers and short labels; names are copied whole */

/* ---- formatting ------------------------------------------------------- */

static const char *fmt_size(char *buf, size_t size, uint64_t v, bool bytes)
{
	if (bytes) {
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return buf;
	}
	return size_format(buf, size, v);
}

/* "-" without a previous sample; --bytes: the exact number of bytes/s */
static const char *fmt_rate(char *buf, size_t size, double rate, bool bytes)
{
	if (!isfinite(rate) || rate < 0)
		snprintf(buf, size, "-");
	else if (bytes)
		snprintf(buf, size, "%.0f", rate);
	else
		format_rate(buf, size, rate);
	return buf;
}

/* "-" nothing pending, "waiting" pending but nothing being written,
 * "?" no rate yet, else format.h's M:SS or H:MM:SS. */
static const char *fmt_eta(char *buf, size_t size, double eta)
{
	if (isnan(eta))
		snprintf(buf, size, "?");
	else if (eta == 0)
		snprintf(buf, size, "-");
	else if (eta < 0)
		snprintf(buf, size, "waiting");
	else
		format_duration(buf, size, eta);
	return buf;
}

/* ---- lines with clipping ---------------------------------------------- */

/* Print one line: characters quote_unsafe() flags (controls, C1, bad
 * UTF-8, bidi controls) as '?', clipped to o->width columns (counted as
 * common/text_cols.h says), and on the redrawn screen followed by
 * clear-to-end-of-line. */
static void emit(FILE *f, const struct render_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(FILE *f, const struct render_opts *o, const char *fmt, ...)
{
	_cleanup_free_ char *line = NULL;
	va_list ap;
	size_t len, out = 0, k, w, cols = 0;
	bool unsafe;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = (size_t)n;
	/* in place: a replaced character never grows */
	for (size_t i = 0; i < len; i += k) {
		k = text_char(line + i, &unsafe, &w);
		cols += w;
		if (o->width > 0 && cols > (size_t)o->width)
			break;
		if (unsafe) {
			line[out++] = '?';
		} else {
			memmove(line + out, line + i, k);
			out += k;
		}
	}
	line[out] = '\0';
	fputs(line, f);
	fputs(o->width > 0 ? "\033[K\n" : "\n", f);
}

/* ---- tables ----------------------------------------------------------- */

struct table {
	char **cells;             /* nrows * ncols, row by row */
	size_t ncols, nrows, cap; /* cap: cells allocated */
	bool right[NCOLS];
	int give_way;             /* 1 + the column that is shortened first
				   * when the line is wider than the screen:
				   * a long name, before the figures; 0: none */
};

#define GIVE_WAY_MIN 8 /* columns a shortened name keeps: "...BOAGeL" */

/* Narrows the give-way column so that a row fits o->width, down to
 * GIVE_WAY_MIN: the mount point is cut before RATE and ETA are. */
static void table_fit(const struct table *t, int *w, const struct render_opts *o)
{
	int total = 0, c = t->give_way - 1;

	for (size_t i = 0; i < t->ncols; i++)
		total += w[i] + (i ? 2 : 0);
	if (c < 0 || o->width <= 0 || total <= o->width || w[c] <= GIVE_WAY_MIN)
		return;
	w[c] = MAX(GIVE_WAY_MIN, w[c] - (total - o->width));
}

/* One cell padded to w columns; a longer one (the give-way column) is
 * shown as "..." and its end, where mount points and files differ, and
 * its heading as its start ("MOUNTPOI"). */
static void cell_print(FILE *m, const char *s, int w, bool right, bool last, bool heading)
{
	int n = (int)text_cols(s);

	if (n > w && heading) {
		fprintf(m, "%.*s", w, s); /* headings are ASCII */
		return;
	}
	if (n > w) {
		fprintf(m, "...%s", text_tail(s, (size_t)w - 3));
		return;
	}
	if (right || !last)
		fprintf(m, "%s%*s%s", right ? "" : s, w - n, "", right ? s : "");
	else
		fputs(s, m);
}

static void table_row(struct table *t, const char *const *cells)
{
	if (GROW(t->cells, t->cap, (t->nrows + 1) * t->ncols, 8 * t->ncols) < 0)
		return; /* the row is lost; the rest of the table still prints */
	for (size_t c = 0; c < t->ncols; c++)
		t->cells[t->nrows * t->ncols + c] = strdup(cells[c] ? cells[c] : "");
	t->nrows++;
}

static void table_print(FILE *f, struct table *t, const struct render_opts *o)
{
	int w[NCOLS] = { 0 };

	for (size_t i = 0; i < t->nrows * t->ncols; i++) {
		int len = t->cells[i] ? (int)text_cols(t->cells[i]) : 0;

		w[i % t->ncols] = MAX(w[i % t->ncols], len);
	}
	table_fit(t, w, o);
	for (size_t r = 0; r < t->nrows; r++) {
		_cleanup_free_ char *line = NULL;
		size_t size = 0;
		FILE *m = open_memstream(&line, &size);

		if (!m)
			continue;
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];

			fputs(c ? "  " : "", m);
			cell_print(m, s ? s : "", w[c], t->right[c], c + 1 == t->ncols, r == 0);
		}
		if (fclose(m) == 0)
			emit(f, o, "%s", line);
	}
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* ---- system lines ----------------------------------------------------- */

static void render_system(FILE *f, const struct safecp_dirty_system *s,
			  const struct render_opts *o)
{
	char a[SIZE_FORMAT_MAX + 8], b[SIZE_FORMAT_MAX + 8], c[SIZE_FORMAT_MAX + 8];
	char knob[64];

	emit(f, o, "System: dirty %s, writeback %s", fmt_size(a, sizeof(a), s->dirty, o->bytes),
	     fmt_size(b, sizeof(b), s->writeback + s->writeback_tmp, o->bytes));
	if (s->dirty_background_bytes)
		snprintf(knob, sizeof(knob), "vm.dirty_background_bytes = %s",
			 fmt_size(c, sizeof(c), s->dirty_background_bytes, o->bytes));
	else
		snprintf(knob, sizeof(knob), "vm.dirty_background_ratio = %llu%%",
			 (unsigned long long)s->dirty_background_ratio);
	emit(f, o, "  background writeback above %s (%s)",
	     fmt_size(a, sizeof(a), s->bg_thresh, o->bytes), knob);
	if (s->dirty_bytes)
		snprintf(knob, sizeof(knob), "vm.dirty_bytes = %s",
			 fmt_size(c, sizeof(c), s->dirty_bytes, o->bytes));
	else
		snprintf(knob, sizeof(knob), "vm.dirty_ratio = %llu%%",
			 (unsigned long long)s->dirty_ratio);
	emit(f, o, "  writers throttled above %s, limit %s (%s)",
	     fmt_size(a, sizeof(a), s->throttle, o->bytes),
	     fmt_size(b, sizeof(b), s->thresh, o->bytes), knob);
}

/* ---- device and file tables ------------------------------------------- */

static char *join_mountpoints(const struct safecp_dirty_device *e)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < e->n_mountpoints; i++)
		len += strlen(quote_bare(e->mountpoints[i])) + 1;
	s = calloc(1, len);
	for (size_t i = 0; s && i < e->n_mountpoints; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, quote_bare(e->mountpoints[i]));
	}
	return s;
}

/* tmpfs and the like: no bdi, no disk, nothing to count (not unknown) */
static bool row_unaccounted(const struct dev_row *row)
{
	return !row->dev.bdi && !row->dev.has_block;
}

/* An estimate is an upper bound: "<=" says so in the cell ("<=0 B",
 * "at most nothing", is just "0 B"). */
static const char *fmt_dev_size(char *buf, size_t size, const struct dev_row *row,
				uint64_t v, bool bytes)
{
	char n[24]; /* UINT64_MAX is 20 digits; sizes are shorter */

	if (!row->have)
		return row_unaccounted(row) ? "-" : "?";
	fmt_size(n, sizeof(n), v, bytes);
	snprintf(buf, size, "%s%s", row->fig.source == SAFECP_DIRTY_ESTIMATE && v > 0 ? "<=" : "",
		 n);
	return buf;
}

static void device_cells(struct table *t, const struct dev_row *row, const struct render_opts *o)
{
	char dirty[CELL_MAX], wb[CELL_MAX], rate[CELL_MAX], eta[CELL_MAX];
	_cleanup_free_ char *mnt = join_mountpoints(&row->dev);
	const char *none = row_unaccounted(row) ? "-" : "?";
	const char *cells[NCOLS] = {
		quote_bare(row->dev.name), mnt && *mnt ? mnt : "-",
		row->dev.fstype ? quote_bare(row->dev.fstype) : "-",
		fmt_dev_size(dirty, sizeof(dirty), row, row->fig.dirty, o->bytes),
		fmt_dev_size(wb, sizeof(wb), row, row->fig.writeback, o->bytes),
		row->have ? fmt_rate(rate, sizeof(rate), row->rate, o->bytes) : none,
		row->have ? fmt_eta(eta, sizeof(eta), row->eta) : none,
	};

	table_row(t, cells);
}

static void render_devices(FILE *f, const struct frame *fr, const struct render_opts *o)
{
	static const char *const head[NCOLS] = { "DEVICE", "MOUNTPOINT", "FS", "DIRTY",
						 "WRITEBACK", "RATE", "ETA" };
	struct table t = { .ncols = NCOLS,
			   .right = { false, false, false, true, true, true, true },
			   .give_way = 2 /* MOUNTPOINT */ };
	size_t shown = 0;

	for (size_t i = 0; i < fr->n_rows; i++)
		shown += fr->rows[i].shown;
	if (shown == 0) {
		if (fr->n_files == 0)
			emit(f, o, "No device has dirty or writeback data, and none is removable.");
		return;
	}
	table_row(&t, head);
	for (size_t i = 0; i < fr->n_rows; i++)
		if (fr->rows[i].shown)
			device_cells(&t, &fr->rows[i], o);
	table_print(f, &t, o);
}

static void file_cells(struct table *t, const char *name, const struct file_figures *ff,
		       bool bytes)
{
	char c[CELL_MAX], d[CELL_MAX], w[CELL_MAX];
	const char *cells[4] = { name, "?", "?", "?" };

	if (!ff->err) {
		cells[1] = fmt_size(c, sizeof(c), ff->fc.cached, bytes);
		cells[2] = fmt_size(d, sizeof(d), ff->fc.dirty, bytes);
		cells[3] = fmt_size(w, sizeof(w), ff->fc.writeback, bytes);
	}
	table_row(t, cells);
}

static void render_files(FILE *f, const struct frame *fr, const struct render_opts *o)
{
	static const char *const head[4] = { "FILE", "CACHED", "DIRTY", "WRITEBACK" };
	struct table t = { .ncols = 4, .right = { false, true, true, true },
			   .give_way = 1 /* FILE */ };

	if (fr->n_files == 0)
		return;
	table_row(&t, head);
	for (size_t i = 0; i < fr->n_files; i++) {
		const struct file_row *fl = &fr->files[i];
		_cleanup_free_ char *via = NULL;

		file_cells(&t, quote_bare(fl->path), &fl->file, o->bytes);
		if (fl->blockdev && asprintf(&via, "  data on %s", quote_bare(fl->blockdev)) >= 0)
			file_cells(&t, via, &fl->bdev, o->bytes);
	}
	table_print(f, &t, o);
}

void render_table(FILE *f, const struct frame *fr, const struct render_opts *o)
{
	if (o->header) {
		char when[32];
		time_t t = (time_t)fr->t_real;
		struct tm tm;

		strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&t, &tm));
		emit(f, o, "%s    %s", o->header, when);
		emit(f, o, "%s", "");
	}
	render_system(f, &fr->sys, o);
	emit(f, o, "%s", "");
	render_devices(f, fr, o);
	if (fr->n_files > 0 && fr->n_rows > 0)
		emit(f, o, "%s", "");
	render_files(f, fr, o);
	if (o->footer && *o->footer) {
		emit(f, o, "%s", "");
		for (const char *p = o->footer; *p;) {
			int len = (int)strcspn(p, "\n");

			emit(f, o, "%.*s", len, p);
			p += len + (p[len] == '\n');
		}
	}
}

/* ---- one line per reading --------------------------------------------- */

void render_line(FILE *f, const struct frame *fr, const struct render_opts *o)
{
	_cleanup_free_ char *line = NULL;
	char when[32], a[CELL_MAX], b[CELL_MAX], r[CELL_MAX], e[CELL_MAX];
	time_t t = (time_t)fr->t_real;
	struct tm tm;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return;
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&t, &tm));
	fprintf(m, "%s system dirty %s writeback %s", when,
		fmt_size(a, sizeof(a), fr->sys.dirty, o->bytes),
		fmt_size(b, sizeof(b), fr->sys.writeback + fr->sys.writeback_tmp, o->bytes));
	for (size_t i = 0; i < fr->n_rows; i++) {
		const struct dev_row *row = &fr->rows[i];

		if (!row->shown)
			continue;
		fprintf(m, " | %s dirty %s writeback %s rate %s eta %s", quote_bare(row->dev.name),
			fmt_dev_size(a, sizeof(a), row, row->fig.dirty, o->bytes),
			fmt_dev_size(b, sizeof(b), row, row->fig.writeback, o->bytes),
			fmt_rate(r, sizeof(r), row->rate, o->bytes), fmt_eta(e, sizeof(e), row->eta));
	}
	for (size_t i = 0; i < fr->n_files; i++) {
		const struct file_row *fl = &fr->files[i];

		if (fl->file.err) {
			fprintf(m, " | %s dirty ? writeback ?", quote_bare(fl->path));
			continue;
		}
		fprintf(m, " | %s dirty %s writeback %s", quote_bare(fl->path),
			fmt_size(a, sizeof(a), fl->file.fc.dirty, o->bytes),
			fmt_size(b, sizeof(b), fl->file.fc.writeback, o->bytes));
		if (fl->blockdev && !fl->bdev.err)
			fprintf(m, " (data on %s dirty %s writeback %s)", quote_bare(fl->blockdev),
				fmt_size(a, sizeof(a), fl->bdev.fc.dirty, o->bytes),
				fmt_size(b, sizeof(b), fl->bdev.fc.writeback, o->bytes));
	}
	if (fclose(m) == 0)
		emit(f, o, "%s", line);
}

/* ---- JSON ------------------------------------------------------------- */

static void json_system(struct json *j, const struct safecp_dirty_system *s)
{
	json_key(j, "system");
	json_object_begin(j);
	json_kv_u64(j, "dirty_bytes", s->dirty);
	json_kv_u64(j, "writeback_bytes", s->writeback);
	json_kv_u64(j, "writeback_tmp_bytes", s->writeback_tmp);
	json_kv_u64(j, "dirty_threshold_bytes", s->thresh);
	json_kv_u64(j, "background_threshold_bytes", s->bg_thresh);
	json_kv_u64(j, "throttle_threshold_bytes", s->throttle);
	json_key(j, "vm");
	json_object_begin(j);
	json_kv_u64(j, "dirty_ratio", s->dirty_ratio);
	json_kv_u64(j, "dirty_background_ratio", s->dirty_background_ratio);
	json_kv_u64(j, "dirty_bytes", s->dirty_bytes);
	json_kv_u64(j, "dirty_background_bytes", s->dirty_background_bytes);
	json_kv_u64(j, "dirty_expire_centisecs", s->dirty_expire_cs);
	json_kv_u64(j, "dirty_writeback_centisecs", s->dirty_writeback_cs);
	json_object_end(j);
	json_object_end(j);
}

static void json_kv_u64_or_null(struct json *j, const char *key, bool known, uint64_t v)
{
	json_key(j, key);
	if (known)
		json_u64(j, v);
	else
		json_null(j);
}

static void json_device(struct json *j, const struct dev_row *row)
{
	const struct safecp_dirty_device *e = &row->dev;
	const struct safecp_dirty_figures *d = &row->fig;
	bool debugfs = row->have && d->source == SAFECP_DIRTY_DEBUGFS;
	char majmin[32];

	json_object_begin(j);
	snprintf(majmin, sizeof(majmin), "%u:%u", e->major, e->minor);
	json_kv_string(j, "majmin", e->has_block ? majmin : NULL);
	json_kv_name(j, "name", e->name);
	json_kv_string(j, "bdi", e->bdi);
	json_kv_names(j, "mountpoints", (char *const *)e->mountpoints, e->n_mountpoints);
	json_kv_string(j, "fstype", e->fstype);
	json_kv_bool(j, "removable", e->removable);
	json_kv_u64_or_null(j, "dirty_bytes", row->have, d->dirty);
	json_kv_u64_or_null(j, "writeback_bytes", row->have, d->writeback);
	json_kv_double(j, "write_bytes_per_s", row->rate, 0);
	json_kv_double(j, "eta_s", row->eta >= 0 ? row->eta : NAN, 1);
	json_kv_string(j, "source", row->have ? safecp_dirty_source_name(d->source) : NULL);
	json_kv_u64_or_null(j, "bdi_dirty_threshold_bytes", debugfs, d->bdi_thresh);
	json_kv_u64_or_null(j, "inflight_writes", row->have && d->has_block_stat,
			    d->inflight_writes);
	json_object_end(j);
}

static void json_figures(struct json *j, const struct file_figures *ff)
{
	json_kv_u64_or_null(j, "cached_bytes", !ff->err, ff->fc.cached);
	json_kv_u64_or_null(j, "dirty_bytes", !ff->err, ff->fc.dirty);
	json_kv_u64_or_null(j, "writeback_bytes", !ff->err, ff->fc.writeback);
	json_kv_string(j, "error", ff->err ? strerror(-ff->err) : NULL);
}

static void json_file(struct json *j, const struct file_row *fl)
{
	json_object_begin(j);
	json_kv_name(j, "path", fl->path);
	json_kv_string(j, "fstype", fl->fstype);
	json_figures(j, &fl->file);
	json_key(j, "blockdev");
	if (fl->blockdev) {
		json_object_begin(j);
		json_kv_name(j, "path", fl->blockdev);
		json_figures(j, &fl->bdev);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_object_end(j);
}

void render_json(FILE *f, const struct frame *fr)
{
	struct json j;

	json_init(&j, f);
	event_begin(&j, "reading", fr->t_real);
	json_kv_double(&j, "interval_s", fr->interval, 3);
	json_system(&j, &fr->sys);
	json_key(&j, "devices");
	json_array_begin(&j);
	for (size_t i = 0; i < fr->n_rows; i++)
		if (fr->rows[i].shown)
			json_device(&j, &fr->rows[i]);
	json_array_end(&j);
	json_key(&j, "files");
	json_array_begin(&j);
	for (size_t i = 0; i < fr->n_files; i++)
		json_file(&j, &fr->files[i]);
	json_array_end(&j);
	event_end(&j);
}

void render_json_error(FILE *f, enum event_subject kind, const char *name, int err,
		       const char *message)
{
	struct json j;

	json_init(&j, f);
	event_error_begin(&j, clock_realtime(), kind, name, err, message);
	event_end(&j);
}
