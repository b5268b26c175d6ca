/* backup_name.h: the names cp's --backup gives a file it replaces. */
#ifndef SAFECP_BACKUP_NAME_H
#define SAFECP_BACKUP_NAME_H

#include <limits.h>

#include "copy/plan_options.h"

/* N when entry is name's numbered backup "name.~N~" (N decimal, from 1,
 * no leading zero), else 0. */
unsigned long backup_number(const char *name, const char *entry);

/* name's backup name in the directory open on dirfd, into buf: name +
 * suffix, or name.~N~ one past the highest N found there (how: which;
 * BACKUP_EXISTING reads the directory to choose).  0, -ENAMETOOLONG when
 * the name would pass NAME_MAX, or -errno reading the directory. */
int backup_name(int dirfd, const char *name, enum backup_mode how, const char *suffix,
		char buf[NAME_MAX + 1]);

#endif
