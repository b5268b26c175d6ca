/* path_below.c: see path_below.h. */
#include <string.h>

#include "base/path_below.h"

static size_t without_trailing_slashes(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

const char *path_below(const char *root, const char *path)
{
	size_t n = without_trailing_slashes(root);

	if (n == 1 && root[0] == '/')
		n = 0; /* "/": every absolute path is under it */
	if (strncmp(path, root, n) != 0)
		return NULL;
	path += n;
	if (*path != '/' && !(*path == '\0' && n > 0))
		return NULL;
	while (*path == '/')
		path++;
	return *path ? path : ".";
}
