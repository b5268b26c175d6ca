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
	mkdir "$SRC/t"
	make_file "$SRC/t/a" $((3 * MIB + 5))
	make_file "$SRC/t/b" 70000
	paused_at_first_name fat32
	fat_readback "$SRC/t" /t
}

@test "4 GiB is one byte past FAT32's largest file: refused before the first byte; 4 GiB - 1 only for space" {
	stick_up --fs fat32 --size 64 --rate 0
	truncate -s $((4 * 1024 * MIB)) "$SRC/huge"
	truncate -s $((4 * 1024 * MIB - 1)) "$SRC/max"
	local before
	before=$(disk_written_bytes "$STICK_MAJMIN")
	run -2 safecp "$SRC/huge" "$STICK_MNT"/
	echo "$output"
	[[ $output == *"'$SRC/huge' is 4.00 GiB, more than one file can hold on '$STICK_MNT'"*"(at most 4294967295 bytes)"* ]]
	run -2 safecp "$SRC/max" "$STICK_MNT"/
	echo "$output"
	# the largest file FAT32 holds is refused for the space it needs, not for its size
	[[ $output != *"more than one file can hold"* && $output == *"need 4.00 GiB, only"* ]]
	[[ $(disk_written_bytes "$STICK_MAJMIN") == "$before" ]]
	[[ -z $(ls -A "$STICK_MNT") ]]
	mkdir "$SRC/none"
	fat_readback "$SRC/none" ""
}

@test "no symlinks on FAT32: the dry run warns, the copy says to use -L, exit 1" {
	stick_up --fs fat32 --size 64 --rate 0
	symlinks_refused
	# on the image: t/f, and u/f and u/l, both the file's bytes
	mkdir -p "$SRC/want/t" "$SRC/want/u"
	cp "$SRC/t/f" "$SRC/want/t/f"
	cp "$SRC/t/f" "$SRC/want/u/f"
	cp "$SRC/t/f" "$SRC/want/u/l"
	fat_readback "$SRC/want" ""
}

@test "fusefat cannot hold a name outside ASCII (a rename to one loses the file): refused before the first byte; --rename-invalid writes '_'" {
	stick_up --fs fat32 --size 64 --rate 0
	mkdir "$SRC/t"
	make_file "$SRC/t/$(printf 'caf\xc3\xa9 \xe2\x82\xac.jpg')" 1000
	make_file "$SRC/t/ok.jpg" 2000
	local before
	before=$(disk_written_bytes "$STICK_MAJMIN")
	run -2 safecp -r "$SRC/t" "$STICK_MNT"/
	echo "$output"
	[[ $output == *"fusefat cannot create a FAT name with a character outside ASCII (byte 0xc3), and a rename to one loses the file"* ]]
	[[ $output == *"--rename-invalid"* ]]
	[[ $(disk_written_bytes "$STICK_MAJMIN") == "$before" ]]
	[[ -z $(ls -A "$STICK_MNT") ]]
	run -0 safecp -r --rename-invalid "$SRC/t" "$STICK_MNT"/
	echo "$output"
	cmp "$SRC/t/$(printf 'caf\xc3\xa9 \xe2\x82\xac.jpg')" "$STICK_MNT/t/caf_ _.jpg"
	cmp "$SRC/t/ok.jpg" "$STICK_MNT/t/ok.jpg"
	mkdir "$BATS_TEST_TMPDIR/want"
	cp -p "$SRC/t/ok.jpg" "$BATS_TEST_TMPDIR/want/"
	cp -p "$SRC/t/$(printf 'caf\xc3\xa9 \xe2\x82\xac.jpg')" "$BATS_TEST_TMPDIR/want/caf_ _.jpg"
	fat_readback "$BATS_TEST_TMPDIR/want" /t
}

@test "no modes on FAT32: -p keeps them where it can, so one note, and the files get fusefat's; without -p no note" {
	stick_up --fs fat32 --size 64 --rate 0
	mkdir "$SRC/t"
	make_file "$SRC/t/a" 1000
	make_file "$SRC/t/b" 2000
	chmod 0600 "$SRC/t/a"
	chmod 0755 "$SRC/t/b"
	run -0 --separate-stderr safecp -r -v "$SRC/t" "$STICK_MNT"/
	echo "$stderr"
	# cp's default sets no mode it was not asked to keep: nothing to say
	[[ $stderr != *"does not store"* ]]
	rm -rf "${STICK_MNT:?}/t"
	run -0 --separate-stderr safecp -r -v -p "$SRC/t" "$STICK_MNT"/
	echo "$stderr"
	[ "$(grep -c 'this filesystem does not store owners, file modes' <<<"$stderr")" = 1 ]
	# -v says why the device itself is synced
	[[ $output == *"strategy: sync-window"*"its fsync may write nothing (fusefat's does not)"* ]]
	# fusefat shows every file as the same mode, whatever the source had
	[ "$(stat -c %a "$STICK_MNT/t/a")" = "$(stat -c %a "$STICK_MNT/t/b")" ]
	fat_readback "$SRC/t" /t
}

@test "FAT32 keeps mtimes in 2 s steps: an odd second is stored even, and a rerun finds the copy identical" {
	stick_up --fs fat32 --size 64 --rate 0
	mkdir "$SRC/t"
	make_file "$SRC/t/odd" 3000
	make_file "$SRC/t/even" 3000
	touch -d '2021-06-07 08:09:11.700000000' "$SRC/t/odd"
	touch -d '2021-06-07 08:09:12.000000000' "$SRC/t/even"
	run -0 safecp -r "$SRC/t" "$STICK_MNT"/
	# past fusefat's attribute cache (1 s): what the directory entry holds
	sleep 1.1
	[ "$(stat -c %Y "$STICK_MNT/t/odd")" = "$(date -d '2021-06-07 08:09:10' +%s)" ]
	[ "$(stat -c %Y "$STICK_MNT/t/even")" = "$(date -d '2021-06-07 08:09:12' +%s)" ]
	local before
	before=$(disk_written_bytes "$STICK_MAJMIN")
	run -0 --separate-stderr safecp -r --skip-identical --progress=json "$SRC/t" "$STICK_MNT"/
	jq -s -e 'last | .event == "done" and .skipped_identical == 2' <<<"$output"
	fat_readback "$SRC/t" /t
}

# A 300 MiB FAT32 has 4 KiB clusters (fusefat's statfs says 1 KiB blocks): files that fit
# by their bytes but not by their clusters are refused before the first byte.
@test "the space check rounds to FAT32's clusters: 32 one-byte files do not fit in 64 KiB" {
	stick_up --fs fat32 --size 300 --rate 0
	local free before
	# what is free, as mtools reads it from the FAT (not from fusefat)
	free=$(MTOOLS_SKIP_CHECK=1 mdir -i "$STICK_DEV" :: 2>/dev/null | awk '/bytes free/ { gsub(/[^0-9]/, ""); print }')
	[[ $(MTOOLS_SKIP_CHECK=1 minfo -i "$STICK_DEV" :: 2>/dev/null) == *"cluster size: 8 sectors"* ]]
	echo "free: $free"
	mkdir -p "$SRC/t/s"
	truncate -s $((free - 64 * 1024)) "$SRC/t/big"
	local i
	for i in $(seq 1 32); do echo >"$SRC/t/s/$i"; done
	before=$(disk_written_bytes "$STICK_MAJMIN")
	run -2 safecp -r "$SRC/t" "$STICK_MNT"/
	echo "$output"
	[[ $output == *"need "*", only "*" free on '$STICK_MNT'"* ]]
	[[ $(disk_written_bytes "$STICK_MAJMIN") == "$before" ]]
	# eight of them do fit: 32 KiB of clusters
	rm "$SRC"/t/s/{9..32}
	run -0 safecp -r --dry-run "$SRC/t" "$STICK_MNT"/
}
