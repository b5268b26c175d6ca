/* unpack_tree.h: the accepted entries of a checked list (unpack_list.h)
 * as a tree in the order they will be written, for the plan's source
 * tree (copy/source_tree.h's invariants: each directory before its
 * contents, a directory's end past its last descendant).
 *
 * Archive order is arbitrary: "a/x", "b/y", "a/z" is a valid tar, and a
 * directory may come after its files or not at all.  The order here is a
 * pre-order walk in which siblings come in the order of their first
 * appearance in the archives (a directory appears with the first entry
 * at or below it), so an archive written by a depth-first walk, as tar
 * and bsdtar write them, comes out in its own order and the data is read
 * in one pass.  One that lists a directory's files before going into its
 * subdirectories (Python's zipfile over os.walk) steps back once per
 * directory left.  An entry that comes out after one that follows it in
 * the archive ("b/y" after "a/z" above) would make the data reader go
 * back: unpack_data.h spools it instead as the reader passes it, so each
 * archive is read once.  A directory only implied by its contents gets a
 * node of its own (entry UNPACK_IMPLIED). */
#ifndef SAFECP_UNPACK_TREE_H
#define SAFECP_UNPACK_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "archive/unpack_list.h"

#define UNPACK_IMPLIED SIZE_MAX
#define UNPACK_NO_PARENT SIZE_MAX

struct unpack_node {
	char *path;         /* "a/b" */
	const char *name;   /* its last component, in path */
	size_t parent;      /* node index, or UNPACK_NO_PARENT (top level) */
	size_t end;         /* index past its last descendant (itself + 1 if none) */
	size_t entry;       /* the list entry it is, or UNPACK_IMPLIED (a directory) */
	unsigned archive;   /* the archive whose entry made it */
};

struct unpack_tree {
	struct unpack_node *nodes; /* in write order */
	size_t n_nodes;
	size_t backward_steps;     /* files whose data precede the previous
				    * file's in the same archive: spooled */
};

/* Build the tree of l's accepted entries (checked: unpack_rules_check()).
 * Returns 0 or -ENOMEM. */
int unpack_tree_build(const struct unpack_list *l, struct unpack_tree *ret);
void unpack_tree_done(struct unpack_tree *t);

#endif
