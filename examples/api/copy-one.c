/* copy-one: copy FILE... into DIR with libsafecp, one line of honest
 * progress a second, Ctrl-C cancels; exits as safecp does (0 copied and
 * durable, 1 some files failed, 2 refused, 130 interrupted).
 *   cc -std=c99 copy-one.c $(pkg-config --cflags --libs safecp) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <safecp/copy.h>

static struct safecp_copy *copy;

static void on_interrupt(int sig)
{
	(void)sig;
	safecp_copy_cancel(copy); /* async-signal-safe */
}

static void say_progress(void)
{
	struct safecp_copy_progress p;

	if (safecp_copy_progress(copy, 0, &p) == 0)
		printf("%llu of %llu bytes on the device, %llu files%s\n",
		       (unsigned long long)p.bytes_confirmed, (unsigned long long)p.bytes_total,
		       (unsigned long long)p.files_done, p.syncing ? ", syncing" : "");
	fflush(stdout); /* a line a second, also into a pipe */
}

static void say_error(const struct safecp_copy_event *ev)
{
	if (ev->kind == SAFECP_EVENT_ERROR)
		fprintf(stderr, "copy-one: %s: %s\n", ev->path ? ev->path : "?", strerror(ev->err));
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_interrupt };
	struct safecp_copy_event ev;
	struct safecp_refusal no;
	int r, result;

	if (argc < 3) {
		fprintf(stderr, "usage: copy-one FILE... DIR\n");
		return 2;
	}
	if (safecp_copy_new(SAFECP_COPY_KEEP_TIMES | SAFECP_COPY_TARGET_DIRECTORY, &copy) < 0)
		return 2;
	for (int i = 1; i < argc - 1; i++)
		safecp_copy_add_source(copy, argv[i]);
	safecp_copy_add_dest(copy, argv[argc - 1]);
	r = safecp_copy_prepare(copy);
	for (size_t i = 0; safecp_copy_refusal(copy, i, &no) == 0; i++)
		fprintf(stderr, "copy-one: refused (%s): %s\n", no.name,
			no.path ? no.path : no.path2 ? no.path2 : argv[argc - 1]);
	if (r != 0 || safecp_copy_start(copy) < 0) {
		safecp_copy_free(copy);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	/* until the destination's last event: every error comes before it */
	for (time_t next = time(NULL) + 1;;) {
		r = safecp_copy_poll(copy, 200, &ev);
		if (r > 0 && ev.kind == SAFECP_EVENT_DEST_END)
			break;
		if (r > 0)
			say_error(&ev);
		if (r == 0 && safecp_copy_done(copy)) {
			/* ended: all it said is queued (its end found no memory) */
			while (safecp_copy_poll(copy, 0, &ev) > 0)
				say_error(&ev);
			break;
		}
		if (r < 0 && r != -EINTR)
			break;
		if (time(NULL) >= next) {
			say_progress();
			next = time(NULL) + 1;
		}
	}
	say_progress();
	result = safecp_copy_result(copy, 0);
	signal(SIGINT, SIG_DFL); /* the handler must not see a freed copy */
	safecp_copy_free(copy);
	return result == 0 ? 0 : result == -ECANCELED ? 130 : 1;
}
