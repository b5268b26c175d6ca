/* parse.h: the numbers and fields of /proc and /sys text, parsed one way.
 *
 * Kernel text is unsigned decimal numbers, "MAJ:MIN" device numbers and
 * fields separated by blanks.  strtoull() and sscanf("%u") are the wrong
 * tools for it: they skip leading white space (newlines included), take a
 * sign ("-1" reads as 2^64 - 1) and %u wraps silently, so junk reads as a
 * number.  These take digits only, refuse overflow, and say where they
 * stopped.
 *
 * With end NULL the whole string must be the number; otherwise *end is
 * set to the first character after it, whatever that is.  They return 0,
 * -EINVAL when s does not start with a digit (empty, a sign, a blank) or
 * has junk after the number, -ERANGE when it does not fit.  Nothing is
 * stored on failure. */
#ifndef SAFECP_PARSE_H
#define SAFECP_PARSE_H

#include <stddef.h>
#include <stdint.h>

int parse_u64(const char *s, uint64_t *ret, const char **end);
int parse_uint(const char *s, unsigned *ret, const char **end);

/* "8:0": the device number as sysfs "dev" files and mountinfo write it. */
int parse_devnum(const char *s, unsigned *ret_major, unsigned *ret_minor, const char **end);
/* "08:01": hexadecimal, as /proc/PID/maps writes it. */
int parse_devnum_hex(const char *s, unsigned *ret_major, unsigned *ret_minor, const char **end);

/* s past any spaces and tabs. */
const char *parse_skip_blanks(const char *s);

/* Splits line in place at runs of spaces and tabs into at most max
 * fields and returns how many it found; the last of max fields holds the
 * rest of the line, blanks and all (the path at the end of a maps line).
 * Runs of blanks make no empty fields; the rest field keeps its own. */
size_t parse_fields(char *line, char **ret, size_t max);

/* Undoes in place the octal escapes the kernel writes into names in
 * mountinfo, mounts and swaps ("\040" for a space, seq_escape()). */
void parse_unescape_octal(char *s);

/* In "Key:  value [kB]" tables (/proc/meminfo, debugfs bdi stats) or
 * "key value" tables (/proc/vmstat) find key and return its value,
 * multiplied by 1024 when the line says kB.  -ENOENT when absent,
 * -EINVAL when its value is not a number. */
int kv_table_lookup(const char *text, const char *key, uint64_t *ret);

#endif
