#!/usr/bin/env bats
# tests/bats/safecp_fat32.bats: FAT32 sticks (mkfs.vfat -F 32, fusefat -o rw+,blkdev) with
# what the format itself decides, and fusefat's fsync, which writes nothing
# (doc/kernel.md 1.5). Every image a test writes is judged afterwards without fusefat:
# fsck.vfat -n, and mtools reading it back (fat_readback).

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd fusefat
	require_cmd mcopy
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC"
}

@test "fusefat's fsync writes nothing: the batch is on the device before its first name" {
	require_hooks
	stick_up --fs fat32 --size 64 --rate 0
	mkdir "$SRC/t"
	make_file "$SRC/t/a" $((3 * MIB + 5))
	make_file "$SRC/t/b" 70000
	SAFECP_TEST_PAUSE=publish:/t/a safecp -r "$SRC/t" "$STICK_MNT"/ \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$! n pending slack rc=0
	for ((n = 0; n < 300; n++)); do
		[[ $(proc_state "$pid") == T ]] && break
		sleep 0.1
	done
	[[ $(proc_state "$pid") == T ]]
	# the daemon's writes are dirty in the device's cache until the device is synced
	pending=$(bdi_pending_bytes "$STICK_MAJMIN")
	slack=$(percpu_slack)
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	echo "pending on the device at the first rename: $pending (slack $slack)"
	((rc == 0))
	((pending <= slack))
	fat_readback "$SRC/t" /t
}
