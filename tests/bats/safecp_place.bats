#!/usr/bin/env bats
# tests/bats/safecp_place.bats: a destination that is no stick (issue 25 item 1). A
# /media/usb with nothing mounted on it is a directory of the system disk: the copy is
# refused before the first byte, as one into memory (tmpfs) is, unless --system-disk;
# the start event says removable and system_disk.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/DCIM"
	make_file "$SRC/DCIM/IMG_0001.JPG" 5000
	SHM=''
}

teardown() {
	[[ -z $SHM ]] || umount "$SHM"
	stick_down_all
}

# on_root_fs DIR: DIR is on the filesystem mounted at "/" from a block device.
on_root_fs() {
	[[ $(findmnt -n -o TARGET --target "$1") == / && $(findmnt -n -o SOURCE --target "$1") == /dev/* ]]
}

@test "a destination on the system disk is refused before the first byte, naming the disk" {
	local media=$BATS_TEST_TMPDIR/media/usb
	mkdir -p "$media"
	on_root_fs "$media" || skip "the test directory is not on the root filesystem's disk"
	run -2 --separate-stderr safecp -r "$SRC/DCIM" "$media"/
	[[ $stderr == *"refusing to copy to '$media/': it is on '/' ("*"/dev/"*"), the root filesystem, not a stick; is the stick mounted there? mount it, or give --system-disk to copy there anyway"* ]]
	[[ -z $(ls -A "$media") ]]
	run -2 --separate-stderr safecp -r --progress=json "$SRC/DCIM" "$media"/
	jq -e -s 'map(select(.event == "refused")) | length == 1 and .[0].kind == "system-disk"' <<<"$output"
	[[ -z $(ls -A "$media") ]]
	# -q does not make it quiet: it is an error
	run -2 --separate-stderr safecp -q -r "$SRC/DCIM" "$media"/
	[[ $stderr == *"refusing to copy"* ]]
}

@test "--system-disk copies there, and the start event says system_disk" {
	local media=$BATS_TEST_TMPDIR/media/usb
	mkdir -p "$media"
	on_root_fs "$media" || skip "the test directory is not on the root filesystem's disk"
	run -0 safecp -r --system-disk --progress=json "$SRC/DCIM" "$media"/
	cmp "$SRC/DCIM/IMG_0001.JPG" "$media/DCIM/IMG_0001.JPG"
	jq -e -s 'map(select(.event == "start")) | .[0].system_disk == true and .[0].removable == false' <<<"$output"
}

@test "a destination in memory (tmpfs) is refused as no disk" {
	require_root
	mkdir "$BATS_TEST_TMPDIR/mem"
	mount -t tmpfs -o size=4m safecp-place "$BATS_TEST_TMPDIR/mem"
	SHM=$BATS_TEST_TMPDIR/mem
	run -2 --separate-stderr safecp -r "$SRC/DCIM" "$SHM"/
	[[ $stderr == *"refusing to copy to '$SHM/': it is on '$SHM' (tmpfs), which is no disk (memory, or a network); is the stick mounted there?"*"--system-disk"* ]]
	[[ -z $(ls -A "$SHM") ]]
	run -2 --separate-stderr safecp -r --progress=json "$SRC/DCIM" "$SHM"/
	jq -e -s 'map(select(.event == "refused")) | .[0].kind == "no-disk"' <<<"$output"
	run -0 safecp -q -r --system-disk "$SRC/DCIM" "$SHM"/
	cmp "$SRC/DCIM/IMG_0001.JPG" "$SHM/DCIM/IMG_0001.JPG"
}

@test "a stick (a loop device) is copied to without a word; the start event says so" {
	require_root
	stick_up --size 64 --rate 0
	run -0 --separate-stderr safecp -r --progress=json "$SRC/DCIM" "$STICK_MNT"/
	[[ -z $stderr ]]
	jq -e -s 'map(select(.event == "start")) | .[0].system_disk == false and .[0].removable == false' <<<"$output"
	cmp "$SRC/DCIM/IMG_0001.JPG" "$STICK_MNT/DCIM/IMG_0001.JPG"
}

@test "--pack and --unpack are held to a stick too" {
	local media=$BATS_TEST_TMPDIR/media
	mkdir -p "$media"
	on_root_fs "$media" || skip "the test directory is not on the root filesystem's disk"
	run -2 --separate-stderr safecp --pack=tar "$SRC/DCIM" "$media"/
	[[ $stderr == *"refusing to copy to '$media/'"*"--system-disk"* ]]
	(cd "$SRC" && tar -cf "$BATS_TEST_TMPDIR/d.tar" DCIM)
	run -2 --separate-stderr safecp --unpack "$BATS_TEST_TMPDIR/d.tar" "$media"
	[[ $stderr == *"refusing to copy to '$media'"*"--system-disk"* ]]
	[[ -z $(ls -A "$media") ]]
}
