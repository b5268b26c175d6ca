/* unmount_choice.c: see unmount_choice.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/unmount_choice.h"

void unmount_choice_make(bool want_udisks, struct unmount_choice *ret)
{
	const struct unmount_backend *be = NULL;

	*ret = (struct unmount_choice){ .be = unmount_backend_kernel() };
	if (!want_udisks && geteuid() == 0)
		return;
	ret->missing = unmount_backend_udisks_open(&be);
	if (ret->missing == 0) {
		ret->be = be;
		ret->udisks = true;
	}
}

void unmount_choice_note(const struct unmount_choice *c)
{
	if (c->missing == -ESRCH)
		msg_note("UDisks2 is not on the system bus; unmounting directly, which only root "
			 "or the user who mounted a filesystem may do");
	else if (c->missing < 0)
		msg_note("cannot reach UDisks2 (no system bus: %s); unmounting directly, which only "
			 "root or the user who mounted a filesystem may do", strerror(-c->missing));
}

void unmount_choice_done(struct unmount_choice *c)
{
	if (c->udisks)
		unmount_backend_udisks_close(c->be);
	*c = (struct unmount_choice){ 0 };
}
