/* mhl_parse.c: libxml2's xmlTextReader over untrusted bytes, for lib/mhl's parsers.
 *
 * The reader streams: only the element at hand is in memory, so a large manifest costs
 * its entries, not a tree. Before libxml2 sees the bytes, a "<!DOCTYPE" anywhere is
 * refused: without a DTD no entity can be declared (a billion-laughs bomb needs one),
 * none can name an external file, and any reference other than the five predefined
 * ones and character references is a well-formedness error; a DOCTYPE or entity node
 * that still appeared would be refused too. The parser options add no network, no
 * entity substitution, no DTD loading and libxml2's default limits (no
 * XML_PARSE_HUGE); XInclude is never run. Errors go to a handler that keeps the first
 * line number instead of printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl/mhl_format.h"
#include "mhl/mhl_parse.h"

#define X MHL_X
#define PARSE_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA)

static const char *const kind_names[] = {
	[MHL_READ_OK] = "ok",
	[MHL_READ_NO_HISTORY] = "no-history",
	[MHL_READ_IO] = "io",
	[MHL_READ_NOT_REGULAR] = "not-regular",
	[MHL_READ_TOO_BIG] = "too-big",
	[MHL_READ_DOCTYPE] = "doctype",
	[MHL_READ_MALFORMED] = "malformed",
	[MHL_READ_NOT_MHL] = "not-mhl",
	[MHL_READ_BAD_VALUE] = "bad-value",
	[MHL_READ_BAD_PATH] = "bad-path",
	[MHL_READ_DUPLICATE] = "duplicate",
	[MHL_READ_BAD_CHAIN] = "bad-chain",
	[MHL_READ_NO_MEMORY] = "no-memory",
};

const char *mhl_read_kind_name(enum mhl_read_kind kind)
{
	return (unsigned)kind < sizeof(kind_names) / sizeof(*kind_names) ? kind_names[kind] : "?";
}

enum mhl_read_kind mhl_parse_problem(struct mhl_parse *p, enum mhl_read_kind kind)
{
	/* a value cut short by the end of a truncated file is the file's fault */
	if (p->failed && kind != MHL_READ_NO_MEMORY)
		kind = MHL_READ_MALFORMED;
	if (p->why && p->why->kind == MHL_READ_OK) {
		p->why->kind = kind;
		p->why->line = p->error_line ? p->error_line : xmlTextReaderGetParserLineNumber(p->r);
	}
	return kind;
}

static void on_error(void *arg, xmlErrorPtr err)
{
	struct mhl_parse *p = arg;

	if (!err || err->level < XML_ERR_ERROR)
		return;
	p->failed = true;
	if (!p->error_line)
		p->error_line = err->line;
}

static bool has_doctype(const char *buf, size_t len)
{
	static const char needle[] = "<!DOCTYPE";

	return memmem(buf, len, needle, sizeof(needle) - 1) != NULL;
}

void mhl_parse_problem_init(struct mhl_read_problem *why, const char *name)
{
	if (!why)
		return;
	memset(why, 0, sizeof(*why));
	snprintf(why->file, sizeof(why->file), "%s", name ? name : "");
}

/* Open a reader over buf, or say why not. */
enum mhl_read_kind mhl_parse_open(struct mhl_parse *p, const char *buf, size_t len,
				     struct mhl_read_problem *why)
{
	memset(p, 0, sizeof(*p));
	p->why = why;
	if (len > MHL_READ_MAX_BYTES || len > (size_t)INT32_MAX) {
		if (why)
			why->kind = MHL_READ_TOO_BIG;
		return MHL_READ_TOO_BIG;
	}
	if (has_doctype(buf, len)) {
		if (why)
			why->kind = MHL_READ_DOCTYPE;
		return MHL_READ_DOCTYPE;
	}
	mhl_xml_init();
	p->r = xmlReaderForMemory(buf, (int)len, NULL, NULL, PARSE_OPTIONS);
	if (!p->r) {
		if (why)
			why->kind = MHL_READ_NO_MEMORY;
		return MHL_READ_NO_MEMORY;
	}
	xmlTextReaderSetStructuredErrorHandler(p->r, on_error, p);
	return MHL_READ_OK;
}

/* The next node: 1, 0 at the end, or the problem as a negative kind. */
int mhl_parse_next(struct mhl_parse *p)
{
	int r, type;

	if (p->holding) {
		p->holding = false;
		r = p->held;
	} else {
		r = xmlTextReaderRead(p->r);
	}
	if (r < 0 || p->failed)
		return -(int)mhl_parse_problem(p, MHL_READ_MALFORMED);
	if (r == 0)
		return 0;
	type = xmlTextReaderNodeType(p->r);
	if (type == XML_READER_TYPE_DOCUMENT_TYPE || type == XML_READER_TYPE_ENTITY_REFERENCE ||
	    type == XML_READER_TYPE_ENTITY)
		return -(int)mhl_parse_problem(p, MHL_READ_DOCTYPE);
	return 1;
}

/* Skip the element at hand with its subtree: the next mhl_parse_next() returns the node after it
 * (xmlTextReaderNext moves onto that node already). */
int mhl_parse_skip(struct mhl_parse *p)
{
	int r = xmlTextReaderNext(p->r);

	if (r < 0)
		return -(int)mhl_parse_problem(p, MHL_READ_MALFORMED);
	p->held = r;
	p->holding = true;
	return 0;
}

bool mhl_parse_is_element(struct mhl_parse *p, const char *ns)
{
	const xmlChar *uri = xmlTextReaderConstNamespaceUri(p->r);

	return xmlTextReaderNodeType(p->r) == XML_READER_TYPE_ELEMENT && uri &&
	       xmlStrEqual(uri, X(ns));
}

bool mhl_parse_named(struct mhl_parse *p, const char *name)
{
	return xmlStrEqual(xmlTextReaderConstLocalName(p->r), X(name));
}

/* The text of the leaf element at hand (malloc'd; "" for an empty one), read through
 * its end tag. Longer than limit: too_long; a child element: MHL_READ_BAD_VALUE.
 * (Not xmlTextReaderReadString: it expands the whole subtree first, and 2.9.14 leaks
 * its buffer on some inputs.) */
enum mhl_read_kind mhl_parse_text(struct mhl_parse *p, size_t limit, enum mhl_read_kind too_long,
				  char **ret)
{
	int depth = xmlTextReaderDepth(p->r), r;
	size_t len = 0;
	char *s = malloc(limit + 1);

	if (!s)
		return MHL_READ_NO_MEMORY;
	s[0] = '\0';
	if (xmlTextReaderIsEmptyElement(p->r)) {
		*ret = s;
		return MHL_READ_OK;
	}
	while ((r = mhl_parse_next(p)) > 0) {
		int type = xmlTextReaderNodeType(p->r);

		if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(p->r) == depth) {
			*ret = s;
			return MHL_READ_OK;
		}
		if (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA ||
		    type == XML_READER_TYPE_WHITESPACE || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE) {
			const char *v = (const char *)xmlTextReaderConstValue(p->r);
			size_t n = v ? strlen(v) : 0;

			if (len + n > limit) {
				free(s);
				return too_long;
			}
			memcpy(s + len, v, n);
			len += n;
			s[len] = '\0';
		} else if (type == XML_READER_TYPE_ELEMENT) {
			free(s);
			return MHL_READ_BAD_VALUE;
		}
		/* comments and processing instructions pass by */
	}
	free(s);
	return r < 0 ? (enum mhl_read_kind)-r : MHL_READ_MALFORMED;
}

char *mhl_parse_attr(struct mhl_parse *p, const char *name)
{
	return (char *)xmlTextReaderGetAttribute(p->r, X(name));
}

bool mhl_parse_u64(const char *s, uint64_t *ret)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*ret = v;
	return true;
}

/* The root element: <hashlist version="2.0"> in the MHL namespace. */
enum mhl_read_kind mhl_parse_root(struct mhl_parse *p, const char *name, const char *ns)
{
	int r;

	while ((r = mhl_parse_next(p)) > 0 && xmlTextReaderNodeType(p->r) != XML_READER_TYPE_ELEMENT)
		;
	if (r < 0)
		return (enum mhl_read_kind)-r;
	if (r == 0)
		return mhl_parse_problem(p, MHL_READ_MALFORMED);
	if (!mhl_parse_is_element(p, ns) || !mhl_parse_named(p, name))
		return mhl_parse_problem(p, MHL_READ_NOT_MHL);
	return MHL_READ_OK;
}
