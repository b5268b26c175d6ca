/* safecp_names.c: the destination's name rules in words: why a name is
 * refused (plan_names_check's problems) and why one was changed
 * (--rename-invalid's notes), naming the filesystem whose rule it is. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "common/quote.h"
#include "safecp/tool.h"

/* The name rules of t (<safecp/target.h>): "posix" when not probed. */
static const char *rules_of(const struct safecp_target_facts *t)
{
	return t && t->name_rules ? t->name_rules : "posix";
}

/* "exFAT", "FAT", "NTFS", or what covers both FUSE filesystems */
static const char *family(const char *rules)
{
	static const struct { const char *rules, *words; } names[] = {
		{ "fat", "FAT" }, { "fusefat", "FAT" }, { "exfat", "exFAT" }, { "ntfs", "NTFS" },
		{ "exfat-or-ntfs", "this filesystem (exFAT or NTFS)" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(rules, names[i].rules) == 0)
			return names[i].words;
	return "this filesystem";
}

/* "':'", "a control character (0x01)", "a character outside ASCII (0xc3)" */
static void char_words(unsigned char c, char *buf, size_t size)
{
	if (c < 0x20)
		snprintf(buf, size, "a control character (0x%02x)", c);
	else if (c >= 0x80)
		snprintf(buf, size, "a character outside ASCII (byte 0x%02x)", c);
	else
		snprintf(buf, size, "'%c'", c);
}

/* The rule a name breaks, as a clause: "exFAT does not allow ':'".  why:
 * the rule's name (safecp_rename.why: "character", "encoding", ...). */
static char *rule_broken(const char *why, unsigned char ch, const char *name, const char *rules)
{
	const char *f = family(rules);
	char c[48];

	if (strcmp(why, "character") == 0) {
		char_words(ch, c, sizeof(c));
		if (strcmp(rules, "fusefat") == 0 && ch >= 0x80)
			return words_format("fusefat cannot create a %s name with %s, and a "
					    "rename to one loses the file", f, c);
		return words_format("%s does not allow %s in names", f, c);
	}
	if (strcmp(why, "encoding") == 0)
		return words_format("%s stores names as UTF-16 and this one is not valid UTF-8", f);
	if (strcmp(why, "too-long") == 0)
		return words_format("the name is longer than %s allows (255 characters)", f);
	if (strcmp(why, "trailing") == 0)
		return words_format("%s names cannot end in '.' or ' ' (Windows drops them, so it "
			      "would name another file)", f);
	if (strcmp(why, "reserved") == 0)
		return words_format("%s is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, "
			      "LPT1-9), which it cannot open on %s", quote(name), f);
	if (strcmp(why, "empty") == 0)
		return words_format("the name is empty");
	return words_format("%s ignores case in names, and another name there is the same", f);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

char *words_name_problem(const struct refusal *p, const struct safecp_target_facts *t)
{
	const char *rules = rules_of(t);
	const char *a = p->path ? p->path : "", *b = p->path2 ? p->path2 : "";
	const char *fix = "rename it, or use --rename-invalid";
	_cleanup_free_ char *rule = NULL;

	if (p->kind == SAFECP_REFUSED_NAME_CLASH) {
		if (p->exists)
			return words_format("cannot copy %s: %s is already there and %s ignores case "
				      "in names, so it would take the place of that one; rename "
				      "one of them, or use --rename-invalid", quote(a), quote(b),
				      family(rules));
		if (strcmp(rules, "ntfs") == 0)
			return words_format("cannot copy both %s and the file going to %s: Windows "
				      "ignores case in NTFS names, so it could not tell them apart; "
				      "rename one of them, or use --rename-invalid", quote(a), quote(b));
		return words_format("cannot copy both %s and the file going to %s: %s ignores "
			      "case in names, so they would be one file; rename one of them, or "
			      "use --rename-invalid", quote(a), quote(b), family(rules));
	}
	rule = rule_broken(p->kind == SAFECP_REFUSED_NAME_RESERVED ? "reserved"
								   : p->rule ? p->rule : "",
			   p->ch, base(b), rules);
	if (!rule)
		return NULL;
	return words_format("cannot copy %s to %s: %s; %s", quote(a), quote(b), rule, fix);
}

char *words_names_refused(const struct safecp_target_facts *t, const char *dest, size_t n)
{
	return words_format("nothing was copied to %s: %zu name%s %s cannot hold (see above); "
			    "rename %s, or use --rename-invalid to give %s names it can hold",
			    quote(dest), n, n == 1 ? "" : "s", family(rules_of(t)),
			    n == 1 ? "it" : "them", n == 1 ? "it" : "them");
}

char *words_rename(const struct safecp_copy *c, size_t d, const struct safecp_rename *r,
		   const struct safecp_target_facts *t)
{
	struct safecp_entry e;
	_cleanup_free_ char *rule = NULL;

	if (safecp_copy_entry(c, d, r->entry, &e, sizeof(e)) < 0)
		return NULL;
	rule = rule_broken(r->why, r->ch, base(r->old_dest), rules_of(t));
	if (!rule)
		return NULL;
	return words_format("%s is written as %s: %s", quote(e.source), quote(e.dest), rule);
}
