/* mhl_read.c: one generation's manifest parsed from memory into a lookup by path.
 *
 * Only <hashes>/<hash> entries and <processinfo>/<ignore> patterns are read; every
 * other element (creator info, directory hashes, metadata, references, foreign
 * namespaces) is skipped whole. Entries are packed one block each (path and hash
 * strings), sorted by path for bsearch; a path listed twice refuses the manifest. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl/mhl_parse.h"
#include "mhl/mhl_read.h"
#include "base/grow.h"

#define PATH_LIMIT 4096
#define PATTERN_LIMIT 4096

struct mhl_manifest {
	struct mhl_entry *entries;
	size_t n, cap;
	char **ignores;
	size_t n_ignores, cap_ignores;
};

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
	if (GROW(m->entries, m->cap, m->n + 1, 256) < 0)
		return -ENOMEM;
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
static enum mhl_read_kind read_path(struct mhl_parse *p, struct pending *pe)
{
	char *size = mhl_parse_attr(p, "size"), *date = mhl_parse_attr(p, "lastmodificationdate");
	enum mhl_read_kind k = MHL_READ_OK;

	if (pe->path)
		k = MHL_READ_BAD_VALUE; /* two <path>s */
	else if (size && !(pe->e.has_size = mhl_parse_u64(size, &pe->e.size)))
		k = MHL_READ_BAD_VALUE;
	else if (date && !(pe->e.has_mtime = mhl_date_parse(date, &pe->e.mtime)))
		k = MHL_READ_BAD_VALUE;
	else if ((k = mhl_parse_text(p, PATH_LIMIT, MHL_READ_BAD_PATH, &pe->path)) != MHL_READ_OK)
		;
	else if (!mhl_path_valid(pe->path))
		k = MHL_READ_BAD_PATH;
	free(size);
	free(date);
	return k;
}

/* <xxh128 action= hashdate=>...</xxh128> */
static enum mhl_read_kind read_hash(struct mhl_parse *p, struct pending *pe, int f)
{
	char *action = mhl_parse_attr(p, "action"), *date = mhl_parse_attr(p, "hashdate"), *value = NULL;
	enum mhl_read_kind k = MHL_READ_OK;
	struct timespec ignored;
	int a = -1;

	if (pe->e.hash[f])
		k = MHL_READ_DUPLICATE; /* the schema allows each format once */
	else if (action && (a = mhl_action_from_name(action)) < 0)
		k = MHL_READ_BAD_VALUE;
	else if (date && !mhl_date_parse(date, &ignored))
		k = MHL_READ_BAD_VALUE;
	else if ((k = mhl_parse_text(p, MHL_HASH_MAX, MHL_READ_BAD_VALUE, &value)) != MHL_READ_OK)
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
static enum mhl_read_kind read_entry(struct mhl_parse *p, struct mhl_manifest *m)
{
	struct pending pe = {0};
	int depth = xmlTextReaderDepth(p->r), r;
	enum mhl_read_kind k = MHL_READ_OK;

	if (xmlTextReaderIsEmptyElement(p->r))
		return mhl_parse_problem(p, MHL_READ_BAD_VALUE);
	while (k == MHL_READ_OK && (r = mhl_parse_next(p)) > 0) {
		int type = xmlTextReaderNodeType(p->r), f;
		bool ours;

		if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(p->r) == depth)
			break;
		if (type != XML_READER_TYPE_ELEMENT)
			continue;
		ours = mhl_parse_is_element(p, MHL_NAMESPACE) && xmlTextReaderDepth(p->r) == depth + 1;
		if (ours && mhl_parse_named(p, "path"))
			k = read_path(p, &pe);
		else if (ours && (f = mhl_format_from_name((const char *)xmlTextReaderConstLocalName(p->r))) >= 0)
			k = read_hash(p, &pe, f);
		else if ((r = mhl_parse_skip(p)) < 0) /* previousPath, metadata, xxh32, foreign elements */
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
	return k == MHL_READ_OK ? k : mhl_parse_problem(p, k);
}

static enum mhl_read_kind add_ignore(struct mhl_parse *p, struct mhl_manifest *m)
{
	char *s = NULL;
	enum mhl_read_kind k = mhl_parse_text(p, PATTERN_LIMIT, MHL_READ_BAD_VALUE, &s);

	if (k != MHL_READ_OK)
		return mhl_parse_problem(p, k);
	if (!*s || !mhl_text_valid(s)) {
		free(s);
		return mhl_parse_problem(p, MHL_READ_BAD_VALUE);
	}
	if (GROW(m->ignores, m->cap_ignores, m->n_ignores + 1, 8) < 0) {
		free(s);
		return mhl_parse_problem(p, MHL_READ_NO_MEMORY);
	}
	m->ignores[m->n_ignores++] = s;
	return MHL_READ_OK;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct mhl_entry *)a)->path, ((const struct mhl_entry *)b)->path);
}

/* The elements below the root: hashes/hash entries and processinfo/ignore patterns;
 * everything else is skipped whole. */
static enum mhl_read_kind read_manifest_body(struct mhl_parse *p, struct mhl_manifest *m)
{
	int r;

	while ((r = mhl_parse_next(p)) > 0) {
		enum mhl_read_kind k = MHL_READ_OK;
		int depth = xmlTextReaderDepth(p->r);

		if (xmlTextReaderNodeType(p->r) != XML_READER_TYPE_ELEMENT)
			continue;
		if (!mhl_parse_is_element(p, MHL_NAMESPACE)) {
			if ((r = mhl_parse_skip(p)) < 0)
				return (enum mhl_read_kind)-r;
			continue;
		}
		/* descend into these containers; read these leaves; skip the rest */
		if ((depth == 1 && (mhl_parse_named(p, "hashes") || mhl_parse_named(p, "processinfo"))) ||
		    (depth == 2 && mhl_parse_named(p, "ignore")))
			continue;
		if (depth == 2 && mhl_parse_named(p, "hash"))
			k = read_entry(p, m);
		else if (depth == 3 && mhl_parse_named(p, "pattern"))
			k = add_ignore(p, m);
		else if ((r = mhl_parse_skip(p)) < 0)
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
	struct mhl_parse p;
	enum mhl_read_kind k;
	char *version;

	mhl_parse_problem_init(why, name);
	if ((k = mhl_parse_open(&p, buf, len, why)) != MHL_READ_OK)
		return k;
	if (!(m = calloc(1, sizeof(*m)))) {
		xmlFreeTextReader(p.r);
		return why ? (why->kind = MHL_READ_NO_MEMORY) : MHL_READ_NO_MEMORY;
	}
	if ((k = mhl_parse_root(&p, "hashlist", MHL_NAMESPACE)) == MHL_READ_OK) {
		version = mhl_parse_attr(&p, "version");
		if (!version || strcmp(version, "2.0") != 0)
			k = mhl_parse_problem(&p, MHL_READ_NOT_MHL);
		free(version);
	}
	if (k == MHL_READ_OK)
		k = read_manifest_body(&p, m);
	if (k == MHL_READ_OK && m->n) {
		qsort(m->entries, m->n, sizeof(*m->entries), by_path);
		for (size_t i = 1; i < m->n && k == MHL_READ_OK; i++)
			if (strcmp(m->entries[i - 1].path, m->entries[i].path) == 0)
				k = mhl_parse_problem(&p, MHL_READ_DUPLICATE);
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
