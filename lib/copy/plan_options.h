/* plan_options.h: cp's choices a plan and its source tree are built with. */
#ifndef SAFECP_PLAN_OPTIONS_H
#define SAFECP_PLAN_OPTIONS_H

#include <stdbool.h>

struct plan_options {
	bool recursive;        /* -r */
	bool follow_symlinks;  /* -L (without -r, command-line symlinks are always followed) */
	bool target_directory; /* -t DIR: dest is a directory, must exist */
	bool no_target_directory; /* -T: dest is never treated as a directory */
	bool no_clobber;       /* -n */
	bool keep_owners;      /* --preserve=ownership: the tree keeps each entry's
				* owner and group (source_tree.owners) */
	const char *beneath;   /* or NULL: the root DEST must be written under
				* and reached from without a link, ".." or
				* mount on the way (util/beneath.h); the engine
				* opens DEST's directory the same way.  Must
				* outlive the plan (an argv string) */
};

#endif
