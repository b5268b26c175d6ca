/* safecp_check_out.c: what safecp --check says: a line per file that is not
 * what the reference says (stderr, through the meter so the bar is not
 * garbled), with -v one per file that is, the progress (bar, plain or JSON)
 * and the last line, which says how many files matched and how the page
 * cache was bypassed, or that it could not be ("device cache not bypassed").
 *
 * JSON events (safecp(1), JSON OUTPUT): check-start, one check per file,
 * progress, done.  All output comes from the main thread, so no lock. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <safecp/check.h>

#include "common/event.h"
#include "common/msg.h"
#include "common/progress.h"
#include "common/quote.h"
#include "safecp/safecp_check.h"
#include "safecp/safecp_words.h"
#include "base/cleanup.h"
#include "base/clock.h"
#include "base/size.h"

struct checkout {
	struct progress *meter;
	struct json json;
	bool json_mode;
	char *where;         /* "'/media/usb' (exfat on /dev/sdb1)" */
	struct progress_rate rate;
	uint64_t done, total;
	double rate_now, eta;
	char label[64];
};

/* The JSON progress and done come from the meter, with its throttle. */
static void json_progress(FILE *out, const struct progress_state *st, bool final, void *userdata)
{
	struct checker *c = userdata;
	struct safecp_check_progress p = { 0 };

	(void)out;
	(void)st;
	if (final)
		return; /* checkout_done() writes done: it knows the outcome */
	safecp_check_progress(c->check, &p);
	event_begin(&c->out->json, "progress", clock_realtime());
	json_kv_u64(&c->out->json, "bytes_total", c->out->total);
	json_kv_u64(&c->out->json, "bytes_checked", c->out->done);
	json_kv_u64(&c->out->json, "bytes_read", p.bytes_read);
	json_kv_u64(&c->out->json, "files_total", c->ref.files);
	json_kv_u64(&c->out->json, "files_done", p.files_done);
	json_kv_name(&c->out->json, "file", p.file);
	if (c->out->rate_now < 0)
		json_kv_null(&c->out->json, "rate");
	else
		json_kv_double(&c->out->json, "rate", c->out->rate_now, 1);
	if (c->out->eta < 0)
		json_kv_null(&c->out->json, "eta");
	else
		json_kv_double(&c->out->json, "eta", c->out->eta, 1);
	event_end(&c->out->json);
}

int checkout_new(struct checker *c)
{
	struct checkout *out = calloc(1, sizeof(*out));
	int r;

	if (!out)
		return -ENOMEM;
	c->out = out;
	out->json_mode = c->o->progress == PROGRESS_JSON;
	json_init(&out->json, stdout);
	progress_rate_init(&out->rate, 0);
	out->where = words_where_of(c->place.mountpoint ? c->place.mountpoint : c->place.path,
				    c->place.fstype, c->place.format, c->place.device);
	r = progress_new(&(struct progress_options){ .mode = c->o->progress,
						     .json = json_progress, .userdata = c },
			 &out->meter);
	return r < 0 ? r : out->where ? 0 : -ENOMEM;
}

void checkout_free(struct checker *c)
{
	if (!c->out)
		return;
	progress_free(c->out->meter);
	free(c->out->where);
	free(c->out);
	c->out = NULL;
}

static void vline(struct checker *c, enum msg_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void vline(struct checker *c, enum msg_level level, const char *fmt, va_list ap)
{
	_cleanup_free_ char *msg = msg_vline(level, fmt, ap);

	if (msg)
		progress_note(c->out->meter, "%s", msg);
}

static void line(struct checker *c, enum msg_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void line(struct checker *c, enum msg_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(c, level, fmt, ap);
	va_end(ap);
}

void checkout_warn(struct checker *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(c, MSG_WARNING, fmt, ap);
	va_end(ap);
}

/* "'x.xxh128' (3 files), 'x.sha256' (3 files)" or "the ASC MHL manifest ..." */
static char *reference_words(const struct checker *c)
{
	_cleanup_free_ char *s = NULL;

	struct safecp_check_list l;

	if (c->ref.manifest) {
		_cleanup_free_ char *m = words_format("ascmhl/%s", c->ref.manifest);

		return m ? words_format("the ASC MHL manifest %s (%zu files)", quote(m), c->ref.files)
			 : NULL;
	}
	for (size_t i = 0; safecp_check_list(c->check, i, &l) == 0; i++) {
		char *n = words_format("%s%s%s (%zu files)", s ? s : "", s ? ", " : "",
				       quote(l.path), l.files);

		free(s);
		s = n;
		if (!s)
			return NULL;
	}
	return TAKE_PTR(s);
}

static void json_start(struct checker *c)
{
	struct json *j = &c->out->json;
	struct safecp_check_list l;

	event_begin(j, "check-start", clock_realtime());
	json_kv_name(j, "dir", c->o->dir);
	json_kv_name(j, "mountpoint", c->place.mountpoint);
	json_kv_string(j, "fstype", c->place.fstype);
	json_kv_name(j, "device", c->place.device);
	json_kv_string(j, "reference", c->ref.mhl ? "mhl" : "sums");
	json_kv_name(j, "manifest", c->ref.manifest);
	json_key(j, "lists");
	json_array_begin(j);
	for (size_t i = 0; safecp_check_list(c->check, i, &l) == 0; i++) {
		json_object_begin(j);
		json_kv_name(j, "path", l.path);
		json_kv_string(j, "algorithm", l.algorithm);
		json_kv_u64(j, "files", l.files);
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_u64(j, "files", c->ref.files);
	event_end(j);
}

void checkout_start(struct checker *c)
{
	_cleanup_free_ char *ref = reference_words(c);

	if (c->o->verbosity > VERBOSITY_QUIET)
		line(c, MSG_NOTE, "checking %s on %s against %s", quote(c->o->dir),
		     c->out->where, ref ? ref : "its reference");
	if (c->out->json_mode)
		json_start(c);
}

/* The sentence for a file that is not what the reference says (no prefix). */
static char *problem_words(const struct checker *c, const struct safecp_check_event *ev,
			   const char *path)
{
	const char *where = c->out->where, *alg = ev->algorithm;
	char have[32], want[32];

	switch (ev->outcome) {
	case SAFECP_CHECK_MATCH: return NULL;
	case SAFECP_CHECK_DIFFERS:
		return words_format("%s read back from the device (%s) differs from its %s in the "
				    "reference; copy it again from the source", quote(path), where, alg);
	case SAFECP_CHECK_SIZE_DIFFERS:
		snprintf(have, sizeof(have), "%llu", (unsigned long long)ev->size);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)ev->listed_size);
		return words_format("%s on %s holds %s bytes, the reference says %s; copy it again "
				    "from the source", quote(path), where, have, want);
	case SAFECP_CHECK_FAILED_BEFORE:
		return words_format("%s on %s is marked failed in the ASC MHL manifest; copy it "
				    "again from the source", quote(path), where);
	case SAFECP_CHECK_MISSING:
		return words_format("%s is missing on %s; copy it again from the source",
				    quote(path), where);
	case SAFECP_CHECK_SYMLINK:
		return words_format("%s on %s is reached through a symbolic link, which is not "
				    "followed; put the file itself there", quote(path), where);
	case SAFECP_CHECK_OUTSIDE:
		return words_format("the reference lists %s, outside %s: not read; check where the "
				    "reference comes from", quote(ev->path), quote(c->o->dir));
	case SAFECP_CHECK_NOT_REGULAR:
		return words_format("%s on %s is not a regular file; copy the file again from the "
				    "source", quote(path), where);
	case SAFECP_CHECK_UNREADABLE:
		break;
	}
	return words_format("cannot read %s back from the device (%s): %s; check the device "
			    "(dmesg) and its connection, then check again", quote(path), where,
			    strerror(ev->err));
}

static void json_file(struct checker *c, const struct safecp_check_event *ev, const char *path,
		      const char *msg)
{
	struct json *j = &c->out->json;

	event_begin(j, "check", clock_realtime());
	json_kv_name(j, "file", ev->path);
	json_kv_name(j, "path", path);
	json_kv_string(j, "result", ev->outcome_name);
	json_kv_string(j, "algorithm", ev->algorithm);
	json_kv_u64(j, "size", ev->size);
	json_kv_string(j, "read_back", ev->read ? safecp_read_back_name(ev->how) : NULL);
	if (ev->err) {
		json_kv_u64(j, "errno", (uint64_t)ev->err);
		json_kv_string(j, "errno_name", strerrorname_np(ev->err));
		json_kv_string(j, "error", strerror(ev->err));
	} else {
		json_kv_null(j, "errno");
		json_kv_null(j, "errno_name");
		json_kv_null(j, "error");
	}
	json_kv_string(j, "message", msg);
	event_end(j);
}

void checkout_file(struct checker *c, const struct safecp_check_event *ev)
{
	_cleanup_free_ char *path = words_format("%s/%s", c->o->dir, ev->path);
	_cleanup_free_ char *msg = path ? problem_words(c, ev, path) : NULL;

	if (msg)
		line(c, MSG_ERROR, "%s", msg);
	else if (ev->outcome == SAFECP_CHECK_MATCH && c->o->verbosity >= VERBOSITY_VERBOSE) {
		if (c->out->json_mode || c->o->progress == PROGRESS_BAR)
			progress_note(c->out->meter, "%s: matches its %s", quote(path), ev->algorithm);
		else
			printf("%s: matches its %s\n", quote(path), ev->algorithm);
	}
	if (c->out->json_mode)
		json_file(c, ev, path ? path : ev->path, msg);
}

void checkout_tick(struct checker *c)
{
	struct checkout *out = c->out;
	struct safecp_check_progress p = { 0 };
	char read[SIZE_FORMAT_MAX];

	safecp_check_progress(c->check, &p);
	out->done = p.bytes_done;
	out->total = p.bytes_total;
	if (out->total < out->done)
		out->total = out->done;
	out->rate_now = progress_rate_sample(&out->rate, clock_monotonic(), out->done);
	out->eta = p.sized ? progress_eta(out->total - out->done, out->rate_now) : -1;
	size_format(read, sizeof(read), p.bytes_read);
	snprintf(out->label, sizeof(out->label), "checked, %s read back", read);
	progress_update(out->meter, &(struct progress_state){
		.total = out->total,
		.done = out->done,
		.rate = out->rate_now,
		.eta = out->eta,
		.item = p.files_done < c->ref.files ? p.file : NULL,
		.label = out->label,
		.estimate = !p.sized,
	});
}

/* "xxh128", "xxh128 and sha256", "xxh3, md5 and c4": the digests compared */
static char *algs_words(const struct checker *c)
{
	_cleanup_free_ char *s = NULL;
	size_t n = 0;

	while (safecp_check_algorithm(c->check, n))
		n++;
	for (size_t k = 0; k < n; k++) {
		char *w = words_format("%s%s%s", s ? s : "", k == 0 ? "" : k == n - 1 ? " and " : ", ",
				       safecp_check_algorithm(c->check, k));

		free(s);
		s = w;
		if (!s)
			return NULL;
	}
	return s ? TAKE_PTR(s) : strdup("digests");
}

/* How the files were read back, every way seen. */
static char *how_words(const struct checker *c, unsigned hows)
{
	static const char *const words[] = {
		[SAFECP_READ_BACK_DIRECT] = "past the page cache (O_DIRECT)",
		[SAFECP_READ_BACK_DROPPED] = "after their cached pages were dropped and proved gone",
		[SAFECP_READ_BACK_DEVICE_DROPPED] = "after the device's page cache was dropped and "
						    "proved empty",
		[SAFECP_READ_BACK_CACHED] = NULL,
	};
	_cleanup_free_ char *s = NULL;

	if (!hows)
		return strdup("nothing read back");
	for (int h = SAFECP_READ_BACK_DIRECT; h < SAFECP_READ_BACK_CACHED; h++) {
		char *w;

		if (!(hows & (1u << h)))
			continue;
		w = words_format("%s%s%s", s ? s : "read back ", s ? ", or " : "", words[h]);
		free(s);
		s = w;
		if (!s)
			return NULL;
	}
	if (hows & (1u << SAFECP_READ_BACK_CACHED)) {
		char *w = words_format("%s%sdevice cache not bypassed%s", s ? s : "",
				       s ? "; some " : "",
				       c->place.device_cache && geteuid() != 0
					       ? " (run as root to bypass it)" : "");
		free(s);
		s = w;
	}
	return TAKE_PTR(s);
}

static const char *const count_words[] = {
	[SAFECP_CHECK_DIFFERS] = "different",
	[SAFECP_CHECK_SIZE_DIFFERS] = "of another size",
	[SAFECP_CHECK_FAILED_BEFORE] = "marked failed in the manifest",
	[SAFECP_CHECK_MISSING] = "missing",
	[SAFECP_CHECK_SYMLINK] = "behind a symbolic link (not followed)",
	[SAFECP_CHECK_OUTSIDE] = "outside the directory",
	[SAFECP_CHECK_NOT_REGULAR] = "not a regular file",
	[SAFECP_CHECK_UNREADABLE] = "unreadable",
};
#define N_COUNT_WORDS (sizeof(count_words) / sizeof(*count_words))

/* ": 1 differ, 2 missing" for the kinds that happened, or "" */
static char *problems_words(const struct checker *c)
{
	_cleanup_free_ char *out = strdup("");

	for (int r = SAFECP_CHECK_DIFFERS; out && safecp_check_outcome_name(r); r++) {
		uint64_t n = safecp_check_count(c->check, r);
		char *w;

		if (!n)
			continue;
		w = words_format("%s%s%llu %s", out, out[0] ? ", " : ": ", (unsigned long long)n,
				 (size_t)r < N_COUNT_WORDS ? count_words[r]
							  : safecp_check_outcome_name(r));
		free(out);
		out = w;
	}
	return TAKE_PTR(out);
}

static void json_done(struct checker *c, int signo, const struct safecp_check_progress *p)
{
	struct json *j = &c->out->json;
	const char *n;

	event_begin(j, "done", clock_realtime());
	json_kv_string(j, "outcome", signo ? "interrupted" : "checked");
	if (signo)
		json_kv_string(j, "signal", sigabbrev_np(signo));
	json_kv_u64(j, "files", c->ref.files);
	json_kv_u64(j, "files_checked", p->files_done);
	for (int r = 0; (n = safecp_check_outcome_name(r)); r++) {
		char key[32];
		size_t k;

		/* "match" -> "matched"; the others as their names, '-' as '_' */
		snprintf(key, sizeof(key), "%s", r == SAFECP_CHECK_MATCH ? "matched" : n);
		for (k = 0; key[k]; k++)
			if (key[k] == '-')
				key[k] = '_';
		json_kv_u64(j, key, safecp_check_count(c->check, r));
	}
	json_kv_u64(j, "bytes_total", c->out->total);
	json_kv_u64(j, "bytes_read", p->bytes_read);
	json_key(j, "read_back");
	json_array_begin(j);
	for (int h = 0; (n = safecp_read_back_name(h)); h++)
		if (p->read_back & (1u << h))
			json_string(j, n);
	json_array_end(j);
	json_kv_bool(j, "cache_bypassed",
		     p->read_back && !(p->read_back & (1u << SAFECP_READ_BACK_CACHED)));
	event_end(j);
}

void checkout_done(struct checker *c, int signo)
{
	struct safecp_check_progress p = { 0 };
	_cleanup_free_ char *algs = algs_words(c), *how = NULL;
	_cleanup_free_ char *problems = problems_words(c);
	_cleanup_free_ char *last = NULL;
	uint64_t matched = safecp_check_count(c->check, SAFECP_CHECK_MATCH);

	checkout_tick(c);
	safecp_check_progress(c->check, &p);
	how = how_words(c, p.read_back);
	if (signo)
		last = words_format("interrupted: %llu of %zu files checked, %llu match",
				    (unsigned long long)p.files_done, c->ref.files,
				    (unsigned long long)matched);
	else
		last = words_format("%llu of %zu files match their %s on %s%s; %s",
				    (unsigned long long)matched, c->ref.files, algs ? algs : "digests",
				    c->out->where, problems ? problems : "", how ? how : "");
	if (c->out->json_mode)
		json_done(c, signo, &p);
	if (c->o->verbosity == VERBOSITY_QUIET || !last) {
		progress_done(c->out->meter, NULL);
	} else if (c->out->meter && !c->out->json_mode) {
		progress_done(c->out->meter, last);
	} else {
		/* the answer the user asked for, also without a meter; stdout
		 * may carry JSON, so stderr as the meter's line would be */
		progress_done(c->out->meter, NULL);
		fprintf(stderr, "%s\n", last);
	}
}
