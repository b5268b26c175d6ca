/* copy_findings.c: what safecp_copy_prepare() found (the session's
 * findings, copy/session.h) as <safecp/copy.h>'s refusals and notes, and
 * the unsafe entries of archives.  Names are the ones safecp's JSON
 * "refused" events carry where it has them. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "api/copy_internal.h"
#include "api/fill.h"
#include "base/utf8.h"
#include "api/record_problem.h"

/* A refusal with everything the two public structures carry. */
struct refusal_all {
	enum safecp_refusal_kind kind;
	const char *name;
	size_t dest;
	const char *path, *path2;
	int err;
	uint64_t need, have;
	bool deferred;
	const char *rule;
	unsigned char ch;
	bool exists, pack_walk;
	enum safecp_record_problem problem;
	size_t line;
	const char *detail;
};

static enum safecp_refusal_kind plan_kind(enum plan_problem_kind k)
{
	static const enum safecp_refusal_kind kinds[] = {
		[PLAN_SOURCE_MISSING] = SAFECP_REFUSED_SOURCE_MISSING,
		[PLAN_SOURCE_UNREADABLE] = SAFECP_REFUSED_SOURCE_UNREADABLE,
		[PLAN_OMIT_DIRECTORY] = SAFECP_REFUSED_OMIT_DIRECTORY,
		[PLAN_SAME_FILE] = SAFECP_REFUSED_SAME_FILE,
		[PLAN_INTO_ITSELF] = SAFECP_REFUSED_INTO_ITSELF,
		[PLAN_DEST_NOT_DIR] = SAFECP_REFUSED_DEST_NOT_DIR,
		[PLAN_DEST_MISSING] = SAFECP_REFUSED_DEST_MISSING,
		[PLAN_DIR_ONTO_NONDIR] = SAFECP_REFUSED_TYPE_CLASH,
		[PLAN_NONDIR_ONTO_DIR] = SAFECP_REFUSED_NONDIR_ONTO_DIR,
		[PLAN_NO_SPACE] = SAFECP_REFUSED_NO_SPACE,
		[PLAN_FILE_TOO_BIG] = SAFECP_REFUSED_FILE_TOO_BIG,
		[PLAN_LOOP] = SAFECP_REFUSED_LOOP,
		[PLAN_DEST_CLASH] = SAFECP_REFUSED_DEST_CLASH,
		[PLAN_NAME_TOO_LONG] = SAFECP_REFUSED_NAME_TOO_LONG,
		[PLAN_DEST_UNWRITABLE] = SAFECP_REFUSED_DEST_UNWRITABLE,
		[PLAN_NO_INODES] = SAFECP_REFUSED_NO_INODES,
		[PLAN_NAME_INVALID] = SAFECP_REFUSED_NAME,
		[PLAN_NAME_RESERVED] = SAFECP_REFUSED_NAME_RESERVED,
		[PLAN_NAME_CLASH] = SAFECP_REFUSED_NAME_CLASH,
		[PLAN_SOURCE_CHANGED] = SAFECP_REFUSED_SOURCE_CHANGED,
		[PLAN_SOURCE_TWICE] = SAFECP_REFUSED_SOURCE_TWICE,
		[PLAN_DEST_NOT_BENEATH] = SAFECP_REFUSED_DEST_NOT_BENEATH,
		[PLAN_DEST_DANGLING] = SAFECP_REFUSED_DEST_DANGLING,
	};

	return (unsigned)k < sizeof(kinds) / sizeof(kinds[0]) ? kinds[k] : SAFECP_REFUSED_OTHER;
}

/* The i-th finding that refuses (or, refuses false, that notes), or NULL:
 * by the indices safecp_copy_prepare() made. */
static const struct copy_finding *nth(const struct safecp_copy *c, size_t i, bool refuses)
{
	if (refuses)
		return c->refusals && i < c->n_refusals
			       ? copy_session_finding(c->s, c->refusals[i]) : NULL;
	return c->notes && i < c->n_notes ? copy_session_finding(c->s, c->notes[i]) : NULL;
}

static void from_problem(struct refusal_all *ret, const struct plan_problem *p)
{
	ret->path = p->path;
	ret->path2 = p->path2;
	ret->err = p->err;
	ret->need = p->need;
	ret->have = p->have;
	if (p->kind == PLAN_NAME_INVALID) { /* need: the rule; have: the byte */
		ret->rule = name_problem_id((enum name_problem)p->need);
		ret->ch = (unsigned char)p->have;
	} else if (p->kind == PLAN_NAME_CLASH) {
		ret->exists = p->have != 0;
	}
}

static const char *scan_name(enum unpack_scan_error e)
{
	switch (e) {
	case UNPACK_SCAN_OPEN: return "archive-unreadable";
	case UNPACK_SCAN_FORMAT: return "archive-format";
	case UNPACK_SCAN_CORRUPT: return "archive-damaged";
	case UNPACK_SCAN_TOO_MANY: return "archive-too-many";
	case UNPACK_SCAN_NAMES: return "archive-names-too-large";
	case UNPACK_SCAN_OK: break;
	}
	return "out-of-memory";
}

/* The findings of the archive modes and of what is written beside the copy. */
static void modes_refusal(const struct safecp_copy *c, const struct copy_finding *f,
			  struct refusal_all *ret)
{
	const struct source_tree *tree = copy_session_pack_tree(c->s);
	const struct unpack_list *l = copy_session_unpack_list(c->s);
	const struct plan *p = copy_session_plan(c->s, f->dest);
	const struct source_entry *e;
	char buf[PATH_MAX];

	switch (f->kind) {
	case COPY_REFUSED_PACK_SOURCES: /* a problem of the sources, as a copy's */
		*ret = (struct refusal_all){ .kind = plan_kind(f->problem->kind),
						.name = plan_problem_kind_name(f->problem->kind),
						.pack_walk = true };
		from_problem(ret, f->problem);
		return;
	case COPY_REFUSED_PACK_NAME:
		e = &tree->entries[f->entry];
		/* path2 only when the link's target, not the name, is unsafe */
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_PACK_NAME, .name = "unsafe-name",
			.path = api_keep(c, api_source_path(e, buf)),
			.path2 = source_rel(e, buf, sizeof(buf)) == 0 &&
				 !utf8_has_unsafe(buf, strlen(buf)) ? source_link(e) : NULL };
		return;
	case COPY_REFUSED_UNPACK_SCAN:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_ARCHIVE, .name = scan_name(l->error),
			.path = copy_session_source_path(c->s, f->archive), .err = l->err,
			.detail = l->detail, .need = l->n_entries,
			.have = l->error == UNPACK_SCAN_TOO_MANY ? UNPACK_MAX_ENTRIES
				: l->error == UNPACK_SCAN_NAMES ? UNPACK_MAX_NAME_BYTES : 0 };
		return;
	case COPY_REFUSED_UNPACK_ENTRIES:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_UNSAFE_ENTRIES, .name = "unsafe-entries",
						.need = f->count };
		return;
	case COPY_REFUSED_UNPACK_SPOOL:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_SPOOL, .name = "spool-full",
			.path = f->path, .err = f->err, .need = f->need, .have = f->have };
		return;
	case COPY_REFUSED_LIST_NAME:
	case COPY_REFUSED_LIST_DIR:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_LIST, .name = "sums-unwritable",
						.path = f->path, .err = f->err };
		return;
	case COPY_REFUSED_LIST_CLASH:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_LIST_CLASH, .name = "sums-clash",
						.path = f->path };
		return;
	case COPY_REFUSED_HISTORY_OVERLAP:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_HISTORY_OVERLAP, .name = "mhl-overlap",
			.path = api_keep(c, api_source_path(p->entries[f->entry].source, buf)),
			.path2 = api_keep(c, plan_dst_path(p, f->entry, buf)) };
		return;
	case COPY_REFUSED_HISTORY_DAMAGED:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_HISTORY, .name = "mhl-damaged",
			.path = f->history->file, .path2 = p->dest_dir, .err = f->history->err,
			.problem = record_problem_of_mhl(f->history->kind),
			.line = (size_t)f->history->line };
		return;
	case COPY_REFUSED_HISTORY_CHAIN:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_HISTORY_CHAIN,
			.name = "mhl-chain", .path = "ascmhl_chain.xml", .path2 = p->dest_dir };
		return;
	case COPY_REFUSED_PRESERVE:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_PRESERVE, .name = "preserve",
			.path2 = p ? p->dest_root : NULL, .need = f->attrs };
		return;
	default:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_OTHER, .name = "other" };
		return;
	}
}

/* Refusal i, whole: the public refusal and its detail. */
struct full_refusal {
	struct safecp_refusal r;
	struct safecp_refusal_detail x;
};

static int refusal_full(const struct safecp_copy *c, size_t i, struct full_refusal *out)
{
	const struct copy_finding *f = nth(c, i, true);
	struct refusal_all v, *ret = &v;

	if (!f)
		return -ENOENT;
	switch (f->kind) {
	case COPY_REFUSED_PLAN:
		*ret = (struct refusal_all){ .kind = plan_kind(f->problem->kind),
						.name = plan_problem_kind_name(f->problem->kind) };
		from_problem(ret, f->problem);
		break;
	case COPY_REFUSED_SYSTEM_DISK:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_SYSTEM_DISK,
						.name = "system-disk" };
		break;
	case COPY_REFUSED_NO_DISK:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_NO_DISK,
						.name = "no-disk" };
		break;
	case COPY_REFUSED_STRATEGY:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_STRATEGY,
						.name = "strategy-unsupported" };
		break;
	case COPY_REFUSED_SOURCE_CHANGED:
		*ret = (struct refusal_all){ .kind = SAFECP_REFUSED_SOURCE_CHANGED,
						.name = "source-changed" };
		break;
	default:
		modes_refusal(c, f, ret);
		break;
	}
	ret->dest = f->dest;
	ret->deferred = f->deferred;
	out->r = (struct safecp_refusal){ v.kind, v.name, v.dest, v.path, v.path2, v.err,
					  v.need, v.have };
	out->x = (struct safecp_refusal_detail){ v.deferred, v.rule, v.ch, v.exists,
						 v.pack_walk, v.problem, v.line, v.detail };
	return 0;
}

int safecp_copy_refusal(const struct safecp_copy *c, size_t i, struct safecp_refusal *ret)
{
	struct full_refusal f;
	int r = refusal_full(c, i, &f);

	if (r == 0)
		*ret = f.r;
	return r;
}

int safecp_copy_refusal_detail(const struct safecp_copy *c, size_t i,
			       struct safecp_refusal_detail *ret, size_t size)
{
	struct full_refusal f;
	int r = refusal_full(c, i, &f);

	return r < 0 ? r : api_fill(ret, size, &f.x, sizeof(f.x));
}

int safecp_copy_finding(const struct safecp_copy *c, size_t i, bool *refuses, size_t *index)
{
	const struct copy_finding *f = copy_session_finding(c->s, i);

	if (!f || !c->index_of)
		return -ENOENT;
	*refuses = copy_finding_refuses(f);
	*index = c->index_of[i];
	return 0;
}

static const char *discard_name(enum resume_outcome o)
{
	switch (o) {
	case RESUME_DISCARDED_RECORD: return "record";
	case RESUME_DISCARDED_SOURCE: return "source";
	case RESUME_DISCARDED_MACHINE: return "machine";
	case RESUME_DISCARDED_PREFIX: return "prefix";
	case RESUME_DISCARDED_CHUNK: return "chunk";
	case RESUME_DISCARDED_PARTIAL: return "partial";
	case RESUME_DISCARDED_READ_BACK: return "read-back";
	default: return NULL;
	}
}

int safecp_copy_note(const struct safecp_copy *c, size_t i, struct safecp_note *out, size_t size)
{
	struct safecp_note v, *ret = &v;
	char buf[PATH_MAX];
	const struct copy_finding *f = nth(c, i, false);
	const struct plan *p;

	if (!f)
		return -ENOENT;
	p = copy_session_plan(c->s, f->dest);
	*ret = (struct safecp_note){ .kind = SAFECP_NOTE_OTHER, .name = "other", .dest = f->dest,
				     .path = f->path, .err = f->err, .count = f->count,
				     .entry = SIZE_MAX };
	switch (f->kind) {
	case COPY_NOTE_FIXED_DISK:
		ret->kind = SAFECP_NOTE_FIXED_DISK;
		ret->name = "fixed-disk";
		break;
	case COPY_NOTE_PACK_SKIPPED:
		ret->kind = SAFECP_NOTE_LEFT_OUT;
		ret->name = "not-packed";
		ret->path = api_keep(c, api_source_path(&copy_session_pack_tree(c->s)->entries[f->entry],
							buf));
		ret->mode = copy_session_pack_tree(c->s)->entries[f->entry].mode;
		break;
	case COPY_NOTE_UNPACK_SKIPPED:
		ret->kind = SAFECP_NOTE_LEFT_OUT;
		ret->name = "unsafe-left-out";
		break;
	case COPY_NOTE_LIST_UNREADABLE:
	case COPY_NOTE_LIST_BAD_LINES:
		ret->kind = SAFECP_NOTE_OLD_LIST;
		ret->name = f->kind == COPY_NOTE_LIST_UNREADABLE ? "old-list-unreadable"
								 : "old-list-bad-lines";
		break;
	case COPY_NOTE_HISTORY:
		ret->kind = SAFECP_NOTE_HISTORY_NOT_USED;
		ret->name = f->judge->note == JUDGE_HISTORY_NOT_VOUCHED ? "history-not-vouched"
									 : "history-unreadable";
		ret->path = p->dest_dir;
		ret->err = f->judge->why.err;
		ret->file = f->judge->why.file;
		ret->problem = record_problem_of_mhl(f->judge->why.kind);
		ret->line = (size_t)f->judge->why.line;
		break;
	case COPY_NOTE_READ_BACK_DIFFERS:
		ret->kind = SAFECP_NOTE_READ_BACK_DIFFERS;
		ret->name = "read-back-differs";
		ret->path = api_keep(c, plan_dst_path(p, f->entry, buf));
		ret->entry = f->entry;
		break;
	case COPY_NOTE_META_LOST:
		ret->kind = SAFECP_NOTE_NOT_KEPT;
		ret->name = "not-kept";
		ret->path = p ? p->dest_root : NULL;
		ret->count = f->attrs;
		break;
	case COPY_NOTE_RESUMED:
	case COPY_NOTE_PARTIAL_DISCARDED:
		ret->kind = f->kind == COPY_NOTE_RESUMED ? SAFECP_NOTE_RESUMED
							  : SAFECP_NOTE_PARTIAL_DISCARDED;
		ret->name = f->kind == COPY_NOTE_RESUMED ? "resumed" : "partial-discarded";
		ret->path = api_keep(c, plan_dst_path(p, f->entry, buf));
		ret->entry = f->entry;
		ret->claimed = f->need;
		ret->rewritten = f->have;
		ret->why = f->kind == COPY_NOTE_RESUMED ? NULL : discard_name(f->resume);
		break;
	default:
		break;
	}
	return api_fill(out, size, &v, sizeof(v));
}

static const char *special_name(enum unpack_type t)
{
	switch (t) {
	case UNPACK_CHAR_DEVICE: return "char-device";
	case UNPACK_BLOCK_DEVICE: return "block-device";
	case UNPACK_FIFO: return "fifo";
	case UNPACK_SOCKET: return "socket";
	default: return "other";
	}
}

int safecp_copy_unsafe_entry(const struct safecp_copy *c, size_t i,
			     struct safecp_unsafe_entry *out, size_t size)
{
	const struct unpack_list *l = copy_session_unpack_list(c->s);
	const struct unpack_entry *e;
	struct safecp_unsafe_entry v;

	if (!l || i >= c->n_unsafe)
		return -ENOENT;
	e = &l->entries[c->unsafe[i]];
	v = (struct safecp_unsafe_entry){
		.archive = l->archives[e->archive], .name = e->raw,
		.why = unpack_refusal_name(e->refusal), .length = e->raw_len,
		.cut = e->cut, .link = e->link,
		.other = e->other < l->n_entries ? l->entries[e->other].raw : NULL,
		.special = e->refusal == UNPACK_SPECIAL ? special_name(e->type) : NULL,
		.mode = (uint32_t)e->perm,
	};
	return api_fill(out, size, &v, sizeof(v));
}
