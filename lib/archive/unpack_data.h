/* unpack_data.h: the bytes of a checked list's files, read from the
 * archives with archive_read_data_block, for the copy's feed.
 *
 * The reader goes forward: asked for an entry at or after where it is,
 * it reads the headers up to it; asked for one it has passed (see
 * unpack_tree.h for when the write order does that), it opens that
 * archive again and reads forward from the start, and counts a reopen.
 * Each header it stops at must be the one the first pass listed (path
 * and type): an archive that changed since is not trusted (-ESTALE).
 *
 * The bytes of an entry are its blocks, with the gaps between them
 * (sparse tar entries) and after the last one up to the size filled
 * with zeros: every destination gets a plain file, as FAT and exFAT
 * have no holes.  An entry whose blocks run past the size its header
 * gave (the size the space check counted), or that ends short without
 * being sparse, fails with -EBADMSG: a zip whose central directory lies
 * is a bomb or damage, and either way not written. */
#ifndef SAFECP_UNPACK_DATA_H
#define SAFECP_UNPACK_DATA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "archive/unpack_list.h"

struct unpack_data;

/* A reader of l's archives (l must outlive it).  0 or -ENOMEM. */
int unpack_data_new(const struct unpack_list *l, struct unpack_data **ret);

/* Position on list entry idx (a regular file: its data_from's bytes are
 * read).  0 or -errno (the archive cannot be opened again, or changed);
 * -ECANCELED when *cancel (may be NULL) is set between headers: going
 * back in a compressed archive reads it all again up to the entry. */
int unpack_data_open(struct unpack_data *d, size_t idx, const atomic_bool *cancel);

/* Fill buf with len bytes of the entry, fewer only at its end (then
 * *end is set; also with 0 bytes).  Returns the count or -errno. */
ssize_t unpack_data_read(struct unpack_data *d, void *buf, size_t len, bool *end);

/* Times an archive was opened again to go back (unpack_tree.h). */
size_t unpack_data_reopens(const struct unpack_data *d);

void unpack_data_free(struct unpack_data *d);

#endif
