/* path_below.h: whether a path is written below a directory, as text
 * (nothing is resolved: the caller opens it beneath, util/beneath.h). */
#ifndef SAFECP_BASE_PATH_BELOW_H
#define SAFECP_BASE_PATH_BELOW_H

/* The part of path below root ("." for root itself), pointing into path;
 * NULL when path is not written as root or root/... (trailing slashes of
 * either do not count). */
const char *path_below(const char *root, const char *path);

#endif
