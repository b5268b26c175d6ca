/* mhl_read.c: a manifest and a chain parsed from memory with libxml2's xmlTextReader.
 *
 * The reader streams: only the element at hand is in memory, so a large manifest costs
 * its entries, not a tree. Before libxml2 sees the bytes, a "<!DOCTYPE" anywhere is
 * refused: without a DTD no entity can be declared (a billion-laughs bomb needs one),
 * none can name an external file, and any reference other than the five predefined
 * ones and character references is a well-formedness error. The parser options add
 * no network, no entity substitution, no DTD loading and libxml2's default limits
 * (no XML_PARSE_HUGE); XInclude is never run. Errors go to a handler that keeps the
 * first line number instead of printing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "mhl/mhl_read.h"

#define X(s) ((const xmlChar *)(s))
#define PATH_LIMIT 4096
#define PATTERN_LIMIT 4096
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

struct mhl_manifest {
	struct mhl_entry *entries;
	size_t n, cap;
	char **ignores;
	size_t n_ignores, cap_ignores;
};

struct mhl_chain {
	struct mhl_link *links;
	size_t n, cap;
};

/* What a parse needs besides the reader: where problems go. */
struct parse {
	xmlTextReaderPtr r;
	struct mhl_read_problem *why;
	int error_line; /* first line libxml2 complained about */
	bool failed;	/* libxml2 reported an error (a warning does not count) */
	int held;	/* skip() moved to the next sibling already: 1 there is one, 0 none */
	bool holding;
};

static enum mhl_read_kind problem(struct parse *p, enum mhl_read_kind kind)
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
	struct parse *p = arg;

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

static void problem_init(struct mhl_read_problem *why, const char *name)
{
	if (!why)
		return;
	memset(why, 0, sizeof(*why));
	snprintf(why->file, sizeof(why->file), "%s", name ? name : "");
}

/* Open a reader over buf, or say why not. */
static enum mhl_read_kind parse_open(struct parse *p, const char *buf, size_t len,
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
static int next(struct parse *p)
{
	int r, type;

	if (p->holding) {
		p->holding = false;
		r = p->held;
	} else {
		r = xmlTextReaderRead(p->r);
	}
	if (r < 0 || p->failed)
		return -(int)problem(p, MHL_READ_MALFORMED);
	if (r == 0)
		return 0;
	type = xmlTextReaderNodeType(p->r);
	if (type == XML_READER_TYPE_DOCUMENT_TYPE || type == XML_READER_TYPE_ENTITY_REFERENCE ||
	    type == XML_READER_TYPE_ENTITY)
		return -(int)problem(p, MHL_READ_DOCTYPE);
	return 1;
}

/* Skip the element at hand with its subtree: the next next() returns the node after it
 * (xmlTextReaderNext moves onto that node already). */
static int skip(struct parse *p)
{
	int r = xmlTextReaderNext(p->r);

	if (r < 0)
		return -(int)problem(p, MHL_READ_MALFORMED);
	p->held = r;
	p->holding = true;
	return 0;
}

static bool is_element(struct parse *p, const char *ns)
{
	const xmlChar *uri = xmlTextReaderConstNamespaceUri(p->r);

	return xmlTextReaderNodeType(p->r) == XML_READER_TYPE_ELEMENT && uri &&
	       xmlStrEqual(uri, X(ns));
}

static bool named(struct parse *p, const char *name)
{
	return xmlStrEqual(xmlTextReaderConstLocalName(p->r), X(name));
}

/* The text of the leaf element at hand (malloc'd; "" for an empty one), read through
 * its end tag. Longer than limit: too_long; a child element: MHL_READ_BAD_VALUE.
 * (Not xmlTextReaderReadString: it expands the whole subtree first, and 2.9.14 leaks
 * its buffer on some inputs.) */
static enum mhl_read_kind text_of(struct parse *p, size_t limit, enum mhl_read_kind too_long,
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
	while ((r = next(p)) > 0) {
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

static char *attr(struct parse *p, const char *name)
{
	return (char *)xmlTextReaderGetAttribute(p->r, X(name));
}

static bool parse_u64(const char *s, uint64_t *ret)
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

/* ------------------------------------------------------------------------ manifest */

void mhl_manifest_free(struct mhl_manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free((char *)m->entries[i].path); /* one block: the path and the hash strings */
	free(m->entries);
	for (size_t i = 0; i < m->n_ignores; i++)
		free(m->ignores[i]);
	free(m->ignores);
	free(m);
}

/* An entry being read: its strings until they are packed into one block. */
struct pending {
	char *path;
	struct mhl_entry e;
	char hash[MHL_FORMAT_COUNT][MHL_HASH_MAX + 1];
};

static int pack_entry(struct mhl_manifest *m, struct pending *pe)
{
	size_t plen = strlen(pe->path) + 1, total = plen;
	char *block, *at;

	for (int f = 0; f < MHL_FORMAT_COUNT; f++)
		if (pe->e.hash[f])
			total += strlen(pe->hash[f]) + 1;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct mhl_entry *n = realloc(m->entries, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->entries = n;
		m->cap = cap;
	}
	if (!(block = malloc(total)))
		return -ENOMEM;
	memcpy(block, pe->path, plen);
	pe->e.path = block;
	at = block + plen;
	for (int f = 0; f < MHL_FORMAT_COUNT; f++) {
		if (!pe->e.hash[f])
			continue;
		size_t n = strlen(pe->hash[f]) + 1;

		memcpy(at, pe->hash[f], n);
		pe->e.hash[f] = at;
		at += n;
	}
	m->entries[m->n++] = pe->e;
	return 0;
}

/* <path size= lastmodificationdate=>...</path> */
static enum mhl_read_kind read_path(struct parse *p, struct pending *pe)
{
	char *size = attr(p, "size"), *date = attr(p, "lastmodificationdate");
	enum mhl_read_kind k = MHL_READ_OK;

	if (pe->path)
		k = MHL_READ_BAD_VALUE; /* two <path>s */
	else if (size && !(pe->e.has_size = parse_u64(size, &pe->e.size)))
		k = MHL_READ_BAD_VALUE;
	else if (date && !(pe->e.has_mtime = mhl_date_parse(date, &pe->e.mtime)))
		k = MHL_READ_BAD_VALUE;
	else if ((k = text_of(p, PATH_LIMIT, MHL_READ_BAD_PATH, &pe->path)) != MHL_READ_OK)
		;
	else if (!mhl_path_valid(pe->path))
		k = MHL_READ_BAD_PATH;
	free(size);
	free(date);
	return k;
}

/* <xxh128 action= hashdate=>...</xxh128> */
static enum mhl_read_kind read_hash(struct parse *p, struct pending *pe, int f)
{
	char *action = attr(p, "action"), *date = attr(p, "hashdate"), *value = NULL;
	enum mhl_read_kind k = MHL_READ_OK;
	struct timespec ignored;
	int a = -1;

	if (pe->e.hash[f])
		k = MHL_READ_DUPLICATE; /* the schema allows each format once */
	else if (action && (a = mhl_action_from_name(action)) < 0)
		k = MHL_READ_BAD_VALUE;
	else if (date && !mhl_date_parse(date, &ignored))
		k = MHL_READ_BAD_VALUE;
	else if ((k = text_of(p, MHL_HASH_MAX, MHL_READ_BAD_VALUE, &value)) != MHL_READ_OK)
		;
	else if (!mhl_hash_valid(f, value))
		k = MHL_READ_BAD_VALUE;
	if (k == MHL_READ_OK) {
		snprintf(pe->hash[f], sizeof(pe->hash[f]), "%s", value);
		mhl_hash_normalize(pe->hash[f]);
		pe->e.hash[f] = pe->hash[f];
		pe->e.has_action[f] = a >= 0;
		pe->e.action[f] = a >= 0 ? (enum mhl_action)a : MHL_ORIGINAL;
	}
	free(action);
	free(date);
	free(value);
	return k;
}

/* One <hash> element, the reader on its start tag; ends after its end tag. */
static enum mhl_read_kind read_entry(struct parse *p, struct mhl_manifest *m)
{
	struct pending pe = {0};
	int depth = xmlTextReaderDepth(p->r), r;
	enum mhl_read_kind k = MHL_READ_OK;

	if (xmlTextReaderIsEmptyElement(p->r))
		return problem(p, MHL_READ_BAD_VALUE);
	while (k == MHL_READ_OK && (r = next(p)) > 0) {
		int type = xmlTextReaderNodeType(p->r), f;
		bool ours;

		if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(p->r) == depth)
			break;
		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		ours = is_element(p, MHL_NAMESPACE) && xmlTextReaderDepth(p->r) == depth + 1;
		if (ours && named(p, "path"))
			k = read_path(p, &pe);
		else if (ours && (f = mhl_format_from_name((const char *)xmlTextReaderConstLocalName(p->r))) >= 0)
			k = read_hash(p, &pe, f);
		else if ((r = skip(p)) < 0) /* previousPath, metadata, xxh32, foreign elements */
			k = (enum mhl_read_kind)-r;
	}
	if (k == MHL_READ_OK && r < 0)
		k = (enum mhl_read_kind)-r;
	else if (k == MHL_READ_OK && r == 0)
		k = MHL_READ_MALFORMED;
	else if (k == MHL_READ_OK && !pe.path)
		k = MHL_READ_BAD_VALUE;
	else if (k == MHL_READ_OK && pack_entry(m, &pe) < 0)
		k = MHL_READ_NO_MEMORY;
	free(pe.path);
	return k == MHL_READ_OK ? k : problem(p, k);
}

static enum mhl_read_kind add_ignore(struct parse *p, struct mhl_manifest *m)
{
	char *s = NULL;
	enum mhl_read_kind k = text_of(p, PATTERN_LIMIT, MHL_READ_BAD_VALUE, &s);

	if (k != MHL_READ_OK)
		return problem(p, k);
	if (!*s || !mhl_text_valid(s)) {
		free(s);
		return problem(p, MHL_READ_BAD_VALUE);
	}
	if (m->n_ignores == m->cap_ignores) {
		size_t cap = m->cap_ignores ? m->cap_ignores * 2 : 8;
		char **n = realloc(m->ignores, cap * sizeof(*n));

		if (!n) {
			free(s);
			return problem(p, MHL_READ_NO_MEMORY);
		}
		m->ignores = n;
		m->cap_ignores = cap;
	}
	m->ignores[m->n_ignores++] = s;
	return MHL_READ_OK;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct mhl_entry *)a)->path, ((const struct mhl_entry *)b)->path);
}

/* The root element: <hashlist version="2.0"> in the MHL namespace. */
static enum mhl_read_kind read_root(struct parse *p, const char *name, const char *ns)
{
	int r;

	while ((r = next(p)) > 0 && xmlTextReaderNodeType(p->r) != XML_READER_TYPE_ELEMENT)
		;
	if (r < 0)
		return (enum mhl_read_kind)-r;
	if (r == 0)
		return problem(p, MHL_READ_MALFORMED);
	if (!is_element(p, ns) || !named(p, name))
		return problem(p, MHL_READ_NOT_MHL);
	return MHL_READ_OK;
}

/* The elements below the root: hashes/hash entries and processinfo/ignore patterns;
 * everything else is skipped whole. */
static enum mhl_read_kind read_manifest_body(struct parse *p, struct mhl_manifest *m)
{
	int r;

	while ((r = next(p)) > 0) {
		enum mhl_read_kind k = MHL_READ_OK;
		int depth = xmlTextReaderDepth(p->r);

		if (xmlTextReaderNodeType(p->r) != XML_READER_TYPE_ELEMENT)
			continue;
		if (!is_element(p, MHL_NAMESPACE)) {
			if ((r = skip(p)) < 0)
				return (enum mhl_read_kind)-r;
			continue;
		}
		/* descend into these containers; read these leaves; skip the rest */
		if ((depth == 1 && (named(p, "hashes") || named(p, "processinfo"))) ||
		    (depth == 2 && named(p, "ignore")))
			continue;
		if (depth == 2 && named(p, "hash"))
			k = read_entry(p, m);
		else if (depth == 3 && named(p, "pattern"))
			k = add_ignore(p, m);
		else if ((r = skip(p)) < 0)
			return (enum mhl_read_kind)-r;
		if (k != MHL_READ_OK)
			return k;
	}
	return r < 0 ? (enum mhl_read_kind)-r : MHL_READ_OK;
}

enum mhl_read_kind mhl_manifest_parse(const char *buf, size_t len, const char *name,
				      struct mhl_manifest **ret, struct mhl_read_problem *why)
{
	struct mhl_manifest *m;
	struct parse p;
	enum mhl_read_kind k;
	char *version;

	problem_init(why, name);
	if ((k = parse_open(&p, buf, len, why)) != MHL_READ_OK)
		return k;
	if (!(m = calloc(1, sizeof(*m)))) {
		xmlFreeTextReader(p.r);
		return why ? (why->kind = MHL_READ_NO_MEMORY) : MHL_READ_NO_MEMORY;
	}
	if ((k = read_root(&p, "hashlist", MHL_NAMESPACE)) == MHL_READ_OK) {
		version = attr(&p, "version");
		if (!version || strcmp(version, "2.0") != 0)
			k = problem(&p, MHL_READ_NOT_MHL);
		free(version);
	}
	if (k == MHL_READ_OK)
		k = read_manifest_body(&p, m);
	if (k == MHL_READ_OK && m->n) {
		qsort(m->entries, m->n, sizeof(*m->entries), by_path);
		for (size_t i = 1; i < m->n && k == MHL_READ_OK; i++)
			if (strcmp(m->entries[i - 1].path, m->entries[i].path) == 0)
				k = problem(&p, MHL_READ_DUPLICATE);
	}
	xmlFreeTextReader(p.r);
	if (k != MHL_READ_OK) {
		mhl_manifest_free(m);
		return k;
	}
	*ret = m;
	return MHL_READ_OK;
}

const struct mhl_entry *mhl_manifest_find(const struct mhl_manifest *m, const char *path)
{
	struct mhl_entry key = {.path = path};

	return m->n ? bsearch(&key, m->entries, m->n, sizeof(key), by_path) : NULL;
}

size_t mhl_manifest_count(const struct mhl_manifest *m)
{
	return m->n;
}

const struct mhl_entry *mhl_manifest_entry(const struct mhl_manifest *m, size_t i)
{
	return i < m->n ? &m->entries[i] : NULL;
}

size_t mhl_manifest_ignores(const struct mhl_manifest *m, const char *const **ret)
{
	*ret = (const char *const *)m->ignores;
	return m->n_ignores;
}

/* --------------------------------------------------------------------------- chain */

void mhl_chain_free(struct mhl_chain *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free((char *)c->links[i].path);
	free(c->links);
	free(c);
}

/* One <hashlist sequencenr=> <path/> <c4/> </hashlist> of the chain. */
static enum mhl_read_kind read_link(struct parse *p, struct mhl_chain *c)
{
	struct mhl_link l = {0};
	char *seq = attr(p, "sequencenr"), *path = NULL, *c4 = NULL;
	int depth = xmlTextReaderDepth(p->r), r = 1;
	enum mhl_read_kind k = MHL_READ_OK;
	uint64_t v;

	if (!seq || !parse_u64(seq, &v) || v == 0 || v > 999999999)
		k = MHL_READ_BAD_CHAIN;
	else if (xmlTextReaderIsEmptyElement(p->r))
		k = MHL_READ_BAD_CHAIN;
	l.sequence = (unsigned)(k == MHL_READ_OK ? v : 0);
	while (k == MHL_READ_OK && (r = next(p)) > 0) {
		int type = xmlTextReaderNodeType(p->r);

		if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(p->r) == depth)
			break;
		if (type != XML_READER_TYPE_ELEMENT || !is_element(p, MHL_DIRECTORY_NAMESPACE))
			continue;
		if (named(p, "path") && !path)
			k = text_of(p, 255, MHL_READ_BAD_CHAIN, &path);
		else if (named(p, "c4") && !c4)
			k = text_of(p, MHL_HASH_MAX, MHL_READ_BAD_CHAIN, &c4);
		else if (named(p, "path") || named(p, "c4"))
			k = MHL_READ_BAD_CHAIN;
	}
	if (k == MHL_READ_OK && r <= 0)
		k = r < 0 ? (enum mhl_read_kind)-r : MHL_READ_MALFORMED;
	if (k == MHL_READ_OK &&
	    (!path || !c4 || !mhl_text_valid(path) ||
	     mhl_generation_number(path) != l.sequence || !mhl_hash_valid(MHL_C4, c4)))
		k = MHL_READ_BAD_CHAIN;
	if (k == MHL_READ_OK && c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct mhl_link *n = realloc(c->links, cap * sizeof(*n));

		if (n) {
			c->links = n;
			c->cap = cap;
		} else {
			k = MHL_READ_NO_MEMORY;
		}
	}
	if (k == MHL_READ_OK) {
		snprintf(l.c4, sizeof(l.c4), "%s", c4);
		l.path = path;
		path = NULL;
		c->links[c->n++] = l;
	}
	free(seq);
	free(path);
	free(c4);
	return k == MHL_READ_OK ? k : problem(p, k);
}

static int by_sequence(const void *a, const void *b)
{
	unsigned x = ((const struct mhl_link *)a)->sequence, y = ((const struct mhl_link *)b)->sequence;

	return x < y ? -1 : x > y;
}

enum mhl_read_kind mhl_chain_parse(const char *buf, size_t len, struct mhl_chain **ret,
				   struct mhl_read_problem *why)
{
	struct mhl_chain *c;
	struct parse p;
	enum mhl_read_kind k;
	int r = 0;

	problem_init(why, MHL_CHAIN_FILE);
	if ((k = parse_open(&p, buf, len, why)) != MHL_READ_OK)
		return k;
	if (!(c = calloc(1, sizeof(*c)))) {
		xmlFreeTextReader(p.r);
		return why ? (why->kind = MHL_READ_NO_MEMORY) : MHL_READ_NO_MEMORY;
	}
	k = read_root(&p, "ascmhldirectory", MHL_DIRECTORY_NAMESPACE);
	while (k == MHL_READ_OK && (r = next(&p)) > 0) {
		if (xmlTextReaderNodeType(p.r) != XML_READER_TYPE_ELEMENT)
			continue;
		if (xmlTextReaderDepth(p.r) == 1 && is_element(&p, MHL_DIRECTORY_NAMESPACE) &&
		    named(&p, "hashlist"))
			k = read_link(&p, c);
		else if ((r = skip(&p)) < 0)
			break;
	}
	if (k == MHL_READ_OK && r < 0)
		k = (enum mhl_read_kind)-r;
	if (k == MHL_READ_OK && c->n == 0)
		k = problem(&p, MHL_READ_BAD_CHAIN);
	if (k == MHL_READ_OK) {
		qsort(c->links, c->n, sizeof(*c->links), by_sequence);
		for (size_t i = 1; i < c->n && k == MHL_READ_OK; i++)
			if (c->links[i - 1].sequence == c->links[i].sequence)
				k = problem(&p, MHL_READ_DUPLICATE);
	}
	xmlFreeTextReader(p.r);
	if (k != MHL_READ_OK) {
		mhl_chain_free(c);
		return k;
	}
	*ret = c;
	return MHL_READ_OK;
}

size_t mhl_chain_count(const struct mhl_chain *c)
{
	return c->n;
}

const struct mhl_link *mhl_chain_link(const struct mhl_chain *c, size_t i)
{
	return i < c->n ? &c->links[i] : NULL;
}
