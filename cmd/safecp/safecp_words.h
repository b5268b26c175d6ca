/* safecp_words.h: the sentence helpers of safecp_words.c that take no
 * lib/ type, for the parts of safecp that use only <safecp/...> (--check).
 * tool.h declares the rest, and words_format() too until the copy side
 * no longer needs tool.h's lib/ types. */
#ifndef SAFECP_CMD_SAFECP_WORDS_H
#define SAFECP_CMD_SAFECP_WORDS_H

/* vasprintf into a new string, or NULL */
char *words_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "'/media/usb' (ext4 on /dev/sdb1)", "'/media/usb' (exfat (fuseblk) on
 * /dev/sdb1)", "'/tmp' (tmpfs)": mnt, the mount's fstype (NULL: unknown),
 * the format on the device where fstype does not name it (or NULL), the
 * block device (or NULL).  NULL only when out of memory. */
char *words_where_of(const char *mnt, const char *fstype, const char *format,
		     const char *device);

#endif
