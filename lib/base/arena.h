/* arena.h: strings that live as long as their owner, without a malloc each.
 *
 * A million-file tree has a million names: one allocation per name costs
 * the name plus 16 to 32 bytes of allocator header and rounding.  An arena
 * appends them to blocks of ARENA_BLOCK bytes (a longer string gets a
 * block of its own) and frees them all at once.  Strings never move once
 * stored, so pointers into an arena stay valid until arena_free(). */
#ifndef SAFECP_ARENA_H
#define SAFECP_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define ARENA_BLOCK (256 * 1024)

struct arena_block;

struct arena {
	struct arena_block *head; /* the block being filled, then older ones */
	size_t used;              /* bytes of head taken */
	size_t room;              /* bytes head can hold */
};

/* Room for len bytes (not zeroed), or NULL (ENOMEM).  Never moves what
 * is stored already. */
void *arena_alloc(struct arena *a, size_t len);

/* The n strings parts[0..n-1], each with its NUL, one after another:
 * "a\0b\0".  Returns where the first starts, or NULL (ENOMEM). */
char *arena_strings(struct arena *a, const char *const *parts, size_t n);

/* Everything stored, at once; a is empty again (NULL is fine). */
void arena_free(struct arena *a);

#endif
