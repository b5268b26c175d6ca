/* meta_copy.h: a source's extended attributes and POSIX ACLs copied onto
 * its destination, through libattr and libacl: the one module that
 * includes them (doc/architecture.md: one dependency, one module).
 *
 * Why those libraries rather than the xattr calls by hand: libattr's
 * attr_copy_file() skips what /etc/xattr.conf says a copy must not take
 * (security.evm, which only the kernel may write; xfs's own trusted.SGI_*;
 * the ACLs, which go with the mode) exactly as GNU cp does, and libacl's
 * perm_copy_file() copies an access ACL with its mask onto the mode and a
 * directory's default ACL, falling back to the mode alone where the
 * source has no ACLs; both are what cp -p and cp -a use.  Their fd
 * variants need readable fds, which a source reached O_PATH is not
 * (fgetxattr and flistxattr refuse O_PATH files: EBADF), so both sides
 * are named by their /proc/self/fd links: the kernel resolves such a
 * link to the very inode the fd holds (nd_jump_link), whatever its name
 * leads to by now, an unnamed O_TMPFILE included.
 *
 * Errors come back as the first errno the libraries met; they print
 * nothing (their error_context is ours and only records it). */
#ifndef SAFECP_META_COPY_H
#define SAFECP_META_COPY_H

#include <stdbool.h>

/* The extended attributes of src (any fd of the source's inode, O_PATH
 * too) onto dst (an fd of the destination file or directory), but for
 * ACLs and what /etc/xattr.conf skips.  As root trusted.* too (listed
 * only to CAP_SYS_ADMIN) and security.*.  0; -EOPNOTSUPP when the
 * destination's filesystem (or its namespace of some attribute) keeps
 * none; else the -errno of the first failure (the rest is still tried). */
int meta_copy_xattrs(int src, int dst);

/* src's access ACL onto dst, and a directory's default ACL: dst's
 * permission bits become src's (the ACL's mask as group bits), but
 * setuid, setgid and sticky, which the caller sets.  0; -EOPNOTSUPP when
 * the source has an extended ACL the destination cannot hold; else
 * -errno. */
int meta_copy_acl(int src, int dst);

#endif
