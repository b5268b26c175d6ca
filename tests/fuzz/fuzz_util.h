/* fuzz_util.h: what the harnesses that feed files share.  The parsers read /proc and
 * /sys through lib/sysroot.c, so a harness copies a fixture tree (tests/fixtures) to a
 * private directory once, points the sysroot at it, and writes each input over some of
 * its files.  One input feeds several files: its parts are separated by NUL bytes
 * (text files never hold one), a missing part leaves that file as the fixture had it.
 * The copy goes below $TMPDIR (tests/run gives each run its own) and is removed at
 * exit; a crash leaves it for inspection. */
#ifndef SAFECP_FUZZ_UTIL_H
#define SAFECP_FUZZ_UTIL_H

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sysroot.h"

static char fuzz_root[PATH_MAX];

static inline void fuzz_root_remove(void)
{
	char cmd[PATH_MAX + 16];

	if (fuzz_root[0] && snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_root) < (int)sizeof(cmd))
		(void)!system(cmd);
}

/* Copy FIXTURES_DIR/fixture (NULL: an empty tree) and make it the sysroot. */
static inline void fuzz_sysroot_init(const char *fixture)
{
	const char *tmp = getenv("TMPDIR");
	char cmd[3 * PATH_MAX];

	snprintf(fuzz_root, sizeof(fuzz_root), "%s/safecp-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fuzz_root)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fuzz_root_remove);
	if (fixture) {
		snprintf(cmd, sizeof(cmd), "cp -a '%s/%s/.' '%s'", FIXTURES_DIR, fixture, fuzz_root);
		if (system(cmd) != 0) {
			fprintf(stderr, "fuzz: %s failed\n", cmd);
			abort();
		}
	}
	if (sysroot_set(fuzz_root) < 0)
		abort();
}

/* Write len bytes to path below the sysroot (made if missing, directories too). */
static inline void fuzz_write(const char *path, const void *data, size_t len)
{
	char full[PATH_MAX], cmd[PATH_MAX + 32];
	int fd;

	snprintf(full, sizeof(full), "%s%s", fuzz_root, path);
	fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		char *slash = strrchr(full, '/');

		*slash = '\0';
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", full);
		(void)!system(cmd);
		*slash = '/';
		fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0) {
		perror(full);
		abort();
	}
	if (len && write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

/* The next NUL-separated part of *data; false when none is left. */
static inline bool fuzz_next_part(const uint8_t **data, size_t *size, const uint8_t **part, size_t *len)
{
	const uint8_t *nul;

	if (!*data)
		return false;
	nul = memchr(*data, 0, *size);
	*part = *data;
	*len = nul ? (size_t)(nul - *data) : *size;
	if (nul) {
		*size -= *len + 1;
		*data = nul + 1;
	} else {
		*data = NULL;
		*size = 0;
	}
	return true;
}

/* A NUL-terminated copy of len bytes (for the string parsers). */
static inline char *fuzz_strndup(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

#endif
