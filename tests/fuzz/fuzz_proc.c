/* fuzz_proc.c: the /proc and block-layer tables of lib/dirty.c and lib/dirty_device.c.
 * On a copy of tests/fixtures/dirtystat-usb the input's NUL-separated parts replace,
 * in this order: /proc/meminfo, /proc/vmstat, /proc/zoneinfo, /proc/sys/vm/dirty_ratio,
 * the debugfs bdi stats of 8:16, /sys/block/sdb/stat and .../inflight, and a cpu list
 * (given to dirty_cpu_list_nr_ids as a string).  The readers must fail cleanly or give
 * figures the threshold arithmetic can take. */
#include <assert.h>
#include <stdint.h>

#include "dirty/dirty.h"
#include "util/parse.h"
#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {
	"/proc/meminfo",
	"/proc/vmstat",
	"/proc/zoneinfo",
	"/proc/sys/vm/dirty_ratio",
	"/sys/kernel/debug/bdi/8:16/stats",
	"/sys/block/sdb/stat",
	"/sys/block/sdb/inflight",
};
#define N_FILES (sizeof(files) / sizeof(files[0]))

static char *originals[N_FILES];
static size_t original_len[N_FILES];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_sysroot_init("dirtystat-usb");
	for (size_t i = 0; i < N_FILES; i++)
		if (sysroot_read_file(files[i], &originals[i]) == 0)
			original_len[i] = strlen(originals[i]);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part;
	size_t len, i = 0;
	char *cpus = NULL, *text;
	struct dirty_system sys;
	struct dirty_device dev;
	struct dirty_sample a, b;
	uint64_t reserve = 0, v, thresh, bg;
	unsigned nr;

	for (; i < N_FILES && fuzz_next_part(&data, &size, &part, &len); i++)
		fuzz_write(files[i], part, len);
	for (size_t j = i; j < N_FILES; j++)
		fuzz_write(files[j], originals[j] ? originals[j] : "", original_len[j]);
	if (fuzz_next_part(&data, &size, &part, &len))
		cpus = fuzz_strndup(part, len);

	if (dirty_system_read(&sys) == 0) {
		(void)dirty_reserve_read(&reserve);
		dirty_thresholds_compute(&sys, reserve, &thresh, &bg);
		(void)dirty_freerun_ceiling(&sys);
	}
	if (dirty_device_read("8:16", "sdb", &dev) == 0)
		(void)dirty_device_pending(&dev);
	if (sysroot_read_file("/sys/block/sdb/stat", &text) == 0) {
		memset(&dev, 0, sizeof(dev));
		if (dirty_block_stat_parse(text, &dev) == 0)
			assert(dev.has_block_stat);
		free(text);
	}
	if (sysroot_read_file("/proc/meminfo", &text) == 0) {
		(void)kv_table_lookup(text, "Dirty", &v);
		(void)kv_table_lookup(text, "", &v);
		free(text);
	}
	if (dirty_sample_take("8:16", "sdb", &a) == 0 && dirty_sample_take("8:16", "sdb", &b) == 0) {
		double rate = dirty_write_rate(&a, &b);

		(void)dirty_eta(&b, rate);
	}
	if (cpus) {
		if (dirty_cpu_list_nr_ids(cpus, &nr) == 0)
			(void)dirty_percpu_error_for(nr, 4096);
		free(cpus);
	}
	return 0;
}
