/* holder_words.h: the processes a busy list could not inspect, in words
 * (safeunmount and safecp --unmount say them alike). */
#ifndef SAFECP_HOLDER_WORDS_H
#define SAFECP_HOLDER_WORDS_H

#include <stdio.h>

#include <safecp/unmount.h>

/* "  (pids 1 (init), 57 (x) and 9 more could not be inspected: Permission
 * denied)" and a newline on out; nothing is checked: call it when
 * b->unreadable is not 0. */
void holder_words_unreadable(FILE *out, const struct safecp_unmount_busy *b);

#endif
