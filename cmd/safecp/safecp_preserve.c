/* safecp_preserve.c: cp's -p, --preserve[=LIST] and --no-preserve=LIST
 * (issue 29), taken in the order given as cp takes them, and what the
 * copy says of them: the one note for a stick that cannot hold what -p
 * asks, and the refusal of an attribute named explicitly that it cannot.
 *
 * safecp keeps the times by default (cp does not): --skip-identical and
 * the checksum lists' runs compare them.  links (with -a, -d): the library
 * keeps a file's names in the tree as one file where the stick holds hard
 * links.  context: without SELinux there is none to
 * copy; cp refuses it named and takes it in "all", and so does safecp. */
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "common/cli.h"
#include "common/msg.h"
#include "common/quote.h"
#include "safecp/safecp_options.h"
#include "safecp/tool.h"
#include "safecp/safecp_words.h"

#define ATTRS_P (SAFECP_ATTR_MODE | SAFECP_ATTR_OWNERSHIP | SAFECP_ATTR_TIMESTAMPS)
#define ATTRS_ALL (ATTRS_P | SAFECP_ATTR_LINKS | SAFECP_ATTR_XATTR | SAFECP_ATTR_CONTEXT)

static const struct {
	const char *name;
	unsigned attrs;
} names[] = {
	{ "mode", SAFECP_ATTR_MODE },
	{ "ownership", SAFECP_ATTR_OWNERSHIP },
	{ "timestamps", SAFECP_ATTR_TIMESTAMPS },
	{ "links", SAFECP_ATTR_LINKS },
	{ "context", SAFECP_ATTR_CONTEXT },
	{ "xattr", SAFECP_ATTR_XATTR },
	{ "all", ATTRS_ALL },
};

void preserve_init(struct safecp_options *o)
{
	o->preserve = SAFECP_ATTR_TIMESTAMPS;
}

static unsigned attr_of(const char *w, const char *option)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(w, names[i].name) == 0)
			return names[i].attrs;
	cli_usage_error("unknown attribute %s for %s: use mode, ownership, timestamps, links, "
			"context, xattr or all", quote(w), option);
	return 0;
}

/* One LIST of --preserve (on) or --no-preserve (off), in cp's order:
 * each word turns its attributes on or off where the earlier ones left
 * them. */
void preserve_list(struct safecp_options *o, const char *list, bool on)
{
	const char *option = on ? "--preserve" : "--no-preserve";
	_cleanup_free_ char *copy = strdup(list);
	char *save = NULL;

	if (!copy)
		cli_usage_error("out of memory");
	if (!*list || *list == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		cli_usage_error("empty attribute in %s=%s: use a list such as mode,timestamps",
				option, list);
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned a = attr_of(w, option);

		if (on) {
			o->preserve |= a;
			/* named: refused where the stick cannot hold it; all: what it can */
			if (strcmp(w, "all") != 0)
				o->preserve_required |= a;
			o->preserve_dropped &= ~a;
		} else {
			o->preserve &= ~a;
			o->preserve_required &= ~a;
			o->preserve_dropped |= a;
		}
	}
}

/* -p, or --preserve without a list: mode,ownership,timestamps, kept
 * where the stick can (one note for what it cannot). */
void preserve_p(struct safecp_options *o)
{
	o->preserve |= ATTRS_P;
	o->preserve_dropped &= ~ATTRS_P;
}

/* -a: everything cp -a keeps, where the stick can (-R and -P are the
 * caller's) */
void preserve_archive(struct safecp_options *o)
{
	o->preserve |= ATTRS_ALL;
	o->preserve_dropped &= ~ATTRS_ALL;
}

/* After every option: what cannot be done refused before anything runs. */
void preserve_validate(struct safecp_options *o)
{
	if (o->preserve_required & SAFECP_ATTR_CONTEXT)
		cli_usage_error("cannot preserve security context without an SELinux-enabled "
				"kernel (safecp keeps no SELinux contexts); leave 'context' out of "
				"--preserve");
	/* an archive's entries carry their mode and times; the rest is not read */
	if (raw.unpack && (o->preserve_required & (SAFECP_ATTR_OWNERSHIP | SAFECP_ATTR_XATTR)))
		cli_usage_error("--unpack keeps the entries' modes and times: it does not take "
				"--preserve=ownership or xattr; leave them out");
	/* an archive is extracted as tar does as root: its entries' own modes,
	 * not less the umask (as safecp did before issue 29) */
	if (raw.unpack && !(o->preserve_dropped & SAFECP_ATTR_MODE))
		o->preserve |= SAFECP_ATTR_MODE;
	o->keep_times = o->preserve & SAFECP_ATTR_TIMESTAMPS;
	o->keep_mode = o->preserve & SAFECP_ATTR_MODE;
}

int preserve_set(const struct safecp_options *o, struct safecp_copy *c)
{
	/* an archive gets the time it was written and a new file's mode: its
	 * entries keep the sources' */
	if (o->pack)
		return safecp_copy_set_preserve(c, 0, 0, SAFECP_ATTR_MODE);
	return safecp_copy_set_preserve(c, o->preserve & ~SAFECP_ATTR_CONTEXT,
					o->preserve_required & ~SAFECP_ATTR_CONTEXT,
					o->preserve_dropped);
}

/* "owners, file modes and ACLs": the attributes of attrs in words. */
char *words_attrs(unsigned attrs, const char *last_joint)
{
	const char *w[6];
	size_t n = 0;

	if (attrs & SAFECP_ATTR_OWNERSHIP)
		w[n++] = "owners";
	if (attrs & SAFECP_ATTR_MODE)
		w[n++] = "file modes";
	if (attrs & SAFECP_ATTR_XATTR)
		w[n++] = "extended attributes";
	if (attrs & SAFECP_ATTR_ACL)
		w[n++] = "ACLs";
	if (attrs & SAFECP_ATTR_LINKS)
		w[n++] = "hard links (each name is a file of its own)";
	if (n == 0)
		return words_format("nothing");
	if (n == 1)
		return words_format("%s", w[0]);
	if (n == 2)
		return words_format("%s %s %s", w[0], last_joint, w[1]);
	if (n == 3)
		return words_format("%s, %s %s %s", w[0], w[1], last_joint, w[2]);
	if (n == 4)
		return words_format("%s, %s, %s %s %s", w[0], w[1], w[2], last_joint, w[3]);
	return words_format("%s, %s, %s, %s %s %s", w[0], w[1], w[2], w[3], last_joint, w[4]);
}

/* The --preserve names of attrs, for a refusal. */
static char *preserve_names(unsigned attrs)
{
	return words_format("%s%s%s%s", attrs & (SAFECP_ATTR_MODE | SAFECP_ATTR_ACL) ? ",mode" : "",
			    attrs & SAFECP_ATTR_OWNERSHIP ? ",ownership" : "",
			    attrs & SAFECP_ATTR_XATTR ? ",xattr" : "",
			    attrs & SAFECP_ATTR_LINKS ? ",links" : "");
}

char *words_not_kept(unsigned attrs)
{
	_cleanup_free_ char *what = words_attrs(attrs, "or");

	return words_format("this filesystem does not store %s: the copies get its defaults; "
			    "data and times are copied", what ? what : "them");
}

char *words_preserve_refused(unsigned attrs, const char *where)
{
	_cleanup_free_ char *what = words_attrs(attrs, "or"), *names_ = preserve_names(attrs);

	return words_format("cannot preserve %s on %s: this filesystem does not store %s; leave "
			    "it out of --preserve (-p keeps what the stick can hold and says "
			    "what it cannot)", names_ ? names_ + 1 : "them", where,
			    what ? what : "them");
}

/* Destination d's filesystem cannot hold attrs: one note for the run
 * (-p, all), or the refusal of those named. */
void preserve_say(const struct safecp_options *o, size_t d, unsigned attrs, bool refused)
{
	const struct safecp_target_facts *t = dest_facts(o, d);
	const char *mnt = t && t->mountpoint ? t->mountpoint : o->dests[d];
	_cleanup_free_ char *msg = NULL,
		*where = words_format("%s (%s)", quote(mnt), words_fs_kind(t));
	const char *at = where ? where : quote(o->dests[d]);

	if (refused) {
		msg = words_preserve_refused(attrs, at);
		report_refusal(o, "preserve", msg);
		return;
	}
	if (o->verbosity == VERBOSITY_QUIET)
		return;
	msg = words_not_kept(attrs);
	fprintf(stderr, "%s: note: %s: %s\n", program_name, at, msg ? msg : "out of memory");
}
