/* unmount_fake.h: the pieces every fake unmount backend of the unit tests
 * shares (test_unmount_job.c, test_api_unmount.c): a log of what it was
 * asked to do ("sync unmount:/a ..."), and the operations that find
 * nothing in the way. */
#ifndef SAFECP_TEST_UNMOUNT_FAKE_H
#define SAFECP_TEST_UNMOUNT_FAKE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "unmount/backend.h"

/* Appends one word to log, space separated. */
static void __attribute__((format(printf, 3, 4)))
fake_log(char *log, size_t size, const char *fmt, ...)
{
	size_t n = strlen(log);
	va_list ap;

	if (n && n + 1 < size)
		log[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(log + n, size - n, fmt, ap);
	va_end(ap);
}

static int fake_device_holders(const struct unmount_backend *be, const char *devnode,
			       unsigned major, unsigned minor, struct holder_list *ret)
{
	*ret = (struct holder_list){ 0 };
	return 0;
}

static int fake_mounted_here(const struct unmount_backend *be, unsigned major, unsigned minor,
			     char **ret_mountpoint)
{
	*ret_mountpoint = NULL;
	return 0;
}

static void fake_plan_done(const struct unmount_backend *be, struct poweroff_plan *p)
{
}

#endif
