/* cleanup.h: scope-bound cleanup so every early return is leak-free.
 *
 * The systemd/bubblewrap idiom: mark a local with _cleanup_free_ or
 * _cleanup_close_ and it is released when it goes out of scope; hand
 * ownership out with TAKE_PTR / TAKE_FD, which leave the local empty. */
#ifndef SAFECP_CLEANUP_H
#define SAFECP_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_freep(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_closep(const int *fd)
{
	if (*fd >= 0) {
		int saved = errno; /* close() must not clobber the errno we return */
		close(*fd);
		errno = saved;
	}
}

static inline void cleanup_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void cleanup_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_(fn) __attribute__((cleanup(fn)))
#define _cleanup_free_ _cleanup_(cleanup_freep)
#define _cleanup_close_ _cleanup_(cleanup_closep)
#define _cleanup_fclose_ _cleanup_(cleanup_fclosep)
#define _cleanup_closedir_ _cleanup_(cleanup_closedirp)

/* Declare a cleanup function for a type whose destructor accepts NULL. */
#define DEFINE_CLEANUP_FUNC(type, fn) \
	static inline void fn##p(type **p) { fn(*p); }

#define TAKE_PTR(p) ({ __typeof__(p) _tp_ = (p); (p) = NULL; _tp_; })
#define TAKE_FD(fd) ({ int _tf_ = (fd); (fd) = -1; _tf_; })

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
