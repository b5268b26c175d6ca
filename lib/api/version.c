/* version.c: safecp_version(), the version of the library that runs.
 *
 * lib/api is the public seam (include/safecp/): the only part that defines
 * safecp_* symbols, and the only ones lib/libsafecp.sym exports from the
 * shared library.  It may call every other part; none calls it. */
#include <safecp/safecp.h>

const char *safecp_version(void)
{
	/* compiled in here, so a program that was built against other headers
	 * still learns which library it runs with */
	return SAFECP_VERSION;
}
