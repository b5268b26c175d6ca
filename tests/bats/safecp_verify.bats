#!/usr/bin/env bats
# tests/bats/safecp_verify.bats: --verify reads every file back from the device before
# it gets its name.
# - a stick that stores a byte wrong (tests/faultdev flip-write: the write is reported
#   done, the device holds something else) is caught on ext4 (O_DIRECT read-back) and on
#   the FUSE daemons exfat-fuse, fusefat and ntfs-3g (the device's page cache dropped and
#   proved empty): that file is not
#   under its name, the error names it and the device, the others are copied, exit 4;
#   without --verify the same stick leaves a damaged file (the fault is real);
# - with several destinations only the bad one reports it;
# - a clean copy counts every byte verified, never more than the device confirmed.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	[[ -x $SAFECP_BUILD/tests/faultdev ]] ||
		skip "needs $SAFECP_BUILD/tests/faultdev (built when libfuse3-dev is installed)"
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/c/sub"
	make_file "$SRC/c/big.mov" $((3 * MIB + 5))
	make_file "$SRC/c/sub/a.jpg" 4097
	make_file "$SRC/c/sub/b.jpg" 20000
}

teardown() {
	stick_down_all
}

# flipped_copy FS [OPTION...]: a stick of FS that stores one large write wrong
flipped_copy() {
	stick_up --faulty --fs "$1" --size 64 --rate 0
	fault flip-write 65536
	run -4 --separate-stderr safecp -r --verify --progress=json "${@:2}" "$SRC/c" "$STICK_MNT"
	[[ $(ctl_get flipped_writes) == 1 ]]
	# that file is not under its name; the others are, whole
	[[ ! -e $STICK_MNT/c/big.mov ]]
	cmp "$SRC/c/sub/a.jpg" "$STICK_MNT/c/sub/a.jpg"
	cmp "$SRC/c/sub/b.jpg" "$STICK_MNT/c/sub/b.jpg"
	assert_no_temporaries "$STICK_MNT"
	# the error names the file and the device, and the JSON says verify
	echo "$stderr"
	[[ $stderr == *"the copy of '$STICK_MNT/c/big.mov' read back from the device ("*"$STICK_DISK) different from what was written"* ]]
	jq -s -e 'map(select(.event == "error" and .step == "verify")) | length == 1 and
		(.[0].path | endswith("/c/big.mov")) and .[0].fatal == false' <<<"$output"
	jq -s -e '.[-1] | .event == "done" and .files_mismatched == 1 and .files_verified == 2
		and .files == 2 and .verify_cache_bypassed == true' <<<"$output"
}

@test "ext4: a stick that stores a byte wrong: that file is not named, exit 4, the rest copied" {
	flipped_copy ext4
}

@test "ext4: a byte changed on the device under a clean page cache that holds the right bytes" {
	require_hooks
	stick_up --faulty --size 64 --rate 0
	mkdir "$SRC/m"
	{ head -c $((MIB + 7)) /dev/urandom; printf 'SAFECP-VERIFY-MARK-%s' "$RANDOM$RANDOM"
		head -c $MIB /dev/urandom; } >"$SRC/m/f"
	SAFECP_TEST_PAUSE=verify:/m/f safecp -r --verify --progress=json "$SRC/m" "$STICK_MNT" \
		>"$BATS_TEST_TMPDIR/ev" 2>"$BATS_TEST_TMPDIR/err" &
	local pid=$! n fd off
	wait_paused "$pid"
	# the durable copy, read once so that its pages are cached, clean and right
	for fd in /proc/"$pid"/fd/*; do
		[[ $(readlink "$fd") == "$STICK_MNT"/m/* ]] && cat "$fd" >/dev/null
	done
	# then one byte changes on the device underneath
	off=$(grep -obUaF "SAFECP-VERIFY-MARK-" "$STICK_IMG" | head -n 1 | cut -d: -f1)
	[[ -n $off ]]
	printf 'X' | dd of="$STICK_IMG" bs=1 seek="$off" conv=notrunc status=none
	kill -CONT "$pid"
	wait "$pid" || n=$?
	cat "$BATS_TEST_TMPDIR/err"
	[[ $n == 4 ]]
	[[ ! -e $STICK_MNT/m/f ]]
}

@test "exfat (FUSE): a stick that stores a byte wrong is caught past the device's page cache, exit 4" {
	flipped_copy exfat
}

@test "fat32 (fusefat): a stick that stores a byte wrong is caught past the device's page cache, exit 4" {
	require_cmd fusefat
	flipped_copy fat32
}

@test "ntfs (ntfs-3g): a stick that stores a byte wrong is caught past the device's page cache, exit 4" {
	require_cmd ntfs-3g
	flipped_copy ntfs
}

@test "without --verify the same fault leaves a damaged file under its name (the fault is real)" {
	stick_up --faulty --size 64 --rate 0
	fault flip-write 65536
	run -0 safecp -r "$SRC/c" "$STICK_MNT"
	[[ $(ctl_get flipped_writes) == 1 ]]
	# what the device holds, not the page cache
	drop_cached "$STICK_MNT/c"
	run -1 cmp "$SRC/c/big.mov" "$STICK_MNT/c/big.mov"
}

@test "two destinations, one stick stores a byte wrong: only that one reports it, exit 4" {
	stick_up --faulty --size 64 --rate 0
	BAD=$STICK_MNT BAD_CTL=$STICK_CTL
	stick_up --size 64 --rate 0
	GOOD=$STICK_MNT
	echo flip-write 65536 >"$BAD_CTL"
	run -4 --separate-stderr safecp -r --verify --progress=json "$SRC/c" -t "$BAD" -t "$GOOD"
	[[ ! -e $BAD/c/big.mov ]]
	cmp "$SRC/c/big.mov" "$GOOD/c/big.mov"
	jq -s -e --arg b "$BAD" --arg g "$GOOD" '.[-1].destinations as $d |
		($d[] | select(.dest == $b) | .files_mismatched == 1) and
		($d[] | select(.dest == $g) | .files_mismatched == 0 and .files_verified == 3)' <<<"$output"
}

@test "a clean copy: every byte verified, never ahead of what the device confirmed" {
	stick_up --size 64 --rate $((8 * MIB))
	run -0 --separate-stderr safecp -r --verify --progress=json "$SRC/c" "$STICK_MNT"
	jq -s -e '.[-1] | .files_verified == 3 and .bytes_verified == .bytes_total and
		.files_mismatched == 0' <<<"$output"
	jq -s -e 'map(select(.event == "progress") | .bytes_verified <= .bytes_on_device) | all' \
		<<<"$output"
	jq -s -e 'map(select(.event == "progress")) | length > 0' <<<"$output"
}

# counterfeit FS MODE: a 96 MiB stick with 48 MiB of flash that wraps or drops what is
# written past it; 66 MiB in 8 files, each its own commit (larger than a window).
counterfeit_copy() {
	stick_up --faulty --fs "$1" --size 96 --rate 0
	fault counterfeit $((48 * MIB)) "$2"
	mkdir "$SRC/s"
	for i in 1 2 3 4 5 6 7 8; do make_file "$SRC/s/b$i" $((8 * MIB + i)); done
	run -4 --separate-stderr safecp -r --verify --progress=json "$SRC/s" "$STICK_MNT"
	echo "$stderr"
	[[ $(ctl_get snapshot_taken) == 1 ]]
	jq -s -e '.[-1].files_mismatched > 0' <<<"$output"
	# whatever is under its name is whole on the device itself
	drop_cached "$STICK_MNT/s"
	local f n=0
	for f in "$STICK_MNT"/s/*; do
		[[ -e $f ]] || continue
		cmp "$SRC/s/${f##*/}" "$f"
		n=$((n + 1))
	done
	echo "$n of 8 files under their names, all whole"
	[[ $n -lt 8 ]]
	assert_no_temporaries "$STICK_MNT"
}

@test "ext4: a counterfeit stick that wraps: files a later write landed on are taken back from their names, exit 4" {
	counterfeit_copy ext4 wrap
	# some were caught only by the pass at the end
	jq -s -e 'map(select(.event == "file" and .state == "withdrawn")) | length > 0' <<<"$output"
}

@test "ext4: a counterfeit stick that drops: what was lost is not named, exit 4" {
	counterfeit_copy ext4 drop
}

# misread_card: a faulty stick as the camera card, holding m/f with a marker inside;
# the next read of the marker's byte comes back inverted (once); nothing of it cached.
misread_card() {
	stick_up --faulty --size 64 --rate 0
	CARD=$STICK_MNT CARD_CTL=$STICK_CTL
	mkdir "$CARD/m"
	{ head -c $((MIB + 11)) /dev/urandom; printf 'SAFECP-MISREAD-%s' "$RANDOM$RANDOM"
		head -c $MIB /dev/urandom; } >"$CARD/m/f"
	cp "$CARD/m/f" "$BATS_TEST_TMPDIR/truth"
	sync -f "$CARD"
	local off
	off=$(grep -obUaF "SAFECP-MISREAD-" "$STICK_IMG" | head -n 1 | cut -d: -f1)
	[[ -n $off ]]
	drop_cached "$CARD/m/f"
	echo "flip-read-once $off" >"$CARD_CTL"
	stick_up --size 64 --rate 0
	DEST=$STICK_MNT
}

@test "--verify=source: a card that misread once is caught by the second read, not copied, exit 4" {
	misread_card
	run -4 --separate-stderr safecp -r --verify=source --progress=json "$CARD/m" "$DEST"
	echo "$stderr"
	[[ $(awk '$1 == "flipped_reads" { print $2 }' "$CARD_CTL") == 1 ]]
	[[ ! -e $DEST/m/f ]]
	[[ $stderr == *"'$CARD/m/f' read a second time gave other bytes than the first read"* ]]
	jq -s -e 'map(select(.event == "error" and .step == "source-verify")) | length == 1' \
		<<<"$output"
}

@test "without =source, --verify names the misread copy: it matches what was written (the fault is real)" {
	misread_card
	run -0 safecp -r --verify "$CARD/m" "$DEST"
	[[ $(awk '$1 == "flipped_reads" { print $2 }' "$CARD_CTL") == 1 ]]
	run -1 cmp "$BATS_TEST_TMPDIR/truth" "$DEST/m/f"
}

@test "--verify takes no other value; a word after a bare --verify is an operand" {
	stick_up --size 64 --rate 0
	run -2 --separate-stderr safecp --verify=sauce "$SRC/c" "$STICK_MNT"
	[[ $stderr == *"unknown value 'sauce' for --verify"* ]]
	run -0 safecp -r --verify "$SRC/c" "$STICK_MNT"
	cmp "$SRC/c/big.mov" "$STICK_MNT/c/big.mov"
}

@test "a stick slower than the source: the ring's slots are reused while the copy verifies, and every file still matches" {
	stick_up --size 160 --rate $((32 * MIB))
	A=$STICK_MNT
	stick_up --size 160 --rate $((16 * MIB))
	B=$STICK_MNT
	mkdir "$SRC/r"
	for i in 1 2 3 4 5 6 7 8; do make_file "$SRC/r/f$i" $((8 * MIB + i)); done
	run -0 --separate-stderr safecp -r --verify --progress=json "$SRC/r" -t "$A" -t "$B"
	echo "$stderr"
	jq -s -e '.[-1].destinations | map(.files_verified == 8 and .files_mismatched == 0) | all' \
		<<<"$output"
}
