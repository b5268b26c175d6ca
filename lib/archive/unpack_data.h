/* unpack_data.h: the bytes of a checked list's files, read from the
 * archives with archive_read_data_block, for the copy's feed.
 *
 * Each archive is opened once (through its pin, unpack_open.h) and read
 * forward: asked for an entry at or after where it is, the reader reads
 * the headers up to it.  An entry the write order (the tree given to
 * unpack_data_new(), unpack_tree.h) asks for after a later one of its
 * archive, or twice (hardlinks), is copied to the spool, an unnamed file
 * in the spool directory (O_TMPFILE), as the reader passes its header,
 * and read from there when asked for: each archive is read once,
 * however its entries interleave.  Without a tree, or for an entry the
 * order did not foresee, the reader opens the archive again and reads
 * forward from the start, and counts a reopen.  Each header it stops at
 * must be the one the first pass listed (path and type): an archive
 * that changed since is not trusted (-ESTALE).
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
#include <stdint.h>
#include <sys/types.h>

#include "archive/unpack_list.h"
#include "archive/unpack_tree.h"

struct unpack_data;

/* A reader of l's archives (l must outlive it), asked for entries in
 * the order of t (or NULL: any order, by reopening), spooling in
 * spool_dir (NULL: /var/tmp; off the destination, on a filesystem with
 * O_TMPFILE).  0 or -ENOMEM. */
int unpack_data_new(const struct unpack_list *l, const struct unpack_tree *t,
		    const char *spool_dir, struct unpack_data **ret);

/* Position on list entry idx (a regular file: its data_from's bytes are
 * read).  0 or -errno (the archive cannot be opened again, or changed;
 * the entry could not be spooled: that error, e.g. -ENOSPC);
 * -ECANCELED when *cancel (may be NULL) is set between headers or
 * blocks spooled. */
int unpack_data_open(struct unpack_data *d, size_t idx, const atomic_bool *cancel);

/* Fill buf with len bytes of the entry, fewer only at its end (then
 * *end is set; also with 0 bytes).  Returns the count or -errno. */
ssize_t unpack_data_read(struct unpack_data *d, void *buf, size_t len, bool *end);

/* Times an archive was opened again to go back (unpack_tree.h). */
size_t unpack_data_reopens(const struct unpack_data *d);

/* The bytes the spool will hold for the order given: 0 for an archive
 * written depth first. */
uint64_t unpack_data_spool_bytes(const struct unpack_data *d);

/* Does the spool directory have room for them?  0 (also when nothing
 * will be spooled), -ENOSPC, or -errno of statvfs; the free bytes in
 * *ret_free. */
int unpack_data_spool_room(const struct unpack_data *d, uint64_t *ret_free);

/* The spool directory (as given, or the default). */
const char *unpack_data_spool_dir(const struct unpack_data *d);

void unpack_data_free(struct unpack_data *d);

#endif
