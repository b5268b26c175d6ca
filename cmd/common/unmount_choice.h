/* unmount_choice.h: which unmount backend a tool uses (safeunmount, and
 * safecp --unmount): the kernel's as root, udisks2 without root or when
 * asked for; without UDisks2 on the system bus the kernel's, and the tool
 * says so with unmount_choice_note(). */
#ifndef SAFECP_UNMOUNT_CHOICE_H
#define SAFECP_UNMOUNT_CHOICE_H

#include <stdbool.h>

#include "unmount/backend.h"

struct unmount_choice {
	const struct unmount_backend *be;  /* never NULL */
	bool udisks;                       /* be is udisks' */
	int missing;                       /* why udisks was wanted but is not used
					    * (-errno), or 0 ... */
	enum udisks_open_failure failed;   /* ... and where: the bus, the ping */
};

void unmount_choice_make(bool want_udisks, struct unmount_choice *ret);
/* "note: ..." on stderr when missing says udisks could not be used */
void unmount_choice_note(const struct unmount_choice *c);
void unmount_choice_done(struct unmount_choice *c);

#endif
