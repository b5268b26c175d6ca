/* plan_problem.h: why a plan is refused, as a kind with the paths and
 * numbers involved (cmd/ words it); below the source tree and the plan,
 * which both refuse. */
#ifndef SAFECP_PLAN_PROBLEM_H
#define SAFECP_PLAN_PROBLEM_H

#include <stdint.h>

enum plan_problem_kind {
	PLAN_OK = 0,
	PLAN_SOURCE_MISSING,   /* path, err (ENOENT, ENOTDIR); -L: a dangling link */
	PLAN_SOURCE_UNREADABLE,/* path, err: stat, opendir, readdir or readlink failed */
	PLAN_OMIT_DIRECTORY,   /* path: a directory without -r */
	PLAN_SAME_FILE,        /* path (src), path2 (dst) */
	PLAN_INTO_ITSELF,      /* path (src dir), path2 (dst) */
	PLAN_DEST_NOT_DIR,     /* path2 (DEST or -t DIR), err ENOTDIR: several
				* sources, -t, or DEST/ with a trailing slash */
	PLAN_DEST_MISSING,     /* path (DEST), path2 (the directory that is
				* missing: DEST's parent, -t DIR, or DEST), err */
	PLAN_DIR_ONTO_NONDIR,  /* path (src), path2 (dst), err ENOTDIR; also with -n,
				* and a symlink to a directory is a non-directory */
	PLAN_NONDIR_ONTO_DIR,  /* path (src), path2 (dst), err EISDIR (-n: kept instead) */
	PLAN_NO_SPACE,         /* path2 (dest_root), need, have: bytes */
	PLAN_FILE_TOO_BIG,     /* path (src), path2 (dst), need (size), have (limit) */
	PLAN_LOOP,             /* path (dir reached again), path2 (its ancestor) */
	PLAN_DEST_CLASH,       /* path (a later source), path2 (dst): two sources,
				* one destination name */
	PLAN_NAME_TOO_LONG,    /* path, err ENAMETOOLONG: longer than PATH_MAX */
	PLAN_DEST_UNWRITABLE,  /* path2 (dest_root), err (EROFS, EACCES) */
	PLAN_NO_INODES,        /* path2 (dest_root), need, have: inodes */
	/* plan_names.h: the destination filesystem's name rules */
	PLAN_NAME_INVALID,     /* path (src), path2 (dst), need (enum name_problem:
				* encoding, character, too-long, trailing), have
				* (character: the refused byte) */
	PLAN_NAME_RESERVED,    /* path (src), path2 (dst): a DOS device name */
	PLAN_NAME_CLASH,       /* path (src), path2 (the other destination path),
				* have: 1 when that one exists already, 0 when
				* another source goes there; differ only in case */
	PLAN_SOURCE_CHANGED,   /* path (src): plan_build_beside() found a source
				* that is not the tree's (it changed since) */
	PLAN_SOURCE_TWICE,     /* path, path2: two operands naming one file
				* (as cp's "specified more than once") */
	PLAN_DEST_NOT_BENEATH, /* path (DEST), path2 (the root), err: EXDEV (the
				* path leaves the root or crosses a mount), ELOOP
				* (a symbolic link on the way) */
	PLAN_DEST_DANGLING,    /* path (src), path2 (dst): a file onto a symbolic
				* link that leads nowhere (cp's "not writing
				* through dangling symlink") */
};

struct plan_problem {
	enum plan_problem_kind kind;
	char *path;
	char *path2;
	int err;
	uint64_t need, have;
};

/* "source-missing", "no-space", ...: for JSON events and test messages. */
const char *plan_problem_kind_name(enum plan_problem_kind kind);

void plan_problem_done(struct plan_problem *p);

/* Replace *pr with kind and copies of the paths (either may be NULL).
 * Returns 0 or -ENOMEM. */
int plan_problem_set(struct plan_problem *pr, enum plan_problem_kind kind,
		     const char *path, const char *path2);

/* Record a refusal in *pr; returns -err, or -EINVAL when err is 0. */
int plan_refuse(struct plan_problem *pr, enum plan_problem_kind kind,
		const char *path, const char *path2, int err);

#endif
