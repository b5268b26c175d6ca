#!/usr/bin/env bats
# tests/bats/safecp_check.bats: safecp --check DIR reads an existing copy back from its
# device and compares it with the --sums lists or DIR/ascmhl's newest manifest.
# - a copy made with --checksum=xxh128,sha256 --sums passes (exit 0), names with spaces,
#   quotes and non-ASCII included, with the JSON events (check per file, progress, done);
# - a byte changed on the device image while the file's right pages are still cached is
#   reported (exit 4) on ext4 and on exfat-fuse: the cached pages still show the old bytes,
#   so only a read that bypasses them can see it;
# - a deleted file is missing (exit 4); a symlink planted in place of a listed file, to a
#   file with the right content, is not followed (exit 4); a file the device cannot read
#   is exit 1, and a differing file beside it makes it 4;
# - no lists and no ascmhl, no list for the prefix, a bad list line: exit 2;
# - the MHL path: a manifest written by lib/mhl (tests/tools/mhl_gen) passes; a changed
#   file, a file marked failed and a manifest whose C4 is not the chain's are caught;
# - SIGINT during a check: exit 130, the done event says interrupted.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	SUMS=$BATS_TEST_TMPDIR/sums
	mkdir -p "$SRC/card/DCIM" "$SRC/card/PRIVATE"
	make_file "$SRC/card/DCIM/C0001.MP4" $((2 * MIB + 17))
	make_file "$SRC/card/DCIM/it's a \"quote\".jpg" 4097
	make_file "$SRC/card/PRIVATE/clip é ü.xml" 1000
	make_file "$SRC/card/PRIVATE/ two  spaces " 0
}

teardown() {
	stick_down_all
}

# copied FS [stick_up option...]: the card on a fresh stick, with both lists; NFILES
# files (exFAT, FAT and NTFS as Windows reads them cannot hold a '"', nor a trailing
# space: that file is left out, the other loses it)
copied() {
	NFILES=4
	if [[ $1 == exfat || $1 == fat32 || $1 == ntfs ]]; then
		rm "$SRC/card/DCIM/it's a \"quote\".jpg"
		mv "$SRC/card/PRIVATE/ two  spaces " "$SRC/card/PRIVATE/ two  spaces"
		NFILES=3
	fi
	# fusefat 0.1a cannot hold a name outside ASCII: a rename to one loses the file
	# (doc/kernel.md 1.5)
	if [[ $1 == fat32 ]]; then
		mv "$SRC/card/PRIVATE/clip é ü.xml" "$SRC/card/PRIVATE/clip e u.xml"
	fi
	stick_up --fs "$1" --size 64 --rate 0 "${@:2}"
	run safecp -r --checksum=xxh128,sha256 --sums="$SUMS" "$SRC/card" "$STICK_MNT"
	echo "$output"
	[[ $status == 0 ]]
	[[ -s $SUMS.xxh128 && -s $SUMS.sha256 ]]
}

# marked FILE: a file with a marker in the middle, to find its bytes on the image
marked() {
	MARK="SAFECP-CHECK-MARK-$RANDOM$RANDOM"
	{ head -c $((MIB + 7)) /dev/urandom; printf '%s' "$MARK"; head -c $MIB /dev/urandom; } >"$1"
}

# change_on_image: one byte of the marker changed on the device, under the page cache
# (the device node's too: a FUSE daemon reads through it); every copy of it, so that
# the blocks of a replaced copy cannot take the change instead of the live file
change_on_image() {
	local off offs
	# ext4 data=journal: sync leaves the data in the journal; a freeze writes it to its
	# place (a later checkpoint would write it around the change, from the file's
	# pages). Pages of the device node read before then are stale: dropped.
	if [[ $(findmnt -no FSTYPE "$STICK_MNT") == ext4 ]]; then
		fsfreeze --freeze "$STICK_MNT" && fsfreeze --unfreeze "$STICK_MNT"
	fi
	blockdev --flushbufs "$STICK_DEV"
	offs=$(grep -obUaF "$MARK" "$STICK_IMG" | cut -d: -f1)
	[[ -n $offs ]]
	dd if="$STICK_DEV" of=/dev/null bs=1M status=none
	for off in $offs; do
		printf 'X' | dd of="$STICK_IMG" bs=1 seek="$off" conv=notrunc status=none
		# the image changed, the device node's cache still holds the old byte
		[[ $(dd if="$STICK_IMG" bs=1 skip="$off" count=1 status=none) == X ]]
		[[ $(dd if="$STICK_DEV" bs=1 skip="$off" count=1 status=none) == S ]]
	done
}

@test "a clean copy checks against its lists: exit 0, every file by xxh128, from the device" {
	copied ext4
	run -0 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS" --progress=json
	echo "$stderr"
	[[ $stderr == *"'$SUMS.xxh128' (4 files), '$SUMS.sha256' (4 files)"* ]]
	[[ $stderr == *"4 of 4 files match their xxh128 on '$STICK_MNT' (ext4 on $STICK_DEV); read back past the page cache (O_DIRECT)"* ]]
	jq -s -e --arg m "$STICK_MNT" 'map(select(.event == "check")) |
		length == 4 and all(.result == "match" and .algorithm == "xxh128" and
			.read_back == "direct") and
		(map(.file) | index("card/DCIM/it'"'"'s a \"quote\".jpg") != null) and
		(map(.path) | index($m + "/card/PRIVATE/clip é ü.xml") != null)' <<<"$output"
	jq -s -e '.[0].event == "check-start" and .[0].reference == "sums" and
		(.[0].lists | length == 2) and .[0].files == 4' <<<"$output"
	jq -s -e 'map(select(.event == "progress")) | length > 0 and
		all(.bytes_checked <= .bytes_total)' <<<"$output"
	jq -s -e '.[-1] | .event == "done" and .outcome == "checked" and .matched == 4 and
		.differs == 0 and .cache_bypassed == true and .bytes_read == 2*1048576 + 17 + 4097 + 1000' \
		<<<"$output"
	# every line is JSON with the tools' framing (6 decimals)
	[[ $(grep -c '"t":[0-9]*\.[0-9]\{6\},' <<<"$output") == $(wc -l <<<"$output") ]]
}

@test "sha256 alone: the only list is the reference, and -q prints nothing" {
	copied ext4
	rm "$SUMS.xxh128"
	run -0 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS" -v
	[[ $stderr == *"4 of 4 files match their sha256"* ]]
	[[ $output == *"'$STICK_MNT/card/DCIM/C0001.MP4': matches its sha256"* ]]
	run -0 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS" -q
	[[ -z $output && -z $stderr ]]
}

# cached_then_changed FS [stick_up option...]: a byte changed on the image while the
# file's right pages are cached: reading through the cache still shows the old bytes,
# --check reports it
cached_then_changed() {
	copied "$@"
	marked "$BATS_TEST_TMPDIR/m"
	cp "$BATS_TEST_TMPDIR/m" "$STICK_MNT/card/m"
	sync
	( cd "$STICK_MNT" && sha256sum "card/m" ) >>"$SUMS.sha256"
	( cd "$STICK_MNT" && xxhsum -H2 "card/m" ) >>"$SUMS.xxh128"
	cat "$STICK_MNT/card/m" >/dev/null
	change_on_image
	# the page cache still holds the right bytes: a cached read sees no change
	cmp "$BATS_TEST_TMPDIR/m" "$STICK_MNT/card/m"
	run -4 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS" --progress=json
	echo "$stderr"
	[[ $stderr == *"'$STICK_MNT/card/m' read back from the device ('$STICK_MNT' ("*"$STICK_DEV)) differs from its xxh128 in the reference"* ]]
	[[ $stderr == *"$NFILES of $((NFILES + 1)) files match"*": 1 different"* ]]
	jq -s -e 'map(select(.event == "check" and .result != "match")) | length == 1 and
		.[0].file == "card/m" and .[0].result == "differs"' <<<"$output"
	jq -s -e --argjson n "$NFILES" '.[-1] | .differs == 1 and .matched == $n and
		.cache_bypassed == true' <<<"$output"
}

@test "ext4: a byte changed on the device under clean cached pages is reported, exit 4" {
	require_cmd xxhsum
	cached_then_changed ext4
}

@test "ext4 data=journal (O_DIRECT served buffered): a byte changed under cached pages is reported, exit 4" {
	require_cmd xxhsum
	cached_then_changed ext4 --mount-opts data=journal
	# the files' pages were dropped before the read, and the read brought them back (the
	# empty file has nothing to read)
	jq -s -e 'map(select(.event == "check" and (.file | endswith("spaces ") | not)) |
		.read_back) | all(. == "dropped")' <<<"$output"
}

@test "exfat (FUSE): a byte changed on the device under cached pages is reported, exit 4" {
	require_cmd xxhsum
	cached_then_changed exfat
	jq -s -e 'map(select(.event == "check") | .read_back) | all(. == "device-dropped")' \
		<<<"$output"
}

@test "fat32 (fusefat): a byte changed on the device under cached pages is reported, exit 4" {
	require_cmd xxhsum
	require_cmd fusefat
	cached_then_changed fat32
	jq -s -e 'map(select(.event == "check") | .read_back) | all(. == "device-dropped")' \
		<<<"$output"
}

@test "ntfs (ntfs-3g): a byte changed on the device under cached pages is reported, exit 4" {
	require_cmd xxhsum
	require_cmd ntfs-3g
	cached_then_changed ntfs
	jq -s -e 'map(select(.event == "check") | .read_back) | all(. == "device-dropped")' \
		<<<"$output"
}

@test "exfat (FUSE) without root: matches, but says the device cache was not bypassed" {
	require_cmd setpriv
	NFILES=3
	rm "$SRC/card/DCIM/it's a \"quote\".jpg"
	mv "$SRC/card/PRIVATE/ two  spaces " "$SRC/card/PRIVATE/ two  spaces"
	stick_up --fs exfat --size 64 --rate 0
	run -0 safecp -r --sums="$STICK_MNT/offload" "$SRC/card" "$STICK_MNT"
	chmod 755 "$BATS_TEST_TMPDIR"
	cp "$SAFECP_BUILD/cmd/safecp" "$BATS_TEST_TMPDIR/safecp"
	# nobody cannot open the device node, so its page cache cannot be dropped
	run -0 --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BATS_TEST_TMPDIR/safecp" --check "$STICK_MNT" --sums="$STICK_MNT/offload" \
		--progress=json
	echo "$stderr"
	[[ $stderr == *"3 of 3 files match their xxh128"*"; device cache not bypassed (run as root to bypass it)"* ]]
	jq -s -e '.[-1] | .matched == 3 and .cache_bypassed == false and
		(.read_back | index("cached") != null)' <<<"$output"
}

@test "a deleted file is missing, exit 4; the others still match" {
	copied ext4
	rm "$STICK_MNT/card/DCIM/C0001.MP4"
	run -4 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS"
	echo "$stderr"
	[[ $stderr == *"'$STICK_MNT/card/DCIM/C0001.MP4' is missing on '$STICK_MNT' (ext4 on $STICK_DEV); copy it again from the source"* ]]
	[[ $stderr == *"3 of 4 files match"*": 1 missing"* ]]
}

@test "a symlink in place of a listed file, to its right content, is not followed, exit 4" {
	copied ext4
	local f="$STICK_MNT/card/DCIM/it's a \"quote\".jpg"
	mv "$f" "$STICK_MNT/elsewhere.jpg"
	ln -s ../../elsewhere.jpg "$f"
	# and a directory on a listed path replaced by a symlink to a copy of it
	mv "$STICK_MNT/card/PRIVATE" "$STICK_MNT/PRIVATE.real"
	ln -s ../PRIVATE.real "$STICK_MNT/card/PRIVATE"
	run -4 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS" --progress=json
	echo "$stderr"
	[[ $stderr == *"'$STICK_MNT/card/DCIM/it'\\''s a \"quote\".jpg' on '$STICK_MNT' (ext4 on $STICK_DEV) is reached through a symbolic link, which is not followed"* ]]
	jq -s -e 'map(select(.event == "check" and .result == "symlink")) | length == 3' <<<"$output"
	jq -s -e '.[-1] | .matched == 1 and .symlink == 3' <<<"$output"
}

@test "a list naming a path outside DIR is not opened, exit 4" {
	copied ext4
	printf '%s  ../x\n%s  /etc/hostname\n' "$(printf %064d 0)" "$(printf %064d 0)" >>"$SUMS.sha256"
	run -4 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS" --progress=json
	jq -s -e 'map(select(.event == "check" and .result == "outside")) | length == 2' <<<"$output"
	[[ $stderr == *"the reference lists '../x', outside '$STICK_MNT': not read"* ]]
}

@test "a file the device cannot read: exit 1; a differing file beside it: exit 4" {
	[[ -x $SAFECP_BUILD/tests/faultdev ]] ||
		skip "needs $SAFECP_BUILD/tests/faultdev (built when libfuse3-dev is installed)"
	require_cmd xxhsum
	copied ext4 --faulty
	marked "$STICK_MNT/card/m"
	sync
	( cd "$STICK_MNT" && xxhsum -H2 "card/m" ) >>"$SUMS.xxh128"
	local off
	off=$(grep -obUaF "$MARK" "$STICK_IMG" | head -n 1 | cut -d: -f1)
	echo "fail-read $((off / 4096 * 4096)) 4096" >"$STICK_CTL"
	run -1 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS" --progress=json
	echo "$stderr"
	[[ $stderr == *"cannot read '$STICK_MNT/card/m' back from the device ('$STICK_MNT' (ext4 on $STICK_DEV)): Input/output error"* ]]
	jq -s -e 'map(select(.event == "check" and .result == "unreadable")) | length == 1 and
		.[0].errno_name == "EIO"' <<<"$output"
	echo "damaged" >>"$STICK_MNT/card/PRIVATE/clip é ü.xml"
	run -4 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS"
	echo clear >"$STICK_CTL"
}

@test "no reference: no ascmhl and no --sums, no list for the prefix, a bad line: exit 2" {
	copied ext4
	run -2 --separate-stderr safecp --check "$STICK_MNT"
	[[ $stderr == *"no ASC MHL history in '$STICK_MNT/ascmhl' and no --sums given: give the checksum lists"* ]]
	run -2 --separate-stderr safecp --check "$STICK_MNT" --sums="$BATS_TEST_TMPDIR/none"
	[[ $stderr == *"no checksum list '$BATS_TEST_TMPDIR/none.ALG'"* ]]
	echo "not a line" >>"$SUMS.sha256"
	run -2 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS"
	[[ $stderr == *"cannot use the checksum list '$SUMS.sha256': its line 5 is not a line of such a list"* ]]
	run -2 --separate-stderr safecp --check "$STICK_MNT" "$SRC"
	[[ $stderr == *"--check DIR takes no operand"* ]]
	run -2 --separate-stderr safecp --check "$BATS_TEST_TMPDIR/nowhere" --sums="$SUMS"
	# a reference that lists nothing proves nothing
	rm "$SUMS.xxh128"
	: >"$SUMS.sha256"
	run -2 --separate-stderr safecp --check "$STICK_MNT" --sums="$SUMS"
	[[ $stderr == *"the reference for '$STICK_MNT' lists no file: nothing can be checked against it"* ]]
}

# write_mhl DIR [FAILED_PATH]: a one-generation ASC MHL history of every file in DIR,
# written by lib/mhl (tests/tools/mhl_gen), with xxh128 and md5 (FAILED_PATH's action
# "failed"); Debian's python3, which has python3-xxhash (as tests/tools does)
write_mhl() {
	/usr/bin/python3 - "$SAFECP_BUILD/tests/mhl_gen" "$1" "${2:-}" <<'EOF'
import hashlib, os, subprocess, sys, xxhash
gen, dest, failed = sys.argv[1:4]
A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
def c4(d):
    v, s = int.from_bytes(hashlib.sha512(d).digest(), "big"), ""
    while v:
        v, r = divmod(v, 58)
        s = A[r] + s
    return "c4" + s.rjust(88, "1")
when = 1764602517
toks = [str(when), "host", "safecp", "0.1 test"]
for root, dirs, files in os.walk(dest):
    dirs[:] = [d for d in dirs if d != "ascmhl"]
    for f in sorted(files):
        full = os.path.join(root, f)
        rel = os.path.relpath(full, dest)
        data = open(full, "rb").read()
        act = "failed" if rel == failed else "original"
        toks += ["file", rel, str(len(data)), str(int(os.stat(full).st_mtime)), "2",
                 "md5", hashlib.md5(data).hexdigest(), act, str(when),
                 "xxh128", xxhash.xxh3_128(data).hexdigest(), act, str(when)]
blob = b"".join(t.encode() + b"\0" for t in toks)
xml = subprocess.run([gen, "gen"], input=blob, capture_output=True, check=True).stdout
name = subprocess.run([gen, "name", "1", os.path.basename(dest), str(when)],
                      capture_output=True, check=True).stdout.decode().strip()
os.makedirs(os.path.join(dest, "ascmhl"), exist_ok=True)
open(os.path.join(dest, "ascmhl", name), "wb").write(xml)
chain = subprocess.run([gen, "chain", "1", name, c4(xml)], capture_output=True,
                       check=True).stdout
open(os.path.join(dest, "ascmhl", "ascmhl_chain.xml"), "wb").write(chain)
EOF
}

@test "ASC MHL: the newest manifest is the reference; a change, a failed file, a bad C4" {
	[[ -x $SAFECP_BUILD/tests/mhl_gen ]] || skip "needs $SAFECP_BUILD/tests/mhl_gen"
	/usr/bin/python3 -c 'import xxhash' 2>/dev/null || skip "needs python3-xxhash"
	copied ext4
	local dest=$STICK_MNT/card
	write_mhl "$dest"
	run -0 --separate-stderr safecp --check "$dest" --progress=json
	echo "$stderr"
	[[ $stderr == *"against the ASC MHL manifest 'ascmhl/0001_card_"*".mhl' (4 files)"* ]]
	[[ $stderr == *"4 of 4 files match their xxh128"* ]]
	jq -s -e '.[0].reference == "mhl" and (.[0].manifest | startswith("0001_card_")) and
		.[-1].matched == 4' <<<"$output"
	# marked failed in the manifest: differs, unread
	rm -r "$dest/ascmhl"
	write_mhl "$dest" "DCIM/C0001.MP4"
	run -4 --separate-stderr safecp --check "$dest"
	[[ $stderr == *"'$dest/DCIM/C0001.MP4' on '$STICK_MNT' (ext4 on $STICK_DEV) is marked failed in the ASC MHL manifest"* ]]
	# a changed file
	rm -r "$dest/ascmhl"
	write_mhl "$dest"
	flip_byte "$dest/PRIVATE/clip é ü.xml" 10
	run -4 --separate-stderr safecp --check "$dest"
	[[ $stderr == *"'$dest/PRIVATE/clip é ü.xml' read back from the device"*"differs from its xxh128"* ]]
	# a manifest changed after it was written: not the chain's C4
	sed -i 's/<tool /<tool  /' "$dest"/ascmhl/0001_*.mhl
	run -2 --separate-stderr safecp --check "$dest"
	[[ $stderr == *"is not the one ascmhl_chain.xml records (its C4 ID differs)"* ]]
}

@test "safecp --mhl, then --check DIR: the newest generation; a byte changed under the cache, exit 4" {
	require_cmd xxhsum
	stick_up --size 64 --rate 0
	marked "$SRC/card/m"
	run -0 safecp -r --mhl --checksum=xxh128,md5 "$SRC/card" "$STICK_MNT"
	# a rerun (every file copied again) appends the generation --check takes
	run -0 safecp -r --mhl "$SRC/card" "$STICK_MNT"
	[[ -e $STICK_MNT/ascmhl/ascmhl_chain.xml ]]
	run -0 --separate-stderr safecp --check "$STICK_MNT" --progress=json
	echo "$stderr"
	[[ $stderr == *"against the ASC MHL manifest 'ascmhl/0002_"*"' (5 files)"* ]]
	[[ $stderr == *"5 of 5 files match their xxh128"* ]]
	jq -s -e '.[0].reference == "mhl" and (.[0].manifest | startswith("0002_")) and
		.[-1].matched == 5' <<<"$output"
	cat "$STICK_MNT/card/m" >/dev/null
	change_on_image
	cmp "$SRC/card/m" "$STICK_MNT/card/m"
	run -4 --separate-stderr safecp --check "$STICK_MNT"
	echo "$stderr"
	[[ $stderr == *"'$STICK_MNT/card/m' read back from the device"*"differs from its xxh128"* ]]
}

@test "SIGINT during a check: exit 130, the done event says interrupted" {
	require_hooks
	copied ext4
	SAFECP_TEST_PAUSE=check:C0001 safecp --check "$STICK_MNT" --sums="$SUMS" --progress=json \
		>"$BATS_TEST_TMPDIR/ev" 2>"$BATS_TEST_TMPDIR/err" &
	local pid=$! rc=0
	wait_paused "$pid"
	kill -INT "$pid"
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	[[ $rc == 130 ]]
	grep -q "interrupted by SIGINT" "$BATS_TEST_TMPDIR/err"
	jq -s -e '.[-1] | .event == "done" and .outcome == "interrupted" and .signal == "INT"
		and .matched < 4' "$BATS_TEST_TMPDIR/ev"
}

@test "after a rerun with -n lists only the new file, --check still checks every file (older generations)" {
	stick_up --size 64 --rate 0
	run -0 safecp -r --mhl "$SRC/card" "$STICK_MNT"
	make_file "$SRC/card/DCIM/C0002.MP4" 5000
	run -0 safecp -r -n --mhl "$SRC/card" "$STICK_MNT"
	[[ $(grep -c '<hash>' "$STICK_MNT"/ascmhl/0002_*.mhl) == 1 ]]
	run -0 --separate-stderr safecp --check "$STICK_MNT"
	[[ $output == *"5 of 5 files match"* || $stderr == *"5 of 5 files match"* ]]
	# a change to a file only the first generation lists is found
	flip_byte "$STICK_MNT/card/DCIM/C0001.MP4" 1000
	run -4 safecp --check "$STICK_MNT"
}

# An ext4 stick made with -O inline_data: a small file's bytes live in its inode, read
# through the device's cached inode table whatever O_DIRECT says (ext4_dio_supported).
inline_stick() {
	stick_up --fs ext4 --size 64 --rate 0 --no-mount
	mkfs.ext4 -q -F -O inline_data -E lazy_itable_init=0,lazy_journal_init=0 "$STICK_DEV"
	sync "$STICK_DEV"
	stick_reattach "$STICK_ID"
	[[ $STICK_FSCK_RC == 0 ]]
}

@test "ext4 inline_data: a small file's read-back is never called O_DIRECT; the cache is said not bypassed" {
	inline_stick
	mkdir "$BATS_TEST_TMPDIR/isrc"
	printf 'ORIGINAL-SMALL-FILE-CONTENT-0123456789\n' >"$BATS_TEST_TMPDIR/isrc/note.txt"
	run -0 --separate-stderr safecp -r --mhl --verify --progress=json "$BATS_TEST_TMPDIR/isrc" \
		"$STICK_MNT"/
	echo "$stderr"
	[[ $(lsattr "$STICK_MNT/isrc/note.txt") == *N* ]] # the data is inline
	jq -s -e '.[-1] | .event == "done" and .verify_cache_bypassed == false' <<<"$output"
	[[ $stderr == *"device cache not bypassed"* ]]
	# the device now holds other bytes; the cached inode table still the old ones
	local off offs
	offs=$(grep -obUa ORIGINAL-SMALL "$STICK_IMG" | cut -d: -f1)
	[[ -n $offs ]]
	for off in $offs; do
		dd if="$STICK_DEV" of="$BATS_TEST_TMPDIR/sec" bs=512 skip=$((off / 512)) count=1 \
			iflag=direct status=none
		sed 's/ORIGINAL-SMALL/TAMPERED-SMALL/' "$BATS_TEST_TMPDIR/sec" >"$BATS_TEST_TMPDIR/sec2"
		dd if="$BATS_TEST_TMPDIR/sec2" of="$STICK_DEV" bs=512 seek=$((off / 512)) count=1 \
			oflag=direct conv=notrunc status=none
	done
	run --separate-stderr safecp --check="$STICK_MNT" --progress=json
	echo "rc $status: $stderr"
	[[ $stderr != *"O_DIRECT"* ]]
	# a match read from the cache must say so; the device's change, if seen, is exit 4
	if ((status == 0)); then
		[[ $stderr == *"1 of 1 files match"*"device cache not bypassed"* ]]
		jq -s -e '.[-1] | .cache_bypassed == false' <<<"$output"
		jq -s -e 'map(select(.event == "check")) | .[0].read_back == "cached"' <<<"$output"
	else
		((status == 4))
	fi
}
