/* mhl_parse.h: what lib/mhl's two parsers (a manifest, a chain) share: libxml2's
 * xmlTextReader opened safely over untrusted bytes, and small steps over it. Internal to
 * lib/mhl (it exposes libxml2's types, which only this part includes).
 *
 * The steps return a kind, or for next() and skip() 1/0 or a negative kind, and record
 * the first problem (kind and line) in the caller's struct mhl_read_problem. */
#ifndef SAFECP_MHL_PARSE_H
#define SAFECP_MHL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include <libxml/xmlreader.h>

#include "mhl/mhl_problem.h"

#define MHL_X(s) ((const xmlChar *)(s))

/* What a parse needs besides the reader: where problems go. */
struct mhl_parse {
	xmlTextReaderPtr r;
	struct mhl_read_problem *why;
	int error_line; /* first line libxml2 complained about */
	bool failed;	/* libxml2 reported an error (a warning does not count) */
	int held;	/* mhl_parse_skip() moved to the next sibling already: 1 there is one, 0 none */
	bool holding;
};

/* Clear why and name its file. */
void mhl_parse_problem_init(struct mhl_read_problem *why, const char *name);
/* Refuse what is too big or has a DOCTYPE, then open the reader over buf. */
enum mhl_read_kind mhl_parse_open(struct mhl_parse *p, const char *buf, size_t len,
				  struct mhl_read_problem *why);
/* Record kind (MHL_READ_MALFORMED instead once libxml2 reported an error) and return it. */
enum mhl_read_kind mhl_parse_problem(struct mhl_parse *p, enum mhl_read_kind kind);
/* The next node: 1, 0 at the end, or minus the problem's kind. */
int mhl_parse_next(struct mhl_parse *p);
/* Skip the element at hand and its subtree: 0, or minus the problem's kind. */
int mhl_parse_skip(struct mhl_parse *p);
/* The first element, which must be ns:name. */
enum mhl_read_kind mhl_parse_root(struct mhl_parse *p, const char *name, const char *ns);
bool mhl_parse_is_element(struct mhl_parse *p, const char *ns);
bool mhl_parse_named(struct mhl_parse *p, const char *name);
/* The text of the leaf element at hand, read through its end tag (malloc'd). */
enum mhl_read_kind mhl_parse_text(struct mhl_parse *p, size_t limit, enum mhl_read_kind too_long,
				  char **ret);
/* An attribute's value (malloc'd), NULL when it is not there. */
char *mhl_parse_attr(struct mhl_parse *p, const char *name);
bool mhl_parse_u64(const char *s, uint64_t *ret);

#endif
