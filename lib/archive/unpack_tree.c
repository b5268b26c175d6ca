/* unpack_tree.c: the checked list as a tree in write order (see
 * unpack_tree.h for the order and its cost).
 *
 * Two passes.  First, in list order, each accepted entry gets a node,
 * and so does each prefix of its path not met before (an implied
 * directory); a node is appended to its parent's children when it is
 * made, so children are in order of first appearance.  Nodes are found
 * by path through a hash table (open addressing, FNV-1a).  Then an
 * iterative pre-order walk over the children lists gives the order,
 * each node's parent index and end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive/unpack_tree.h"
#include "base/cleanup.h"
#include "base/grow.h"

struct tmp_node {
	char *path;
	size_t entry;
	unsigned archive;
	size_t parent;        /* tmp index or UNPACK_NO_PARENT */
	size_t first, last, next; /* children and sibling, SIZE_MAX: none */
};

struct builder {
	struct tmp_node *t;
	size_t n, cap;
	size_t *hash;         /* tmp index + 1, 0: empty */
	size_t hcap;          /* a power of two, at least twice n */
	size_t first_top, last_top;
};

static uint64_t fnv(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static size_t *slot_of(struct builder *b, const char *p, size_t len)
{
	size_t i = (size_t)fnv(p, len) & (b->hcap - 1);

	for (;; i = (i + 1) & (b->hcap - 1)) {
		size_t k = b->hash[i];

		if (!k || (strncmp(b->t[k - 1].path, p, len) == 0 && b->t[k - 1].path[len] == '\0'))
			return &b->hash[i];
	}
}

static int grow_hash(struct builder *b)
{
	size_t cap = b->hcap ? b->hcap * 2 : 1024;
	size_t *old = b->hash, ocap = b->hcap;

	b->hash = calloc(cap, sizeof(*b->hash));
	if (!b->hash) {
		b->hash = old;
		return -ENOMEM;
	}
	b->hcap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			*slot_of(b, b->t[old[i] - 1].path, strlen(b->t[old[i] - 1].path)) = old[i];
	free(old);
	return 0;
}

static void link_child(struct builder *b, size_t parent, size_t k)
{
	size_t *first = parent == UNPACK_NO_PARENT ? &b->first_top : &b->t[parent].first;
	size_t *last = parent == UNPACK_NO_PARENT ? &b->last_top : &b->t[parent].last;

	if (*first == SIZE_MAX)
		*first = k;
	else
		b->t[*last].next = k;
	*last = k;
}

/* The node of the len bytes of p, made (an implied directory) if new. */
static int node_of(struct builder *b, const char *p, size_t len, size_t parent, unsigned archive,
		   size_t *ret)
{
	size_t *slot;
	int r;

	if ((b->n + 1) * 2 > b->hcap && (r = grow_hash(b)) < 0)
		return r;
	slot = slot_of(b, p, len);
	if (*slot) {
		*ret = *slot - 1;
		return 0;
	}
	if (GROW(b->t, b->cap, b->n + 1, 64) < 0)
		return -ENOMEM;
	b->t[b->n] = (struct tmp_node){ .entry = UNPACK_IMPLIED, .parent = parent, .archive = archive,
					.first = SIZE_MAX, .last = SIZE_MAX, .next = SIZE_MAX };
	b->t[b->n].path = strndup(p, len);
	if (!b->t[b->n].path)
		return -ENOMEM;
	*slot = b->n + 1;
	link_child(b, parent, b->n);
	*ret = b->n++;
	return 0;
}

static int add_entry(struct builder *b, const struct unpack_entry *e, size_t idx)
{
	size_t parent = UNPACK_NO_PARENT, k;
	int r;

	for (const char *s = strchr(e->path, '/'); s; s = strchr(s + 1, '/')) {
		r = node_of(b, e->path, (size_t)(s - e->path), parent, e->archive, &parent);
		if (r < 0)
			return r;
	}
	r = node_of(b, e->path, strlen(e->path), parent, e->archive, &k);
	if (r < 0)
		return r;
	/* a directory met first as a prefix keeps its place; the rules
	 * refused anything else listed twice */
	b->t[k].entry = idx;
	return 0;
}

/* Pre-order over the children lists, without recursion. */
static int walk(struct builder *b, struct unpack_tree *out)
{
	_cleanup_free_ size_t *stack = malloc((b->n + 1) * sizeof(*stack));
	_cleanup_free_ size_t *pos = malloc((b->n + 1) * sizeof(*pos));
	size_t depth = 0, o = 0, k = b->first_top;

	out->nodes = calloc(b->n ? b->n : 1, sizeof(*out->nodes));
	if (!stack || !pos || !out->nodes)
		return -ENOMEM;
	while (k != SIZE_MAX || depth) {
		if (k == SIZE_MAX) { /* the directory on top has no more children */
			out->nodes[pos[stack[--depth]]].end = o;
			k = b->t[stack[depth]].next;
			continue;
		}
		struct unpack_node *n = &out->nodes[o];

		n->path = TAKE_PTR(b->t[k].path);
		n->name = strrchr(n->path, '/') ? strrchr(n->path, '/') + 1 : n->path;
		n->parent = depth ? pos[stack[depth - 1]] : UNPACK_NO_PARENT;
		n->entry = b->t[k].entry;
		n->archive = b->t[k].archive;
		n->end = o + 1;
		pos[k] = o++;
		out->n_nodes = o;
		if (b->t[k].first != SIZE_MAX) {
			stack[depth++] = k;
			k = b->t[k].first;
		} else {
			k = b->t[k].next;
		}
	}
	return 0;
}

static void count_steps_back(const struct unpack_list *l, struct unpack_tree *t)
{
	size_t last = SIZE_MAX;

	t->backward_steps = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		size_t e = t->nodes[i].entry, d;

		if (e == UNPACK_IMPLIED || (l->entries[e].type != UNPACK_FILE &&
					    l->entries[e].type != UNPACK_HARDLINK))
			continue;
		d = l->entries[e].data_from;
		if (last != SIZE_MAX && d <= last && l->entries[d].archive == l->entries[last].archive)
			t->backward_steps++;
		last = d;
	}
}

int unpack_tree_build(const struct unpack_list *l, struct unpack_tree *ret)
{
	struct builder b = { .first_top = SIZE_MAX, .last_top = SIZE_MAX };
	int r = 0;

	*ret = (struct unpack_tree){ 0 };
	for (size_t i = 0; i < l->n_entries && r == 0; i++) {
		const struct unpack_entry *e = &l->entries[i];

		if (e->refusal == UNPACK_OK && !e->top && !e->repeat && e->path)
			r = add_entry(&b, e, i);
	}
	if (r == 0)
		r = walk(&b, ret);
	for (size_t i = 0; i < b.n; i++)
		free(b.t[i].path);
	free(b.t);
	free(b.hash);
	if (r < 0) {
		unpack_tree_done(ret);
		return r;
	}
	count_steps_back(l, ret);
	return 0;
}

void unpack_tree_done(struct unpack_tree *t)
{
	for (size_t i = 0; t->nodes && i < t->n_nodes; i++)
		free(t->nodes[i].path);
	free(t->nodes);
	*t = (struct unpack_tree){ 0 };
}
