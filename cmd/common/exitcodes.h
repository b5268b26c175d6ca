/* exitcodes.h: the exit status every tool documents in its man page.
 * Scripts that offload camera cards branch on these, so they never change
 * meaning. */
#ifndef SAFECP_EXITCODES_H
#define SAFECP_EXITCODES_H

enum {
	EXIT_OK = 0,          /* everything done (and durable, for safecp) */
	EXIT_PARTIAL = 1,     /* some files or steps failed; the rest done */
	EXIT_USAGE = 2,       /* bad usage, bad input, refused plan, not found */
	EXIT_BUSY = 3,        /* safeunmount: the filesystem is in use */
	EXIT_MISMATCH = 4,    /* safecp --verify: a file read back different (it
			       * is not under its name); 130 > 2 > 4 > 1 > 0 */
	EXIT_INTERRUPTED = 130, /* SIGINT (128 + 2), as shells report it */
};

#endif
