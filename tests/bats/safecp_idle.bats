#!/usr/bin/env bats
# tests/bats/safecp_idle.bats: the ending without root (issue 25 item 5). nobody cannot
# read debugfs, yet the device's idle state is confirmed from what any user reads
# (/sys/block/DISK/inflight and stat, /proc/meminfo Writeback: doc/kernel.md 4.6), and
# the last line and the JSON done event say so as root's do; while someone else keeps
# the device writing, they say it is not confirmed and how much the device wrote
# meanwhile, never "idle".
# tests/run: alone (the any-user rule reads the system's Writeback: another suite's
# throttled stick under writeback keeps every device from being seen idle)

load helpers
load safecp_common


setup() {
	require_tool safecp
	require_root
	SRC=$(mktemp -d /tmp/safecp-idle-src.XXXXXX)
	chmod 0755 "$SRC"
	mkdir "$SRC/d"
	make_file "$SRC/d/a" $((6 * MIB))
	make_file "$SRC/d/b" $((4 * MIB))
	make_file "$SRC/d/c" 4097
	chmod -R a+rX "$SRC"
	BUSY=''
	stick_up --size 96
	mkdir "$STICK_MNT/nobody"
	chown nobody:nogroup "$STICK_MNT/nobody"
}

teardown() {
	[[ -z $BUSY ]] || { kill "$BUSY" 2>/dev/null; wait "$BUSY" 2>/dev/null; } || true
	[[ $SRC == /tmp/safecp-idle-src.* ]] && rm -rf "$SRC"
	stick_down_all
}

# keep_writing FILE: someone else (root) writes to the stick until killed, 1 MiB at a
# time through the page cache, each write synced (dsync): its pages are under writeback
# until the throttled device completes them.  (O_DIRECT writes held by blk-throttle are
# in no counter anyone reads, root's bdi figures included: doc/kernel.md 4.6.)
# The trap runs once the dd under way has ended, so teardown's wait outlasts it.
keep_writing() {
	trap 'exit 0' TERM
	while :; do
		dd if=/dev/zero of="$1" bs=1M count=1 oflag=dsync conv=notrunc status=none || return
	done
}

@test "as nobody the last line says the device is idle, as root's does" {
	# the premise: nobody cannot read the device's bdi stats
	run ! "${AS_NOBODY[@]}" cat "/sys/kernel/debug/bdi/$STICK_MAJMIN/stats"
	run -0 --separate-stderr "${AS_NOBODY[@]}" "$SAFECP_BUILD/cmd/safecp" --progress=plain \
		-r "$SRC/d" "$STICK_MNT/nobody/"
	echo "$stderr"
	cmp "$SRC/d/a" "$STICK_MNT/nobody/d/a"
	[[ $(tail -1 <<<"$stderr") == "10.0 MiB in 3 files is on $STICK_DISK and the device is idle" ]]
}

@test "as nobody the JSON done event says the device is idle" {
	local ev=$BATS_TEST_TMPDIR/events
	"${AS_NOBODY[@]}" "$SAFECP_BUILD/cmd/safecp" --progress=json -r "$SRC/d" "$STICK_MNT/nobody/" >"$ev"
	tail -1 "$ev"
	jq -s -e '.[-1] | .event == "done" and .device_idle == true
		and .device_busy_bytes == 0' "$ev"
}

@test "as root the JSON done event says the device is idle too" {
	local ev=$BATS_TEST_TMPDIR/events
	safecp --progress=json -r "$SRC/d" "$STICK_MNT/" >"$ev"
	jq -s -e '.[-1] | .event == "done" and .device_idle == true' "$ev"
}

# busy_stick: someone else keeps the stick writing (1 MiB/s) from now until teardown
busy_stick() {
	stick_throttle "$STICK_ID" $((1 * MIB))
	keep_writing "$STICK_MNT/other.bin" &
	BUSY=$!
	wait_for 10 test -s "$STICK_MNT/other.bin"
}

@test "as nobody, a device someone keeps writing to is not called idle; the line says how much" {
	busy_stick
	run -0 --separate-stderr "${AS_NOBODY[@]}" "$SAFECP_BUILD/cmd/safecp" --progress=plain \
		"$SRC/d/c" "$STICK_MNT/nobody/"
	echo "$stderr"
	cmp "$SRC/d/c" "$STICK_MNT/nobody/c"
	# "4.00 KiB in 1 file is on /dev/loop0 and flushed; the device was still busy with
	# 4.00 MiB of other data, so it was not seen idle: wait for its light before removing it"
	[[ $(tail -1 <<<"$stderr") =~ ^"4.00 KiB in 1 file is on $STICK_DISK and flushed; the device was still busy with "[0-9.]+" MiB of other data, so it was not seen idle: wait for its light before removing it"$ ]]
}

@test "as nobody, a device someone keeps writing to: the JSON done event says not idle, and how much" {
	busy_stick
	local ev=$BATS_TEST_TMPDIR/events
	"${AS_NOBODY[@]}" "$SAFECP_BUILD/cmd/safecp" --progress=json "$SRC/d/c" "$STICK_MNT/nobody/" >"$ev"
	tail -1 "$ev"
	jq -s -e '.[-1] | .event == "done" and .device_idle == false
		and .device_busy_bytes >= 1048576' "$ev"
}
