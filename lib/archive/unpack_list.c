/* unpack_list.c: the list of an archive's headers: made, grown, looked
 * up, freed.  Filling it is unpack_scan.c's, checking it unpack_rules.c's. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/unpack_list.h"
#include "base/grow.h"

struct unpack_list *unpack_list_new(void)
{
	return calloc(1, sizeof(struct unpack_list));
}

/* Too long to write: PATH_MAX bytes or more, or a component (between
 * slashes) past NAME_MAX.  Reads at most PATH_MAX bytes of s. */
static bool too_long(const char *s, bool components)
{
	size_t part = 0;

	for (size_t i = 0; s[i]; i++) {
		if (i >= PATH_MAX - 1)
			return true;
		part = s[i] == '/' ? 0 : part + 1;
		if (components && part > NAME_MAX)
			return true;
	}
	return false;
}

/* s whole, or its first UNPACK_NAME_PREFIX bytes when cut. */
static char *keep(const char *s, bool cut)
{
	return cut ? strndup(s, UNPACK_NAME_PREFIX) : strdup(s);
}

int unpack_list_add(struct unpack_list *l, const char *raw, enum unpack_type type, mode_t perm,
		    int64_t size, bool size_known, const char *link)
{
	struct unpack_entry *e;
	bool cut = too_long(raw, true) || (link && too_long(link, type == UNPACK_HARDLINK));
	size_t kept;

	if (l->n_entries >= UNPACK_MAX_ENTRIES)
		return -E2BIG;
	if (GROW(l->entries, l->cap, l->n_entries + 1, 64) < 0)
		return -ENOMEM;
	e = &l->entries[l->n_entries];
	*e = (struct unpack_entry){
		.type = type, .perm = perm & 07777, .size = size, .size_known = size_known,
		.index = l->n_entries, .data_from = l->n_entries, .other = SIZE_MAX,
		.archive = l->n_archives ? l->n_archives - 1 : 0,
	};
	e->ar_index = l->n_entries && l->entries[l->n_entries - 1].archive == e->archive ?
		      l->entries[l->n_entries - 1].ar_index + 1 : 0;
	e->raw = keep(raw, cut);
	e->link = link ? keep(link, cut) : NULL;
	if (!e->raw || (link && !e->link)) {
		free(e->raw);
		free(e->link);
		return -ENOMEM;
	}
	e->cut = cut;
	e->refusal = cut ? UNPACK_TOO_LONG : UNPACK_OK; /* refused as listed */
	e->raw_len = cut ? strlen(raw) : strlen(e->raw);
	kept = strlen(e->raw) + (e->link ? strlen(e->link) : 0);
	if (kept > UNPACK_MAX_NAME_BYTES - l->name_bytes) {
		free(e->raw);
		free(e->link);
		return -EFBIG;
	}
	l->name_bytes += kept;
	l->n_entries++;
	return 0;
}

void unpack_list_free(struct unpack_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_entries; i++) {
		free(l->entries[i].raw);
		free(l->entries[i].path);
		free(l->entries[i].link);
	}
	free(l->entries);
	for (unsigned i = 0; i < l->n_archives; i++) {
		free(l->archives[i]);
		if (l->pins[i] >= 0)
			close(l->pins[i]);
	}
	free(l->archives);
	free(l->pins);
	free(l->format);
	free(l->detail);
	free(l);
}

int unpack_list_add_archive(struct unpack_list *l, const char *path)
{
	if (GROW(l->archives, l->cap_archives, (size_t)l->n_archives + 1, 4) < 0 ||
	    GROW(l->pins, l->cap_pins, (size_t)l->n_archives + 1, 4) < 0)
		return -ENOMEM;
	l->pins[l->n_archives] = -1;
	l->archives[l->n_archives] = strdup(path);
	if (!l->archives[l->n_archives])
		return -ENOMEM;
	l->n_archives++;
	return 0;
}

/* Linear: the tests' and the command's occasional look-up, not the rules'
 * (those use their own sorted index). */
const struct unpack_entry *unpack_list_find(const struct unpack_list *l, const char *path)
{
	for (size_t i = 0; i < l->n_entries; i++) {
		const struct unpack_entry *e = &l->entries[i];

		if (e->path && e->refusal == UNPACK_OK && !e->repeat && strcmp(e->path, path) == 0)
			return e;
	}
	return NULL;
}
