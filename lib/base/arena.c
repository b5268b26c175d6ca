/* arena.c: append-only blocks of bytes, freed together (arena.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"

struct arena_block {
	struct arena_block *older;
	char data[];
};

static int arena_grow(struct arena *a, size_t len)
{
	size_t room = len > ARENA_BLOCK ? len : ARENA_BLOCK;
	struct arena_block *b;

	if (room > SIZE_MAX - sizeof(*b))
		return -ENOMEM;
	b = malloc(sizeof(*b) + room);
	if (!b)
		return -ENOMEM;
	b->older = a->head;
	a->head = b;
	a->used = 0;
	a->room = room;
	return 0;
}

void *arena_alloc(struct arena *a, size_t len)
{
	void *p;

	if ((!a->head || a->room - a->used < len) && arena_grow(a, len) < 0)
		return NULL;
	p = a->head->data + a->used;
	a->used += len;
	return p;
}

char *arena_strings(struct arena *a, const char *const *parts, size_t n)
{
	size_t len = 0, at = 0;
	char *p;

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(parts[i]) + 1;

		if (l > SIZE_MAX - len)
			return NULL;
		len += l;
	}
	p = arena_alloc(a, len);
	for (size_t i = 0; p && i < n; i++) {
		size_t l = strlen(parts[i]) + 1;

		memcpy(p + at, parts[i], l);
		at += l;
	}
	return p;
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	while (a->head) {
		struct arena_block *b = a->head;

		a->head = b->older;
		free(b);
	}
	*a = (struct arena){ 0 };
}
