/* quote.c: the one sanitiser for names in human-readable output
 * (cmd/quote.h has the form and the classes).
 *
 * The writer walks the name one character at a time in three states:
 * nothing open, inside '...' (safe characters, verbatim), inside $'...'
 * (escapes only).  Moving between them closes the open piece; adjacent
 * pieces are one word to the shell, so 'a'$'\n''b' is the three bytes
 * a, newline, b.  A single quote is always written as \' between pieces.
 * Worst case, an unsafe byte between two safe ones, costs 9 output bytes
 * ('$'\xff''), so the length is computed first and the buffer grown to
 * it: nothing is ever cut.
 *
 * UTF-8 is checked against the well-formed ranges of Unicode table 3-7
 * (util/utf8.h, the decoder lib/mhl uses too); each byte that does not
 * start a well-formed sequence is one invalid character, escaped on its
 * own.
 *
 * The rotating buffers are per thread (safecp words an engine error on
 * the engine thread while the main thread may print); a thread-specific
 * key frees them when a thread ends. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/quote.h"
#include "base/grow.h"

size_t quote_char(const char *s, size_t n, uint32_t *cp)
{
	return utf8_decode(s, n, cp);
}

bool quote_unsafe(uint32_t c)
{
	return utf8_unsafe(c); /* the one rule, which --unpack's names follow too */
}

bool quote_utf8_valid(const char *s, size_t len)
{
	return utf8_valid(s, len);
}

/* ---- the writer ---------------------------------------------------- */

struct out {
	char *buf;
	size_t size, len; /* len counts everything, also past size */
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++)
		if (o->len + 1 < o->size)
			o->buf[o->len] = s[i];
}

static void put_escape(struct out *o, unsigned char b)
{
	static const char hex[] = "0123456789abcdef";
	static const char named[] = { ['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
				      ['\v'] = 'v', ['\f'] = 'f', ['\r'] = 'r', [0x1b] = 'e' };
	char e[4] = { '\\', 'x', hex[b >> 4], hex[b & 15] };

	if (b < sizeof(named) && named[b]) {
		e[1] = named[b];
		put(o, e, 2);
	} else {
		put(o, e, 4);
	}
}

enum piece { NONE, PLAIN, ESCAPED };

static void enter(struct out *o, enum piece *at, enum piece want)
{
	if (*at == want)
		return;
	if (*at != NONE)
		put(o, "'", 1);
	if (want == PLAIN)
		put(o, "'", 1);
	else if (want == ESCAPED)
		put(o, "$'", 2);
	*at = want;
}

static bool all_plain(const char *s, size_t len)
{
	uint32_t c;
	size_t n;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i += n) {
		n = quote_char(s + i, len - i, &c);
		if (quote_unsafe(c) || c == '\'')
			return false;
	}
	return true;
}

size_t quote_mem(char *buf, size_t size, const char *s, size_t len, enum quote_style style)
{
	struct out o = { .buf = buf, .size = size };
	enum piece at = NONE;
	uint32_t c;
	size_t n;

	if (style == QUOTE_IF_NEEDED && all_plain(s, len)) {
		put(&o, s, len);
	} else {
		for (size_t i = 0; i < len; i += n) {
			n = quote_char(s + i, len - i, &c);
			if (c == '\'') {
				enter(&o, &at, NONE);
				put(&o, "\\'", 2);
			} else if (quote_unsafe(c)) {
				enter(&o, &at, ESCAPED);
				for (size_t k = 0; k < n; k++)
					put_escape(&o, (unsigned char)s[i + k]);
			} else {
				enter(&o, &at, PLAIN);
				put(&o, s + i, n);
			}
		}
		if (len == 0)
			put(&o, "''", 2);
		enter(&o, &at, NONE);
	}
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}

char *quote_dup(const char *s, enum quote_style style)
{
	size_t len = s ? strlen(s) : 0;
	size_t need = s ? quote_mem(NULL, 0, s, len, style) + 1 : sizeof("(none)");
	char *buf = malloc(need);

	if (!buf)
		return NULL;
	if (s)
		quote_mem(buf, need, s, len, style);
	else
		memcpy(buf, "(none)", need);
	return buf;
}

/* ---- the rotating buffers ---------------------------------------------- */

struct slots {
	char *buf[QUOTE_SLOTS];
	size_t size[QUOTE_SLOTS];
	unsigned next;
};

static pthread_key_t slots_key;
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;
static bool slots_key_ok;

static void slots_free(void *p)
{
	struct slots *sl = p;

	for (unsigned i = 0; i < QUOTE_SLOTS; i++)
		free(sl->buf[i]);
	free(sl);
}

static void slots_init(void)
{
	slots_key_ok = pthread_key_create(&slots_key, slots_free) == 0;
}

static struct slots *slots_get(void)
{
	struct slots *sl;

	pthread_once(&slots_once, slots_init);
	if (!slots_key_ok)
		return NULL;
	sl = pthread_getspecific(slots_key);
	if (!sl) {
		sl = calloc(1, sizeof(*sl));
		if (sl && pthread_setspecific(slots_key, sl) != 0) {
			free(sl);
			sl = NULL;
		}
	}
	return sl;
}

static const char *quote_style(const char *s, enum quote_style style)
{
	struct slots *sl = slots_get();
	size_t len, need;
	unsigned i;

	if (!s)
		return "(none)";
	if (!sl)
		return "(a name not shown: out of memory)";
	len = strlen(s);
	need = quote_mem(NULL, 0, s, len, style) + 1;
	i = sl->next++ % QUOTE_SLOTS;
	if (GROW(sl->buf[i], sl->size[i], need, 64) < 0)
		return "(a name not shown: out of memory)";
	quote_mem(sl->buf[i], sl->size[i], s, len, style);
	return sl->buf[i];
}

const char *quote(const char *s)
{
	return quote_style(s, QUOTE_ALWAYS);
}

const char *quote_bare(const char *s)
{
	return quote_style(s, QUOTE_IF_NEEDED);
}
