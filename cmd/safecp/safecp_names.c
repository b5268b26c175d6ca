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

/* "exFAT", "FAT", "NTFS", or what covers both FUSE filesystems */
static const char *family(enum name_fs fs)
{
	switch (fs) {
	case NAME_FS_FAT: case NAME_FS_FUSEFAT: return "FAT";
	case NAME_FS_EXFAT: return "exFAT";
	case NAME_FS_NTFS: return "NTFS";
	case NAME_FS_FUSEBLK: return "this filesystem (exFAT or NTFS)";
	case NAME_FS_POSIX: break;
	}
	return "this filesystem";
}

static enum name_fs family_of(const struct target *t)
{
	return fs_traits_of(t)->names; /* NULL: the "other" row, POSIX */
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

/* The rule a name breaks, as a clause: "exFAT does not allow ':'". */
static char *rule_broken(enum name_problem pr, unsigned char ch, const char *name,
			 enum name_fs fs)
{
	const char *f = family(fs);
	char c[48];

	switch (pr) {
	case NAME_BAD_CHAR:
		char_words(ch, c, sizeof(c));
		if (fs == NAME_FS_FUSEFAT && ch >= 0x80)
			return words_format("fusefat cannot create a %s name with %s, and a "
					    "rename to one loses the file", f, c);
		return words_format("%s does not allow %s in names", f, c);
	case NAME_BAD_ENCODING:
		return words_format("%s stores names as UTF-16 and this one is not valid UTF-8", f);
	case NAME_TOO_LONG:
		return words_format("the name is longer than %s allows (255 characters)", f);
	case NAME_TRAILING:
		return words_format("%s names cannot end in '.' or ' ' (Windows drops them, so it "
			      "would name another file)", f);
	case NAME_RESERVED:
		return words_format("%s is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, "
			      "LPT1-9), which it cannot open on %s", quote(name), f);
	case NAME_EMPTY:
		return words_format("the name is empty");
	case NAME_OK:
		break;
	}
	return words_format("%s ignores case in names, and another name there is the same", f);
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

char *words_name_problem(const struct plan_problem *p, const struct target *t)
{
	enum name_fs fs = family_of(t);
	const char *a = p->path ? p->path : "", *b = p->path2 ? p->path2 : "";
	const char *fix = "rename it, or use --rename-invalid";
	_cleanup_free_ char *rule = NULL;

	if (p->kind == PLAN_NAME_CLASH) {
		if (p->have)
			return words_format("cannot copy %s: %s is already there and %s ignores case "
				      "in names, so it would take the place of that one; rename "
				      "one of them, or use --rename-invalid", quote(a), quote(b),
				      family(fs));
		if (fs == NAME_FS_NTFS)
			return words_format("cannot copy both %s and the file going to %s: Windows "
				      "ignores case in NTFS names, so it could not tell them apart; "
				      "rename one of them, or use --rename-invalid", quote(a), quote(b));
		return words_format("cannot copy both %s and the file going to %s: %s ignores "
			      "case in names, so they would be one file; rename one of them, or "
			      "use --rename-invalid", quote(a), quote(b), family(fs));
	}
	rule = rule_broken(p->kind == PLAN_NAME_RESERVED ? NAME_RESERVED
							 : (enum name_problem)p->need,
			   (unsigned char)p->have, base(b), fs);
	if (!rule)
		return NULL;
	return words_format("cannot copy %s to %s: %s; %s", quote(a), quote(b), rule, fix);
}

char *words_names_refused(const struct target *t, const char *dest, size_t n)
{
	return words_format("nothing was copied to %s: %zu name%s %s cannot hold (see above); "
			    "rename %s, or use --rename-invalid to give %s names it can hold",
			    quote(dest), n, n == 1 ? "" : "s", family(family_of(t)),
			    n == 1 ? "it" : "them", n == 1 ? "it" : "them");
}

char *words_rename(const struct plan *p, const struct plan_rename *r, const struct target *t)
{
	const struct plan_entry *e = &p->entries[r->entry];
	_cleanup_free_ char *rule = rule_broken(r->problem, r->ch, base(r->old_dst), family_of(t));

	if (!rule)
		return NULL;
	return words_format("%s is written as %s: %s", quote(e->source->src), quote(e->dst), rule);
}

const char *words_rename_reason(const struct plan_rename *r)
{
	return r->problem == NAME_OK ? "clash" : name_problem_id(r->problem);
}
