#!/usr/bin/env bats
# tests/bats/safecp_fuse_sync.bats: the FUSE daemons whose fsync syncs the whole device
# (exfat-fuse, ntfs-3g: lib/device/fs_traits.c, "volume fsync"). A batch then needs one
# sync, not one per file (the flushes the device completes show it), and nothing of a
# batch is left in the device's cache when its first file is named. fusefat's fsync is
# a stub: safecp_fat32.bats.

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
