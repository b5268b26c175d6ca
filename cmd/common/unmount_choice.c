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
	ret->missing = unmount_backend_udisks_open(&be, &ret->failed);
	if (ret->missing == 0) {
		ret->be = be;
		ret->udisks = true;
	}
}

void unmount_choice_note(const struct unmount_choice *c)
{
	static const char direct[] =
		"unmounting directly, which only root or the user who mounted a filesystem may do";

	if (c->missing == 0)
		return;
	if (c->failed == UDISKS_OPEN_BUS)
		msg_note("cannot reach UDisks2 (no system bus: %s); %s", strerror(-c->missing),
			 direct);
	else if (c->missing == -ESRCH)
		msg_note("UDisks2 is not on the system bus; %s", direct);
	else if (c->missing == -EACCES || c->missing == -EPERM)
		msg_note("UDisks2 does not answer this user on the system bus (the bus's policy "
			 "refused: %s); %s", strerror(-c->missing), direct);
	else
		msg_note("UDisks2 does not answer on the system bus (%s; is udisksd stuck?); %s",
			 strerror(-c->missing), direct);
}

void unmount_choice_done(struct unmount_choice *c)
{
	if (c->udisks)
		unmount_backend_udisks_close(c->be);
	*c = (struct unmount_choice){ 0 };
}
