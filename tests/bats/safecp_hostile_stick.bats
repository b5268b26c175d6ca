#!/usr/bin/env bats
# tests/bats/safecp_hostile_stick.bats: a stick whose filesystem someone else prepared
# (audit turn 3, H2). An exFAT volume carries its own up-case table, and exfat-fuse
# compares names through it; a table that folds the digits '1'..'9' onto '0'
# (tests/tools/exfat_upcase_fold.py, fsck.exfat still calls it clean) makes IMG_0001.JPG
# and IMG_0002.JPG one name, which the plan's fixed model of case folding cannot know.
# A name the plan saw free must then never replace anything: each clash is a per-file
# error naming both files (exit 1), the file already there keeps its bytes, and the
# checksum list and the ASC MHL manifest list only what is on the stick.

load helpers
load safecp_common

setup() {
	require_root
	require_tool safecp
	require_cmd mount.exfat-fuse
	require_cmd python3
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/DCIM"
}

# hostile_exfat [FROM TO]: a 64 MiB exFAT stick whose up-case table folds FROM onto TO
# (default: the digits onto '0'), patched in the image before its first mount.
hostile_exfat() {
	stick_up --fs exfat --rate 0 --size 64 --no-mount
	python3 "$SAFECP_SRC/tests/tools/exfat_upcase_fold.py" "$STICK_IMG" "$@"
	# a new loop device (no cache of the old table), mounted, fsck -n, mounted again
	stick_reattach "$STICK_ID"
	echo "fsck: $STICK_FSCK_OUT"
	[[ $STICK_FSCK_RC == 0 ]]
}

# assert_only_first NAME...: of the names given, only the first is on the stick (in
# DCIM's listing), with the source's bytes.
assert_only_first() {
	local listed
	listed=$(ls "$STICK_MNT/DCIM")
	echo "on the stick: $listed"
	[[ $listed == "$1" ]]
	cmp "$SRC/DCIM/$1" "$STICK_MNT/DCIM/$1"
}

# assert_lists_only NAME: the --sums list and the ASC MHL manifest (ascmhl/ at the
# destination) name DCIM/NAME and no other photo.
assert_lists_only() {
	local list=$STICK_MNT/sums.xxh128 mhl
	cat "$list"
	[[ $(grep -c 'IMG_' "$list") == 1 ]]
	grep -q "DCIM/$1\$" "$list"
	(cd "$STICK_MNT" && xxhsum --strict -c sums.xxh128)
	mhl=$(find "$STICK_MNT" -path '*/ascmhl/*.mhl')
	[[ $(wc -l <<<"$mhl") == 1 ]]
	grep -o '<path[^>]*>[^<]*</path>' "$mhl"
	[[ $(grep -c '<path[^>]*>[^<]*IMG_' "$mhl") == 1 ]]
	grep -q "<path[^>]*>DCIM/$1</path>" "$mhl"
}

@test "exfat, digits folded by the volume's up-case table: large files never replace each other" {
	local i
	hostile_exfat
	# each larger than the window: a batch of its own, named alone
	for i in 1 2 3 4 5; do head -c $((3000000 + i)) /dev/urandom >"$SRC/DCIM/IMG_000$i.JPG"; done
	run -1 --separate-stderr safecp -r --window=1M --mhl --sums="$STICK_MNT/sums" \
		--progress=json "$SRC/DCIM" "$STICK_MNT"/
	printf 'stderr: %s\n' "$stderr"
	for i in 2 3 4 5; do
		[[ $stderr == *"cannot copy '$SRC/DCIM/IMG_000$i.JPG' to '$STICK_MNT/DCIM/IMG_000$i.JPG':"*"the same as '$STICK_MNT/DCIM/IMG_0001.JPG', which is kept"*"rename one, or use another stick"* ]]
	done
	[[ $(jq -s '[.[] | select(.event == "error" and .step == "name-clash")] | length' <<<"$output") == 4 ]]
	[[ $(jq -s '.[] | select(.event == "done") | .errors' <<<"$output") == 4 ]]
	assert_only_first IMG_0001.JPG
	assert_lists_only IMG_0001.JPG
	assert_no_temporaries "$STICK_MNT"
}

@test "exfat, digits folded: with --verify too, nothing is replaced and the lists hold only what is there" {
	local i
	hostile_exfat
	for i in 1 2 3; do head -c $((3000000 + i)) /dev/urandom >"$SRC/DCIM/IMG_000$i.JPG"; done
	run -1 --separate-stderr safecp -r --window=1M --verify --mhl --sums="$STICK_MNT/sums" \
		"$SRC/DCIM" "$STICK_MNT"/
	printf 'stderr: %s\n' "$stderr"
	[[ $stderr == *"'$STICK_MNT/DCIM/IMG_0003.JPG':"*"the same as '$STICK_MNT/DCIM/IMG_0001.JPG'"* ]]
	[[ $stderr != *"read back"* ]]
	assert_only_first IMG_0001.JPG
	assert_lists_only IMG_0001.JPG
}

@test "exfat, 'K' folded onto 'J': small files that share a batch never replace each other" {
	hostile_exfat K J
	echo "the first photo" >"$SRC/DCIM/IMG_J.JPG"
	echo "the second photo, which the stick calls the same" >"$SRC/DCIM/IMG_K.JPG"
	echo "a third, named apart" >"$SRC/DCIM/IMG_X.JPG"
	run -1 --separate-stderr safecp -r --mhl --sums="$STICK_MNT/sums" "$SRC/DCIM" "$STICK_MNT"/
	printf 'stderr: %s\n' "$stderr"
	[[ $stderr == *"cannot copy '$SRC/DCIM/IMG_K.JPG' to '$STICK_MNT/DCIM/IMG_K.JPG':"*"the same as '$STICK_MNT/DCIM/IMG_J.JPG', which is kept"* ]]
	[[ $(ls "$STICK_MNT/DCIM" | grep -c IMG_) == 2 ]]
	cmp "$SRC/DCIM/IMG_J.JPG" "$STICK_MNT/DCIM/IMG_J.JPG"
	cmp "$SRC/DCIM/IMG_X.JPG" "$STICK_MNT/DCIM/IMG_X.JPG"
	grep -q 'DCIM/IMG_X.JPG$' "$STICK_MNT/sums.xxh128"
	grep -q 'DCIM/IMG_J.JPG$' "$STICK_MNT/sums.xxh128"
	run ! grep 'IMG_K' "$STICK_MNT/sums.xxh128" "$STICK_MNT"/ascmhl/*.mhl
	grep -q '>DCIM/IMG_X.JPG</path>' "$STICK_MNT"/ascmhl/*.mhl
	assert_no_temporaries "$STICK_MNT"
}

# appeared_kept FS: a file made under the destination name while safecp is paused just
# before it names its copy (the plan found none there) is not replaced, and the copy of
# the other file goes on. ext4 names an unnamed (O_TMPFILE) file with linkat; exfat-fuse
# renames a temporary, without RENAME_NOREPLACE.
appeared_kept() {
	require_hooks
	stick_up --fs "$1" --rate 0 --size 64
	echo "safecp's copy" >"$SRC/DCIM/new.txt"
	echo "another file" >"$SRC/DCIM/other.txt"
	mkdir "$STICK_MNT/DCIM"
	SAFECP_TEST_PAUSE=publish:/DCIM/new.txt safecp -r "$SRC/DCIM" "$STICK_MNT"/ \
		>"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	local pid=$! rc=0
	wait_paused "$pid" || { kill -9 "$pid"; wait "$pid"; cat "$BATS_TEST_TMPDIR/out"; return 1; }
	echo "made while the copy ran" >"$STICK_MNT/DCIM/new.txt"
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	((rc == 1))
	grep -q "cannot copy '$SRC/DCIM/new.txt' to '$STICK_MNT/DCIM/new.txt': a file appeared there during the copy (the plan found none) and is not replaced" "$BATS_TEST_TMPDIR/out"
	echo "made while the copy ran" | cmp - "$STICK_MNT/DCIM/new.txt"
	cmp "$SRC/DCIM/other.txt" "$STICK_MNT/DCIM/other.txt"
	assert_no_temporaries "$STICK_MNT"
}

@test "ext4: a file that appears under a name the plan saw free is not replaced (exit 1)" {
	appeared_kept ext4
}

@test "exfat: a file that appears under a name the plan saw free is not replaced (exit 1)" {
	appeared_kept exfat
}
