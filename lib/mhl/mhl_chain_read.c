/* mhl_chain_read.c: ascmhl_chain.xml parsed from memory: the generations' numbers,
 * file names and C4 IDs, sorted by number. A link whose file name does not carry its
 * number, or names anything but a file in the ascmhl folder, refuses the chain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mhl/mhl_parse.h"
#include "mhl/mhl_read.h"
#include "base/grow.h"

struct mhl_chain {
	struct mhl_link *links;
	size_t n, cap;
};

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
static enum mhl_read_kind read_link(struct mhl_parse *p, struct mhl_chain *c)
{
	struct mhl_link l = {0};
	char *seq = mhl_parse_attr(p, "sequencenr"), *path = NULL, *c4 = NULL;
	int depth = xmlTextReaderDepth(p->r), r = 1;
	enum mhl_read_kind k = MHL_READ_OK;
	uint64_t v;

	if (!seq || !mhl_parse_u64(seq, &v) || v == 0 || v > 999999999)
		k = MHL_READ_BAD_CHAIN;
	else if (xmlTextReaderIsEmptyElement(p->r))
		k = MHL_READ_BAD_CHAIN;
	l.sequence = (unsigned)(k == MHL_READ_OK ? v : 0);
	while (k == MHL_READ_OK && (r = mhl_parse_next(p)) > 0) {
		int type = xmlTextReaderNodeType(p->r);

		if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(p->r) == depth)
			break;
		if (type != XML_READER_TYPE_ELEMENT || !mhl_parse_is_element(p, MHL_DIRECTORY_NAMESPACE))
			continue;
		if (mhl_parse_named(p, "path") && !path)
			k = mhl_parse_text(p, 255, MHL_READ_BAD_CHAIN, &path);
		else if (mhl_parse_named(p, "c4") && !c4)
			k = mhl_parse_text(p, MHL_HASH_MAX, MHL_READ_BAD_CHAIN, &c4);
		else if (mhl_parse_named(p, "path") || mhl_parse_named(p, "c4"))
			k = MHL_READ_BAD_CHAIN;
	}
	if (k == MHL_READ_OK && r <= 0)
		k = r < 0 ? (enum mhl_read_kind)-r : MHL_READ_MALFORMED;
	if (k == MHL_READ_OK &&
	    (!path || !c4 || !mhl_text_valid(path) ||
	     mhl_generation_number(path) != l.sequence || !mhl_hash_valid(MHL_C4, c4)))
		k = MHL_READ_BAD_CHAIN;
	if (k == MHL_READ_OK && GROW(c->links, c->cap, c->n + 1, 16) < 0)
		k = MHL_READ_NO_MEMORY;
	if (k == MHL_READ_OK) {
		snprintf(l.c4, sizeof(l.c4), "%s", c4);
		l.path = path;
		path = NULL;
		c->links[c->n++] = l;
	}
	free(seq);
	free(path);
	free(c4);
	return k == MHL_READ_OK ? k : mhl_parse_problem(p, k);
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
	struct mhl_parse p;
	enum mhl_read_kind k;
	int r = 0;

	mhl_parse_problem_init(why, MHL_CHAIN_FILE);
	if ((k = mhl_parse_open(&p, buf, len, why)) != MHL_READ_OK)
		return k;
	if (!(c = calloc(1, sizeof(*c)))) {
		xmlFreeTextReader(p.r);
		return why ? (why->kind = MHL_READ_NO_MEMORY) : MHL_READ_NO_MEMORY;
	}
	k = mhl_parse_root(&p, "ascmhldirectory", MHL_DIRECTORY_NAMESPACE);
	while (k == MHL_READ_OK && (r = mhl_parse_next(&p)) > 0) {
		if (xmlTextReaderNodeType(p.r) != XML_READER_TYPE_ELEMENT)
			continue;
		if (xmlTextReaderDepth(p.r) == 1 && mhl_parse_is_element(&p, MHL_DIRECTORY_NAMESPACE) &&
		    mhl_parse_named(&p, "hashlist"))
			k = read_link(&p, c);
		else if ((r = mhl_parse_skip(&p)) < 0)
			break;
	}
	if (k == MHL_READ_OK && r < 0)
		k = (enum mhl_read_kind)-r;
	if (k == MHL_READ_OK && c->n == 0)
		k = mhl_parse_problem(&p, MHL_READ_BAD_CHAIN);
	if (k == MHL_READ_OK) {
		if (c->n > 1)
			qsort(c->links, c->n, sizeof(*c->links), by_sequence);
		for (size_t i = 1; i < c->n && k == MHL_READ_OK; i++)
			if (c->links[i - 1].sequence == c->links[i].sequence)
				k = mhl_parse_problem(&p, MHL_READ_DUPLICATE);
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
