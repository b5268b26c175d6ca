/* test_msg.c: the one shape of diagnostic lines (cmd/common/msg.h) and
 * the one framing of JSON events with the shared error event
 * (cmd/common/event.h), compared byte for byte. */
#include <errno.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "common/cli.h"
#include "common/event.h"
#include "common/msg.h"
#include "test.h"

TEST(levels)
{
	_cleanup_free_ char *e = msg_line(MSG_ERROR, "cannot open %s: %s", "'/x'", "No such file");
	_cleanup_free_ char *w = msg_line(MSG_WARNING, "--lazy: %s is detached", "'/m'");
	_cleanup_free_ char *n = msg_line(MSG_NOTE, "figures are estimates");

	CHECK_STR(e, "tool: cannot open '/x': No such file");
	CHECK_STR(w, "tool: warning: --lazy: '/m' is detached");
	CHECK_STR(n, "tool: note: figures are estimates");
}

/* A name that reached a message unquoted cannot drive the terminal. */
TEST(guard)
{
	_cleanup_free_ char *a = msg_line(MSG_ERROR, "cannot open %s", "a\033[31mb\nc");
	_cleanup_free_ char *b = msg_line(MSG_WARNING, "%s", "x\xc2\x9b" "y\xe2\x80\xae" "z\xff");
	_cleanup_free_ char *c = msg_line(MSG_ERROR, "%s", "caf\xc3\xa9 $'\\e'");

	CHECK_STR(a, "tool: cannot open a?[31mb?c");
	CHECK_STR(b, "tool: warning: x?y?z?");
	CHECK_STR(c, "tool: caf\xc3\xa9 $'\\e'"); /* quote()'s output passes as it is */
}

static char *render(void (*fn)(struct json *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	if (!f)
		return NULL;
	json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static void framed(struct json *j)
{
	event_begin(j, "progress", 1767225600.25);
	json_kv_u64(j, "bytes_left", 7);
	event_end(j);
	event_begin(j, "done", 1767225601.0000004);
	event_end(j);
}

TEST(framing)
{
	_cleanup_free_ char *out = render(framed);

	CHECK_STR(out, "{\"event\":\"progress\",\"t\":1767225600.250000,\"bytes_left\":7}\n"
		       "{\"event\":\"done\",\"t\":1767225601.000000}\n");
}

static void errors(struct json *j)
{
	event_error_begin(j, 1.5, EVENT_PATH, "/media/usb/a", -ENOSPC, "cannot write '/media/usb/a'");
	json_kv_string(j, "step", "write");
	event_end(j);
	event_error_begin(j, 2, EVENT_DEVICE, "/dev/sdb", EBUSY, "busy");
	event_end(j);
	event_error_begin(j, 3, EVENT_PATH, NULL, 0, "refusing to unmount the root filesystem");
	event_end(j);
}

TEST(error_event)
{
	_cleanup_free_ char *out = render(errors);

	CHECK_STR(out,
		  "{\"event\":\"error\",\"t\":1.500000,\"path\":\"/media/usb/a\",\"errno\":28,"
		  "\"errno_name\":\"ENOSPC\",\"error\":\"No space left on device\","
		  "\"message\":\"cannot write '/media/usb/a'\",\"step\":\"write\"}\n"
		  "{\"event\":\"error\",\"t\":2.000000,\"device\":\"/dev/sdb\",\"errno\":16,"
		  "\"errno_name\":\"EBUSY\",\"error\":\"Device or resource busy\","
		  "\"message\":\"busy\"}\n"
		  "{\"event\":\"error\",\"t\":3.000000,\"path\":null,\"errno\":null,"
		  "\"errno_name\":null,\"error\":null,"
		  "\"message\":\"refusing to unmount the root filesystem\"}\n");
}

int main(void)
{
	program_name = "tool";
	TEST_PLAN(4);
	RUN(levels);
	RUN(guard);
	RUN(framing);
	RUN(error_event);
	return test_summary();
}
