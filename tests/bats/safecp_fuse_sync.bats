#!/usr/bin/env bats
# tests/bats/safecp_fuse_sync.bats: the FUSE daemons whose fsync syncs the whole device
# (exfat-fuse, ntfs-3g: lib/device/fs_traits.c, "volume fsync"). A batch then needs one
# sync, not one per file (the flushes the device completes show it), and nothing of a
# batch is left in the device's cache when its first file is named. fusefat's fsync is
# a stub: safecp_fat32.bats. And on every FUSE stick a file is written O_DIRECT, so the
# daemon takes its bytes without a copy into the FUSE file's page cache.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/t"
	local n
	make_file "$SRC/t/a" $((3 * MIB + 5))
	for ((n = 0; n < 40; n++)); do make_file "$SRC/t/f$n" $((1000 + n * 97)); done
}

# flushes MAJ:MIN: the flush requests the disk behind MAJ:MIN completed (the 16th
# field of its stat: doc/kernel.md 4.3).
flushes() {
	local sys
	sys=$(readlink -f "/sys/dev/block/$1")
	[[ -e $sys/partition ]] && sys=${sys%/*}
	awk '{ print $16 }' "$sys/stat"
}

# few_flushes FS: 41 files in one batch take far fewer flushes than files.
few_flushes() {
	stick_up --fs "$1" --size 64 --rate 0
	local before after
	before=$(flushes "$STICK_MAJMIN")
	safecp -r "$SRC/t" "$STICK_MNT"/
	after=$(flushes "$STICK_MAJMIN")
	echo "$((after - before)) flushes for 41 files"
	((after - before > 0))
	((after - before <= 10))
	diff -r "$SRC/t" "$STICK_MNT/t"
}

@test "ntfs-3g: one device sync covers a batch: far fewer flushes than files" {
	require_cmd ntfs-3g
	few_flushes ntfs
}

@test "ntfs-3g: the batch is on the device before its first name" {
	require_cmd ntfs-3g
	paused_at_first_name ntfs
	diff -r "$SRC/t" "$STICK_MNT/t"
}

@test "exfat-fuse: one device sync covers a batch: far fewer flushes than files" {
	require_cmd mount.exfat-fuse
	few_flushes exfat
}

@test "exfat-fuse: the batch is on the device before its first name" {
	require_cmd mount.exfat-fuse
	paused_at_first_name exfat
	diff -r "$SRC/t" "$STICK_MNT/t"
}

# direct_to_daemon FS: while its batch is held open (paused before --verify reads t/a
# back), every destination file safecp has open is O_DIRECT. Asked, not seen: looking
# at the FUSE file's cache from outside takes an open of it, which drops that cache unless
# the daemon asked to keep it.
direct_to_daemon() {
	require_hooks
	stick_up --fs "$1" --size 64 --rate 0
	SAFECP_TEST_PAUSE=verify:/t/a safecp -r --verify "$SRC/t" "$STICK_MNT"/ \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$! fd flags files=0 direct=0 rc=0 o_direct
	# O_DIRECT's value differs between architectures
	o_direct=$(python3 -c 'import os; print(os.O_DIRECT)')
	wait_paused "$pid" || { kill "$pid"; wait "$pid"; cat "$BATS_TEST_TMPDIR/out"; return 1; }
	for fd in /proc/"$pid"/fd/*; do
		[[ $(readlink "$fd") == "$STICK_MNT"/t/* ]] || continue
		flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$pid/fdinfo/${fd##*/}")
		files=$((files + 1))
		(((8#$flags & o_direct) != 0)) && direct=$((direct + 1))
	done
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	echo "$direct of $files open destination files are O_DIRECT (flags of the last: $flags)"
	((rc == 0))
	((files > 0 && direct == files))
	diff -r "$SRC/t" "$STICK_MNT/t"
}

@test "exfat-fuse: files go to the daemon O_DIRECT" {
	require_cmd mount.exfat-fuse
	direct_to_daemon exfat
}

@test "ntfs-3g: files go to the daemon O_DIRECT" {
	require_cmd ntfs-3g
	direct_to_daemon ntfs
}

@test "fat32 (fusefat): files go to the daemon O_DIRECT" {
	require_cmd fusefat
	direct_to_daemon fat32
}
