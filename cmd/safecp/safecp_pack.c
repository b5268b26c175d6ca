/* safecp_pack.c: --pack=FORMAT, the sources as one archive file.
 *
 * The sources are walked once (pack_tree_build), before any destination
 * is planned; each destination's plan then holds one file, the archive
 * (pack_plan_build), which every later check (space, FAT's limit, the
 * name rules, sizing) and the engine treat as any file.  The words for
 * what goes wrong are here: a source that fails the archive, an archive
 * too large for the filesystem. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/exitcodes.h"
#include "common/msg.h"
#include "common/quote.h"
#include "copy/pack.h"
#include "safecp/tool.h"
#include "base/cleanup.h"
#include "base/size.h"
#include "base/utf8.h"

static enum copy_skip_reason skip_reason(mode_t m)
{
	if (S_ISFIFO(m))
		return COPY_SKIP_FIFO;
	if (S_ISSOCK(m))
		return COPY_SKIP_SOCKET;
	if (S_ISCHR(m) || S_ISBLK(m))
		return COPY_SKIP_DEVICE;
	return COPY_SKIP_OTHER;
}

/* Names --unpack would refuse (util/utf8.h's unsafe characters: controls,
 * invisible and bidirectional ones, bytes not UTF-8), in an entry's
 * path in the archive or a symlink's target: each refused by name before
 * the first byte, as a copy refuses what a destination cannot hold.
 * Returns how many. */
static size_t unsafe_names(const struct safecp_options *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->pack_tree->n_entries; i++) {
		const struct source_entry *e = &o->pack_tree->entries[i];
		const char *t = e->link_target;

		if (e->type == PLAN_SKIP)
			continue;
		if (utf8_has_unsafe(e->rel, strlen(e->rel))) {
			cli_error("cannot pack %s: its name holds a control character, an invisible "
				  "or bidirectional one, or bytes that are not UTF-8, which unpacking "
				  "refuses; rename it", quote(e->src));
			n++;
		} else if (t && utf8_has_unsafe(t, strlen(t))) {
			cli_error("cannot pack %s: it is a symbolic link to %s, which holds a control "
				  "character, an invisible or bidirectional one, or bytes that are "
				  "not UTF-8, which unpacking refuses; change the link",
				  quote(e->src), quote(t));
			n++;
		}
	}
	if (n)
		cli_error("%zu unsafe %s: nothing was written", n, n == 1 ? "name" : "names");
	return n;
}

int pack_prepare(struct safecp_options *o)
{
	struct plan_problem pb = { 0 };
	int r = pack_tree_build(o->sources, o->n_sources, o->plan.follow_symlinks, &o->pack_tree,
				&pb);

	if (r < 0) {
		_cleanup_free_ char *msg = pb.kind != PLAN_OK ? words_problem(&pb, NULL) : NULL;

		if (pb.kind == PLAN_DEST_CLASH)
			cli_error("%s and another source would both be %s in the archive; rename "
				  "one of them", quote(pb.path), quote(pb.path2));
		else if (msg)
			cli_error("%s", msg);
		else
			cli_error("cannot read the sources to pack, from %s on: %s; nothing was "
				  "written; make them readable or leave them out, and pack again",
				  quote(o->sources[0]), strerror(-r));
		plan_problem_done(&pb);
		return EXIT_USAGE;
	}
	if (unsafe_names(o))
		return EXIT_USAGE;
	/* as a copy warns when it meets them: not in the archive */
	for (size_t i = 0; i < o->pack_tree->n_entries; i++) {
		const struct source_entry *e = &o->pack_tree->entries[i];

		if (e->type == PLAN_SKIP && o->verbosity >= VERBOSITY_NORMAL)
			msg_warning("skipping %s: %s", quote(e->src),
				    words_skip_reason(skip_reason(e->st.st_mode)));
	}
	return 0;
}

int pack_plan(const struct safecp_options *o, const char *dest, const struct plan *first,
	      struct plan **ret, struct plan_problem *pb)
{
	return pack_plan_build(o->pack_tree, o->sources[0], o->pack_format, dest, &o->plan, first,
			       ret, pb);
}

int pack_start(struct safecp_options *o)
{
	int r = pack_feed_new(o->pack_tree, o->pack_format, &o->pack_feed);

	if (r < 0)
		cli_error("cannot start packing as %s: %s; nothing was written; free memory "
			  "and pack again", pack_format_name(o->pack_format), strerror(-r));
	return r;
}

void pack_free(struct safecp_options *o)
{
	pack_feed_free(o->pack_feed);
	pack_tree_free(o->pack_tree);
	o->pack_feed = NULL;
	o->pack_tree = NULL;
}

/* The archive could not be made from its sources. */
char *words_pack_failed(const struct safecp_options *o, const struct plan_entry *archive,
			enum copy_step step, int err)
{
	size_t idx;
	int src_err;

	if (!o->pack_feed || !pack_feed_problem(o->pack_feed, &idx, &src_err))
		return words_format("cannot pack into %s: %s; it was not written (nothing is left "
				    "under its name): pack again", quote(archive->dst),
				    strerror(err ? err : EIO));
	if (step == COPY_STEP_CHANGED || src_err == 0)
		return words_format("%s changed while it was packed; the archive %s was not written "
				    "(nothing is left under its name): pack again",
				    quote(o->pack_tree->entries[idx].src), quote(archive->dst));
	return words_format("cannot read %s: %s; the archive %s was not written (nothing is "
			    "left under its name): make it readable or leave it out, and pack "
			    "again", quote(o->pack_tree->entries[idx].src), strerror(-src_err),
			    quote(archive->dst));
}

/* PLAN_FILE_TOO_BIG of an archive: its bound is more than the limit. */
char *words_pack_too_big(const struct safecp_options *o, const struct plan_problem *p,
			 const struct target *t)
{
	char size[SIZE_FORMAT_MAX];
	_cleanup_free_ char *where = t ? words_where(t) : NULL;

	size_format(size, sizeof(size), p->need);
	return words_format("the archive %s could be up to %s, more than one file can hold on %s "
			    "(at most %" PRIu64 " bytes); pack fewer sources into each archive, "
			    "or use a stick formatted as exFAT or ext4", quote(p->path2), size,
			    where ? where : "the destination", p->have);
}
