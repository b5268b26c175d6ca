/* copy.c: <safecp/copy.h> over the copy session (copy/session.h): the
 * options and the lifecycle; what preparing found is copy_findings.c's,
 * what it will do copy_plan.c's, what runs copy_events.c's.  The public
 * kinds and structures are mapped in these files, and only there, so the
 * library's own may change. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/copy_internal.h"
#include "copy/meta_attrs.h"

#define KNOWN_FLAGS ((1u << 22) - 1)

int safecp_copy_new(unsigned flags, struct safecp_copy **ret)
{
	struct copy_session_options o = {
		.plan = {
			.recursive = flags & SAFECP_COPY_RECURSIVE,
			.follow_symlinks = flags & SAFECP_COPY_DEREFERENCE,
			.target_directory = flags & SAFECP_COPY_TARGET_DIRECTORY,
			.no_target_directory = flags & SAFECP_COPY_NO_TARGET_DIRECTORY,
			.no_clobber = flags & SAFECP_COPY_NO_CLOBBER,
			.keep_links = flags & SAFECP_COPY_KEEP_LINKS,
			.one_file_system = flags & SAFECP_COPY_ONE_FILE_SYSTEM,
			.update = flags & SAFECP_COPY_UPDATE,
			.follow_operands = flags & SAFECP_COPY_DEREFERENCE_OPERANDS,
			.no_dereference = flags & SAFECP_COPY_NO_DEREFERENCE,
			.parents = flags & SAFECP_COPY_PARENTS,
			.remove_destination = flags & SAFECP_COPY_REMOVE_DESTINATION,
		},
		.strategy = STRATEGY_AUTO,
		.keep_times = flags & SAFECP_COPY_KEEP_TIMES,
		.keep_mode = flags & SAFECP_COPY_KEEP_MODE,
		.verify = flags & SAFECP_COPY_VERIFY,
		.verify_source = flags & SAFECP_COPY_VERIFY_SOURCE,
		.rename_invalid = flags & SAFECP_COPY_RENAME_INVALID,
		.system_disk = flags & SAFECP_COPY_SYSTEM_DISK,
		.manifests = flags & SAFECP_COPY_MHL,
		.skip_unsafe = flags & SAFECP_COPY_SKIP_UNSAFE,
		.dry_run = flags & SAFECP_COPY_DRY_RUN,
		.no_resume = !(flags & SAFECP_COPY_RESUME),
	};
	struct safecp_copy *c;
	int r;

	if (flags & ~KNOWN_FLAGS)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->targets = calloc(COPY_DESTS_MAX, sizeof(*c->targets));
	c->str = calloc(1, sizeof(*c->str));
	r = c->targets && c->str ? copy_session_new(&o, &c->s) : -ENOMEM;
	if (r < 0) {
		free(c->str);
		free(c->targets);
		free(c);
		return r;
	}
	c->o = o;
	*ret = c;
	return 0;
}

/* The options as set so far handed to the session: -EBUSY once prepared. */
static int options_set(struct safecp_copy *c)
{
	return copy_session_set_options(c->s, &c->o);
}

/* *slot becomes a copy of value (NULL stays NULL). */
static int own_string(char **slot, const char *value)
{
	char *own = value ? strdup(value) : NULL;

	if (value && !own)
		return -ENOMEM;
	free(*slot);
	*slot = own;
	return 0;
}

int safecp_copy_set_strategy(struct safecp_copy *c, const char *strategy, uint64_t window)
{
	enum write_strategy st;

	if (c->did_prepare)
		return -EBUSY; /* before anything of the options changes */
	if (!strategy || strategy_from_name(strategy, &st) < 0)
		return -EINVAL;
	c->o.strategy = st;
	c->o.window = window;
	return options_set(c);
}

int safecp_copy_set_checksums(struct safecp_copy *c, const char *const *algs, size_t n,
			      const char *list_prefix)
{
	checksum_set set = 0;
	int r;

	if (c->did_prepare)
		return -EBUSY; /* before anything of the options changes */
	for (size_t i = 0; i < n; i++) {
		int a = algs[i] ? checksum_alg_from_name(algs[i]) : -1;

		if (a < 0 || !(CHECKSUM_SET_LISTS & CHECKSUM_BIT(a)))
			return -EINVAL;
		set |= CHECKSUM_BIT(a);
	}
	if (list_prefix && !set)
		return -EINVAL; /* lists of no algorithm */
	r = own_string(&c->sums_prefix, list_prefix);
	if (r < 0)
		return r;
	c->o.checksums = set;
	c->o.sums_prefix = c->sums_prefix;
	return options_set(c);
}

int safecp_copy_set_skip_identical(struct safecp_copy *c, const char *how)
{
	if (c->did_prepare)
		return -EBUSY;
	if (how && strcmp(how, "quick") == 0)
		c->o.skip_identical = IDENTICAL_QUICK;
	else if (how && strcmp(how, "hash") == 0)
		c->o.skip_identical = IDENTICAL_HASH;
	else
		return -EINVAL;
	return options_set(c);
}

int safecp_copy_set_ask_replace(struct safecp_copy *c, safecp_copy_ask_fn ask, void *data)
{
	if (c->did_prepare)
		return -EBUSY;
	c->o.ask_replace = ask;
	c->o.ask_data = data;
	return options_set(c);
}

_Static_assert((int)SAFECP_BACKUP_NONE == (int)BACKUP_NONE &&
	       (int)SAFECP_BACKUP_SIMPLE == (int)BACKUP_SIMPLE &&
	       (int)SAFECP_BACKUP_EXISTING == (int)BACKUP_EXISTING &&
	       (int)SAFECP_BACKUP_NUMBERED == (int)BACKUP_NUMBERED, "enum safecp_backup");

int safecp_copy_set_backup(struct safecp_copy *c, enum safecp_backup how, const char *suffix)
{
	int r;

	if (c->did_prepare)
		return -EBUSY;
	if ((unsigned)how > SAFECP_BACKUP_NUMBERED || c->o.plan.no_clobber ||
	    (suffix && (!*suffix || strchr(suffix, '/'))))
		return -EINVAL;
	if ((r = own_string(&c->backup_suffix, suffix ? suffix : "~")) < 0)
		return r;
	c->o.plan.backup = (enum backup_mode)how;
	c->o.plan.backup_suffix = c->backup_suffix;
	return options_set(c);
}

int safecp_copy_set_sparse(struct safecp_copy *c, const char *when)
{
	static const char *const names[] = { [SPARSE_AUTO] = "auto", [SPARSE_ALWAYS] = "always",
					     [SPARSE_NEVER] = "never" };

	if (c->did_prepare)
		return -EBUSY;
	for (size_t i = 0; when && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(when, names[i]) == 0) {
			c->o.plan.sparse = (enum sparse_mode)i;
			return options_set(c);
		}
	return -EINVAL;
}

/* A mode, once: a second one is -EINVAL. */
static int mode_set(struct safecp_copy *c, enum copy_mode mode)
{
	if (c->o.mode != COPY_MODE_COPY && c->o.mode != mode)
		return -EINVAL;
	c->o.mode = mode;
	return 0;
}

int safecp_copy_set_pack(struct safecp_copy *c, const char *format)
{
	enum pack_format f;

	if (c->did_prepare)
		return -EBUSY; /* before anything of the options changes */
	if (!format || pack_format_from_name(format, &f) < 0 || mode_set(c, COPY_MODE_PACK) < 0)
		return -EINVAL;
	c->o.pack_format = f;
	return options_set(c);
}

/* Where entries wait when read out of order: as sort(1), $TMPDIR when
 * it is an absolute path, else /var/tmp (off the destination). */
static const char *default_spool(void)
{
	const char *t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/var/tmp";
}

int safecp_copy_set_unpack(struct safecp_copy *c, const char *spool_dir)
{
	int r;

	if (c->did_prepare)
		return -EBUSY; /* before anything of the options changes */
	if (mode_set(c, COPY_MODE_UNPACK) < 0)
		return -EINVAL;
	r = own_string(&c->spool_dir, spool_dir ? spool_dir : default_spool());
	if (r < 0)
		return r;
	c->o.spool_dir = c->spool_dir;
	return options_set(c);
}

_Static_assert((int)SAFECP_ATTR_MODE == (int)META_MODE &&
	       (int)SAFECP_ATTR_OWNERSHIP == (int)META_OWNERSHIP &&
	       (int)SAFECP_ATTR_TIMESTAMPS == (int)META_TIMESTAMPS &&
	       (int)SAFECP_ATTR_LINKS == (int)META_LINKS &&
	       (int)SAFECP_ATTR_XATTR == (int)META_XATTR &&
	       (int)SAFECP_ATTR_CONTEXT == (int)META_CONTEXT &&
	       (int)SAFECP_ATTR_ACL == (int)META_ACL, "enum safecp_attr");

/* cp's --preserve: CONTEXT in keep is --preserve=all's, which cp takes
 * without SELinux and keeps nothing of; named (required) it is refused,
 * as cp refuses it there.  LINKS is SAFECP_COPY_KEEP_LINKS. */
int safecp_copy_set_preserve(struct safecp_copy *c, unsigned keep, unsigned required,
			     unsigned dropped)
{
	const unsigned known = (unsigned)SAFECP_ATTR_ACL * 2 - 1;

	if (c->did_prepare)
		return -EBUSY;
	if ((keep | required | dropped) & ~known)
		return -EINVAL;
	if (required & SAFECP_ATTR_CONTEXT)
		return -EOPNOTSUPP;
	if (keep & SAFECP_ATTR_LINKS) /* as SAFECP_COPY_KEEP_LINKS */
		c->o.plan.keep_links = true;
	c->o.keep_mode = keep & SAFECP_ATTR_MODE;
	c->o.keep_times = keep & SAFECP_ATTR_TIMESTAMPS;
	c->o.keep_owners = keep & SAFECP_ATTR_OWNERSHIP;
	c->o.keep_xattrs = keep & SAFECP_ATTR_XATTR;
	c->o.meta_required = required & keep;
	c->o.drop_mode = (dropped & SAFECP_ATTR_MODE) && !c->o.keep_mode;
	return options_set(c);
}

int safecp_copy_add_source(struct safecp_copy *c, const char *path)
{
	return copy_session_add_source(c->s, path);
}

int safecp_copy_add_dest(struct safecp_copy *c, const char *dir)
{
	return copy_session_add_dest(c->s, dir, NULL);
}

int safecp_copy_add_dest_beneath(struct safecp_copy *c, const char *dir, const char *beneath)
{
	return beneath ? copy_session_add_dest(c->s, dir, beneath) : -EINVAL;
}

/* The archives' refused entries, so that reading all of them is linear. */
static int unsafe_index(struct safecp_copy *c)
{
	const struct unpack_list *l = copy_session_unpack_list(c->s);

	if (!l)
		return 0;
	c->unsafe = calloc(l->n_entries + 1, sizeof(*c->unsafe));
	if (!c->unsafe)
		return -ENOMEM;
	for (size_t k = 0; k < l->n_entries; k++)
		if (l->entries[k].refusal != UNPACK_OK)
			c->unsafe[c->n_unsafe++] = k;
	return 0;
}

int safecp_copy_prepare(struct safecp_copy *c)
{
	size_t n;

	if (c->did_prepare)
		return -EBUSY;
	c->did_prepare = true;
	c->prepared = copy_session_prepare(c->s, &c->failed);
	/* the findings' indices, so that reading all of them is linear */
	n = copy_session_n_findings(c->s);
	c->refusals = calloc(n + 1, sizeof(*c->refusals));
	c->notes = calloc(n + 1, sizeof(*c->notes));
	c->index_of = calloc(n + 1, sizeof(*c->index_of));
	if (!c->refusals || !c->notes || !c->index_of)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		bool refuses = copy_finding_refuses(copy_session_finding(c->s, k));

		c->index_of[k] = refuses ? c->n_refusals : c->n_notes;
		if (refuses)
			c->refusals[c->n_refusals++] = k;
		else
			c->notes[c->n_notes++] = k;
	}
	if (unsafe_index(c) < 0)
		return -ENOMEM;
	/* safecp_copy_target()'s handles: the session owns the targets */
	for (size_t d = 0; d < copy_session_n_prepared(c->s); d++)
		c->targets[d].t = copy_session_prepared(c->s)[d].target;
	return c->prepared;
}

int safecp_copy_prepare_failure(const struct safecp_copy *c, enum safecp_prepare_stage *stage,
				size_t *dest)
{
	if (!c->did_prepare || c->prepared >= 0)
		return -ENOENT;
	*stage = (enum safecp_prepare_stage)c->failed.stage;
	*dest = c->failed.dest;
	return 0;
}

_Static_assert((int)SAFECP_STAGE_SOURCES == (int)COPY_STAGE_SOURCES &&
	       (int)SAFECP_STAGE_OLD_LISTS == (int)COPY_STAGE_OLD_LISTS &&
	       (int)SAFECP_STAGE_PACK_WALK == (int)COPY_STAGE_PACK_WALK &&
	       (int)SAFECP_STAGE_UNPACK_RULES == (int)COPY_STAGE_UNPACK_RULES &&
	       (int)SAFECP_STAGE_UNPACK_FEED == (int)COPY_STAGE_UNPACK_FEED &&
	       (int)SAFECP_STAGE_PLAN == (int)COPY_STAGE_PLAN &&
	       (int)SAFECP_STAGE_EXAMINE == (int)COPY_STAGE_EXAMINE &&
	       (int)SAFECP_STAGE_SPACE == (int)COPY_STAGE_SPACE &&
	       (int)SAFECP_STAGE_PLACE == (int)COPY_STAGE_PLACE &&
	       (int)SAFECP_STAGE_NAMES == (int)COPY_STAGE_NAMES &&
	       (int)SAFECP_STAGE_IDENTICAL == (int)COPY_STAGE_IDENTICAL &&
	       (int)SAFECP_STAGE_CHECK == (int)COPY_STAGE_CHECK &&
	       (int)SAFECP_STAGE_LISTS == (int)COPY_STAGE_LISTS &&
	       (int)SAFECP_STAGE_RESUME == (int)COPY_STAGE_RESUME,
	       "enum safecp_prepare_stage follows enum copy_prepare_stage");
_Static_assert(SAFECP_DESTINATIONS_MAX == COPY_DESTS_MAX, "SAFECP_DESTINATIONS_MAX");

int safecp_copy_planned(const struct safecp_copy *c, size_t d, uint64_t *bytes, uint64_t *files)
{
	const struct plan *p = copy_session_plan(c->s, d);

	if (!p)
		return -ENOENT;
	*bytes = p->total_bytes;
	*files = p->n_files + p->n_symlinks;
	return 0;
}

int safecp_copy_start(struct safecp_copy *c)
{
	return copy_session_start(c->s);
}

int safecp_copy_done(const struct safecp_copy *c)
{
	return copy_session_done(c->s);
}

int safecp_copy_result(const struct safecp_copy *c, size_t d)
{
	int result;

	if (d >= copy_session_n_prepared(c->s) || !copy_session_stats(c->s, d))
		return -ENOENT; /* no such destination, or not started */
	return copy_session_result(c->s, d, &result) ? result : -EBUSY;
}

void safecp_copy_cancel(struct safecp_copy *c)
{
	copy_session_cancel(c->s);
}

void safecp_copy_free(struct safecp_copy *c)
{
	if (!c)
		return;
	copy_event_done(&c->last);
	copy_session_free(c->s);
	free(c->targets);
	free(c->refusals);
	free(c->notes);
	free(c->index_of);
	free(c->unsafe);
	free(c->sums_prefix);
	free(c->spool_dir);
	free(c->backup_suffix);
	arena_free(&c->str->kept);
	free(c->str);
	free(c);
}

const char *api_keep(const struct safecp_copy *c, const char *s)
{
	const char *parts[] = { s };
	const char *kept = s ? arena_strings(&c->str->kept, parts, 1) : NULL;

	return kept ? kept : s ? "?" : NULL;
}

const char *api_source_path(const struct source_entry *e, char *buf)
{
	return source_path(e, buf, PATH_MAX) < 0 ? "?" : buf;
}
