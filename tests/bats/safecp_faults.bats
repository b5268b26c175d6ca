#!/usr/bin/env bats
# tests/bats/safecp_faults.bats: safecp on a stick that really fails. The stick's loop
# device sits on tests/faultdev (stick_up --faulty), so ext4 and the FUSE daemons
# (exfat-fuse, fusefat, ntfs-3g) see real block-layer errors: EIO in the middle of a file and of a tree, a stick pulled in the
# middle (every request fails), a stick that turns read-only, a counterfeit stick that
# has less than it claims, a camera card with a bad sector as the source, a stick too
# small. (kill -9 at random instants: safecp_kill.bats.)
#
# Each test judges from the outside only (exit status, messages, JSON events) and then
# looks at the image afresh (stick_reattach: new loop device without faultdev, journal
# replayed, fsck, mounted again): no partial file under a final name, every file that
# safecp reported copied intact, the filesystem clean.
#
# Failures are armed by amount of data (fail-write-after) or once the device has taken
# some bytes, never after a delay, so no test depends on the machine's speed.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	[[ -x $SAFECP_BUILD/tests/faultdev ]] ||
		skip "needs $SAFECP_BUILD/tests/faultdev (built when libfuse3-dev is installed)"
	SRC=$BATS_TEST_TMPDIR/src
	EV=$BATS_TEST_TMPDIR/events
	ERR=$BATS_TEST_TMPDIR/err
	mkdir -p "$SRC/t"
}

teardown() {
	[[ -n ${SAFECP_PID-} ]] && { kill -9 "$SAFECP_PID" 2>/dev/null; wait "$SAFECP_PID" 2>/dev/null; }
	stick_down_all
}

# fs_words FS: how safecp names the filesystem in a message.
fs_words() {
	case $1 in
	exfat) echo "exfat (fuseblk)" ;;
	fat32) echo "vfat (fuseblk)" ;;
	ntfs) echo "ntfs (fuseblk)" ;;
	*) echo "$1" ;;
	esac
}

# fs_re FS: the same as an extended regular expression.
fs_re() {
	fs_words "$1" | sed 's/[()]/\\&/g'
}

written_at_least() {
	(($(ctl_get bytes_written) >= $1))
}

# start_copy ARGS...: safecp --progress=json ARGS in the background.
start_copy() {
	safecp --progress=json "$@" >"$EV" 2>"$ERR" &
	SAFECP_PID=$!
}

# wait_copy SECONDS: wait for the background safecp, at most SECONDS (a hang is a
# failure, not slowness: the limit is far above what any copy here takes); sets RC.
wait_copy() {
	local n
	for ((n = 0; n < $1 * 10; n++)); do
		kill -0 "$SAFECP_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$SAFECP_PID" 2>/dev/null; then
		echo "safecp still running after $1 s" >&2
		kill -9 "$SAFECP_PID"
	fi
	RC=0
	wait "$SAFECP_PID" || RC=$?
	SAFECP_PID=
	echo "safecp exit $RC; stderr:"
	cat "$ERR"
}

# fresh_look: the image as a new host would see it after the device is fixed; fsck
# must be clean (FSCK=warn only reports it: exfat has no journal to replay).
fresh_look() {
	[[ -n $STICK_CTL ]] && fault clear
	stick_reattach "$STICK_ID"
	if ((STICK_FSCK_RC != 0)); then
		echo "fsck of the image ($STICK_FS) exits $STICK_FSCK_RC: $STICK_FSCK_OUT" >&2
		[[ ${FSCK-} == warn ]] || return 1
	fi
}

# assert_finished_intact: every file the JSON events call finished is, on the (fresh)
# mount, equal to its source.
assert_finished_intact() {
	local src dst n=0
	while IFS=$'\t' read -r src dst; do
		cmp "$src" "$dst" || { echo "'$dst', reported copied, differs from '$src'" >&2; return 1; }
		n=$((n + 1))
	done < <(jq -r 'select(.event == "file" and .state == "finished" and .type == "file")
		| [.source, .dest] | @tsv' "$EV")
	echo "$n finished file(s) intact"
}

# assert_device_error FS ERRNO_TEXT: the copy stopped on a destination error naming a
# file under the stick and the device, in words and in JSON.
assert_device_error() {
	((RC == 1))
	grep -Eq "^safecp: cannot [a-z ]+ '$STICK_MNT/[^']*' \($(fs_re "$1") on $STICK_DISK\): ($2)" "$ERR"
	grep -q "^safecp: stopped: [0-9]* files\{0,1\} copied before the error" "$ERR"
	jq -s -e 'map(select(.event == "error")) | length >= 1 and all(.fatal)' "$EV" >/dev/null
	jq -s -e 'last | .event == "stopped"' "$EV" >/dev/null
	# what safecp counted as copied is what it announced as finished
	jq -s -e '(last.files) == (map(select(.event == "file" and .state == "finished"
		and (.type == "file" or .type == "symlink"))) | length)' "$EV" >/dev/null
	assert_no_temporaries "$STICK_MNT"
}

# after_failure: the fresh image holds only complete files under final names; a named
# temporary may remain where the device failed before its removal reached it (the next
# copy removes it).
after_failure() {
	fresh_look
	assert_final_names_complete "$SRC" "$STICK_MNT"
	assert_finished_intact
	local left
	left=$(temporaries "$STICK_MNT")
	[[ -z $left ]] || echo "left on the image for the next copy to remove: $left"
}

# ---------------------------------------------------------------------------- EIO

eio_mid_file() {
	stick_up --faulty --fs "$1" --size 64 --rate 0
	make_file "$SRC/t/big" $((12 * MIB + 5))
	fault fail-write-after $((4 * MIB))
	start_copy -r "$SRC/t" "$STICK_MNT"/
	wait_copy 60
	assert_device_error "$1" "Input/output error"
	grep -q "'$STICK_MNT/t/big'" "$ERR"
	(($(ctl_get failed_writes) > 0))
	after_failure
	[[ ! -e $STICK_MNT/t/big ]]
}

@test "ext4: EIO in the middle of a file: exit 1, file and device named, no partial file" {
	eio_mid_file ext4
}

@test "exfat: EIO in the middle of a file: exit 1, file and device named, no partial file" {
	eio_mid_file exfat
}

@test "fat32: EIO in the middle of a file: exit 1, file and device named, no partial file" {
	require_cmd fusefat
	eio_mid_file fat32
}

@test "ntfs: EIO in the middle of a file: exit 1, file and device named, no partial file" {
	require_cmd ntfs-3g
	eio_mid_file ntfs
}

# Files larger than a window (8.4 MiB here) are committed one by one, so the first
# ones are finished before the device fails in the third.
eio_mid_tree() {
	local i
	stick_up --faulty --fs "$1" --size 64 --rate 0
	for i in 1 2 3 4; do make_file "$SRC/t/f$i" $((9 * MIB + i)); done
	mkdir "$SRC/t/d"
	for i in 1 2 3; do make_file "$SRC/t/d/s$i" $((1000 * i)); done
	fault fail-write-after $((24 * MIB))
	start_copy -r "$SRC/t" "$STICK_MNT"/
	wait_copy 60
	assert_device_error "$1" "Input/output error"
	after_failure
	# some made it before the failure, not everything
	jq -s -e 'map(select(.event == "file" and .state == "finished")) | length >= 1' "$EV" >/dev/null
	[[ ! -e $STICK_MNT/t/f4 ]]
}

@test "ext4: EIO in the middle of a tree: exit 1, finished files intact on the image" {
	eio_mid_tree ext4
}

@test "exfat: EIO in the middle of a tree: exit 1, finished files intact on the image" {
	eio_mid_tree exfat
}

@test "fat32: EIO in the middle of a tree: exit 1, finished files intact on the image" {
	require_cmd fusefat
	eio_mid_tree fat32
}

@test "ntfs: EIO in the middle of a tree: exit 1, finished files intact on the image" {
	require_cmd ntfs-3g
	eio_mid_tree ntfs
}

# ---------------------------------------------------------------------------- pulled

# fault_mid_copy FS COMMAND: a throttled copy of a tree; COMMAND once the device has
# taken 4 MiB of it (the counter includes what mkfs wrote).
fault_mid_copy() {
	local i
	stick_up --faulty --fs "$1" --size 64 --rate $((4 * MIB))
	for i in 1 2 3 4 5 6; do make_file "$SRC/t/f$i" $((3 * MIB + i)); done
	local base
	base=$(ctl_get bytes_written)
	start_copy -r "$SRC/t" "$STICK_MNT"/
	wait_for 60 written_at_least $((base + 4 * MIB))
	fault "$2"
}

vanish() {
	fault_mid_copy "$1" vanish
	# a pulled stick must not hang the copy: 30 s is the bound the issue sets
	wait_copy 30
	((RC != 0))
	grep -q "$STICK_DISK" "$ERR"
	grep -Eq "^safecp: .*: Input/output error" "$ERR"
	jq -s -e 'map(select(.event == "error")) | length >= 1' "$EV" >/dev/null
	(($(ctl_get failed_writes) > 0))
	# plugged in again: no partial file; with a journal, a clean filesystem
	[[ $1 == ext4 ]] || local FSCK=warn
	after_failure
}

@test "ext4: the stick pulled mid-copy: exit 1 within 30 s naming the device; no partial file after" {
	vanish ext4
}

@test "exfat: the stick pulled mid-copy: exit 1 within 30 s naming the device; no partial file after" {
	vanish exfat
}

@test "fat32: the stick pulled mid-copy: exit 1 within 30 s naming the device; no partial file after" {
	require_cmd fusefat
	vanish fat32
}

@test "ntfs: the stick pulled mid-copy: exit 1 within 30 s naming the device; no partial file after" {
	require_cmd ntfs-3g
	vanish ntfs
}

# With a journal, a small file is put under its name as soon as its data is on the device,
# before its batch commits. Another process fsyncs the directory meanwhile, which makes
# those names durable between our commits (xfs forces its log that far, without waiting
# for anyone's data); then the stick goes. Every name on the image must hold its whole
# file. xfs, because ext4's ordered mode would write a named file's data at its journal
# commit even if safecp named it too soon; xfs logs the size only when the data is written.
vanish_small_files() {
	local i base n
	stick_up --faulty --fs "$1" --size "$2" --rate $((2 * MIB))
	mkdir -p "$SRC/t/s"
	for ((i = 0; i < 400; i++)); do make_file "$SRC/t/s/f$i" $((4096 + i * 61)); done
	base=$(ctl_get bytes_written)
	start_copy -r "$SRC/t" "$STICK_MNT"/
	for ((i = 0; i < 5; i++)); do
		sleep 0.15
		sync "$STICK_MNT/t/s" 2>/dev/null || true
	done
	wait_for 60 written_at_least $((base + 2 * MIB))
	fault vanish
	wait_copy 30
	((RC != 0))
	after_failure
	# not vacuous: the syncs made some names durable before the pull
	n=$(find "$STICK_MNT/t" -type f | wc -l)
	echo "$n of 400 files under their names on the image"
	((n > 0 && n < 400))
}

@test "xfs: the stick pulled mid-copy of small files named before their commit: each name on the image whole" {
	vanish_small_files xfs 320
}

readonly_mid_copy() {
	fault_mid_copy "$1" readonly
	wait_copy 60
	# the block layer reports a refused write as an I/O error
	assert_device_error "$1" "Input/output error|Read-only file system"
	[[ $1 == ext4 ]] || local FSCK=warn
	after_failure
}

@test "ext4: the stick turns read-only mid-copy: exit 1, named; no partial file" {
	readonly_mid_copy ext4
}

@test "exfat: the stick turns read-only mid-copy: exit 1, named; no partial file" {
	readonly_mid_copy exfat
}

@test "fat32: the stick turns read-only mid-copy: exit 1, named; no partial file" {
	require_cmd fusefat
	readonly_mid_copy fat32
}

@test "ntfs: the stick turns read-only mid-copy: exit 1, named; no partial file" {
	require_cmd ntfs-3g
	readonly_mid_copy ntfs
}

# ---------------------------------------------------------------------------- space

# tiny_stick FS [MIB]: a stick of MIB (16) and a file 4 MiB larger.
tiny_stick() {
	local size=${2:-16}
	stick_up --fs "$1" --size "$size" --rate 0
	make_file "$SRC/t/big" $(((size + 4) * MIB))
	make_file "$SRC/t/small" 1000
	local before
	before=$(disk_written_bytes "$STICK_MAJMIN")
	run -2 safecp -r "$SRC/t" "$STICK_MNT"/
	echo "$output"
	grep -Eq "^safecp: need $((size + 4))\.0 MiB, only [0-9.]+ [KM]iB free on '$STICK_MNT' \($(fs_re "$1") on $STICK_DISK\)" <<<"$output"
	[[ ! -e $STICK_MNT/t ]]
	[[ $(disk_written_bytes "$STICK_MAJMIN") == "$before" ]]
}

@test "ext4: a stick too small: exit 2 before the first byte, named" {
	tiny_stick ext4
}

@test "exfat: a stick too small: exit 2 before the first byte, named" {
	tiny_stick exfat
}

@test "fat32: a stick too small: exit 2 before the first byte, named" {
	require_cmd fusefat
	tiny_stick fat32 41 # FAT32's smallest here
}

@test "ntfs: a stick too small: exit 2 before the first byte, named" {
	require_cmd ntfs-3g
	tiny_stick ntfs
}

# ---------------------------------------------------------------------------- counterfeit

# A 96 MiB stick that has 48 MiB: a first copy that fits is durable when safecp exits 0;
# a second one runs past the real size, where writes are lost. The device is copied at
# its first write past the real size: the first copy must be whole in that snapshot.
# What the second copy lost safecp cannot know without reading back (it is reported).
counterfeit() {
	local i
	stick_up --faulty --fs "$1" --size 96 --rate 0
	fault counterfeit $((48 * MIB)) drop
	mkdir -p "$SRC/first" "$SRC/second"
	for i in 1 2 3 4; do make_file "$SRC/first/a$i" $((MIB + i)); done
	for i in 1 2 3 4 5 6 7 8; do make_file "$SRC/second/b$i" $((8 * MIB + i)); done
	run -0 safecp -r "$SRC/first" "$STICK_MNT"/
	# the first copy stayed within what the stick has
	[[ $(ctl_get snapshot_taken) == 0 ]]
	run safecp -r "$SRC/second" "$STICK_MNT"/
	echo "second copy, past the real size: exit $status: $output"
	[[ $(ctl_get snapshot_taken) == 1 ]]
	echo "writes dropped: $(ctl_get dropped_writes) bytes"
	# the snapshot: what the device held whole
	local FSCK
	[[ $1 == ext4 ]] || FSCK=warn
	fault clear
	stick_reattach "$STICK_ID" "$STICK_SNAPSHOT"
	((STICK_FSCK_RC == 0)) || { echo "fsck of the snapshot: $STICK_FSCK_OUT"; [[ $FSCK == warn ]]; }
	for i in 1 2 3 4; do cmp "$SRC/first/a$i" "$STICK_MNT/first/a$i"; done
	# the image after the second copy, for the record
	stick_reattach "$STICK_ID"
	local lost=0
	for i in 1 2 3 4 5 6 7 8; do cmp -s "$SRC/second/b$i" "$STICK_MNT/second/b$i" || lost=$((lost + 1)); done
	echo "second copy: $lost of 8 files damaged on the image (fsck exit $STICK_FSCK_RC)"
}

@test "ext4: counterfeit capacity: what safecp called durable is whole at the first write past the real size" {
	counterfeit ext4
}

@test "exfat: counterfeit capacity: what safecp called durable is whole at the first write past the real size" {
	counterfeit exfat
}

@test "fat32: counterfeit capacity: what safecp called durable is whole at the first write past the real size" {
	require_cmd fusefat
	counterfeit fat32
}

# Not on ntfs: there the first copy of 4 MiB already writes past 48 MiB of the 96
# (NTFS's own layout), so the test's premise does not hold.

# ---------------------------------------------------------------------------- source

# A camera card with a bad sector: the card is the faulty stick, the file over the bad
# sector is found in the image by a marker; the destination is a plain stick.
source_eio() {
	local i off card
	stick_up --faulty --fs "$1" --size 64 --rate 0
	card=$STICK_MNT
	mkdir -p "$card/DCIM"
	# (IMG_0003 is written once: fusefat cannot write a file again after O_TRUNC)
	for i in 1 2 4 5; do make_file "$card/DCIM/IMG_000$i.JPG" $((700 * 1024 + i)); done
	# the bad file: a marker half-way in, to find its data on the device; 512 KiB from
	# either neighbour, beyond the disk's readahead (128 KiB), whose failure would fail
	# a neighbour's read too (the whole bio fails, as on real disks)
	{ head -c $((512 * 1024)) /dev/urandom; printf 'SAFECP-BAD-SECTOR-%s' "$BATS_TEST_NUMBER$RANDOM"
		head -c $((512 * 1024)) /dev/urandom; } >"$card/DCIM/IMG_0003.JPG"
	# exfat-fuse writes through the disk's page cache: flush that too
	sync -f "$card"
	sync "$STICK_DISK"
	off=$(grep -obUaF "SAFECP-BAD-SECTOR-" "$STICK_IMG" | head -n 1 | cut -d: -f1)
	[[ -n $off ]]
	fault fail-read $((off / 4096 * 4096)) 4096
	# nothing of the card may come from the page cache
	for i in "$card"/DCIM/*; do dd if="$i" iflag=nocache count=0 status=none; done
	blockdev --flushbufs "$STICK_DISK"
	local card_id=$STICK_ID card_disk=$STICK_DISK
	stick_up --fs ext4 --size 64 --rate 0
	safecp -r --progress=json "$card/DCIM" "$STICK_MNT"/ >"$EV" 2>"$ERR" && RC=0 || RC=$?
	cat "$ERR"
	((RC == 1))
	# fusefat answers every failure with -1: EPERM, whatever the device said
	local why="Input/output error"
	[[ $1 == fat32 ]] && why="Operation not permitted"
	grep -q "^safecp: cannot read '$card/DCIM/IMG_0003.JPG': $why" "$ERR"
	jq -s -e --arg p "$card/DCIM/IMG_0003.JPG" 'map(select(.event == "error"))
		| length == 1 and .[0].step == "read" and .[0].path == $p and (.[0].fatal | not)' "$EV" >/dev/null
	jq -s -e 'last | .event == "done" and .errors == 1 and .files == 4' "$EV" >/dev/null
	[[ ! -e $STICK_MNT/DCIM/IMG_0003.JPG ]]
	for i in 1 2 4 5; do cmp "$card/DCIM/IMG_000$i.JPG" "$STICK_MNT/DCIM/IMG_000$i.JPG"; done
	assert_no_temporaries "$STICK_MNT"
	echo "card $card_id ($card_disk): $(stick_load "$card_id" && ctl_get failed_reads) failed read(s)"
}

@test "ext4: a card with a bad sector as source: that file reported, the rest copied, exit 1" {
	source_eio ext4
}

@test "exfat: a card with a bad sector as source: that file reported, the rest copied, exit 1" {
	source_eio exfat
}

@test "fat32: a card with a bad sector as source: that file reported, the rest copied, exit 1" {
	require_cmd fusefat
	source_eio fat32
}

@test "ntfs: a card with a bad sector as source: that file reported, the rest copied, exit 1" {
	require_cmd ntfs-3g
	source_eio ntfs
}

@test "ext4: a source that changes mid-copy is not published, exit 1, JSON event changed" {
	# the reader is at most its ring (3 chunks of at most 4.2 MiB) ahead of what the
	# device confirmed, so at the first confirmed byte it is far from the end of 32 MiB
	stick_up --fs ext4 --size 64 --rate $((8 * MIB))
	make_file "$SRC/t/grows" $((32 * MIB))
	make_file "$SRC/t/stays" 1000
	start_copy -r "$SRC/t" "$STICK_MNT"/
	wait_for 60 json_has_confirmed "$EV"
	head -c 4096 /dev/urandom >>"$SRC/t/grows"
	wait_copy 60
	((RC == 1))
	grep -q "'$SRC/t/grows'" "$ERR"
	jq -s -e 'map(select(.event == "changed")) | length == 1' "$EV"
	[[ ! -e $STICK_MNT/t/grows ]]
	cmp "$SRC/t/stays" "$STICK_MNT/t/stays"
	# the rerun publishes the now unchanging file; it needs no slow stick for that
	stick_throttle "$STICK_ID" 0
	run -0 safecp -r "$SRC/t" "$STICK_MNT"/
	cmp "$SRC/t/grows" "$STICK_MNT/t/grows"
}
