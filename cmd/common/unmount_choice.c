/* unmount_choice.c: see unmount_choice.h. */
#include <errno.h>
#include <string.h>

#include "common/msg.h"
#include "common/unmount_choice.h"

struct safecp_unmount_backend *unmount_choice_make(bool want_udisks)
{
	struct safecp_unmount_backend *b = NULL;

	if (safecp_unmount_backend_new(want_udisks ? SAFECP_UNMOUNT_VIA_UDISKS
						   : SAFECP_UNMOUNT_VIA_AUTO, &b) < 0)
		return NULL;
	return b;
}

void unmount_choice_note(const struct safecp_unmount_backend *b)
{
	static const char direct[] =
		"unmounting directly, which only root or the user who mounted a filesystem may do";
	enum safecp_udisks_failure where;
	int missing;

	if (!b || (missing = safecp_unmount_backend_missing(b, &where)) == 0)
		return;
	if (where == SAFECP_UDISKS_NO_BUS)
		msg_note("cannot reach UDisks2 (no system bus: %s); %s", strerror(-missing), direct);
	else if (missing == -ESRCH)
		msg_note("UDisks2 is not on the system bus; %s", direct);
	else if (missing == -EACCES || missing == -EPERM)
		msg_note("UDisks2 does not answer this user on the system bus (the bus's policy "
			 "refused: %s); %s", strerror(-missing), direct);
	else
		msg_note("UDisks2 does not answer on the system bus (%s; is udisksd stuck?); %s",
			 strerror(-missing), direct);
}
