/* version.c: what the installed libsafecp is and can do, one feature a line
 * with its values, as `safecp --features` prints it.
 *   cc -std=c99 version.c $(pkg-config --cflags --libs safecp) */
#include <stdio.h>

#include <safecp/safecp.h>

int main(void)
{
	const char *name, *value;

	printf("libsafecp %s (compiled against %s)\n", safecp_version(), SAFECP_VERSION);
	for (unsigned f = 0; (name = safecp_feature_name(f)); f++) {
		fputs(name, stdout);
		for (unsigned i = 0; (value = safecp_feature_value(f, i)); i++)
			printf(" %s", value);
		putchar('\n');
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
