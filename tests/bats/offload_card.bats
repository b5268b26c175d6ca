#!/usr/bin/env bats
# tests/bats/offload_card.bats: examples/offload-card, the camera-card offload, from the
# outside: a read-throttled simulated card (ext4, a label with a space) and two
# simulated sticks (ext4 and exfat-fuse).
# - a full run: both sticks get the whole card tree (DCIM, PRIVATE, XDROOT) in
#   STICK/<date>/<label>/, the lists pass xxhsum -c, the card's UUID is recorded, the
#   card got no write, both sticks are called safe to remove and the card erasable;
# - kill -9 of the script and its safecp mid-copy, then a rerun "the next day"
#   (OFFLOAD_TODAY) that resumes in the first day's folder and copies only what was
#   missing (files already there keep their inodes);
# - a stick that stores a byte wrong: that stick is named as failed, the card must not
#   be erased, exit 1;
# - usage and refusals (exit 2) before anything is written.
# tests/run: alone: the card is found by blkid, which reads every block device, other
# suites' failing and vanishing sticks too

load helpers
load safecp_common

OFFLOAD=$SAFECP_SRC/examples/offload-card
LABEL="EOS DIGITAL"
DAY1=2026-05-01
DAY2=2026-05-02
# make_card's tree: 6 photos of 1 MiB and a few bytes, a 4 KiB one, 3 MiB and 2 MiB of
# video, as the ending names it
CARD_SIZE="11.0 MiB in 9 files"

setup() {
	require_tool safecp
	require_tool safeunmount
	require_root
	require_cmd jq
	require_cmd xxhsum
	CARD_AT=$BATS_TEST_TMPDIR/card
	SRC=$BATS_TEST_TMPDIR/src
}

# The script's card mount (left behind by a killed run) goes before the card stick.
teardown() {
	if [[ -n ${PGID-} ]]; then kill -9 -- "-$PGID" 2>/dev/null || true; fi
	if mountpoint -q "$CARD_AT" 2>/dev/null; then umount "$CARD_AT" || true; fi
	stick_down_all
}

# make_card [READ_RATE [FS]]: the card tree in $SRC, on a stick of FS (ext4) labelled
# $LABEL that reads at READ_RATE, unmounted as a card in a reader is. Sets CARD_ID,
# CARD_DEV, CARD_UUID.
make_card() {
	local i
	mkdir -p "$SRC/DCIM/100CANON" "$SRC/PRIVATE/M4ROOT/CLIP" "$SRC/XDROOT/Clip"
	for i in 1 2 3 4 5 6; do make_file "$SRC/DCIM/100CANON/IMG_000$i.JPG" $((MIB + i)); done
	# (fusefat, which fills the FAT32 card, refuses non-ASCII names)
	if [[ ${2:-ext4} == fat32 ]]; then
		make_file "$SRC/DCIM/100CANON/it's odd.JPG" 4097
	else
		make_file "$SRC/DCIM/100CANON/it's ünï.JPG" 4097
	fi
	make_file "$SRC/PRIVATE/M4ROOT/CLIP/C0001.MP4" $((3 * MIB + 5))
	make_file "$SRC/XDROOT/Clip/Clip0001.MXF" $((2 * MIB))
	stick_up --fs "${2:-ext4}" --size 64 --rate 0 --read-rate "${1:-$((16 * MIB))}" --label "$LABEL"
	CARD_ID=$STICK_ID CARD_DEV=$STICK_DEV
	cp -r "$SRC"/. "$STICK_MNT"/
	umount "$STICK_MNT"
	# a FUSE daemon (exfat, fat32) may still write the card after umount returns: the
	# card is in the reader only once it is gone (its pid is in the stick's log)
	local pid
	pid=$(awk '$1 == "fuse" { print $3 }' "$STICK_REGISTRY/$CARD_ID/steps")
	[[ -z $pid || $pid == 0 ]] || wait_for 30 pid_gone "$pid"
	CARD_UUID=$(blkid -c /dev/null -o value -s UUID "$CARD_DEV")
	[[ -n $CARD_UUID ]]
}

# make_sticks [--faulty]: stick A (ext4; faulty with --faulty) and B (exfat-fuse),
# write-throttled (A at $A_RATE, default 4 MiB/s; B at $B_RATE, default the same) so
# that a copy lasts long enough to be killed in the middle.
make_sticks() {
	stick_up "$@" --size 64 --rate "${A_RATE:-$((4 * MIB))}"
	A=$STICK_MNT A_ID=$STICK_ID A_CTL=$STICK_CTL
	stick_up --fs exfat --size 64 --rate "${B_RATE:-$((4 * MIB))}"
	B=$STICK_MNT B_ID=$STICK_ID
}

# pid_gone PID: exited, or a zombie (which has closed everything).
pid_gone() {
	[[ ! -d /proc/$1 || $(proc_state "$1") == Z ]]
}

group_gone() {
	refute pgrep -g "$1" >/dev/null 2>&1
}

card_sectors_written() {
	disk_sectors_written "$(<"/sys/class/block/${CARD_DEV#/dev/}/dev")"
}

# files_of DIR: the regular files below DIR but its ascmhl folder, relative, sorted,
# one a line.
files_of() {
	(cd "$1" && find . -path ./ascmhl -prune -o -type f ! -name '.safecp-*' -printf '%P\n' | LC_ALL=C sort)
}

# check_stick ID DATE: the stick, looked at afresh, holds the card's tree in
# DATE/$LABEL, its list passes xxhsum -c there, the card's UUID is recorded, and its
# ASC MHL checks out (every file in some generation, also after a killed first run:
# the rerun reads and lists what no generation lists).
check_stick() {
	stick_reattach "$1"
	local d="$STICK_MNT/$2/$LABEL"
	[[ -d $d ]]
	[[ $(files_of "$d") == "$(files_of "$SRC")" ]]
	local rel
	while IFS= read -r rel; do
		cmp -- "$SRC/$rel" "$d/$rel"
	done < <(files_of "$d")
	(cd "$d" && xxhsum -c "../$LABEL.xxh128")
	[[ $(grep -c . "$STICK_MNT/$2/$LABEL.xxh128") == $(files_of "$SRC" | grep -c .) ]]
	grep -qx "uuid=$CARD_UUID" "$STICK_MNT/$2/.offload-card/$CARD_UUID"
	grep -qx "folder=$LABEL" "$STICK_MNT/$2/.offload-card/$CARD_UUID"
	# the ASC MHL history, checked by the project's own checker (schemas, chain, hashes)
	if has_mhl; then
		/usr/bin/python3 -c 'import lxml, xxhash' 2>/dev/null ||
			skip "needs python3-lxml and python3-xxhash for tests/tools/mhl_check.py"
		"$SAFECP_SRC/tests/tools/mhl_check.py" "$d"
		MHL_GENERATIONS=$(find "$d/ascmhl" -name '*.mhl' | grep -c .)
	fi
}

has_mhl() {
	safecp --help | grep -q -- --mhl
}

@test "offload-card: usage errors exit 2 and say how it is used" {
	run -2 "$OFFLOAD"
	[[ $output == *"Usage: offload-card"* ]]
	run -2 "$OFFLOAD" --bogus LABEL=x /tmp
	run -0 "$OFFLOAD" --help
	[[ $output == *"Exit status"* ]]
}

@test "offload-card: a card that is not there, or a stick that is not a mount point, is refused (exit 2)" {
	stick_up --size 64 --rate 0
	run -2 --separate-stderr "$OFFLOAD" "LABEL=NO SUCH CARD $RANDOM" "$STICK_MNT"
	[[ $stderr == *"no card 'LABEL=NO SUCH CARD"* ]]
	make_card
	mkdir "$BATS_TEST_TMPDIR/not-a-stick"
	run -2 --separate-stderr "$OFFLOAD" --card-mount "$CARD_AT" "UUID=$CARD_UUID" "$BATS_TEST_TMPDIR/not-a-stick"
	[[ $stderr == *"is not a mount point"* ]]
	[[ -z $(ls -A "$BATS_TEST_TMPDIR/not-a-stick") ]]
	refute mountpoint -q "$CARD_AT"
}

@test "offload-card: a card mounted read-write is refused, nothing written" {
	make_card
	stick_up --size 64 --rate 0
	mkdir "$CARD_AT"
	mount "$CARD_DEV" "$CARD_AT"
	run -2 --separate-stderr "$OFFLOAD" "LABEL=$LABEL" "$STICK_MNT"
	[[ $stderr == *"is mounted read-write at '$CARD_AT'"* ]]
	[[ -z $(find "$STICK_MNT" -mindepth 1 ! -path "$STICK_MNT/lost+found*") ]]
}

@test "offload-card: a full run: both sticks verified, safe to remove, the card may be erased and was not written" {
	make_card $((8 * MIB))
	make_sticks
	local before
	before=$(card_sectors_written)
	OFFLOAD_TODAY=$DAY1 run -0 --separate-stderr "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B"
	echo "$output"
	echo "$stderr"
	[[ $output == *"stick '$A': holds a verified copy in '$DAY1/$LABEL'"*", safe to remove"* ]]
	[[ $output == *"stick '$B': holds a verified copy in '$DAY1/$LABEL'"*", safe to remove"* ]]
	[[ $output == *"the card '$LABEL' (UUID $CARD_UUID) may be erased"* ]]
	# read-only means read-only: not one sector written to the card
	[[ $(card_sectors_written) == "$before" ]]
	refute mountpoint -q "$CARD_AT"
	# safeunmount ran on both
	refute mountpoint -q "$A"
	refute mountpoint -q "$B"
	check_stick "$A_ID" "$DAY1"
	check_stick "$B_ID" "$DAY1"
}

# card_fuse FS: a card the kernel cannot mount here goes through its FUSE driver,
# read-only, and is copied whole without a sector written to it.
card_fuse() {
	make_card $((8 * MIB)) "$1"
	stick_up --size 64 --rate 0
	local before d="$STICK_MNT/$DAY1/$LABEL"
	before=$(card_sectors_written)
	OFFLOAD_TODAY=$DAY1 run -0 --separate-stderr "$OFFLOAD" -k --card-mount "$CARD_AT" "LABEL=$LABEL" "$STICK_MNT"
	echo "$output"
	echo "$stderr"
	[[ $output == *"may be erased"* ]]
	[[ $output == *"still mounted (-k): run safeunmount '$STICK_MNT' before removing it"* ]]
	mountpoint -q "$STICK_MNT"
	[[ $(card_sectors_written) == "$before" ]]
	refute mountpoint -q "$CARD_AT"
	local rel
	while IFS= read -r rel; do
		cmp -- "$SRC/$rel" "$d/$rel"
	done < <(files_of "$SRC")
	(cd "$d" && xxhsum -c "../$LABEL.xxh128")
}

@test "offload-card: an exFAT card (exfat-fuse) is mounted read-only, copied whole, not written" {
	card_fuse exfat
}

@test "offload-card: a FAT32 card (fusefat) is mounted read-only, copied whole, not written" {
	card_fuse fat32
}

@test "offload-card: -P powers each stick off (a loop stick is detached)" {
	make_card
	stick_up --size 64 --rate 0
	OFFLOAD_TODAY=$DAY1 run -0 --separate-stderr "$OFFLOAD" -P --card-mount "$CARD_AT" "UUID=$CARD_UUID" "$STICK_MNT"
	echo "$output"
	echo "$stderr"
	[[ $output == *"stick '$STICK_MNT': holds a verified copy in '$DAY1/$LABEL'"*", safe to remove"* ]]
	[[ $output == *"may be erased"* ]]
	[[ -z $(losetup -j "$STICK_LOOPFILE") ]]
	check_stick "$STICK_ID" "$DAY1"
}

@test "offload-card: killed mid-copy (kill -9), the rerun the next day resumes in the same folder and copies only what is missing" {
	make_card $((8 * MIB))
	# B unthrottled runs ahead of A: what A had at the kill B has too, so the rerun
	# leaves those files alone on both sticks and no list of this run has their lines.
	# safecp names a batch's files within 2 s (BATCH_SECONDS): at 2 MiB/s A's 11 MiB
	# take 5.5 s, so the kill after the first batch lands with files still to come (at
	# 4 MiB/s the last batch came 0.8 s after the first, and once a kill came after it)
	A_RATE=$((2 * MIB)) B_RATE=0 make_sticks
	# (its work folder, which a kill -9 leaves, in the test's own: TMPDIR)
	OFFLOAD_TODAY=$DAY1 TMPDIR=$BATS_TEST_TMPDIR setsid "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B" \
		>"$BATS_TEST_TMPDIR/out1" 2>&1 &
	PGID=$!
	local d="$A/$DAY1/$LABEL" n
	# some file complete on stick A, and the copy still going
	for ((n = 0; n < 600; n++)); do
		[[ -n $(files_of "$d" 2>/dev/null) ]] && break
		sleep 0.05
	done
	kill -9 -- "-$PGID" || { cat "$BATS_TEST_TMPDIR/out1"; false; }
	wait "$PGID" || true
	# safecp may sit in a write to the throttled stick for a while before it dies; a
	# rerun must see it gone to take its temporaries for a dead copy's
	wait_for 60 group_gone "$PGID"
	PGID=''
	cat "$BATS_TEST_TMPDIR/out1"
	local had_a had_b
	had_a=$(files_of "$d")
	had_b=$(files_of "$B/$DAY1/$LABEL" 2>/dev/null || true)
	[[ -n $had_a ]]
	# the kill came in the middle (A writes no faster than its throttle)
	[[ $had_a != "$(files_of "$SRC")" ]]
	# inodes of what is already there, to tell a skipped file from a copied one
	(cd "$d" && find . -path ./ascmhl -prune -o -type f ! -name '.safecp-*' -printf '%i %P\n' | LC_ALL=C sort) >"$BATS_TEST_TMPDIR/inodes-a"

	# the card is still mounted (read-only) by the killed run: the rerun uses that mount
	mountpoint -q "$CARD_AT"
	OFFLOAD_TODAY=$DAY2 run -0 --separate-stderr "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B"
	echo "$output"
	echo "$stderr"
	[[ $output == *"stick '$A': holds a verified copy in '$DAY1/$LABEL'"*", safe to remove"* ]]
	[[ $output == *"stick '$B': holds a verified copy in '$DAY1/$LABEL'"*", safe to remove"* ]]
	[[ $output == *"may be erased"* ]]
	refute mountpoint -q "$CARD_AT"
	stick_reattach "$A_ID"
	[[ ! -e $STICK_MNT/$DAY2 ]]
	check_stick "$A_ID" "$DAY1"
	check_stick "$B_ID" "$DAY1"
	[[ ! -e $STICK_MNT/$DAY2 ]]

	safecp --help | grep -q -- --skip-identical ||
		skip "this safecp has no --skip-identical: the rerun copied every file again (the resume part is untested)"
	# every file the killed run had finished on A is the same inode: not copied again
	stick_load "$A_ID"
	local ino rel
	while read -r ino rel; do
		[[ $(stat -c %i "$STICK_MNT/$DAY1/$LABEL/$rel") == "$ino" ]] ||
			{ echo "'$rel' was copied again" >&2; return 1; }
	done <"$BATS_TEST_TMPDIR/inodes-a"
	# and the rerun says how many it left alone on each
	local n_a n_b
	n_a=$(grep -c . "$BATS_TEST_TMPDIR/inodes-a")
	n_b=$(grep -c . <<<"$had_b" || true)
	[[ $output == *"stick '$A': holds a verified copy in '$DAY1/$LABEL', $CARD_SIZE ("*", $n_a already there and read back); unmounted, safe to remove"* ]]
	# the rerun read and listed what no generation did: the script has no file the
	# ASC MHL lacks to warn of (check_stick found every file in the history)
	if has_mhl; then
		local s
		for s in A B; do
			[[ $stderr != *"the ASC MHL on '${!s}' lists"* ]]
		done
	fi
	# the files both sticks had got their checksum lines from the card (check_stick
	# found every file listed and xxhsum -c passing)
	local n_both
	n_both=$(LC_ALL=C comm -12 <(echo "$had_a") <(echo "$had_b") | grep -c . || true)
	if ((n_both > 0)); then
		[[ $output == *"$n_both file"*" already on the sticks had no checksum line yet: hashed from the card"* ]]
	fi
	[[ $output == *"stick '$B': holds a verified copy in '$DAY1/$LABEL', $CARD_SIZE ("*", $n_b already there and read back); unmounted, safe to remove"* ]]
}

# claimed DIR: the bytes the records of the partials in DIR list, in all (0: none).
claimed() {
	local r n=0 c
	for r in "$1"/.safecp-part-????????????????.rec; do
		[[ -f $r ]] || continue
		c=$(awk '/^chunk / { c = $2 } d { n += c } /^digests$/ { d = 1 } END { print n + 0 }' "$r")
		n=$((n + c))
	done
	echo "$n"
}

@test "offload-card: killed inside a long clip, the same command goes on inside it on each stick" {
	# a 30 MiB clip besides the usual card: its copy is killed once stick A's partial
	# of it lists a chunk (16 MiB), then the rerun writes A only what was missing
	mkdir -p "$SRC/PRIVATE/M4ROOT/CLIP"
	make_file "$SRC/PRIVATE/M4ROOT/CLIP/C0002.MP4" $((30 * MIB))
	make_card $((32 * MIB))
	A_RATE=$((8 * MIB)) B_RATE=$((8 * MIB)) make_sticks
	OFFLOAD_TODAY=$DAY1 TMPDIR=$BATS_TEST_TMPDIR setsid "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B" \
		>"$BATS_TEST_TMPDIR/out1" 2>&1 &
	PGID=$!
	local d="$A/$DAY1/$LABEL/PRIVATE/M4ROOT/CLIP" kept before after
	wait_for 60 eval '(($(claimed "$d") > 0))' || { cat "$BATS_TEST_TMPDIR/out1"; ls -laR "$A/$DAY1"; false; }
	kill -9 -- "-$PGID"
	wait "$PGID" || true
	wait_for 60 group_gone "$PGID"
	PGID=''
	kept=$(claimed "$d")
	echo "stick A keeps $kept bytes of the clip"
	((kept >= 16 * MIB))
	sync -f "$A"
	before=$(disk_written_bytes "$(stick_load "$A_ID" && echo "$STICK_MAJMIN")")
	OFFLOAD_TODAY=$DAY2 run -0 --separate-stderr "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B"
	echo "$output"
	echo "$stderr"
	stick_load "$A_ID"
	after=$(disk_written_bytes "$STICK_MAJMIN")
	echo "the rerun wrote $((after - before)) bytes to A"
	# the card is 41 MiB: A got at most what it lacked and 2 MiB of lists and records
	((after - before <= 41 * MIB - kept + 2 * MIB))
	[[ $output == *"may be erased"* ]]
	check_stick "$A_ID" "$DAY1"
	check_stick "$B_ID" "$DAY1"
	assert_no_temporaries "$STICK_MNT"
}

@test "offload-card: a stick that stores a byte wrong: named as failed, the card must NOT be erased, exit 1" {
	[[ -x $SAFECP_BUILD/tests/faultdev ]] ||
		skip "needs $SAFECP_BUILD/tests/faultdev (built when libfuse3-dev is installed)"
	make_card
	make_sticks --faulty
	echo "flip-write 65536" >"$A_CTL"
	OFFLOAD_TODAY=$DAY1 run -1 --separate-stderr "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B"
	echo "$output"
	echo "$stderr"
	[[ $(awk '$1 == "flipped_writes" { print $2 }' "$A_CTL") == 1 ]]
	[[ $output == *"stick '$A': FAILED: 1 file read back different from the card"* ]]
	[[ $output == *"stick '$B': holds a verified copy in '$DAY1/$LABEL'"*", safe to remove"* ]]
	[[ $output == *"the card '$LABEL' (UUID $CARD_UUID) must NOT be erased"* ]]
	[[ $output != *"may be erased"* ]]
	# the failed stick got no list claiming a whole copy; the good one is whole
	stick_reattach "$A_ID"
	[[ ! -e "$STICK_MNT/$DAY1/$LABEL.xxh128" ]]
	check_stick "$B_ID" "$DAY1"
}

@test "offload-card: a stick that fails mid-copy (EIO): named as failed, the other complete, the card must NOT be erased, exit 1" {
	[[ -x $SAFECP_BUILD/tests/faultdev ]] ||
		skip "needs $SAFECP_BUILD/tests/faultdev (built when libfuse3-dev is installed)"
	make_card
	make_sticks --faulty
	# the record goes through; the copy's writes fail after 4 MiB
	echo "fail-write-after $((4 * MIB))" >"$A_CTL"
	OFFLOAD_TODAY=$DAY1 run -1 --separate-stderr "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B"
	echo "$output"
	echo "$stderr"
	(($(awk '$1 == "failed_writes" { print $2 }' "$A_CTL") > 0))
	[[ $output == *"stick '$A': FAILED: the copy failed"* ]]
	[[ $output == *"stick '$B': holds a verified copy in '$DAY1/$LABEL'"*", safe to remove"* ]]
	[[ $output == *"the card '$LABEL' (UUID $CARD_UUID) must NOT be erased"* ]]
	[[ $output != *"may be erased"* ]]
	refute mountpoint -q "$CARD_AT"
	check_stick "$B_ID" "$DAY1"
}

# --------------------------------------------------------- a stick someone else prepared
# (issue 24 H1, H3): links on the stick lead off it; a copy changed behind its record.
# Each checks a victim tree off the stick, before and after, and that "may be erased" is
# never said.

# victim_up: $VICTIM, a tree off the stick standing for /root/.ssh and /etc.
victim_up() {
	VICTIM=$BATS_TEST_TMPDIR/victim
	mkdir -p "$VICTIM/.ssh" "$VICTIM/etc"
	echo ORIGINAL-KEY >"$VICTIM/.ssh/authorized_keys"
	echo 'root:$6$x:19000:0:99999:7:::' >"$VICTIM/etc/shadow"
	victim_sums >"$BATS_TEST_TMPDIR/victim.before"
}

victim_sums() {
	(cd "$VICTIM" && find . -printf '%y %p %m %s %l\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}

victim_unchanged() {
	victim_sums | diff -u "$BATS_TEST_TMPDIR/victim.before" - >&2 ||
		{ echo "the victim tree off the stick changed (above)" >&2; return 1; }
}

# offload_attacked: the script on the card and stick $A, kept mounted; must refuse.
offload_attacked() {
	OFFLOAD_TODAY=$DAY1 run --separate-stderr "$OFFLOAD" -k --card-mount "$CARD_AT" "LABEL=$LABEL" "$A"
	echo "$output"
	echo "$stderr"
	((status != 0))
	[[ $output != *"may be erased"* ]]
	[[ $stderr == *"symbolic link"* ]]
	victim_unchanged
}

@test "offload-card: a planted record whose folder is a link off the stick: refused, nothing written there" {
	make_card
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	victim_up
	mkdir -p "$A/2020-01-01/.offload-card"
	printf 'uuid=%s\nlabel=x\nfolder=x\nfirst_offload=2020-01-01\n' "$CARD_UUID" >"$A/2020-01-01/.offload-card/$CARD_UUID"
	ln -s "$VICTIM/.ssh" "$A/2020-01-01/x"
	offload_attacked
}

@test "offload-card: a link named after today's date: refused, the offload does not leave the stick" {
	make_card
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	victim_up
	ln -s "$VICTIM" "$A/$DAY1"
	offload_attacked
	[[ ! -e $VICTIM/$LABEL ]]
}

@test "offload-card: a link at the record's old temporary name writes nothing through it" {
	make_card
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	victim_up
	mkdir -p "$A/$DAY1/.offload-card"
	ln -s "$VICTIM/etc/shadow" "$A/$DAY1/.offload-card/.$CARD_UUID.tmp"
	OFFLOAD_TODAY=$DAY1 run -0 --separate-stderr "$OFFLOAD" -k --card-mount "$CARD_AT" "LABEL=$LABEL" "$A"
	echo "$output"
	victim_unchanged
	grep -q "^uuid=$CARD_UUID\$" "$A/$DAY1/.offload-card/$CARD_UUID"
}

@test "offload-card: a rerun over a photo changed on the stick (size and time kept) reads it back and copies it again" {
	make_card
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	OFFLOAD_TODAY=$DAY1 run -0 "$OFFLOAD" -k --card-mount "$CARD_AT" "LABEL=$LABEL" "$A"
	local f=$A/$DAY1/$LABEL/DCIM/100CANON/IMG_0005.JPG
	touch -r "$f" "$BATS_TEST_TMPDIR/ref"
	# a byte the photo does not hold there (its bytes are random: X is 1 in 256)
	local byte=X
	[[ $(dd if="$f" bs=1 skip=1000 count=1 status=none | od -An -tx1) == " 58" ]] && byte=Y
	printf %s "$byte" | dd of="$f" bs=1 seek=1000 conv=notrunc status=none
	touch -r "$BATS_TEST_TMPDIR/ref" "$f"
	sync -f "$f"
	echo 3 >/proc/sys/vm/drop_caches
	refute cmp -s "$SRC/DCIM/100CANON/IMG_0005.JPG" "$f"
	OFFLOAD_TODAY=$DAY2 run -0 --separate-stderr "$OFFLOAD" -k --card-mount "$CARD_AT" "LABEL=$LABEL" "$A"
	echo "$output"
	echo "$stderr"
	cmp "$SRC/DCIM/100CANON/IMG_0005.JPG" "$f"
	[[ $output == *"already there and read back"* ]]
	[[ $output == *"may be erased"* ]]
	(cd "$A/$DAY1/$LABEL" && xxhsum -c "../$LABEL.xxh128" >/dev/null)
}

@test "offload-card: a label's newline never reaches the screen or a folder name; a cut name stays UTF-8 (audit L1)" {
	eval "$(sed -n '/^shown() {/,/^}/p; /^folder_name() {/,/^}/p' "$OFFLOAD")"
	local s
	s=$(shown $'x\nthe card may be erased')
	[[ $s != *$'\n'* && $s == "'x?the card may be erased'" ]]
	s=$(folder_name $'a\nb*')
	[[ $s == a_b_ ]]
	# 63 ASCII bytes and a two-byte letter: the cut at 64 bytes drops the half letter
	s=$(folder_name "$(printf 'a%.0s' {1..63})é")
	[[ $s == "$(printf 'a%.0s' {1..63})" ]]
}

@test "offload-card: a card of a filesystem no camera writes (btrfs) is refused, nothing mounted (audit L7)" {
	stick_up --fs btrfs --size 256 --rate 0 --label "$LABEL"
	echo photo >"$STICK_MNT/IMG_0001.JPG"
	umount "$STICK_MNT"
	CARD_DEV=$STICK_DEV
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	run --separate-stderr "$OFFLOAD" -k --card-mount "$CARD_AT" "LABEL=$LABEL" "$A"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ $stderr == *"holds 'btrfs', which no camera writes: refusing to mount it"* ]]
	refute mountpoint -q "$CARD_AT"
	[[ -z $(findmnt -n --source "$CARD_DEV") ]]
	[[ -z $(ls -A "$A" | grep -vx lost+found) ]]
}

# ------------------------------------------------------------ the screen and the log
# (issue 25 item 6)

@test "offload-card: the ending names what each stick holds (the card's size), unmounted; a closing total" {
	make_card
	A_RATE=0 B_RATE=0 make_sticks
	local size=$CARD_SIZE
	OFFLOAD_TODAY=$DAY1 run -0 --separate-stderr "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B"
	echo "$output"
	echo "$stderr"
	[[ $output == *"stick '$A': holds a verified copy in '$DAY1/$LABEL', $size (9 copied, 0 already there and read back); unmounted, safe to remove"* ]]
	[[ $output == *"stick '$B': holds a verified copy in '$DAY1/$LABEL', $size (9 copied, 0 already there and read back); unmounted, safe to remove"* ]]
	# safeunmount's own line gave its last sync's few bytes ("(16.0 KiB written)")
	[[ "$output$stderr" != *" written)"* ]]
	[[ $output =~ $'\n'"total: $size from the card, verified on 2 of 2 sticks, in "[0-9:]+( s)?$'\n'"the card '$LABEL' (UUID $CARD_UUID) may be erased" ]]
	[[ "$output$stderr" != *"(s)"* ]]
}

@test "offload-card: a rerun over files no list has: one line of its own, no temporary name, no xxhsum progress in the piped log" {
	make_card
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	OFFLOAD_TODAY=$DAY1 run -0 "$OFFLOAD" -k --card-mount "$CARD_AT" "LABEL=$LABEL" "$A"
	# as after a run killed before it wrote its list: the files are there, no list
	rm "$A/$DAY1/$LABEL.xxh128"
	local log=$BATS_TEST_TMPDIR/log
	OFFLOAD_TODAY=$DAY2 run -0 bash -c "'$OFFLOAD' -k --card-mount '$CARD_AT' 'LABEL=$LABEL' '$A' 2>&1 | cat >'$log'"
	cat -A "$log"
	# nothing but lines: no carriage return, no escape sequence, no other control byte
	refute grep -q $'[\r\e]' "$log"
	[[ -z $(LC_ALL=C tr -d '\n\t -~\200-\377' <"$log") ]]
	grep -qx "9 files already on the sticks had no checksum line yet: hashed from the card" "$log"
	# safecp's warning naming the script's temporary list contradicted that line
	refute grep -q -e /tmp/offload-card -e 'left alone as identical' -e '(s)' "$log"
	grep -q "may be erased" "$log"
	(cd "$A/$DAY1/$LABEL" && xxhsum -c "../$LABEL.xxh128" >/dev/null)
	[[ $(grep -c . "$A/$DAY1/$LABEL.xxh128") == 9 ]]
}

# interrupt_mid_copy WHO: SIGINT mid-copy to the whole group (a terminal's Ctrl-C) or to
# the script alone (kill -INT PID): exactly one interrupted line, saying SIGINT, naming
# no temporary file; exit 130, the card unmounted.
interrupt_mid_copy() {
	make_card
	A_RATE=$((2 * MIB)) B_RATE=$((2 * MIB)) make_sticks
	local out=$BATS_TEST_TMPDIR/out rc=0 n
	# (a background job starts with SIGINT ignored, which bash cannot trap: reset, as a
	# terminal's foreground job has it)
	OFFLOAD_TODAY=$DAY1 setsid env --default-signal=INT "$OFFLOAD" --card-mount "$CARD_AT" "LABEL=$LABEL" "$A" "$B" >"$out" 2>&1 &
	PGID=$!
	for ((n = 0; n < 600; n++)); do
		[[ -n $(files_of "$A/$DAY1/$LABEL" 2>/dev/null) ]] && break
		sleep 0.05
	done
	if [[ $1 == group ]]; then kill -INT -- "-$PGID"; else kill -INT "$PGID"; fi
	wait "$PGID" || rc=$?
	wait_for 60 group_gone "$PGID"
	PGID=''
	cat -A "$out"
	[ "$rc" -eq 130 ]
	[[ $(grep -ci interrupted "$out") == 1 ]]
	grep -q "interrupted by SIGINT: on '$A/$DAY1/$LABEL' [0-9]* of 9 files" "$out"
	refute grep -q -e '\.tmp' -e '\.safecp-' -e /tmp/offload-card -e '(s)' "$out"
	refute mountpoint -q "$CARD_AT"
}

@test "offload-card: Ctrl-C mid-copy: exactly one interrupted line, naming no temporary file, exit 130" {
	interrupt_mid_copy group
}

@test "offload-card: SIGINT to the script alone mid-copy: the same one line (safecp gets SIGINT, not SIGTERM)" {
	interrupt_mid_copy script
}

@test "offload-card: on a terminal safecp draws the screen: a row per stick and one for the card, no 'N% on the sticks'" {
	require_cmd script
	make_card
	A_RATE=$((4 * MIB)) B_RATE=$((2 * MIB)) make_sticks
	local log=$BATS_TEST_TMPDIR/typescript rc=0
	OFFLOAD_TODAY=$DAY1 TERM=xterm COLUMNS=80 script -qfec "stty cols 80; exec '$OFFLOAD' -k --card-mount '$CARD_AT' 'LABEL=$LABEL' '$A' '$B'" \
		/dev/null >"$log" 2>&1 </dev/null || rc=$?
	cat -A "$log" | tr '\r' '\n' | tail -40
	[ "$rc" -eq 0 ]
	grep -q "may be erased" "$log"
	refute grep -q "% on the sticks" "$log"
	# the bar's frames: a row per stick (bytes on the device, verified) and the card's
	# row last, then the cursor back up over the two stick rows
	grep -q "/ 11.0 MiB on device, " "$log"
	grep -q "/ 11.0 MiB read  source"$'\e\\[K\e\\[2A' "$log"
	grep -q "ETA " "$log"
	# each stick's row names the stick (the folder's name, the same on both, did not
	# tell them apart: "...OS DIGITAL" twice)
	grep "on device" "$log" | grep -q -- "${A: -6}"$'\e'
	grep "on device" "$log" | grep -q -- "${B: -6}"$'\e'
}
