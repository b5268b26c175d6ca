/* msg.h: the one shape of every diagnostic line the tools print.
 *
 *	safecp: cannot open '/media/usb/a.jpg': No space left on device
 *	safeunmount: warning: --lazy: '/media/usb' is detached even if busy, ...
 *	dirtystat: note: debugfs bdi stats are not readable (root only); ...
 *
 * The rule: "PROG: " then, for anything but an error, the level word
 * ("warning: ", "note: "), then the message, on stderr, one line.  An
 * error is why a file or step failed; a warning is a risk the user takes
 * or a thing left out ("skipping"), the job goes on; a note explains the
 * output (estimates, figures unknown), nothing went wrong.  Lines that
 * are results rather than diagnostics (the closing "it can be removed",
 * -v step lines) carry no prefix, like cp -v.  The lines of a list that
 * belongs to a message ("  pid 12 (sleep): working directory ...") are
 * indented by two spaces and carry no prefix either.
 *
 * Names go in through quote() (common/quote.h); as a last guard the
 * emitter shows any character quote_unsafe() flags that is still in the
 * line (a name a caller forgot to quote) as '?', so no message can
 * drive the terminal. */
#ifndef SAFECP_MSG_H
#define SAFECP_MSG_H

#include <stdarg.h>

/* The name in every message: "dirtystat: cannot access ...".  Set by
 * cli_init(). */
extern const char *program_name;

enum msg_level {
	MSG_ERROR,
	MSG_WARNING,
	MSG_NOTE,
};

/* The whole line, prefix included, without a newline; malloc'd, NULL
 * only when out of memory.  For callers that print through a progress
 * meter: progress_note(meter, "%s", line). */
char *msg_vline(enum msg_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
char *msg_line(enum msg_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The line and a newline on stderr, flushed; out of memory, a fixed line
 * says a message was lost. */
void msg_vprint(enum msg_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
