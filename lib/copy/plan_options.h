/* plan_options.h: cp's choices a plan and its source tree are built with. */
#ifndef SAFECP_PLAN_OPTIONS_H
#define SAFECP_PLAN_OPTIONS_H

#include <stdbool.h>

/* cp's --sparse: where a destination file gets holes.  Only where its
 * filesystem keeps them (fs_traits.holes); elsewhere every byte is
 * written, zeros for the source's holes. */
enum sparse_mode {
	SPARSE_AUTO = 0, /* where the source has holes */
	SPARSE_ALWAYS,   /* also for aligned runs of zeros in the data */
	SPARSE_NEVER,    /* nowhere: every byte written */
};

/* cp's --backup: what a file the copy replaces is kept as, first
 * (backup_name.h). */
enum backup_mode {
	BACKUP_NONE = 0,
	BACKUP_SIMPLE,   /* NAME + suffix */
	BACKUP_EXISTING, /* numbered where NAME has numbered backups, else simple */
	BACKUP_NUMBERED, /* NAME.~N~, one past the highest N there */
};

struct plan_options {
	bool recursive;        /* -r */
	bool follow_symlinks;  /* -L (without -r, command-line symlinks are always followed) */
	bool follow_operands;  /* -H: command-line symlinks are followed, with -r too */
	bool no_dereference;   /* -P: command-line symlinks are copied as links, without
				* -r too (cp's -P; -L wins where both are given last) */
	bool target_directory; /* -t DIR: dest is a directory, must exist */
	bool no_target_directory; /* -T: dest is never treated as a directory */
	bool no_clobber;       /* -n */
	enum sparse_mode sparse; /* --sparse */
	bool keep_links;       /* --preserve=links: a file with several names in the
				* tree keeps them as one file (source_links.c) */
	bool one_file_system;  /* -x: a directory on another filesystem than its
				* operand's is copied empty (source_walk.c) */
	bool update;           /* -u: an existing file is replaced only when it is
				* older than the source (plan_keep_newer()) */
	enum backup_mode backup; /* --backup: the replaced file is kept under a
				  * backup name (its space is not freed) */
	const char *backup_suffix; /* BACKUP_SIMPLE's ("~"); must outlive the plan */
	bool remove_destination; /* --remove-destination: an existing file is
				  * replaced as if removed first (its mode not
				  * kept, a dangling link replaced) */
	bool parents;          /* --parents: an operand goes to DEST/its path, the
				* directories on it made (plan_parents.c) */
	bool keep_owners;      /* --preserve=ownership: the tree keeps each entry's
				* owner and group (source_tree.owners) */
	const char *beneath;   /* or NULL: the root DEST must be written under
				* and reached from without a link, ".." or
				* mount on the way (util/beneath.h); the engine
				* opens DEST's directory the same way.  Must
				* outlive the plan (an argv string) */
};

/* Is a symlink named on the command line followed?  cp: with -L or -H;
 * without -r unless -P. */
static inline bool plan_follows_operands(const struct plan_options *o)
{
	return o->follow_symlinks || o->follow_operands || (!o->recursive && !o->no_dereference);
}

#endif
