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

#include "common/event.h"
#include "common/msg.h"
#include "common/progress.h"
#include "common/quote.h"
#include "safecp/safecp_check.h"
#include "base/cleanup.h"
#include "base/clock.h"
#include "base/size.h"

struct checkout {
	struct progress *meter;
	struct json json;
	bool json_mode;
	size_t shown;        /* outcomes reported */
	char *where;         /* "'/media/usb' (exfat on /dev/sdb1)" */
	struct progress_rate rate;
	uint64_t done, total;
	double rate_now, eta;
	char label[64];
};

static const char *how_name(enum readback_how h)
{
	switch (h) {
	case READBACK_DIRECT: return "direct";
	case READBACK_DROPPED: return "dropped";
	case READBACK_DEVICE_DROPPED: return "device-dropped";
	case READBACK_CACHED: return "cached";
	}
	return "cached";
}

/* The JSON progress and done come from the meter, with its throttle. */
static void json_progress(FILE *out, const struct progress_state *st, bool final, void *userdata)
{
	struct checker *c = userdata;
	const struct check_stats *s = check_job_stats(c->job);
	size_t cur = atomic_load(&s->current);

	(void)out;
	(void)st;
	if (final)
		return; /* checkout_done() writes done: it knows the outcome */
	event_begin(&c->out->json, "progress", clock_realtime());
	json_kv_u64(&c->out->json, "bytes_total", c->out->total);
	json_kv_u64(&c->out->json, "bytes_checked", c->out->done);
	json_kv_u64(&c->out->json, "bytes_read", atomic_load(&s->bytes_read));
	json_kv_u64(&c->out->json, "files_total", c->list.n);
	json_kv_u64(&c->out->json, "files_done", atomic_load(&s->files_done));
	json_kv_name(&c->out->json, "file", cur < c->list.n ? c->list.entries[cur].path : NULL);
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
	out->where = words_where(c->t);
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

	if (c->manifest) {
		_cleanup_free_ char *m = words_format("%s/%s", MHL_FOLDER, c->manifest);

		return m ? words_format("the ASC MHL manifest %s (%zu files)", quote(m), c->list.n)
			 : NULL;
	}
	for (size_t i = 0; i < c->n_lists; i++) {
		char *n = words_format("%s%s%s (%zu files)", s ? s : "", s ? ", " : "",
				       quote(c->lists[i]), c->list_files[i]);

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

	event_begin(j, "check-start", clock_realtime());
	json_kv_name(j, "dir", c->o->check_dir);
	json_kv_name(j, "mountpoint", c->t->mountpoint);
	json_kv_string(j, "fstype", c->t->fstype);
	json_kv_name(j, "device", c->t->has_block ? c->t->devnode : NULL);
	json_kv_string(j, "reference", c->manifest ? "mhl" : "sums");
	json_kv_name(j, "manifest", c->manifest);
	json_key(j, "lists");
	json_array_begin(j);
	for (size_t i = 0; i < c->n_lists; i++) {
		json_object_begin(j);
		json_kv_name(j, "path", c->lists[i]);
		json_kv_string(j, "algorithm", strrchr(c->lists[i], '.') + 1);
		json_kv_u64(j, "files", c->list_files[i]);
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_u64(j, "files", c->list.n);
	event_end(j);
}

void checkout_start(struct checker *c)
{
	_cleanup_free_ char *ref = reference_words(c);

	if (c->o->verbosity > VERBOSITY_QUIET)
		line(c, MSG_NOTE, "checking %s on %s against %s", quote(c->o->check_dir),
		     c->out->where, ref ? ref : "its reference");
	if (c->out->json_mode)
		json_start(c);
}

/* The sentence for a file that is not what the reference says (no prefix). */
static char *problem_words(const struct checker *c, const struct check_entry *e,
			   const struct check_outcome *o, const char *path)
{
	const char *where = c->out->where, *alg = checksum_alg_name(e->alg);
	char have[32], want[32];

	switch (o->result) {
	case CHECK_MATCH: return NULL;
	case CHECK_DIFFERS:
		return words_format("%s read back from the device (%s) differs from its %s in the "
				    "reference; copy it again from the source", quote(path), where, alg);
	case CHECK_SIZE_DIFFERS:
		snprintf(have, sizeof(have), "%llu", (unsigned long long)o->size);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)e->size);
		return words_format("%s on %s holds %s bytes, the reference says %s; copy it again "
				    "from the source", quote(path), where, have, want);
	case CHECK_FAILED_BEFORE:
		return words_format("%s on %s is marked failed in the ASC MHL manifest; copy it "
				    "again from the source", quote(path), where);
	case CHECK_MISSING:
		return words_format("%s is missing on %s; copy it again from the source",
				    quote(path), where);
	case CHECK_SYMLINK:
		return words_format("%s on %s is reached through a symbolic link, which is not "
				    "followed; put the file itself there", quote(path), where);
	case CHECK_OUTSIDE:
		return words_format("the reference lists %s, outside %s: not read; check where the "
				    "reference comes from", quote(e->path), quote(c->o->check_dir));
	case CHECK_NOT_REGULAR:
		return words_format("%s on %s is not a regular file; copy the file again from the "
				    "source", quote(path), where);
	case CHECK_UNREADABLE:
	case CHECK_RESULT_COUNT:
		break;
	}
	return words_format("cannot read %s back from the device (%s): %s; check the device "
			    "(dmesg) and its connection, then check again", quote(path), where,
			    strerror(o->err));
}

static void json_file(struct checker *c, const struct check_entry *e,
		      const struct check_outcome *o, const char *path, const char *msg)
{
	struct json *j = &c->out->json;

	event_begin(j, "check", clock_realtime());
	json_kv_name(j, "file", e->path);
	json_kv_name(j, "path", path);
	json_kv_string(j, "result", check_result_name(o->result));
	json_kv_string(j, "algorithm", checksum_alg_name(e->alg));
	json_kv_u64(j, "size", o->size);
	json_kv_string(j, "read_back", o->read ? how_name(o->how) : NULL);
	if (o->err) {
		json_kv_u64(j, "errno", (uint64_t)o->err);
		json_kv_string(j, "errno_name", strerrorname_np(o->err));
		json_kv_string(j, "error", strerror(o->err));
	} else {
		json_kv_null(j, "errno");
		json_kv_null(j, "errno_name");
		json_kv_null(j, "error");
	}
	json_kv_string(j, "message", msg);
	event_end(j);
}

static void report(struct checker *c, size_t i)
{
	const struct check_entry *e = &c->list.entries[i];
	const struct check_outcome *o = check_job_outcome(c->job, i);
	_cleanup_free_ char *path = words_format("%s/%s", c->o->check_dir, e->path);
	_cleanup_free_ char *msg = path ? problem_words(c, e, o, path) : NULL;

	if (msg)
		line(c, MSG_ERROR, "%s", msg);
	else if (o->result == CHECK_MATCH && c->o->verbosity >= VERBOSITY_VERBOSE) {
		if (c->out->json_mode || c->o->progress == PROGRESS_BAR)
			progress_note(c->out->meter, "%s: matches its %s", quote(path),
				      checksum_alg_name(e->alg));
		else
			printf("%s: matches its %s\n", quote(path), checksum_alg_name(e->alg));
	}
	if (c->out->json_mode)
		json_file(c, e, o, path ? path : e->path, msg);
}

void checkout_tick(struct checker *c)
{
	const struct check_stats *s = check_job_stats(c->job);
	struct checkout *out = c->out;
	size_t done = atomic_load(&s->files_done), cur = atomic_load(&s->current);
	char read[SIZE_FORMAT_MAX];

	for (; out->shown < done; out->shown++)
		report(c, out->shown);
	out->done = atomic_load(&s->bytes_done);
	out->total = atomic_load(&s->bytes_total);
	if (out->total < out->done)
		out->total = out->done;
	out->rate_now = progress_rate_sample(&out->rate, clock_monotonic(), out->done);
	out->eta = atomic_load(&s->sized) ? progress_eta(out->total - out->done, out->rate_now) : -1;
	size_format(read, sizeof(read), atomic_load(&s->bytes_read));
	snprintf(out->label, sizeof(out->label), "checked, %s read back", read);
	progress_update(out->meter, &(struct progress_state){
		.total = out->total,
		.done = out->done,
		.rate = out->rate_now,
		.eta = out->eta,
		.item = cur < c->list.n && done < c->list.n ? c->list.entries[cur].path : NULL,
		.label = out->label,
		.estimate = !atomic_load(&s->sized),
	});
}

/* "xxh128", "xxh128 and sha256", "xxh3, md5 and c4": the digests compared */
static char *algs_words(const struct checker *c)
{
	checksum_set used = 0;
	_cleanup_free_ char *s = NULL;
	int n = 0, k = 0;

	for (size_t i = 0; i < c->list.n; i++)
		used |= CHECKSUM_BIT(c->list.entries[i].alg);
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++)
		n += !!(used & CHECKSUM_BIT(a));
	for (int a = 0; a < CHECKSUM_ALG_COUNT; a++) {
		char *w;

		if (!(used & CHECKSUM_BIT(a)))
			continue;
		k++;
		w = words_format("%s%s%s", s ? s : "", k == 1 ? "" : k == n ? " and " : ", ",
				 checksum_alg_name(a));
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
		[READBACK_DIRECT] = "past the page cache (O_DIRECT)",
		[READBACK_DROPPED] = "after their cached pages were dropped and proved gone",
		[READBACK_DEVICE_DROPPED] = "after the device's page cache was dropped and proved "
					    "empty",
		[READBACK_CACHED] = NULL,
	};
	_cleanup_free_ char *s = NULL;

	if (!hows)
		return strdup("nothing read back");
	for (int h = READBACK_DIRECT; h < READBACK_CACHED; h++) {
		char *w;

		if (!(hows & (1u << h)))
			continue;
		w = words_format("%s%s%s", s ? s : "read back ", s ? ", or " : "", words[h]);
		free(s);
		s = w;
		if (!s)
			return NULL;
	}
	if (hows & (1u << READBACK_CACHED)) {
		char *w = words_format("%s%sdevice cache not bypassed%s", s ? s : "",
				       s ? "; some " : "",
				       fs_traits_of(c->t)->device_cache && geteuid() != 0
					       ? " (run as root to bypass it)" : "");
		free(s);
		s = w;
	}
	return TAKE_PTR(s);
}

static const char *const count_words[CHECK_RESULT_COUNT] = {
	[CHECK_DIFFERS] = "different",
	[CHECK_SIZE_DIFFERS] = "of another size",
	[CHECK_FAILED_BEFORE] = "marked failed in the manifest",
	[CHECK_MISSING] = "missing",
	[CHECK_SYMLINK] = "behind a symbolic link (not followed)",
	[CHECK_OUTSIDE] = "outside the directory",
	[CHECK_NOT_REGULAR] = "not a regular file",
	[CHECK_UNREADABLE] = "unreadable",
};

/* ": 1 differ, 2 missing" for the kinds that happened, or "" */
static char *problems_words(const struct check_stats *s)
{
	_cleanup_free_ char *out = strdup("");

	for (int r = CHECK_DIFFERS; out && r < CHECK_RESULT_COUNT; r++) {
		uint64_t n = atomic_load(&s->count[r]);
		char *w;

		if (!n)
			continue;
		w = words_format("%s%s%llu %s", out, out[0] ? ", " : ": ", (unsigned long long)n,
				 count_words[r]);
		free(out);
		out = w;
	}
	return TAKE_PTR(out);
}

static void json_done(struct checker *c, int signo, unsigned hows)
{
	const struct check_stats *s = check_job_stats(c->job);
	struct json *j = &c->out->json;

	event_begin(j, "done", clock_realtime());
	json_kv_string(j, "outcome", signo ? "interrupted" : "checked");
	if (signo)
		json_kv_string(j, "signal", sigabbrev_np(signo));
	json_kv_u64(j, "files", c->list.n);
	json_kv_u64(j, "files_checked", atomic_load(&s->files_done));
	for (int r = 0; r < CHECK_RESULT_COUNT; r++) {
		char key[32];
		const char *n = check_result_name(r);
		size_t k;

		/* "match" -> "matched"; the others as their names, '-' as '_' */
		snprintf(key, sizeof(key), "%s", r == CHECK_MATCH ? "matched" : n);
		for (k = 0; key[k]; k++)
			if (key[k] == '-')
				key[k] = '_';
		json_kv_u64(j, key, atomic_load(&s->count[r]));
	}
	json_kv_u64(j, "bytes_total", c->out->total);
	json_kv_u64(j, "bytes_read", atomic_load(&s->bytes_read));
	json_key(j, "read_back");
	json_array_begin(j);
	for (int h = READBACK_DIRECT; h <= READBACK_CACHED; h++)
		if (hows & (1u << h))
			json_string(j, how_name(h));
	json_array_end(j);
	json_kv_bool(j, "cache_bypassed", hows && !(hows & (1u << READBACK_CACHED)));
	event_end(j);
}

void checkout_done(struct checker *c, int signo)
{
	const struct check_stats *s = check_job_stats(c->job);
	unsigned hows = atomic_load(&s->hows);
	_cleanup_free_ char *algs = algs_words(c), *how = how_words(c, hows);
	_cleanup_free_ char *problems = problems_words(s);
	_cleanup_free_ char *last = NULL;
	uint64_t matched = atomic_load(&s->count[CHECK_MATCH]);

	checkout_tick(c);
	if (signo)
		last = words_format("interrupted: %llu of %zu files checked, %llu match",
				    (unsigned long long)atomic_load(&s->files_done), c->list.n,
				    (unsigned long long)matched);
	else
		last = words_format("%llu of %zu files match their %s on %s%s; %s",
				    (unsigned long long)matched, c->list.n, algs ? algs : "digests",
				    c->out->where, problems ? problems : "", how ? how : "");
	if (c->out->json_mode)
		json_done(c, signo, hows);
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
