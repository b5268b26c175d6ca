/* safecp_bar.c: the progress meter's state from the readings
 * (safecp_snapshot.c): one destination's bar, which says what a device
 * busy with other data waits for; with several, a row each and the
 * source's row; the progress events of --progress=json; the tick. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "safecp/events_private.h"
#include "safecp/safecp_waiting.h"
#include "base/cleanup.h"
#include "base/size.h"

static const char *phase_item(int phase)
{
	switch (phase) {
	case SAFECP_PHASE_RECHECK: return "reading back again";
	case SAFECP_PHASE_FINAL_SYNC: return "flushing to the device";
	case SAFECP_PHASE_WAIT_IDLE: return "waiting for the device";
	}
	return NULL;
}

void state_from(struct snapshot *s, struct progress_state *ret)
{
	const char *item = phase_item(s->phase);
	char verified[SIZE_FORMAT_MAX], packed[SIZE_FORMAT_MAX];
	int n;

	n = snprintf(s->label, sizeof(s->label), "on device");
	if (s->verify) {
		size_format(verified, sizeof(verified), s->verified);
		n = snprintf(s->label, sizeof(s->label), "on device, %s verified", verified);
	}
	/* the archive's bytes are the bar's; the sources' the second figure
	 * (their total is JSON's: the line has no room) */
	if (s->pack && n > 0 && (size_t)n < sizeof(s->label)) {
		size_format(packed, sizeof(packed), s->packed);
		snprintf(s->label + n, sizeof(s->label) - (size_t)n, ", %s packed", packed);
	}

	*ret = (struct progress_state){
		.total = s->total,
		.done = s->confirmed,
		.in_flight = s->written > s->confirmed ? s->written - s->confirmed : 0,
		.rate = s->rate,
		.eta = s->eta,
		.item = item ? item : s->file,
		.label = s->label,
	};
	/* the final sync: a rounded-up "ETA 0:00" at 99% would read as done */
	if (s->phase >= SAFECP_PHASE_FINAL_SYNC ||
	    (s->total > 0 && s->confirmed >= s->total))
		ret->status = "syncing";
}

/* Other data on the destination's device ahead of ours: the bar says
 * what it waits for rather than sitting at "0 B/s":
 *   99%  2.00 MiB / 2.00 MiB on device  0 B/s  waiting  for 18.0 MiB of
 *   other data on /dev/loop0 ahead of ours (7.99 MiB/s, 0:03)
 * "waiting" stands where the ETA would, so it stays when a narrow bar
 * drops the item. */
static void state_waiting(struct events *ev, struct progress_state *st)
{
	if (!device_wait_words(&ev->wait, ev->facts, ev->wait_line,
			       sizeof(ev->wait_line)))
		return;
	st->status = "waiting";
	st->item = ev->wait_line;
}

/* The meter's callback in --progress=json: it shows
 * ev->snap, from which st was made. */
void json_progress(FILE *out, const struct progress_state *st, bool final, void *userdata)
{
	struct events_shared *sh = userdata;

	if (sh->n == 1) {
		if (final)
			jsonev_done(&sh->all[0]->jev, &sh->all[0]->snap, NULL, 0, &sh->src);
		else
			jsonev_progress_waiting(&sh->all[0]->jev, &sh->all[0]->snap,
						sh->all[0]->wait.other);
		stdout_check(sh->all[0]);
		return;
	}
	/* several destinations: each its own progress (finished ones said
	 * dest-done), and one done event for the job */
	for (size_t i = 0; !final && i < sh->n; i++)
		if (!sh->all[i]->finished)
			jsonev_progress_waiting(&sh->all[i]->jev, &sh->all[i]->snap,
						sh->all[i]->wait.other);
	if (final) {
		struct dest_outcome d[SAFECP_DESTINATIONS_MAX];

		outcomes(sh, d);
		jsonev_done(&sh->all[0]->jev, &sh->all[0]->snap, d, sh->n, &sh->src);
	}
	stdout_check(sh->all[0]);
}

/* With several destinations the bar shows the one furthest behind (its
 * share confirmed), so it is never ahead of any device; each has its own
 * JSON progress, and its own line when it ends. */
/* Every destination has all it will take from the source. */
static bool copy_done_reading(const struct events_shared *sh)
{
	for (size_t i = 0; i < sh->n; i++)
		if (!sh->all[i]->finished &&
		    (!sh->all[i]->started || sh->all[i]->snap.phase < SAFECP_PHASE_FINAL_SYNC))
			return false;
	return true;
}

static struct events *furthest_behind(struct events_shared *sh)
{
	struct events *worst = NULL;
	double worst_frac = 2;

	for (size_t i = 0; i < sh->n; i++) {
		struct events *e = sh->all[i];
		double frac = e->snap.total ? (double)e->snap.confirmed / (double)e->snap.total : 1;

		if (e->finished && sh->n > 1)
			continue;
		if (frac < worst_frac) {
			worst_frac = frac;
			worst = e;
		}
	}
	return worst ? worst : sh->all[0];
}

/* Several destinations: a row each (the destination as given, what its
 * device confirmed), then the source's row (bytes read once). */
/* A destination's row names it as given; when two end in the same name
 * (offload-card's STICK/DATE/LABEL, shortened from the left on a narrow
 * terminal, read "...EOS_DIGITAL" on every row), each row names its stick:
 * its mount point. */
static const char *row_name(const struct events_shared *sh, size_t i)
{
	const char *mine = strrchr(sh->all[i]->dest_arg, '/');
	const struct safecp_target_facts *t = sh->all[i]->facts;

	for (size_t j = 0; mine && t->mountpoint && j < sh->n; j++) {
		const char *other = strrchr(sh->all[j]->dest_arg, '/');

		if (j != i && other && strcmp(mine, other) == 0)
			return t->mountpoint;
	}
	return sh->all[i]->dest_arg;
}

static void rows_from(struct events_shared *sh, struct progress_state *rows)
{
	const struct safecp_copy_plan *p = &sh->all[0]->plan;
	uint64_t first_read = sh->src.bytes_read - sh->src.bytes_reread;

	for (size_t i = 0; i < sh->n; i++) {
		struct events *e = sh->all[i];

		state_from(&e->snap, &rows[i]);
		if (!e->finished)
			state_waiting(e, &rows[i]);
		rows[i].item = row_name(sh, i);
		rows[i].complete = e->finished && e->outcome && strcmp(e->outcome, "ok") == 0;
		if (e->finished)
			rows[i].rate = rows[i].eta = -1;
	}
	rows[sh->n] = (struct progress_state){
		.total = p->bytes,
		.done = MIN(first_read, p->bytes),
		.rate = -1,
		.eta = -1,
		.item = "source",
		.label = "read",
		.complete = copy_done_reading(sh),
	};
}

void tick_all(struct events_shared *sh)
{
	struct progress_state st, rows[SAFECP_DESTINATIONS_MAX + 1];
	struct events *w;

	for (size_t i = 0; i < sh->n; i++)
		if (!sh->all[i]->finished || sh->n == 1)
			snapshot_take(sh->all[i], &sh->all[i]->snap);
	w = furthest_behind(sh);
	state_from(&w->snap, &st);
	state_waiting(w, &st);
	if (sh->n == 1 || sh->all[0]->o->progress == PROGRESS_JSON) {
		progress_update(sh->meter, &st);
		return;
	}
	rows_from(sh, rows);
	progress_update_rows(sh->meter, rows, sh->n + 1);
}

void events_source(struct events *ev, const struct safecp_source_figures *src)
{
	ev->sh->src = *src;
	/* --pack: the reader read the archive's stream; the sources are the feed's */
	if (ev->o->pack)
		ev->sh->src.bytes_read = src->packed;
}

void events_tick(struct events *ev)
{
	tick_all(ev->sh);
}
