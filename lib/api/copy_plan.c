/* copy_plan.c: <safecp/copy_plan.h> over the session's prepared
 * destinations (copy/session.h: struct copy_prepared). */
#include <errno.h>
#include <string.h>

#include <safecp/copy_plan.h>

#include "api/copy_internal.h"
#include "api/fill.h"

/* The prepared destination d, planned, or NULL (a destination whose
 * plan was refused has none). */
static const struct copy_prepared *prepared(const struct safecp_copy *c, size_t d)
{
	const struct copy_prepared *j;

	if (d >= copy_session_n_prepared(c->s))
		return NULL;
	j = &copy_session_prepared(c->s)[d];
	return j->plan ? j : NULL;
}

static enum safecp_place place(enum target_place p)
{
	switch (p) {
	case TARGET_REMOVABLE: return SAFECP_PLACE_REMOVABLE;
	case TARGET_LOOP: return SAFECP_PLACE_LOOP;
	case TARGET_FIXED: return SAFECP_PLACE_FIXED;
	case TARGET_SYSTEM: return SAFECP_PLACE_SYSTEM;
	case TARGET_NO_DISK: break;
	}
	return SAFECP_PLACE_NO_DISK;
}

static const char *system_what(enum sysdisk_kind k)
{
	switch (k) {
	case SYSDISK_ROOT: return "root";
	case SYSDISK_SYSTEM: return "system-mount";
	case SYSDISK_ROOT_DISK: return "root-disk";
	case SYSDISK_SWAP: return "swap";
	case SYSDISK_NONE: break;
	}
	return NULL;
}

int safecp_copy_plan(const struct safecp_copy *c, size_t d, struct safecp_copy_plan *ret,
		     size_t size)
{
	const struct copy_prepared *j = prepared(c, d);
	const struct plan *p = j ? j->plan : NULL;
	struct safecp_copy_plan v;

	if (!p)
		return -ENOENT;
	/* a destination whose preparation stopped before its space and place
	 * were read says so by its zeroes (and SAFECP_PLACE_NO_DISK) */
	v = (struct safecp_copy_plan){
		.dest_dir = p->dest_dir, .dest_root = p->dest_root, .entries = p->n_entries,
		.bytes = p->total_bytes, .files = p->n_files, .dirs = p->tree->n_dirs,
		.symlinks = p->n_symlinks, .skipped = p->tree->n_skipped,
		.kept = p->n_existing_kept, .identical = p->n_identical,
		.identical_bytes = p->identical_bytes, .stale = p->stale.n,
		.stale_bytes = p->stale.bytes, .renames = j->names.n_renames,
		.space_needed = j->space_needed, .space_free = j->space.avail_bytes,
		.cluster = j->space.cluster, .max_file_size = j->space.max_file_size,
		.stores_modes = j->space.stores_modes, .stores_symlinks = j->space.stores_symlinks,
		.place = j->target ? place(j->place.place) : SAFECP_PLACE_NO_DISK,
		.system_what = j->place.place == TARGET_SYSTEM ? system_what(j->place.kind) : NULL,
		.bytes_apparent = p->apparent_bytes, .holes = p->holes,
	};
	return api_fill(ret, size, &v, sizeof(v));
}

static enum safecp_entry_type entry_type(enum plan_entry_type t)
{
	switch (t) {
	case PLAN_FILE: return SAFECP_ENTRY_FILE;
	case PLAN_DIR: return SAFECP_ENTRY_DIR;
	case PLAN_SYMLINK: return SAFECP_ENTRY_SYMLINK;
	case PLAN_SKIP: break;
	}
	return SAFECP_ENTRY_OTHER;
}

static enum safecp_identical_basis basis(enum plan_identical b)
{
	switch (b) {
	case PLAN_IDENTICAL_QUICK: return SAFECP_IDENTICAL_SIZE_MTIME;
	case PLAN_IDENTICAL_MANIFEST: return SAFECP_IDENTICAL_MANIFEST;
	case PLAN_IDENTICAL_LIST: return SAFECP_IDENTICAL_LIST;
	case PLAN_IDENTICAL_CONTENT: return SAFECP_IDENTICAL_CONTENT;
	case PLAN_IDENTICAL_NO: break;
	}
	return SAFECP_IDENTICAL_NO;
}

const char *safecp_identical_basis_name(enum safecp_identical_basis b)
{
	static const char *const names[] = {
		[SAFECP_IDENTICAL_NO] = "no", [SAFECP_IDENTICAL_SIZE_MTIME] = "size-mtime",
		[SAFECP_IDENTICAL_MANIFEST] = "manifest", [SAFECP_IDENTICAL_LIST] = "list",
		[SAFECP_IDENTICAL_CONTENT] = "content",
	};

	return (unsigned)b < sizeof(names) / sizeof(names[0]) ? names[b] : NULL;
}

int safecp_copy_entry(const struct safecp_copy *c, size_t d, size_t i, struct safecp_entry *ret,
		      size_t size)
{
	const struct copy_prepared *j = prepared(c, d);
	const struct plan_entry *e;
	struct safecp_entry v;

	if (!j || i >= j->plan->n_entries)
		return -ENOENT;
	e = &j->plan->entries[i];
	v = (struct safecp_entry){
		.source = api_source_path(e->source, c->str->entry_source),
		.rel = source_rel(e->source, c->str->entry_rel, PATH_MAX) < 0 ? "?" : c->str->entry_rel,
		.dest = plan_dst_path(j->plan, i, c->str->entry_dest),
		.link_target = source_link(e->source), .type = entry_type(e->source->type),
		.size = (uint64_t)e->source->size, .mode = e->source->mode,
		.dest_exists = e->dst_exists, .kept = e->skip_existing,
		.identical = basis(e->identical),
		.read_back = e->identical_read_back != PLAN_READ_BACK_NONE,
		.read_back_cached = e->identical_read_back == PLAN_READ_BACK_CACHED,
		.holes = j->plan->holes && (e->source->flags & SOURCE_HOLES),
	};
	return api_fill(ret, size, &v, sizeof(v));
}

int safecp_copy_stale(const struct safecp_copy *c, size_t d, size_t i, const char **path,
		      uint64_t *bytes)
{
	const struct copy_prepared *j = prepared(c, d);

	if (!j || i >= j->plan->stale.n)
		return -ENOENT;
	*path = j->plan->stale.v[i].path;
	*bytes = j->plan->stale.v[i].bytes;
	return 0;
}

int safecp_copy_rename(const struct safecp_copy *c, size_t d, size_t i, struct safecp_rename *ret,
		       size_t size)
{
	const struct copy_prepared *j = prepared(c, d);
	const struct plan_rename *r;
	struct safecp_rename v;

	if (!j || i >= j->names.n_renames)
		return -ENOENT;
	r = &j->names.renames[i];
	v = (struct safecp_rename){
		.entry = r->entry, .old_dest = r->old_dst, .ch = r->ch,
		.why = r->problem == NAME_OK ? "clash" : name_problem_id(r->problem),
	};
	return api_fill(ret, size, &v, sizeof(v));
}

const struct safecp_target *safecp_copy_target(const struct safecp_copy *c, size_t d)
{
	return prepared(c, d) && c->targets[d].t ? &c->targets[d] : NULL;
}

const char *safecp_strategy_name(enum safecp_strategy s)
{
	return (unsigned)s <= SAFECP_STRATEGY_SYNC_WINDOW ? strategy_name((enum write_strategy)s)
							  : NULL;
}

int safecp_strategy_from_name(const char *name, enum safecp_strategy *ret)
{
	enum write_strategy s;

	if (!name || strategy_from_name(name, &s) < 0)
		return -EINVAL;
	*ret = (enum safecp_strategy)s;
	return 0;
}

int safecp_copy_write_plan(const struct safecp_copy *c, size_t d, struct safecp_write_plan *ret,
			   size_t size)
{
	const struct copy_prepared *j = prepared(c, d);
	const struct write_plan *w;
	struct safecp_write_plan v;

	if (!j)
		return -ENOENT;
	w = &j->wplan;
	v = (struct safecp_write_plan){
		/* the public values are the library's own, in the same order
		 * (the static asserts below keep them so) */
		.strategy = (enum safecp_strategy)w->strategy,
		.reason = (enum safecp_strategy_reason)w->reason,
		.window = w->window, .window_min = w->window_min, .window_max = w->window_max,
		.chunk = w->chunk, .read_buffers = w->ring_slots,
		.direct_aligned = w->offset_align != 0, .dio_known = j->dio.known,
		.dio_mem_align = j->dio.mem_align, .dio_offset_align = j->dio.offset_align,
	};
	return api_fill(ret, size, &v, sizeof(v));
}

/* The casts above hold only while the two enums agree value for value. */
_Static_assert((int)SAFECP_STRATEGY_WINDOW == (int)STRATEGY_WINDOW &&
	       (int)SAFECP_STRATEGY_DIRECT == (int)STRATEGY_DIRECT &&
	       (int)SAFECP_STRATEGY_SYNC_WINDOW == (int)STRATEGY_SYNC_WINDOW,
	       "enum safecp_strategy follows enum write_strategy");
_Static_assert((int)SAFECP_REASON_FUSE_DAEMON == (int)SIZING_FUSE_DAEMON &&
	       (int)SAFECP_REASON_DIRECT_SUPPORTED == (int)SIZING_DIO_SUPPORTED &&
	       (int)SAFECP_REASON_DIRECT_REFUSED == (int)SIZING_DIO_REFUSED &&
	       (int)SAFECP_REASON_DIRECT_WOULD_FALL_BACK == (int)SIZING_DIO_WOULD_FALL_BACK &&
	       (int)SAFECP_REASON_ASKED_DIRECT_REFUSED == (int)SIZING_ASKED_DIO_REFUSED &&
	       (int)SAFECP_REASON_ASKED_DIRECT_OK == (int)SIZING_ASKED_DIO_OK &&
	       (int)SAFECP_REASON_ASKED_DIRECT_UNKNOWN == (int)SIZING_ASKED_DIO_UNKNOWN &&
	       (int)SAFECP_REASON_ASKED_WINDOW_FUSE == (int)SIZING_ASKED_WINDOW_FUSE &&
	       (int)SAFECP_REASON_ASKED == (int)SIZING_ASKED &&
	       (int)SAFECP_REASON_FUSE_NOOP_FSYNC == (int)SIZING_FUSE_NOOP_FSYNC,
	       "enum safecp_strategy_reason follows enum sizing_reason");
