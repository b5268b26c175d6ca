/* unmount_choice.h: which unmount backend a tool uses (safeunmount, and
 * safecp --unmount): the kernel's as root, udisks2 without root or when
 * asked for (<safecp/unmount.h> decides); without UDisks2 on the system
 * bus the kernel's, and the tool says so with unmount_choice_note(). */
#ifndef SAFECP_UNMOUNT_CHOICE_H
#define SAFECP_UNMOUNT_CHOICE_H

#include <stdbool.h>

#include <safecp/unmount.h>

/* The backend; NULL only out of memory, and the jobs then use the
 * kernel's.  Free it with safecp_unmount_backend_free(). */
struct safecp_unmount_backend *unmount_choice_make(bool want_udisks);
/* "note: ..." on stderr when udisks was wanted but cannot be used */
void unmount_choice_note(const struct safecp_unmount_backend *b);

#endif
