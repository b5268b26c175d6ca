/* meta_attrs.h: the attributes cp's --preserve names (issue 29), as one
 * set of bits shared by the session's options, its findings and the
 * engine, and what a destination's filesystem can hold of them
 * (device/fs_traits.h). */
#ifndef SAFECP_META_ATTRS_H
#define SAFECP_META_ATTRS_H

#include "device/fs_traits.h"

/* The values are <safecp/copy.h>'s SAFECP_ATTR_* (lib/api checks). */
enum meta_attr {
	META_MODE = 1 << 0,       /* permission bits, and the ACLs with them (cp) */
	META_OWNERSHIP = 1 << 1,  /* owner and group; then setuid, setgid, sticky */
	META_TIMESTAMPS = 1 << 2, /* atime and mtime */
	META_LINKS = 1 << 3,      /* hard links (plan_options.keep_links, source_links.c) */
	META_XATTR = 1 << 4,      /* extended attributes */
	META_CONTEXT = 1 << 5,    /* the SELinux context: none is kept */
	META_ACL = 1 << 6,        /* only in what is lost: ACLs (asked with MODE) */
};

/* Of the attributes asked, those the filesystem of traits fs cannot
 * hold: META_ACL stands for the ACLs a META_MODE asks; times are kept
 * everywhere (within the filesystem's step), context is nowhere asked
 * of it. */
static inline unsigned meta_attrs_lost(const struct fs_traits *fs, unsigned asked)
{
	unsigned lost = 0;

	if ((asked & META_MODE) && !fs->stores_modes)
		lost |= META_MODE;
	if ((asked & META_MODE) && !fs->stores_acls)
		lost |= META_ACL;
	if ((asked & META_OWNERSHIP) && !fs->stores_owners)
		lost |= META_OWNERSHIP;
	if ((asked & META_XATTR) && !fs->stores_xattrs)
		lost |= META_XATTR;
	if ((asked & META_LINKS) && !fs->hard_links)
		lost |= META_LINKS;
	return lost;
}

#endif
