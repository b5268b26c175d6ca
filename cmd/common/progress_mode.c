/* progress_mode.c: --progress=MODE, the word and the default when it is
 * not given (a bar on a terminal, nothing otherwise).  Declared in
 * progress.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/progress.h"
#include "base/cleanup.h"

enum progress_mode progress_default_mode(FILE *f)
{
	int fd = f ? fileno(f) : -1;

	return fd >= 0 && isatty(fd) ? PROGRESS_BAR : PROGRESS_NONE;
}

int progress_mode_parse(const char *s, enum progress_mode *ret)
{
	static const struct {
		const char *name;
		enum progress_mode mode;
	} modes[] = {
		{ "bar", PROGRESS_BAR },
		{ "plain", PROGRESS_PLAIN },
		{ "json", PROGRESS_JSON },
		{ "none", PROGRESS_NONE },
	};

	for (size_t i = 0; s && i < ARRAY_SIZE(modes); i++)
		if (strcmp(s, modes[i].name) == 0) {
			*ret = modes[i].mode;
			return 0;
		}
	return -EINVAL;
}
