/* test_hook.h: pause points that let a test hold a race window open.
 *
 * Only a build configured with -Dtest_hooks=true has them (tests/run
 * configures its builds so); in the default build test_hook() is an
 * empty inline function and the environment is never read.  With
 * SAFECP_TEST_PAUSE=POINT or POINT:SUBSTRING in the environment, the
 * first call of test_hook(POINT, path) whose path contains SUBSTRING
 * stops the whole process with SIGSTOP; the test sees state 'T' in
 * /proc/PID/stat, does its attack, and sends SIGCONT.  Each process
 * pauses at most once.  A SIGINT, SIGTERM or SIGHUP sent during the pause
 * is taken (by the tool's main thread) before the paused thread goes on.
 *
 * The points, and the path each one passes:
 *   walk-enter   before the walk opens a directory below an operand, its
 *                stat taken (perhaps a window of names earlier); path:
 *                its source path
 *   plan-done    the plan is built and checked, nothing written yet;
 *                path: the destination root
 *   dir-create   before a destination directory is made or opened;
 *                path: its destination path
 *   dir-attrs    before a created directory gets its mode and times;
 *                path: its destination path
 *   source-open  before the reader opens a source file; path: its source
 *   chunk-write  before a chunk of a source file is written (read, or
 *                lent: then its bytes are read by this write); path:
 *                its source
 *   verify       before a durable file is read back (--verify); path:
 *                its destination path
 *   publish      before a file or symlink is put under its final name;
 *                path: its destination path
 *   check        --check: before a file is read back; path: as the
 *                reference lists it (relative to the directory)
 *   identical    --skip-identical: before a destination file is judged;
 *                path: its destination path */
#ifndef SAFECP_TEST_HOOK_H
#define SAFECP_TEST_HOOK_H

#include "config.h"

#ifdef SAFECP_TEST_HOOKS
void test_hook(const char *point, const char *path);
#else
static inline void test_hook(const char *point, const char *path)
{
	(void)point;
	(void)path;
}
#endif

#endif
