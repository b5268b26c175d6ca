/* target.c: a resolved unmount target's memory. */
#include <stdlib.h>

#include "unmount/target.h"

void unmount_target_done(struct unmount_target *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_fs; i++)
		unmount_mount_done(&t->fs[i].m);
	free(t->fs);
	t->fs = NULL;
	t->n_fs = 0;
}
