/* msg.c: the diagnostic lines of msg.h.
 *
 * The line is built whole in memory (however long its quoted names) and
 * written with one fputs, so lines of two threads never interleave
 * mid-line.  The guard pass works in place: '?' is never longer than the
 * character it replaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/quote.h"

const char *program_name = "safecp";

static const char *level_word(enum msg_level level)
{
	switch (level) {
	case MSG_WARNING: return "warning: ";
	case MSG_NOTE: return "note: ";
	case MSG_ERROR: break;
	}
	return "";
}

/* Unsafe characters left in s become '?'. */
static void guard(char *s)
{
	size_t len = strlen(s), out = 0, k;
	uint32_t c;

	for (size_t i = 0; i < len; i += k) {
		k = quote_char(s + i, len - i, &c);
		if (quote_unsafe(c)) {
			s[out++] = '?';
		} else {
			memmove(s + out, s + i, k);
			out += k;
		}
	}
	s[out] = '\0';
}

char *msg_vline(enum msg_level level, const char *fmt, va_list ap)
{
	char *body = NULL, *line = NULL;

	if (vasprintf(&body, fmt, ap) < 0)
		return NULL;
	guard(body);
	if (asprintf(&line, "%s: %s%s", program_name, level_word(level), body) < 0)
		line = NULL;
	free(body);
	return line;
}

char *msg_line(enum msg_level level, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	line = msg_vline(level, fmt, ap);
	va_end(ap);
	return line;
}

void msg_vprint(enum msg_level level, const char *fmt, va_list ap)
{
	char *line = msg_vline(level, fmt, ap);

	if (line) {
		fputs(line, stderr);
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "%s: %s(a message was lost: out of memory)\n", program_name,
			level_word(level));
	}
	fflush(stderr);
	free(line);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vprint(MSG_ERROR, fmt, ap);
	va_end(ap);
}

void msg_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vprint(MSG_WARNING, fmt, ap);
	va_end(ap);
}

void msg_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vprint(MSG_NOTE, fmt, ap);
	va_end(ap);
}
