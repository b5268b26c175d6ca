/* test_progress.c: the progress meter's exact output, on an injected clock
 * into a memory stream; its throttle, layout, final line and notes; the
 * ETA; the rate estimator; SIGWINCH on a pseudo-terminal. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "common/progress.h"
#include "test.h"

#define MiB (1024ULL * 1024)

static double fake_now;

static double fake_clock(void)
{
	return fake_now;
}

/* A memory stream and what was written to it since the last take(). */
struct capture {
	FILE *f;
	char *buf;
	size_t size, taken;
	char out[8192];
};

static void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->size = c->taken = 0;
	c->f = open_memstream(&c->buf, &c->size);
}

static const char *take(struct capture *c)
{
	size_t n;

	fflush(c->f);
	n = c->size - c->taken;
	if (n >= sizeof(c->out))
		n = sizeof(c->out) - 1;
	memcpy(c->out, c->buf + c->taken, n);
	c->out[n] = '\0';
	c->taken = c->size;
	return c->out;
}

static void cap_close(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
}

static struct progress *meter(struct capture *c, enum progress_mode mode, int width,
			      enum progress_show show)
{
	struct progress *p = NULL;
	struct progress_options o = {
		.mode = mode, .show = show, .out = c->f, .clock = fake_clock, .width = width,
	};

	CHECK_INT(progress_new(&o, &p), 0);
	CHECK(p != NULL);
	return p;
}

static struct progress_state bytes(uint64_t done, uint64_t total)
{
	return (struct progress_state){ .total = total, .done = done, .rate = -1, .eta = -1 };
}

/* The example: 543 MiB of 1 GiB confirmed, everything shown. */
static struct progress_state example(void)
{
	return (struct progress_state){
		.total = 1024 * MiB, .done = 543 * MiB, .in_flight = 12 * MiB,
		.rate = 19.8 * MiB, .eta = 24, .item = "DCIM/IMG_0042.JPG", .label = "on device",
	};
}

TEST(throttle)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(0, 1000);

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	fake_now = 10.0;
	CHECK(progress_due(p)); /* the first update draws at once */
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  0 B / 1000 B");

	fake_now = 10.05;
	st.done = 500;
	CHECK(!progress_due(p));
	progress_update(p, &st);
	fake_now = 10.0999;
	progress_update(p, &st);
	CHECK_STR(take(&c), "");

	fake_now = 10.1;
	st.done = 600;
	CHECK(progress_due(p));
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[######....]  60%  600 B / 1000 B");

	/* Steps of 0.1 s summed in floating point still draw each time. */
	for (int i = 0; i < 5; i++) {
		fake_now += 0.1;
		st.done += 10;
		progress_update(p, &st);
		CHECK(strlen(take(&c)) > 0);
	}
	progress_free(p);
	CHECK_STR(take(&c), "\n"); /* an open bar line is ended */
	cap_close(&c);
}

TEST(padding_on_shorter_line)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(0, 1000);

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	fake_now = 1;
	st.item = "a.jpg";
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  0 B / 1000 B  a.jpg");
	fake_now = 2;
	st.item = NULL;
	st.done = 100;
	progress_update(p, &st);
	/* 38 columns before, 33 now: five spaces erase "a.jpg" */
	CHECK_STR(take(&c), "\r[#.........]  10%  100 B / 1000 B     ");
	fake_now = 3;
	st.done = 200;
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[##........]  20%  200 B / 1000 B");
	progress_free(p);
	cap_close(&c);
}

TEST(never_100_before_done)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(995, 1000);

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	fake_now = 1;
	progress_update(p, &st); /* 99.5% rounds down */
	CHECK_STR(take(&c), "\r[#########.]  99%  995 B / 1000 B");
	fake_now = 2;
	st.done = 1000;
	progress_update(p, &st); /* all confirmed, but not said final */
	CHECK_STR(take(&c), "\r[#########.]  99%  1000 B / 1000 B");
	fake_now = 3;
	st.done = 5000;
	progress_update(p, &st); /* more than the total is clamped */
	CHECK_STR(take(&c), "\r[#########.]  99%  1000 B / 1000 B");
	fake_now = 3.01; /* done draws whatever the throttle says */
	progress_done(p, "1000 B on the device; it can be removed");
	CHECK_STR(take(&c), "\r[##########] 100%  1000 B / 1000 B\n"
			    "1000 B on the device; it can be removed\n");
	fake_now = 10;
	progress_update(p, &st); /* after done: nothing */
	progress_done(p, "again");
	progress_free(p);
	CHECK_STR(take(&c), "");
	cap_close(&c);
}

TEST(done_short_of_total)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(930, 1000);

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	fake_now = 1;
	progress_update(p, &st);
	take(&c);
	progress_done(p, NULL); /* files failed: the final figure stays honest */
	CHECK_STR(take(&c), "\r[#########.]  93%  930 B / 1000 B\n");
	progress_free(p);
	cap_close(&c);
}

TEST(zero_total)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(0, 0);

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	fake_now = 1;
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  0 B / 0 B");
	progress_done(p, NULL);
	CHECK_STR(take(&c), "\r[##########] 100%  0 B / 0 B\n");
	progress_free(p);
	CHECK_STR(take(&c), "");
	cap_close(&c);

	/* done without any update: the empty job, complete */
	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	progress_done(p, "nothing to copy");
	CHECK_STR(take(&c), "\r[##########] 100%  0 B / 0 B\nnothing to copy\n");
	progress_free(p);
	cap_close(&c);
}

static const char *bar_of(const struct progress_state *st, int width)
{
	static char line[1024];
	struct capture c;
	struct progress *p;

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, width, PROGRESS_SHOW_DONE);
	fake_now = 1;
	progress_update(p, st);
	snprintf(line, sizeof(line), "%s", take(&c));
	progress_free(p);
	cap_close(&c);
	return line;
}

static const char *bar_at(int width)
{
	struct progress_state st = example();

	return bar_of(&st, width);
}

TEST(layout_full)
{
	/* 119 usable columns: a 29-cell bar, 543/1024 of it is 15 cells; the
	 * file name outranks "+12.0 MiB pending", which would leave it 10 */
	CHECK_STR(bar_at(120), "\r[###############..............]  53%  543 MiB / 1.00 GiB on device"
			       "  19.8 MiB/s  ETA 0:24  DCIM/IMG_0042.JPG");
	/* 140: room for both (the bar is at its 30 cells) */
	CHECK_STR(bar_at(140), "\r[###############...............]  53%  543 MiB / 1.00 GiB on device"
			       "  19.8 MiB/s  ETA 0:24  +12.0 MiB pending  DCIM/IMG_0042.JPG");
}

TEST(layout_item_shortened_then_dropped)
{
	/* 89 columns: a 14-cell bar, 73 fixed + 2 leaves 14 for the item */
	CHECK_STR(bar_at(90), "\r[#######.......]  53%  543 MiB / 1.00 GiB on device"
			      "  19.8 MiB/s  ETA 0:24  ...MG_0042.JPG");
	/* 85: 12 columns, the least a shortened name gets */
	CHECK_STR(bar_at(86), "\r[######......]  53%  543 MiB / 1.00 GiB on device"
			      "  19.8 MiB/s  ETA 0:24  ..._0042.JPG");
	/* 84: 11 would be left; the rate goes before the name (ux 14: at 80
	 * columns the name went and "+543 B" stayed) */
	CHECK_STR(bar_at(85), "\r[######......]  53%  543 MiB / 1.00 GiB on device"
			      "  ETA 0:24  DCIM/IMG_0042.JPG");
	CHECK_STR(bar_at(81), "\r[#####.....]  53%  543 MiB / 1.00 GiB on device"
			      "  ETA 0:24  DCIM/IMG_0042.JPG");
	CHECK_STR(bar_at(72), "\r[#####.....]  53%  543 MiB / 1.00 GiB on device"
			      "  ETA 0:24  ..._0042.JPG");
	/* 70: not even that leaves it 12: no item, and the rest as before */
	CHECK_STR(bar_at(71), "\r[#####.....]  53%  543 MiB / 1.00 GiB on device"
			      "  19.8 MiB/s  ETA 0:24");
}

TEST(layout_drop_order)
{
	struct progress_state st = example();

	/* without an item (the pending bytes first to go: 80 columns are
	 * fixed with a 10-cell bar) */
	st.item = NULL;
	CHECK_STR(bar_of(&st, 80), "\r[#####.....]  53%  543 MiB / 1.00 GiB on device"
				   "  19.8 MiB/s  ETA 0:24");
	CHECK_STR(bar_at(69), "\r[#####.....]  53%  543 MiB / 1.00 GiB on device  ETA 0:24");
	CHECK_STR(bar_at(58), "\r[#####.....]  53%  543 MiB / 1.00 GiB on device  ETA 0:24");
	CHECK_STR(bar_at(57), "\r[#####.....]  53%  543 MiB / 1.00 GiB on device");
	CHECK_STR(bar_at(47), "\r 53%  543 MiB / 1.00 GiB on device");
	CHECK_STR(bar_at(34), "\r 53%");
	CHECK_STR(bar_at(3), "\r 5");
}

/* dirtystat's rate: writeback quanta make the rate between two frames
 * 0.5 s apart flip between 16 and 32 MiB/s on a 20 MiB/s device; the
 * average over ~3 s stays near the mean, so the ETA stops jumping. */
TEST(rate_smooth)
{
	const double M = 1024 * 1024;
	double r = NAN, lo = 1e18, hi = 0;

	CHECK(progress_rate_smooth(NAN, 16 * M, 0.5, 3) == 16 * M);  /* the first */
	CHECK(progress_rate_smooth(-1, 5, 0.5, 3) == 5);
	CHECK(progress_rate_smooth(7, NAN, 0.5, 3) == 7);            /* no sample */
	for (int i = 0; i < 40; i++) {
		r = progress_rate_smooth(r, i % 2 ? 32 * M : 16 * M, 0.5, 3);
		if (i >= 20) {
			lo = r < lo ? r : lo;
			hi = r > hi ? r : hi;
		}
	}
	CHECK(lo > 22 * M && hi < 26 * M);
	/* independent of the sampling: 3 s at 0.25 s or 1 s steps end alike */
	double a = 0, b = 0;
	for (int i = 0; i < 12; i++)
		a = progress_rate_smooth(a, 10 * M, 0.25, 3);
	for (int i = 0; i < 3; i++)
		b = progress_rate_smooth(b, 10 * M, 1, 3);
	CHECK(fabs(a - b) < 1);
	/* a journal commit's 32 KiB/s is below the floor: no ETA of hours */
	CHECK(32 * 1024 < PROGRESS_ETA_FLOOR && 20 * M > PROGRESS_ETA_FLOOR);
}

/* Without an item the pending bytes stay, with their word. */
TEST(layout_pending_without_item)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = example();

	st.item = NULL;
	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 100, PROGRESS_SHOW_DONE);
	fake_now = 1;
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[##########.........]  53%  543 MiB / 1.00 GiB on device"
			    "  19.8 MiB/s  ETA 0:24  +12.0 MiB pending");
	progress_free(p);
	cap_close(&c);
}

/* A status stands where the ETA would: the final sync never reads
 * "ETA 0:00" at 99% (ux 15). */
TEST(status_replaces_eta)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = example();

	st.item = NULL;
	st.in_flight = 0;
	st.done = st.total;
	st.eta = 0;
	st.status = "syncing";
	cap_open(&c);
	p = meter(&c, PROGRESS_PLAIN, 0, PROGRESS_SHOW_DONE);
	fake_now = 1;
	progress_update(p, &st);
	CHECK_STR(take(&c), " 99%  1.00 GiB / 1.00 GiB on device  19.8 MiB/s  syncing\n");
	progress_free(p);
	cap_close(&c);
}

TEST(item_sanitized_and_wide)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(0, 100);

	cap_open(&c);
	/* SHOW_LEFT: "[..........]   0%  100 B" is 24 columns; 38 usable
	 * leave exactly the 12-column minimum for the item */
	p = meter(&c, PROGRESS_BAR, 39, PROGRESS_SHOW_LEFT);
	fake_now = 1;
	st.item = "\xe5\x86\x99\xe7\x9c\x9f\xe5\x86\x99\xe7\x9c\x9f\xe5\x86\x99\xe7\x9c\x9f"
		  "\xe5\x86\x99\xe7\x9c\x9f.jpg"; /* 8 wide characters, 20 columns */
	progress_update(p, &st);
	/* two wide characters and ".jpg" are 8 columns, with "..." 11 */
	CHECK_STR(take(&c), "\r[..........]   0%  100 B  ...\xe5\x86\x99\xe7\x9c\x9f.jpg");

	fake_now = 2;
	st.item = "ev\r\x1b[2J\xff.jpg"; /* no cursor moves from a file name */
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  100 B  ev??[2J?.jpg");

	fake_now = 2.5;
	/* C1 as UTF-8 and raw, a right-to-left override: cmd/quote.h's classes */
	st.item = "a\xc2\x9b\x9b\xe2\x80\xaegpj.exe";
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  100 B  a???gpj.exe ");

	fake_now = 3;
	/* decomposed, 13 columns: the cut after "e" must not leave its accent
	 * to start the tail */
	st.item = "Cafe\xcc\x81photo.jpg";
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  100 B  ...photo.jpg");
	fake_now = 4;
	st.item = "Cafe\xcc\x81.jpg"; /* 8 columns fit whole */
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  100 B  Cafe\xcc\x81.jpg    ");
	progress_free(p);
	cap_close(&c);
}

TEST(item_copied)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(0, 1000);
	char name[32] = "first.jpg";
	char label[16] = "on device";

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	fake_now = 1;
	st.item = name;
	st.label = label;
	progress_update(p, &st);
	take(&c);
	/* the caller reuses its buffers; a redraw must show what was given */
	strcpy(name, "XXXXXXXXX");
	strcpy(label, "XXXXXXXXX");
	progress_done(p, NULL);
	CHECK_STR(take(&c), "\r[..........]   0%  0 B / 1000 B on device  first.jpg\n");
	progress_free(p);
	cap_close(&c);
}

TEST(estimate_and_left)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(300 * MiB, 500 * MiB);

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_LEFT);
	fake_now = 1;
	st.label = "left";
	st.estimate = true;
	st.rate = 20 * MiB;
	st.eta = progress_eta(st.total - st.done, st.rate);
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[######....]  60%  ~200 MiB left  20.0 MiB/s  ETA ~0:10");
	progress_free(p);
	cap_close(&c);
}

TEST(plain_lines)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(0, 1000);

	cap_open(&c);
	p = meter(&c, PROGRESS_PLAIN, 0, PROGRESS_SHOW_DONE);
	fake_now = 0;
	progress_update(p, &st);
	CHECK_STR(take(&c), "  0%  0 B / 1000 B\n");
	fake_now = 0.5;
	progress_update(p, &st);
	CHECK_STR(take(&c), "");
	fake_now = 1.0;
	st.done = 500;
	st.rate = 100;
	st.eta = 5;
	st.item = "a long directory name/that is never shortened in logs.jpg";
	progress_update(p, &st);
	CHECK_STR(take(&c), " 50%  500 B / 1000 B  100 B/s  ETA 0:05  "
			    "a long directory name/that is never shortened in logs.jpg\n");
	progress_note(p, "safecp: cannot read 'b.jpg': Input/output error, skipping");
	CHECK_STR(take(&c), "safecp: cannot read 'b.jpg': Input/output error, skipping\n");
	st.done = 1000;
	st.item = NULL;
	progress_update(p, &st); /* inside the interval: stored, not drawn */
	CHECK_STR(take(&c), "");
	progress_done(p, "done");
	CHECK_STR(take(&c), "100%  1000 B / 1000 B  100 B/s\ndone\n");
	progress_free(p);
	CHECK_STR(take(&c), "");
	cap_close(&c);
}

TEST(note_interleaving)
{
	struct capture c;
	struct progress *p;
	struct progress_state st = bytes(0, 1000);

	cap_open(&c);
	p = meter(&c, PROGRESS_BAR, 80, PROGRESS_SHOW_DONE);
	progress_note(p, "before %s", "any bar"); /* nothing to clear yet */
	CHECK_STR(take(&c), "before any bar\n");
	fake_now = 1;
	st.item = "a";
	progress_update(p, &st);
	CHECK_STR(take(&c), "\r[..........]   0%  0 B / 1000 B  a");
	fake_now = 1.02;
	st.done = 100;
	progress_update(p, &st); /* throttled: stored only */
	CHECK_STR(take(&c), "");
	progress_note(p, "safecp: '%s' skipped", "fifo");
	/* cleared (34 columns), the note, then the bar redrawn with the stored state */
	CHECK_STR(take(&c), "\r                                  \r"
			    "safecp: 'fifo' skipped\n"
			    "\r[#.........]  10%  100 B / 1000 B  a");
	fake_now = 1.05;
	progress_update(p, &st); /* the redraw counts for the throttle */
	CHECK_STR(take(&c), "");
	progress_done(p, NULL);
	take(&c);
	progress_note(p, "after"); /* no bar to redraw any more */
	CHECK_STR(take(&c), "after\n");
	progress_free(p);
	CHECK_STR(take(&c), "");
	cap_close(&c);
}

/* Runs fn with fd 2 pointed at a temporary file; returns what it wrote. */
static const char *stderr_of(void (*fn)(void))
{
	static char out[256];
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return out;
}

static void null_meter_calls(void)
{
	struct progress_state st = bytes(1, 2);

	progress_update(NULL, &st);
	progress_done(NULL, "final");
	progress_free(NULL);
}

static void null_meter_note(void)
{
	progress_note(NULL, "safecp: warning %d", 7);
}

TEST(null_meter)
{
	struct progress *p = (struct progress *)1;
	struct progress_options o = { .mode = PROGRESS_NONE };

	CHECK_INT(progress_new(&o, &p), 0);
	CHECK(p == NULL);
	CHECK(!progress_due(NULL));
	CHECK_STR(stderr_of(null_meter_calls), "");
	/* the one call that still speaks: a warning is never lost */
	CHECK_STR(stderr_of(null_meter_note), "safecp: warning 7\n");
}

struct json_log {
	int calls, finals;
	uint64_t last_done;
};

static void json_cb(FILE *out, const struct progress_state *st, bool final, void *userdata)
{
	struct json_log *l = userdata;

	l->calls++;
	l->finals += final;
	l->last_done = st->done;
	fprintf(out, "{\"event\":\"%s\",\"bytes_on_device\":%llu}\n", final ? "done" : "progress",
		(unsigned long long)st->done);
}

TEST(json_hook)
{
	struct capture c;
	struct progress *p = NULL;
	struct json_log log = { 0 };
	struct progress_state st = bytes(0, 1000);
	struct progress_options o = {
		.mode = PROGRESS_JSON, .clock = fake_clock, .userdata = &log,
	};

	CHECK_INT(progress_new(&o, &p), -EINVAL); /* json without its writer */
	CHECK(p == NULL);
	o.json = json_cb;
	cap_open(&c);
	o.out = c.f;
	CHECK_INT(progress_new(&o, &p), 0);
	fake_now = 0;
	progress_update(p, &st);
	fake_now = 0.2;
	st.done = 100;
	progress_update(p, &st);
	CHECK_INT(log.calls, 1);
	fake_now = 0.25;
	st.done = 200;
	progress_update(p, &st);
	CHECK_INT(log.calls, 2);
	CHECK_U64(log.last_done, 200);
	st.done = 1000;
	fake_now = 0.3;
	progress_update(p, &st);
	progress_done(p, "not for scripts");
	CHECK_INT(log.calls, 3);
	CHECK_INT(log.finals, 1);
	CHECK_U64(log.last_done, 1000);
	progress_update(p, &st);
	progress_done(p, NULL);
	CHECK_INT(log.calls, 3);
	CHECK_STR(take(&c), "{\"event\":\"progress\",\"bytes_on_device\":0}\n"
			    "{\"event\":\"progress\",\"bytes_on_device\":200}\n"
			    "{\"event\":\"done\",\"bytes_on_device\":1000}\n");
	progress_free(p);
	cap_close(&c);
}

/* The ETA's number; its format is test_format.c's. */
TEST(eta)
{
	CHECK(progress_eta(0, -1) == 0);
	CHECK(progress_eta(100, 0) < 0);
	CHECK(progress_eta(100, -1) < 0);
	CHECK(progress_eta(100, 50) == 2);
}

static bool near(double a, double b)
{
	return a - b < 1e-6 && b - a < 1e-6;
}

TEST(rate)
{
	struct progress_rate r;
	double t = 0, v = 0;
	uint64_t counter = 0;

	progress_rate_init(&r, 3);
	CHECK(progress_rate_sample(&r, 0, 0) < 0); /* one sample: no rate */
	CHECK(progress_rate_sample(&r, 0.2, 200) < 0); /* under a tenth of the window */
	CHECK(near(progress_rate_sample(&r, 0.5, 500), 1000));
	for (int i = 0; i < 100; i++) { /* 1000 B/s until t = 10 */
		t = 0.5 + 0.095 * (i + 1);
		counter = (uint64_t)(t * 1000);
		v = progress_rate_sample(&r, t, counter);
	}
	CHECK(v > 990 && v < 1010); /* the counter is truncated to whole bytes */
	for (int i = 0; i < 40; i++) { /* then 2000 B/s for 4 s */
		t += 0.1;
		counter += 200;
		v = progress_rate_sample(&r, t, counter);
	}
	CHECK(near(v, 2000)); /* the old rate has left the 3 s window */

	counter -= 1; /* a new device's counter: start afresh */
	CHECK(progress_rate_sample(&r, t + 0.1, counter) < 0);

	progress_rate_init(&r, 0); /* default window, sampled every 5 s */
	CHECK(progress_rate_sample(&r, 100, 0) < 0);
	CHECK(near(progress_rate_sample(&r, 105, 5000), 1000));
	CHECK(near(progress_rate_sample(&r, 110, 15000), 2000));
}

TEST(modes)
{
	enum progress_mode m = PROGRESS_BAR;
	struct capture c;

	CHECK_INT(progress_mode_parse("none", &m), 0);
	CHECK_INT(m, PROGRESS_NONE);
	CHECK_INT(progress_mode_parse("plain", &m), 0);
	CHECK_INT(m, PROGRESS_PLAIN);
	CHECK_INT(progress_mode_parse("json", &m), 0);
	CHECK_INT(m, PROGRESS_JSON);
	CHECK_INT(progress_mode_parse("bar", &m), 0);
	CHECK_INT(m, PROGRESS_BAR);
	CHECK_INT(progress_mode_parse("Bar", &m), -EINVAL);
	CHECK_INT(progress_mode_parse("", &m), -EINVAL);
	CHECK_INT(progress_mode_parse(NULL, &m), -EINVAL);
	CHECK_INT(m, PROGRESS_BAR);
	cap_open(&c);
	CHECK_INT(progress_default_mode(c.f), PROGRESS_NONE); /* not a terminal */
	cap_close(&c);
}

/* A pseudo-terminal stands in for the user's: the default mode is bar,
 * the width comes from TIOCGWINSZ and is re-read after SIGWINCH. */
TEST(terminal_width_and_sigwinch)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 120 };
	struct termios tio;
	struct sigaction before, after;
	struct progress *p = NULL;
	struct progress_state st = example();
	char buf[1024];
	ssize_t n;
	int master = posix_openpt(O_RDWR | O_NOCTTY), slave;
	FILE *f;

	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
		FAIL_AT("no pseudo-terminal: %s", strerror(errno));
		return;
	}
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	CHECK(slave >= 0);
	tcgetattr(slave, &tio);
	cfmakeraw(&tio); /* no "\n" -> "\r\n" */
	tcsetattr(slave, TCSANOW, &tio);
	ioctl(master, TIOCSWINSZ, &ws);
	fcntl(master, F_SETFL, O_NONBLOCK);
	f = fdopen(slave, "w");

	CHECK_INT(progress_default_mode(f), PROGRESS_BAR);
	sigaction(SIGWINCH, NULL, &before);
	CHECK_INT(progress_new(&(struct progress_options){ .mode = PROGRESS_BAR, .out = f,
							   .clock = fake_clock }, &p), 0);
	fake_now = 1;
	progress_update(p, &st);
	n = read(master, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strstr(buf, "DCIM/IMG_0042.JPG") != NULL); /* 120 columns: the item fits */

	ws.ws_col = 60;
	ioctl(master, TIOCSWINSZ, &ws); /* the kernel signals only the foreground group */
	raise(SIGWINCH);
	CHECK(progress_due(p)); /* a resize redraws at once */
	fake_now = 1.01;
	progress_update(p, &st);
	n = read(master, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	/* 57 columns now; of the 118 before, only the 59 usable are padded */
	CHECK_STR(buf, "\r[#####.....]  53%  543 MiB / 1.00 GiB on device  ETA 0:24  ");
	progress_free(p);
	sigaction(SIGWINCH, NULL, &after);
	CHECK(after.sa_handler == before.sa_handler); /* restored */
	fclose(f);
	close(master);
}

int main(void)
{
	TEST_PLAN(22);
	RUN(throttle);
	RUN(padding_on_shorter_line);
	RUN(never_100_before_done);
	RUN(done_short_of_total);
	RUN(zero_total);
	RUN(layout_full);
	RUN(layout_item_shortened_then_dropped);
	RUN(layout_drop_order);
	RUN(layout_pending_without_item);
	RUN(status_replaces_eta);
	RUN(rate_smooth);
	RUN(item_sanitized_and_wide);
	RUN(item_copied);
	RUN(estimate_and_left);
	RUN(plain_lines);
	RUN(note_interleaving);
	RUN(null_meter);
	RUN(json_hook);
	RUN(eta);
	RUN(rate);
	RUN(modes);
	RUN(terminal_width_and_sigwinch);
	return test_summary();
}
