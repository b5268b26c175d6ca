/* fuzz_mountinfo.c: /proc/self/mountinfo as lib/mount.c reads it (libmount parses,
 * mount.c copies the entries and walks the mount tree down a path).  The input is the
 * whole file.  Every entry must come back with all its strings, and the walk must end
 * on one of the listed mounts or fail cleanly, whatever the ids and parents say. */
#include <assert.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "device/mount.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_sysroot_init(NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "/", "/media/usb/a.jpg", "/proc", "//x//y/" };
	struct mount_entry *list = NULL, e;
	size_t n = 0;

	fuzz_write("/proc/self/mountinfo", data, size);
	if (mount_list(&list, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			assert(list[i].target && list[i].fstype && list[i].source);
			assert(list[i].options && list[i].root);
			(void)strlen(list[i].target);
			(void)strlen(list[i].options);
		}
		mount_list_free(list, n);
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (mount_find_for_path(paths[i], &e) == 0) {
			assert(e.target && e.target[0] == '/');
			mount_entry_done(&e);
		}
	}
	return 0;
}
