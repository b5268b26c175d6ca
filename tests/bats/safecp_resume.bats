#!/usr/bin/env bats
# tests/bats/safecp_resume.bats: a large file's copy that stops keeps what the device
# holds of it, and the same command goes on from there (man safecp, RESUME INSIDE A FILE).
# kill -9 at a random point of a 64 MiB file on ext4, exfat-fuse and ntfs-3g, then the
# rerun: the file whole, the device written no more than what was missing and one chunk,
# nothing hidden left (fusefat cannot write a file again: there the file starts over). A
# source changed between the runs (other bytes and time; other bytes, same time), a byte
# changed on the device (--verify), a partial this machine did not write, two destinations
# stopped at different points, SIGINT (the device stops within a window, the partial is
# kept), --no-resume, the stick pulled, and a rerun with nothing to do.
#
# A partial's digests cover 16 MiB each (four in 64 MiB), whatever the device: the
# stick's requests (240 KiB, stick.bash) and the reader's chunks do not divide them.

load helpers
load safecp_common

SIZE=$((64 * MIB))

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	EV=$BATS_TEST_TMPDIR/ev
	mkdir -p "$SRC"
	make_file "$SRC/clip.mp4" "$SIZE"
	# this machine's list of the partials it wrote, for this test only
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
}

teardown() {
	[[ -n ${SAFECP_PID-} ]] && { kill -9 "$SAFECP_PID" 2>/dev/null; wait "$SAFECP_PID" 2>/dev/null; }
	stick_down_all
}

# partial_of DIR: the one partial in DIR (none, or several: fails).
partial_of() {
	local p
	p=$(compgen -G "$1/.safecp-part-????????????????") || return 1
	[[ $(wc -l <<<"$p") == 1 && -f $p && -f $p.rec ]] || return 1
	echo "$p"
}

# record_claims PARTIAL: the bytes its record lists (digest lines times its chunk).
record_claims() {
	awk '/^chunk / { c = $2 } d { n++ } /^digests$/ { d = 1 } END { print n * c }' "$1.rec"
}

# last_confirmed FILE: the last bytes_on_device a progress event gave (0: none).
last_confirmed() {
	jq -R -n '[inputs | fromjson? | select(.event == "progress") | .bytes_on_device] | max // 0' "$1"
}

# kill_at BYTES ARGS...: safecp ARGS in the background, killed with -9 once its progress
# says BYTES are on the device; KILLED_AT is the last figure it gave.
kill_at() {
	local at=$1
	shift
	safecp --progress=json "$@" >"$EV" 2>"$BATS_TEST_TMPDIR/err" &
	SAFECP_PID=$!
	wait_for 60 json_confirmed_at_least "$EV" "$at"
	kill -9 "$SAFECP_PID"
	wait "$SAFECP_PID" || true
	SAFECP_PID=''
	KILLED_AT=$(last_confirmed "$EV")
}

# resume_after_kill FS: killed at a random point past the first chunk, the partial and its
# record stay; the rerun resumes from what the record claims, writes the device no more
# than the missing bytes (what the last progress event had not confirmed) and one chunk,
# and leaves the file whole and nothing hidden.
resume_after_kill() {
	stick_up --fs "$1" --size 160
	local at p kept chunk before after written
	chunk=$((16 * MIB))
	at=$(((24 + RANDOM % 28) * MIB))
	kill_at "$at" "$SRC/clip.mp4" "$STICK_MNT"/
	[[ ! -e $STICK_MNT/clip.mp4 ]]
	p=$(partial_of "$STICK_MNT")
	kept=$(record_claims "$p")
	echo "$1: killed at $KILLED_AT bytes on the device; the record claims $kept"
	((kept > 0 && kept <= KILLED_AT + chunk))
	sync -f "$STICK_MNT"
	before=$(disk_written_bytes "$STICK_MAJMIN")
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	echo "$stderr"
	after=$(disk_written_bytes "$STICK_MAJMIN")
	written=$((after - before))
	echo "rerun wrote $written bytes; missing at the kill: $((SIZE - KILLED_AT))"
	jq -s -e --argjson k "$kept" '.[0].event == "start" and .[0].bytes_resumed == $k
		and .[0].resumed[0].bytes == $k and .[0].stale_temps == 0' <<<"$output"
	jq -s -e --argjson k "$kept" 'map(select(.event == "done"))[0] | .bytes_resumed == $k
		and .bytes_on_device == 67108864 and .source_bytes_read == 67108864 - $k' <<<"$output"
	[[ $stderr == *"'$STICK_MNT/clip.mp4': an interrupted copy kept "*" of it: the copy goes on from there"* ]]
	# the missing bytes, one chunk the record had not caught up with, and 2 MiB of
	# metadata (the journal, FAT tables, the MFT, the record's lines)
	((written <= SIZE - KILLED_AT + chunk + 2 * MIB))
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

@test "kill -9 in a large file on ext4: the rerun writes only what was missing" {
	resume_after_kill ext4
}

@test "kill -9 in a large file on exfat-fuse: the rerun writes only what was missing" {
	resume_after_kill exfat
}

@test "kill -9 in a large file on fusefat, which cannot write a file again: nothing to resume, the rerun copies it whole" {
	stick_up --fs fat32 --size 160
	kill_at $((24 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	# a plain temporary, as before: no partial, no record
	run ! partial_of "$STICK_MNT"
	[[ -n $(temporaries "$STICK_MNT") ]]
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	jq -s -e '.[0].bytes_resumed == 0 and .[0].stale_temps == 1' <<<"$output"
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

@test "kill -9 in a large file on ntfs-3g: the rerun writes only what was missing" {
	resume_after_kill ntfs
}

@test "kill -9 before the first chunk is on the device: the rerun removes the two temporaries, with no word of a resume" {
	# 8 MiB/s: the first 16 MiB chunk takes 2 s, the kill comes at 2 MiB
	stick_up --fs ext4 --size 160 --rate $((8 * MIB))
	kill_at $((2 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	echo "killed at $KILLED_AT bytes on the device"
	p=$(partial_of "$STICK_MNT")
	# the record lists no chunk: the kill came before the first one was confirmed
	[[ $(record_claims "$p") == 0 ]] || skip "the first chunk was recorded before the kill"
	run -0 --separate-stderr safecp "$SRC/clip.mp4" "$STICK_MNT"/
	echo "$stderr"
	[[ $stderr != *"cannot be resumed"* && $stderr != *"first part"* ]]
	[[ $stderr == *"removed a temporary file left by an interrupted copy"* ]]
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

@test "a source with other bytes and another time: its partial is removed, the file copied whole" {
	stick_up --size 160
	kill_at $((30 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	partial_of "$STICK_MNT"
	# same size, other bytes, and so another mtime
	head -c 4096 /dev/urandom | dd of="$SRC/clip.mp4" bs=4096 seek=3 conv=notrunc status=none
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	echo "$stderr"
	jq -s -e '.[0].bytes_resumed == 0 and .[0].partials_discarded[0].reason == "source"
		and .[0].stale_temps == 2' <<<"$output"
	[[ $stderr == *"'$STICK_MNT/clip.mp4': an interrupted copy left part of it, which cannot be resumed: it is of another source file"* ]]
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

@test "a source with other bytes in its second chunk and the same time: resumed from that chunk" {
	stick_up --size 160
	local chunk=$((16 * MIB))
	kill_at $((50 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	[[ $(record_claims "$(partial_of "$STICK_MNT")") -ge $((2 * chunk)) ]]
	touch -r "$SRC/clip.mp4" "$BATS_TEST_TMPDIR/when"
	head -c 4096 /dev/urandom | dd of="$SRC/clip.mp4" bs=4096 seek=$((chunk / 4096 + 7)) \
		conv=notrunc status=none
	touch -r "$BATS_TEST_TMPDIR/when" "$SRC/clip.mp4"
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	echo "$stderr"
	jq -s -e --argjson c "$chunk" '.[0].bytes_resumed == $c and .[0].resumed[0].claimed >= 2 * $c' \
		<<<"$output"
	[[ $stderr == *"but the source differs after 16.0 MiB: the copy goes on from there"* ]]
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
}

@test "a byte of the kept part changed on the device: a plain run cannot know it, --verify rewrites from that chunk" {
	require_cmd filefrag
	stick_up --size 160
	local chunk p kept logical phys bs block byte
	chunk=$((16 * MIB))
	kill_at $((50 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	p=$(partial_of "$STICK_MNT")
	kept=$(record_claims "$p")
	((kept >= 2 * chunk))
	sync -f "$STICK_MNT"
	# the device block under byte chunk + 123456 of the partial, flipped on the disk
	logical=$((chunk + 123456))
	bs=$(filefrag -v "$p" | sed -n 's/.* blocks of \([0-9]*\) bytes.*/\1/p')
	block=$(filefrag -v "$p" | awk -v l=$((logical / bs)) '
		{ gsub(/[:.]+/, " ") }
		$1 ~ /^[0-9]+$/ && NF >= 5 && $2 <= l && l <= $3 { print $4 + (l - $2); exit }')
	[[ -n $block ]]
	phys=$((block * bs + logical % bs))
	byte=$(dd if="$STICK_DEV" bs=1 skip="$phys" count=1 status=none | od -An -tu1)
	printf "\\x$(printf %02x $(((byte + 1) % 256)))" |
		dd of="$STICK_DEV" bs=1 seek="$phys" conv=notrunc status=none
	blockdev --flushbufs "$STICK_DEV"
	run -0 safecp --dry-run "$SRC/clip.mp4" "$STICK_MNT"/
	[[ $output == *"kept $(format_size "$kept") of it: the copy would go on from there"* ]]
	run -0 --separate-stderr safecp --verify --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	echo "$stderr"
	jq -s -e --argjson c "$chunk" --argjson k "$kept" '.[0].bytes_resumed == $c
		and .[0].resumed[0].rewritten == $k - $c' <<<"$output"
	[[ $stderr == *"but read back from the device it differs after 16.0 MiB: the copy goes on from there"* ]]
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

@test "a partial this machine did not write is not resumed" {
	stick_up --size 160
	kill_at $((30 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	partial_of "$STICK_MNT"
	# another machine's state: this one has no note of the partial
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/elsewhere
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	jq -s -e '.[0].bytes_resumed == 0 and .[0].partials_discarded[0].reason == "machine"' <<<"$output"
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

@test "a dry run says what would be resumed and from where, and changes nothing" {
	stick_up --size 160
	local p kept
	kill_at $((30 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	p=$(partial_of "$STICK_MNT")
	kept=$(record_claims "$p")
	sha256sum "$p" "$p.rec" >"$BATS_TEST_TMPDIR/sums"
	run -0 safecp --dry-run "$SRC/clip.mp4" "$STICK_MNT"/
	echo "$output"
	[[ $output == *"'$STICK_MNT/clip.mp4': an interrupted copy kept $(format_size "$kept") of it: the copy would go on from there"* ]]
	sha256sum -c "$BATS_TEST_TMPDIR/sums"
}

@test "--no-resume removes the partial and copies the file whole, and keeps nothing when stopped" {
	stick_up --size 160
	kill_at $((30 * MIB)) "$SRC/clip.mp4" "$STICK_MNT"/
	partial_of "$STICK_MNT"
	run -0 --separate-stderr safecp --no-resume --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	jq -s -e '.[0].bytes_resumed == 0 and .[0].stale_temps == 2' <<<"$output"
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
	rm "$STICK_MNT/clip.mp4"
	safecp --no-resume --progress=json "$SRC/clip.mp4" "$STICK_MNT"/ >"$EV" &
	SAFECP_PID=$!
	wait_for 60 json_confirmed_at_least "$EV" $((30 * MIB))
	kill -INT "$SAFECP_PID"
	wait "$SAFECP_PID" || true
	SAFECP_PID=''
	assert_no_temporaries "$STICK_MNT"
}

@test "SIGINT in a large file: the device stops within a window, the partial is kept and resumed" {
	stick_up --size 160
	local rc=0 p kept w0 w1 window
	safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/ >"$EV" 2>"$BATS_TEST_TMPDIR/err" &
	SAFECP_PID=$!
	wait_for 60 json_confirmed_at_least "$EV" $((30 * MIB))
	window=$(jq -s '.[0].window' "$EV")
	kill -INT "$SAFECP_PID"
	wait "$SAFECP_PID" || rc=$?
	SAFECP_PID=''
	cat "$BATS_TEST_TMPDIR/err"
	((rc == 130))
	# the writes stopped: within window / rate + 0.5 s nothing more reaches the device
	sleep "$(awk -v w="$window" 'BEGIN { printf "%.2f", w / 20971520 + 0.5 }')"
	w0=$(disk_written_bytes "$STICK_MAJMIN")
	sleep 1
	w1=$(disk_written_bytes "$STICK_MAJMIN")
	echo "written after the stop: $((w1 - w0)) bytes"
	((w1 - w0 <= 64 * 1024))
	p=$(partial_of "$STICK_MNT")
	kept=$(record_claims "$p")
	((kept > 0))
	grep -qF "safecp: note: '$STICK_MNT/clip.mp4': the copy stopped in this file: its first $(format_size "$kept") are kept, hidden, on the device; the same command goes on from there" \
		"$BATS_TEST_TMPDIR/err"
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	jq -s -e --argjson k "$kept" '.[0].bytes_resumed == $k' <<<"$output"
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

@test "two destinations stopped at different points: each goes on from its own, the source read once from the nearer" {
	local a b ka kb
	stick_up --size 160
	a=$STICK_MNT
	stick_up --size 160 --rate $((20971520 / 2))
	b=$STICK_MNT
	kill_at $((48 * MIB)) "$SRC/clip.mp4" -t "$a" -t "$b"
	ka=$(record_claims "$(partial_of "$a")")
	kb=$(record_claims "$(partial_of "$b")")
	echo "kept: $ka on the fast stick, $kb on the slow one"
	((ka > kb && kb > 0))
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" -t "$a" -t "$b"
	echo "$stderr"
	jq -s -e --arg a "$a" --argjson k "$ka" 'map(select(.event == "start" and .dest == $a))[0].bytes_resumed == $k' <<<"$output"
	jq -s -e --arg b "$b" --argjson k "$kb" 'map(select(.event == "start" and .dest == $b))[0].bytes_resumed == $k' <<<"$output"
	# the slow stick is detached and reads again what the fast one has had: not counted
	jq -s -e --argjson k "$kb" 'map(select(.event == "done"))[0]
		| .source_bytes_read - .source_bytes_reread == 67108864 - $k' <<<"$output"
	cmp "$SRC/clip.mp4" "$a/clip.mp4"
	cmp "$SRC/clip.mp4" "$b/clip.mp4"
	assert_no_temporaries "$a"
	assert_no_temporaries "$b"
}

# written_during ARGS...: the bytes the stick's device wrote while safecp ARGS ran
# (its filesystem synced before and after, so that nothing of before counts).
written_during() {
	local a b
	sync -f "$STICK_MNT"
	a=$(disk_written_bytes "$STICK_MAJMIN")
	safecp "$@" >/dev/null 2>&1 || return
	sync -f "$STICK_MNT"
	b=$(disk_written_bytes "$STICK_MAJMIN")
	echo $((b - a))
}

@test "a rerun with nothing to do writes under 64 KiB, after a killed copy's rerun as after a clean one" {
	local i w
	mkdir -p "$SRC/DCIM"
	for ((i = 1; i <= 300; i++)); do make_file "$SRC/DCIM/IMG_$i.JPG" $((90000 + i * 37)); done
	stick_up --size 160 --rate $((10 * MIB))
	# a third of the way: small files, named in batches, the last batch lost
	kill_at $((9 * MIB)) -r "$SRC/DCIM" "$STICK_MNT"/
	[[ ! -e $STICK_MNT/DCIM/IMG_300.JPG ]]
	run -0 safecp -r --skip-identical "$SRC/DCIM" "$STICK_MNT"/
	w=$(written_during -r --skip-identical "$SRC/DCIM" "$STICK_MNT"/)
	echo "nothing to do after the killed copy's rerun: $w bytes written"
	((w < 64 * 1024))
	rm -rf "${STICK_MNT:?}/DCIM"
	run -0 safecp -r "$SRC/DCIM" "$STICK_MNT"/
	w=$(written_during -r --skip-identical "$SRC/DCIM" "$STICK_MNT"/)
	echo "nothing to do after a clean copy: $w bytes written"
	((w < 64 * 1024))
}

# yanked FS: the stick vanishes (every I/O fails, tests/faultdev) in the middle of a large
# file; plugged in again (the image on a fresh loop device, the journal replayed, fsck),
# the record claims no byte the image does not hold, and the rerun completes the file.
yanked() {
	local base p kept
	stick_up --faulty --fs "$1" --size 160
	base=$(fault_counter bytes_written)
	safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/ >"$EV" 2>"$BATS_TEST_TMPDIR/err" &
	SAFECP_PID=$!
	wait_for 60 eval '(($(fault_counter bytes_written) >= base + 40 * MIB))'
	echo vanish >"$STICK_CTL"
	wait "$SAFECP_PID" || true
	SAFECP_PID=''
	stick_reattach "$STICK_ID"
	[[ $1 != ext4 ]] || ((STICK_FSCK_RC == 0)) || { echo "fsck: $STICK_FSCK_OUT"; false; }
	[[ ! -e $STICK_MNT/clip.mp4 ]]
	p=$(partial_of "$STICK_MNT")
	kept=$(record_claims "$p")
	echo "$1: the record claims $kept bytes; the partial holds $(stat -c %s "$p")"
	((kept > 0))
	cmp -n "$kept" "$SRC/clip.mp4" "$p"
	run -0 --separate-stderr safecp --progress=json "$SRC/clip.mp4" "$STICK_MNT"/
	echo "$stderr"
	jq -s -e --argjson k "$kept" '.[0].bytes_resumed == $k' <<<"$output"
	cmp "$SRC/clip.mp4" "$STICK_MNT/clip.mp4"
	assert_no_temporaries "$STICK_MNT"
}

# fault_counter KEY: a counter of the faulty stick's faultdev.
fault_counter() {
	awk -v k="$1" '$1 == k { print $2 }' "$STICK_CTL"
}

@test "the stick pulled in a large file (ext4): the record holds no byte the device lost, the rerun resumes" {
	yanked ext4
}

@test "the stick pulled in a large file (exfat-fuse): the record holds no byte the device lost, the rerun resumes" {
	yanked exfat
}

@test "with --sums, a resumed file's checksum covers all of it" {
	require_cmd xxhsum
	stick_up --size 160
	kill_at $((40 * MIB)) --sums="$STICK_MNT/sums" "$SRC/clip.mp4" "$STICK_MNT"/
	partial_of "$STICK_MNT"
	run -0 --separate-stderr safecp --progress=json --sums="$STICK_MNT/sums" "$SRC/clip.mp4" "$STICK_MNT"/
	jq -s -e '.[0].bytes_resumed >= 16 * 1048576' <<<"$output"
	(cd "$STICK_MNT" && xxhsum -c sums.xxh128)
	[[ $(cut -d' ' -f1 "$STICK_MNT/sums.xxh128") == $(xxhsum -H2 "$SRC/clip.mp4" | cut -d' ' -f1) ]]
}
