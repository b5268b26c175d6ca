/* progress.c: the progress meter of cmd/progress.h: its throttle and its
 * renderers (bar, plain lines, the JSON hook).  The rate and ETA helpers
 * live in progress_rate.c.
 *
 * Drawing: each draw builds the whole line in p->line, then writes it with
 * one fwrite and a flush, so an unbuffered stderr sees one write per
 * redraw and the terminal never shows half a line.  Layout: the line gets
 * W = columns - 1 (writing the last column leaves some terminals in a
 * pending wrap, and the next \r would then land on the following row).
 * The bar's width depends on W only, not on the numbers, so it does not
 * jitter from one draw to the next.  Fixed elements are dropped in a set
 * order until they fit; the item takes what is left, shortened from the
 * left ("...0042.JPG"): the end of a path names the file.
 *
 * File names are untrusted: what cmd/quote.h escapes in messages (C0,
 * DEL, C1, invalid UTF-8, bidi and invisible controls) is shown here as
 * '?', so a name holding "\r" or an escape sequence cannot move the
 * cursor; the bar has no room for escapes.  Columns are counted as
 * common/text_cols.h says. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/cleanup.h"
#include "base/grow.h"
#include "common/format.h"
#include "common/progress.h"
#include "common/quote.h"
#include "common/text_cols.h"
#include "base/size.h"

#define MAX_COLS 1000   /* keeps the worst case (4 bytes a column) in TEXT_LINE_BYTES */
#define BAR_MIN 10
#define BAR_MAX 30
#define ITEM_MIN 12     /* shorter than this, a shortened name says nothing */
#define PART_BYTES 64

struct progress {
	enum progress_mode mode;
	enum progress_show show;
	FILE *out;
	double (*clock)(void);
	double interval;
	int width;               /* the options' override, 0 for none */
	int cols;                /* terminal columns as last read */
	progress_json_fn json;
	void *userdata;

	struct progress_state st; /* item and label point into the two below */
	char *item;
	size_t item_size;
	char label[80];

	bool emitted;            /* anything drawn yet: the first update is due */
	bool line_open;          /* a bar line without its newline is on screen */
	bool finished;
	double last_draw;
	size_t last_cols;        /* of the open bar line, for padding */

	bool winch_installed;
	struct sigaction old_winch;

	struct text_line line;

	/* progress_update_rows(): the rows after the first, with their own
	 * copies of item and label, and how many rows are on screen */
	struct progress_state *rows;
	char **row_items;
	size_t n_rows, rows_cap, row_items_cap;
	size_t open_rows;
};

static volatile sig_atomic_t winch_pending;
static bool winch_taken; /* one meter at a time owns SIGWINCH */

static void on_winch(int sig)
{
	winch_pending = 1;
}

/* ---- the elements ------------------------------------------------------ */

static uint64_t clamped_done(const struct progress_state *st)
{
	return st->done < st->total ? st->done : st->total;
}

/* Rounded down, and below 100 until the caller says the job is over:
 * confirmed bytes can equal the total while the final sync still runs. */
static unsigned percent_of(const struct progress_state *st, bool final)
{
	unsigned pct;

	if (st->total == 0)
		return final ? 100 : 0;
	pct = (unsigned)((unsigned __int128)clamped_done(st) * 100 / st->total);
	if (!final && pct > 99)
		pct = 99;
	return pct;
}

static size_t bar_cells(const struct progress_state *st, size_t width, bool final)
{
	size_t cells;

	if (st->total == 0)
		return final ? width : 0;
	cells = (size_t)((unsigned __int128)clamped_done(st) * width / st->total);
	if (!final && cells >= width)
		cells = width - 1;
	return cells;
}

/* The small ASCII elements, each empty when hidden. */
struct parts {
	char pct[8], sizes[PART_BYTES], rate[PART_BYTES], eta[PART_BYTES], flight[PART_BYTES];
};

static void sizes_part(const struct progress_state *st, enum progress_show show,
		       char *buf, size_t size)
{
	char a[SIZE_FORMAT_MAX], b[SIZE_FORMAT_MAX];
	const char *tilde = st->estimate ? "~" : "";
	const char *sep = st->label && *st->label ? " " : "";
	const char *label = st->label ? st->label : "";

	if (show == PROGRESS_SHOW_LEFT)
		snprintf(buf, size, "%s%s%s%s", tilde,
			 size_format(a, sizeof(a), st->total - clamped_done(st)), sep, label);
	else
		snprintf(buf, size, "%s%s / %s%s%s", tilde,
			 size_format(a, sizeof(a), clamped_done(st)),
			 size_format(b, sizeof(b), st->total), sep, label);
}

static void make_parts(const struct progress *p, bool final, struct parts *pt)
{
	const struct progress_state *st = &p->st;
	char s[SIZE_FORMAT_MAX], e[FORMAT_DURATION_MAX], r[FORMAT_RATE_MAX];

	snprintf(pt->pct, sizeof(pt->pct), "%3u%%", percent_of(st, final));
	sizes_part(st, p->show, pt->sizes, sizeof(pt->sizes));
	pt->rate[0] = pt->eta[0] = pt->flight[0] = '\0';
	if (st->rate >= 0)
		snprintf(pt->rate, sizeof(pt->rate), "%s", format_rate(r, sizeof(r), st->rate));
	if (st->status && *st->status && !final)
		snprintf(pt->eta, sizeof(pt->eta), "%s", st->status);
	else if (st->eta >= 0 && !final)
		snprintf(pt->eta, sizeof(pt->eta), "ETA %s%s", st->estimate ? "~" : "",
			 format_duration(e, sizeof(e), st->eta));
	/* a bare "+543 B" said nothing to a first-time reader */
	if (st->in_flight > 0)
		snprintf(pt->flight, sizeof(pt->flight), "+%s pending",
			 size_format(s, sizeof(s), st->in_flight));
}

static void line_part(struct progress *p, const char *part)
{
	if (!*part)
		return;
	if (p->line.cols > 0)
		text_line_str(&p->line, "  ");
	text_line_str(&p->line, part);
}

/* ---- bar mode ---------------------------------------------------------- */

static void read_width(struct progress *p)
{
	struct winsize ws;
	const char *env;
	int fd = fileno(p->out);

	winch_pending = 0;
	if (p->width > 0) {
		p->cols = p->width;
		return;
	}
	if (fd >= 0 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		p->cols = ws.ws_col;
		return;
	}
	env = getenv("COLUMNS");
	p->cols = env && atoi(env) > 0 ? atoi(env) : 80;
}

/* Drop order when the line does not fit; the percentage always stays. */
enum { DROP_FLIGHT, DROP_RATE, DROP_ETA, DROP_BAR, DROP_SIZES, DROP_ALL };

static size_t fixed_cols(const struct parts *pt, size_t barw, int dropped)
{
	const char *rest[] = { pt->flight, pt->rate, pt->eta };
	size_t cols = strlen(pt->pct);

	if (dropped <= DROP_BAR)
		cols += barw + 3; /* "[", "]", and one space before the percentage */
	if (dropped <= DROP_SIZES && *pt->sizes)
		cols += 2 + strlen(pt->sizes);
	for (int i = dropped; i < DROP_BAR; i++) /* entries below dropped stay */
		if (*rest[i])
			cols += 2 + strlen(rest[i]);
	return cols;
}

/* The file name outranks the pending bytes, then the rate (the ETA
 * still says how fast): they go, in that order, when that lets the name
 * have its ITEM_MIN columns; else all stay and the name goes first.  At
 * 80 columns the bar used to keep "+543 B" and drop the name. */
static void item_room(struct parts *pt, size_t barw, size_t w)
{
	char *order[] = { pt->flight, pt->rate };
	size_t cols = fixed_cols(pt, barw, 0), i;

	for (i = 0; i < ARRAY_SIZE(order) && cols + 2 + ITEM_MIN > w; i++)
		if (*order[i])
			cols -= 2 + strlen(order[i]);
	if (cols + 2 + ITEM_MIN > w)
		return;
	while (i-- > 0)
		order[i][0] = '\0';
}

static void build_bar_line(struct progress *p, bool final)
{
	struct parts pt;
	size_t w = (size_t)MAX(1, MIN(p->cols, MAX_COLS) - 1);
	size_t barw = (size_t)MIN(MAX(((int)w - 60) / 2, BAR_MIN), BAR_MAX);
	int dropped = 0;
	const char *item = p->st.item;

	make_parts(p, final, &pt);
	if (item && *item)
		item_room(&pt, barw, w);
	while (dropped < DROP_ALL && fixed_cols(&pt, barw, dropped) > w)
		dropped++;
	if (item && (dropped > 0 || fixed_cols(&pt, barw, 0) + 2 + ITEM_MIN > w))
		item = NULL; /* the item is the first to go */

	text_line_reset(&p->line);
	if (dropped <= DROP_BAR) {
		size_t cells = bar_cells(&p->st, barw, final);

		text_line_str(&p->line, "[");
		text_line_fill(&p->line, '#', cells);
		text_line_fill(&p->line, '.', barw - cells);
		text_line_str(&p->line, "] ");
	}
	text_line_str(&p->line, pt.pct);
	if (dropped <= DROP_SIZES)
		line_part(p, pt.sizes);
	line_part(p, dropped <= DROP_RATE ? pt.rate : "");
	line_part(p, dropped <= DROP_ETA ? pt.eta : "");
	line_part(p, dropped <= DROP_FLIGHT ? pt.flight : "");
	if (item && *item) {
		text_line_str(&p->line, "  ");
		text_line_name(&p->line, item, w - p->line.cols);
	}
	if (p->line.cols > w) /* only the percentage on a tiny terminal */
		p->line.len = p->line.cols = w;
}

static bool own_terminal(const struct progress *p)
{
	int fd = fileno(p->out);
	pid_t fg;

	if (fd < 0 || !isatty(fd))
		return true; /* a file or test stream: we own it */
	fg = tcgetpgrp(fd);
	return fg < 0 || fg == getpgrp(); /* backgrounded by the shell: stay quiet */
}

static void draw_rows(struct progress *p, bool final);

/* "\r", the line, then spaces over what a longer line left behind. */
static void draw_bar(struct progress *p, bool final)
{
	size_t w, pad = 0;

	if (winch_pending && p->winch_installed)
		read_width(p);
	if (!own_terminal(p))
		return;
	if (p->n_rows > 0 || p->open_rows > 1) {
		draw_rows(p, final);
		return;
	}
	build_bar_line(p, final);
	w = (size_t)MAX(1, MIN(p->cols, MAX_COLS) - 1);
	if (p->line_open && p->last_cols > p->line.cols)
		pad = MIN(p->last_cols, w) - MIN(p->line.cols, w);
	fputc('\r', p->out);
	fwrite(p->line.buf, 1, p->line.len, p->out);
	for (size_t i = 0; i < pad; i++)
		fputc(' ', p->out);
	p->line_open = true;
	p->last_cols = p->line.cols;
}

/* The block of rows: back to its first line, each line redrawn and
 * erased to its end, and anything a longer block left below erased. */
static void draw_rows(struct progress *p, bool final)
{
	struct progress_state first = p->st;
	size_t n = p->n_rows + 1;

	if (p->line_open && p->open_rows > 1)
		fprintf(p->out, "\033[%zuA", p->open_rows - 1);
	for (size_t i = 0; i < n; i++) {
		p->st = i == 0 ? first : p->rows[i - 1];
		build_bar_line(p, final || p->st.complete);
		fputc('\r', p->out);
		fwrite(p->line.buf, 1, p->line.len, p->out);
		fputs("\033[K", p->out);
		if (i + 1 < n)
			fputc('\n', p->out);
	}
	if (p->open_rows > n)
		fputs("\033[J", p->out);
	p->st = first;
	p->line_open = true;
	p->open_rows = n;
	p->last_cols = p->line.cols;
}

static void clear_bar(struct progress *p)
{
	if (!p->line_open)
		return;
	if (p->open_rows > 1) {
		fprintf(p->out, "\033[%zuA\r\033[J", p->open_rows - 1);
		p->line_open = false;
		p->open_rows = 0;
		p->last_cols = 0;
		return;
	}
	fputc('\r', p->out);
	for (size_t i = 0; i < p->last_cols; i++)
		fputc(' ', p->out);
	fputc('\r', p->out);
	p->line_open = false;
	p->last_cols = 0;
}

/* ---- plain mode -------------------------------------------------------- */

static void draw_plain_row(struct progress *p, bool final);

/* One line per row. */
static void draw_plain(struct progress *p, bool final)
{
	struct progress_state first = p->st;

	draw_plain_row(p, final);
	for (size_t i = 0; i < p->n_rows; i++) {
		p->st = p->rows[i];
		draw_plain_row(p, final || p->st.complete);
	}
	p->st = first;
}

static void draw_plain_row(struct progress *p, bool final)
{
	struct parts pt;

	make_parts(p, final, &pt);
	text_line_reset(&p->line);
	text_line_str(&p->line, pt.pct);
	line_part(p, pt.sizes);
	line_part(p, pt.rate);
	line_part(p, pt.eta);
	line_part(p, pt.flight);
	if (p->st.item && *p->st.item) {
		text_line_str(&p->line, "  ");
		text_line_name(&p->line, p->st.item, SIZE_MAX);
	}
	fwrite(p->line.buf, 1, p->line.len, p->out);
	fputc('\n', p->out);
}

/* ---- the API ------------------------------------------------------------- */

static double default_interval(enum progress_mode mode)
{
	switch (mode) {
	case PROGRESS_BAR:
		return 0.1;
	case PROGRESS_PLAIN:
		return 1.0;
	default:
		return 0.25;
	}
}

static void install_winch(struct progress *p)
{
	struct sigaction sa = { .sa_handler = on_winch, .sa_flags = SA_RESTART };
	int fd = fileno(p->out);

	if (p->mode != PROGRESS_BAR || p->width > 0 || winch_taken || fd < 0 || !isatty(fd))
		return;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGWINCH, &sa, &p->old_winch) < 0)
		return;
	winch_taken = p->winch_installed = true;
}

int progress_new(const struct progress_options *o, struct progress **ret)
{
	struct progress *p;

	*ret = NULL;
	if (o->mode == PROGRESS_NONE)
		return 0;
	if (o->mode == PROGRESS_JSON && !o->json)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->mode = o->mode;
	p->show = o->show;
	p->out = o->out ? o->out : o->mode == PROGRESS_JSON ? stdout : stderr;
	p->clock = o->clock ? o->clock : clock_monotonic;
	p->interval = o->interval > 0 ? o->interval : default_interval(o->mode);
	p->width = o->width;
	p->json = o->json;
	p->userdata = o->userdata;
	p->st.eta = p->st.rate = -1;
	if (p->mode == PROGRESS_BAR) {
		read_width(p);
		install_winch(p);
	}
	*ret = p;
	return 0;
}

/* Copies st; item and label then point at the meter's own copies, since
 * the caller's buffers may be gone by the next redraw. */
static void store_state(struct progress *p, const struct progress_state *st)
{
	size_t need = st->item ? strlen(st->item) + 1 : 0;

	p->st = *st;
	p->st.item = NULL;
	if (need && GROW(p->item, p->item_size, need, 64) == 0) {
		memcpy(p->item, st->item, need);
		p->st.item = p->item;
	}
	snprintf(p->label, sizeof(p->label), "%s", st->label ? st->label : "");
	p->st.label = p->label;
}

static void emit(struct progress *p, bool final)
{
	switch (p->mode) {
	case PROGRESS_BAR:
		draw_bar(p, final);
		break;
	case PROGRESS_PLAIN:
		draw_plain(p, final);
		break;
	case PROGRESS_JSON:
		p->json(p->out, &p->st, final, p->userdata);
		break;
	case PROGRESS_NONE:
		break;
	}
	fflush(p->out);
	p->emitted = true;
	p->last_draw = p->clock();
}

bool progress_due(const struct progress *p)
{
	if (!p || p->finished)
		return false;
	if (!p->emitted || (p->winch_installed && winch_pending))
		return true;
	/* A hair of slack: 0.1 s steps summed in binary float fall short. */
	return p->clock() - p->last_draw >= p->interval - 1e-9;
}

void progress_update(struct progress *p, const struct progress_state *st)
{
	if (!p || p->finished)
		return;
	store_state(p, st);
	if (progress_due(p))
		emit(p, false);
}

void progress_update_rows(struct progress *p, const struct progress_state *rows, size_t n)
{
	if (!p || p->finished || n == 0)
		return;
	size_t had = p->row_items_cap;

	if (GROW(p->rows, p->rows_cap, n - 1, 4) < 0 ||
	    GROW(p->row_items, p->row_items_cap, n - 1, 4) < 0)
		return; /* keep the last rows drawn */
	for (size_t i = had; i < p->row_items_cap; i++)
		p->row_items[i] = NULL;
	for (size_t i = 1; i < n; i++) {
		free(p->row_items[i - 1]);
		p->row_items[i - 1] = rows[i].item ? strdup(rows[i].item) : NULL;
		p->rows[i - 1] = rows[i];
		p->rows[i - 1].item = p->row_items[i - 1];
		p->rows[i - 1].label = rows[i].label ? rows[i].label : "";
	}
	p->n_rows = n - 1;
	progress_update(p, &rows[0]);
}

void progress_done(struct progress *p, const char *final_line)
{
	if (!p || p->finished)
		return;
	emit(p, true);
	p->finished = true;
	if (p->mode == PROGRESS_JSON)
		return;
	if (p->mode == PROGRESS_BAR && p->line_open) {
		fputc('\n', p->out);
		p->line_open = false;
	}
	if (final_line)
		fprintf(p->out, "%s\n", final_line);
	fflush(p->out);
}

void progress_note(struct progress *p, const char *fmt, ...)
{
	bool ours = p && (p->mode == PROGRESS_BAR || p->mode == PROGRESS_PLAIN);
	FILE *f = ours ? p->out : stderr;
	bool redraw = ours && p->line_open;
	va_list ap;

	if (redraw)
		clear_bar(p);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	if (redraw && !p->finished)
		emit(p, false);
	fflush(f);
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	if (p->line_open) {
		fputc('\n', p->out);
		fflush(p->out);
	}
	if (p->winch_installed) {
		sigaction(SIGWINCH, &p->old_winch, NULL);
		winch_taken = false;
	}
	for (size_t i = 0; i < p->row_items_cap; i++)
		free(p->row_items[i]);
	free(p->row_items);
	free(p->rows);
	free(p->item);
	free(p);
}
