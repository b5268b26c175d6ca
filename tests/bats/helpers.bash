# tests/bats/helpers.bash: what every bats suite loads (`load helpers`).
#
# Gives: SAFECP_SRC (the source tree), SAFECP_BUILD (the build dir; tests/run exports it,
# default $BATS_TEST_DIRNAME/../../build), PATH with $SAFECP_BUILD/cmd first, the stick
# library (tests/lib/stick.bash), skip helpers, and readers for per-device counters.
#
# The stick pattern: a test (or setup) calls `stick_up ...` after `require_root`; the
# default teardown below removes every stick the test process made, also when the test
# failed half-way. A suite that defines its own teardown() must call stick_down_all in it.
#
#   setup() { require_root; stick_up --fs xfs; }
#   @test "..." { cp big "$STICK_MNT"/; ... }

bats_require_minimum_version 1.5.0

SAFECP_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SAFECP_BUILD=${SAFECP_BUILD:-$SAFECP_SRC/build}
SAFECP_BUILD=$(cd "$SAFECP_BUILD" 2>/dev/null && pwd || echo "$SAFECP_BUILD")
PATH="$SAFECP_BUILD/cmd:$PATH"
export SAFECP_SRC SAFECP_BUILD PATH

# shellcheck source=../lib/stick.bash
source "$SAFECP_SRC/tests/lib/stick.bash"

require_root() {
	((EUID == 0)) || skip "needs root (loop devices, mounts, blkio throttle); run: sudo tests/run"
}

# refute COMMAND...: fails when COMMAND succeeds, leaving $output alone. A bare `! cmd`
# in a test never fails it (bash's set -e ignores `!`), so tests/run rejects such lines:
# use `run ! cmd` or this.
refute() {
	if "$@"; then
		printf 'refute: expected to fail: %s\n' "$*" >&2
		return 1
	fi
	return 0
}

# require_tool NAME: skip unless $SAFECP_BUILD/cmd/NAME is built.
require_tool() {
	[[ -x $SAFECP_BUILD/cmd/$1 ]] || skip "$1 is not built in $SAFECP_BUILD/cmd"
}

require_cmd() {
	command -v "$1" >/dev/null || skip "needs the '$1' command"
}

teardown() {
	stick_down_all
}

# bdi_stat MAJ:MIN FIELD: a debugfs bdi stats field (BdiReclaimable, BdiWriteback, ...);
# fields in kB come back in bytes, the others (b_dirty, state, ...) as printed.
bdi_stat() {
	local f="/sys/kernel/debug/bdi/$1/stats"
	[[ -r $f ]] || { echo "bdi_stat: cannot read '$f' (debugfs mounted? root?)" >&2; return 1; }
	awk -v k="$2:" '$1 == k { print ($3 == "kB" || $3 == "kBps") ? $2 * 1024 : $2; found = 1 }
		END { exit !found }' "$f"
}

# bdi_pending_bytes MAJ:MIN: BdiReclaimable + BdiWriteback, the data still to reach the
# device, in bytes. Per-cpu approximation: up to 128 KiB off on 2 CPUs (doc/kernel.md 4.1).
bdi_pending_bytes() {
	stick_pending_bytes "$1" || { echo "bdi_pending_bytes: no debugfs stats for '$1'" >&2; return 1; }
}

# disk_sectors_written MAJ:MIN: 512-byte sectors the disk completed writing (stat field 7).
disk_sectors_written() {
	local s
	read -r -a s <"/sys/dev/block/$1/stat" || return 1
	echo "${s[6]}"
}

disk_written_bytes() {
	stick_written_bytes "$1"
}

# wait_for SECONDS COMMAND...: polls every 0.1 s until COMMAND succeeds; for waiting on a
# state, not for judging speed.
wait_for() {
	local limit=$(($1 * 10)) n
	shift
	for ((n = 0; n < limit; n++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# assert_within A B TOLERANCE: |A - B| <= TOLERANCE (integers), with a readable failure.
assert_within() {
	local d=$(($1 - $2))
	((d < 0)) && d=$((-d))
	((d <= $3)) || { echo "expected $1 within $3 of $2 (off by $d)" >&2; return 1; }
}

# format_size BYTES: BYTES as safecp writes a size (lib/base/size.c size_format):
# "512 B", "1.50 KiB", "10.1 MiB", "119 MiB".
format_size() {
	awk -v b="$1" 'BEGIN {
		split("KiB MiB GiB TiB PiB EiB", n, " ")
		if (b < 1024) { printf "%d B\n", b; exit }
		v = b; u = 0
		while (v >= 1024 && u < 6) { v /= 1024; u++ }
		if (v >= 999.5 && u < 6) { v /= 1024; u++ }
		if (v < 9.995) printf "%.2f %s\n", v, n[u]
		else if (v < 99.95) printf "%.1f %s\n", v, n[u]
		else printf "%.0f %s\n", v, n[u]
	}'
}
