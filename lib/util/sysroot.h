/* sysroot.h: every /proc and /sys path the library reads goes through here.
 *
 * Like `lsblk --sysroot`, a root prefix lets tests feed captured /proc and
 * /sys trees without root or hardware.  The prefix comes from
 * sysroot_set() or, when that was never called, $SAFECP_SYSROOT (read with
 * secure_getenv(): ignored when the process is setuid, setgid or has file
 * capabilities).  It is a test seam, not a feature. */
#ifndef SAFECP_SYSROOT_H
#define SAFECP_SYSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NULL or "" means the real root. The string is copied. */
int sysroot_set(const char *prefix);
/* "" for the real root, never NULL. */
const char *sysroot_get(void);
bool sysroot_is_real(void);

/* Prefix a printf-formatted absolute path with the sysroot into buf.
 * Returns 0, or -ENAMETOOLONG. */
int sysroot_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Read a whole small file (sysfs attribute, /proc table) below the
 * sysroot into a malloc'd NUL-terminated string. */
int sysroot_read_file(const char *path, char **ret);

/* Read the first line of a sysfs attribute, trailing whitespace removed. */
int sysroot_read_line(const char *path, char *buf, size_t size);

/* Read a sysfs attribute holding one unsigned decimal number (parse_u64()). */
int sysroot_read_u64(const char *path, uint64_t *ret);

#endif
