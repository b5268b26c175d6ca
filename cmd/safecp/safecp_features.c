/* safecp_features.c: --features, what this safecp can do, as the library
 * says it (<safecp/safecp.h>): one feature a line, its name then its values
 * ("checksums xxh128 xxh3 ...", "destinations 16"), so that a script such as
 * examples/offload-card asks instead of reading --help.  The names are the
 * library's identifiers (doc/api.md), not words. */
#include <stdio.h>

#include <safecp/safecp.h>

#include "safecp/tool.h"

void features_print(void)
{
	const char *name, *value;

	for (unsigned f = 0; (name = safecp_feature_name(f)); f++) {
		fputs(name, stdout);
		for (unsigned i = 0; (value = safecp_feature_value(f, i)); i++)
			printf(" %s", value);
		putchar('\n');
	}
}
