#!/usr/bin/env bats
# tests/bats/safecp_cp_options.bats: cp's options safecp takes with cp's meaning (issue 29),
# on simulated sticks:
# - -R is -r;
# - -u replaces a copy only when it is older than its source, copies the missing, and keeps
#   (inode unchanged) one as new or newer; onto a FAT32 stick (fusefat: times to 2 s) a
#   rerun with -u copies nothing, where times rounded by FAT would make cp -u copy again;
# - -x copies a directory that is another filesystem (a tmpfs mounted inside the source)
#   as an empty directory; without -x its files are copied.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	EV=$BATS_TEST_TMPDIR/events
	INNER=
	mkdir -p "$SRC/card/sub"
	make_file "$SRC/card/older" 5000
	make_file "$SRC/card/newer" 6000
	make_file "$SRC/card/same" 7000
	make_file "$SRC/card/sub/missing" 8000
}

teardown() {
	[[ -z $INNER ]] || umount "$INNER" 2>/dev/null || true
	stick_down_all
}

ino() {
	stat -c %i "$1"
}

@test "-R copies a tree as -r does" {
	stick_up --size 32 --rate 0
	run -0 safecp -R "$SRC/card" "$STICK_MNT"
	diff -r "$SRC/card" "$STICK_MNT/card"
}

@test "-u: an older copy is replaced, a missing one copied, one as new or newer kept" {
	stick_up --size 32 --rate 0
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	rm "$STICK_MNT/card/sub/missing"
	make_file "$SRC/card/older" 5000
	make_file "$SRC/card/newer" 6000
	touch -d '2030-01-01 00:00:00' "$SRC/card/older"
	touch -d '2020-01-01 00:00:00' "$SRC/card/newer"
	local newer same
	newer=$(ino "$STICK_MNT/card/newer") same=$(ino "$STICK_MNT/card/same")
	run -0 --separate-stderr safecp -r -u --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	cmp "$SRC/card/older" "$STICK_MNT/card/older"
	cmp "$SRC/card/sub/missing" "$STICK_MNT/card/sub/missing"
	! cmp -s "$SRC/card/newer" "$STICK_MNT/card/newer" || false
	[ "$(ino "$STICK_MNT/card/newer")" = "$newer" ]
	[ "$(ino "$STICK_MNT/card/same")" = "$same" ]
	jq -s -e 'last | .event == "done" and .files == 2' "$EV"
	jq -s -e '[.[] | select(.event == "file" and .state == "kept")] | length == 2' "$EV"
}

@test "-u onto FAT32 (times kept to 2 s): a rerun copies nothing" {
	stick_up --fs fat32 --size 64 --rate 0
	touch -d '2024-05-05 10:00:01.700000000' "$SRC/card/older" "$SRC/card/newer" \
		"$SRC/card/same" "$SRC/card/sub/missing"
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	run -0 --separate-stderr safecp -r -u --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	jq -s -e 'last | .event == "done" and .files == 0 and .bytes_on_device == 0' "$EV"
}

@test "-x: a directory on another filesystem inside the source is copied empty" {
	stick_up --size 32 --rate 0
	INNER=$SRC/card/inner
	mkdir "$INNER"
	mount -t tmpfs -o size=1m tmpfs "$INNER"
	make_file "$INNER/on-tmpfs" 3000
	run -0 safecp -r -x "$SRC/card" "$STICK_MNT"
	[ -d "$STICK_MNT/card/inner" ]
	[ -z "$(ls -A "$STICK_MNT/card/inner")" ]
	cmp "$SRC/card/older" "$STICK_MNT/card/older"
	rm -r "${STICK_MNT:?}/card"
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	cmp "$INNER/on-tmpfs" "$STICK_MNT/card/inner/on-tmpfs"
}
