/* plan_problem.c: see plan_problem.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "copy/plan_problem.h"

#include "base/cleanup.h"

static const char *const kind_names[] = {
	[PLAN_OK] = "ok",
	[PLAN_SOURCE_MISSING] = "source-missing",
	[PLAN_SOURCE_UNREADABLE] = "source-unreadable",
	[PLAN_OMIT_DIRECTORY] = "omit-directory",
	[PLAN_SAME_FILE] = "same-file",
	[PLAN_INTO_ITSELF] = "into-itself",
	[PLAN_DEST_NOT_DIR] = "dest-not-dir",
	[PLAN_DEST_MISSING] = "dest-missing",
	[PLAN_DIR_ONTO_NONDIR] = "dir-onto-nondir",
	[PLAN_NONDIR_ONTO_DIR] = "nondir-onto-dir",
	[PLAN_NO_SPACE] = "no-space",
	[PLAN_FILE_TOO_BIG] = "file-too-big",
	[PLAN_LOOP] = "loop",
	[PLAN_DEST_CLASH] = "dest-clash",
	[PLAN_NAME_TOO_LONG] = "name-too-long",
	[PLAN_DEST_UNWRITABLE] = "dest-unwritable",
	[PLAN_NO_INODES] = "no-inodes",
	[PLAN_NAME_INVALID] = "name-invalid",
	[PLAN_NAME_RESERVED] = "name-reserved",
	[PLAN_NAME_CLASH] = "name-clash",
	[PLAN_SOURCE_CHANGED] = "source-changed",
	[PLAN_DEST_NOT_BENEATH] = "dest-not-beneath",
	[PLAN_SOURCE_TWICE] = "source-twice",
	[PLAN_DEST_DANGLING] = "dest-dangling",
};

const char *plan_problem_kind_name(enum plan_problem_kind kind)
{
	if ((size_t)kind >= ARRAY_SIZE(kind_names) || !kind_names[kind])
		return "unknown";
	return kind_names[kind];
}

void plan_problem_done(struct plan_problem *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->path2);
	*p = (struct plan_problem){ .kind = PLAN_OK };
}

int plan_problem_set(struct plan_problem *pr, enum plan_problem_kind kind,
		     const char *path, const char *path2)
{
	plan_problem_done(pr);
	pr->path = path ? strdup(path) : NULL;
	pr->path2 = path2 ? strdup(path2) : NULL;
	if ((path && !pr->path) || (path2 && !pr->path2)) {
		plan_problem_done(pr);
		return -ENOMEM;
	}
	pr->kind = kind;
	return 0;
}

int plan_refuse(struct plan_problem *pr, enum plan_problem_kind kind,
		const char *path, const char *path2, int err)
{
	int r = plan_problem_set(pr, kind, path, path2);

	if (r < 0)
		return r;
	pr->err = err;
	return err > 0 ? -err : -EINVAL;
}
