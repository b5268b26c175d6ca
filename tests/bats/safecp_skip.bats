#!/usr/bin/env bats
# tests/bats/safecp_skip.bats: --skip-identical, a rerun copies only what is missing or
# different, on simulated sticks:
# - a rerun after a full copy copies 0 bytes, reads nothing, and leaves every file (inode,
#   ctime) as it was; the start and done events and the dry run count what it left alone;
# - a rerun after kill -9 in the middle copies exactly the files the first run did not
#   publish (counted from the destination and from the rerun's events);
# - a source file changed (same size, another mtime) is copied again;
# - same size and mtime with other bytes: quick leaves it, hash copies it;
# - hash with the --sums lists of the first run: judged by the list, a file the list does
#   not name is copied, and the lists written again still name every file;
# - hash with an ASC MHL history (made with lib/mhl through tests/tools/mhl_gen): judged by
#   its newest generation; a file it marks failed or does not list is copied; a generation
#   the chain's C4 ID does not vouch for is passed over with a warning;
# - several destinations: each judged on its own, and a file every destination holds is
#   not read;
# - FAT32 (fusefat): a copy keeps the times, 2 s coarser, and a rerun takes them for the
#   same;
# - with --mhl: a rerun's generation lists the files hash vouched for, and hash asks the
#   newest generation that lists a file; after kill -9 mid-copy (no generation yet) a quick
#   rerun reads the files no generation lists and lists them, so every file is in the
#   history (tests/tools/mhl_check.py), and a no-op rerun reads nothing and lists nothing;
#   hash without a history lists what content or a --sums list judged, original;
# - a copy changed on the stick with its size, mtime and record kept: without --verify the
#   -v line says the stick's bytes were not read and the generation does not call it
#   verified; with --verify (quick, the history, a --sums list) every file left alone is
#   read back, the changed one copied again, and done's skipped_verified counts the rest;
# - a copy swapped for a symlink to a FIFO while it is judged (pause point "identical")
#   is not opened;
# names with spaces, quotes and non-ASCII throughout.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	EV=$BATS_TEST_TMPDIR/events
	ERR=$BATS_TEST_TMPDIR/stderr
	COPY_PID=
	mkdir -p "$SRC/card/DCIM/100 CANON" "$SRC/card/PRIVATE/M4ROOT"
	make_file "$SRC/card/DCIM/100 CANON/IMG 0001.JPG" 300001
	make_file "$SRC/card/DCIM/100 CANON/it's a \"quote\".jpg" 4097
	make_file "$SRC/card/PRIVATE/M4ROOT/clip é ü.MP4" $((2 * MIB + 5))
	make_file "$SRC/card/PRIVATE/M4ROOT/ two  spaces " 1
	make_file "$SRC/card/empty" 0
	NFILES=5
}

teardown() {
	[[ -z $COPY_PID ]] || kill -9 "$COPY_PID" 2>/dev/null || true
	stick_down_all
}

# inodes DIR: "inode ctime mtime size path" of every regular file, sorted
inodes() {
	find "$1" -type f -printf '%i %C@ %T@ %s %P\n' | LC_ALL=C sort -k5
}

# ev_count FILTER: how many events of $EV match the jq FILTER
ev_count() {
	jq -s "[.[] | select($1)] | length" "$EV"
}

identical_events() {
	ev_count '.event == "file" and .state == "skipped" and .reason == "identical"'
}

# file_events STATE FILE: how many file events of $EV say STATE for FILE
file_events() {
	jq -s --arg s "$1" --arg f "$2" '[.[] | select(.event == "file" and .state == $s
		and .file == $f)] | length' "$EV"
}

started_files() {
	ev_count '.event == "file" and .state == "started" and .type == "file"'
}

@test "a rerun after a full copy copies 0 bytes, reads nothing and touches no file" {
	stick_up --size 64 --rate 0
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	inodes "$STICK_MNT" >"$BATS_TEST_TMPDIR/before"
	run -0 --separate-stderr safecp -r --skip-identical --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	jq -s -e --argjson n "$NFILES" '
		(map(select(.event == "start"))[0] | .bytes_total == 0 and .files == 0
			and .skipped_identical == $n and .skipped_identical_bytes > 2000000)
		and (last | .event == "done" and .bytes_on_device == 0 and .files == 0
			and .skipped_identical == $n and .source_bytes_read == 0)' "$EV"
	[[ $(identical_events) == "$NFILES" && $(started_files) == 0 ]]
	[[ $(ev_count '.judged == "size-mtime"') == "$NFILES" ]]
	inodes "$STICK_MNT" >"$BATS_TEST_TMPDIR/after"
	diff "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	# the words: -v names each, the dry run counts them
	run -0 safecp -r -v --skip-identical "$SRC/card" "$STICK_MNT"
	grep -qF "'$SRC/card/DCIM/100 CANON/it'\\''s a \"quote\".jpg' identical to" <<<"$output"
	[[ $(grep -c "(same size and modification time): not copied" <<<"$output") == "$NFILES" ]]
	grep -q "^$NFILES identical files were already there, not copied; 0 B in 0 files" <<<"$output"
	run -0 safecp -r --dry-run --skip-identical "$SRC/card" "$STICK_MNT"
	grep -q "^plan: 0 files, " <<<"$output"
	grep -q "^identical: $NFILES files, .* already there: not copied (--skip-identical=quick)$" <<<"$output"
	# it overrides -n: identical, not kept
	run -0 --separate-stderr safecp -r -n --skip-identical --progress=json "$SRC/card" "$STICK_MNT"
	jq -s -e --argjson n "$NFILES" 'map(select(.event == "start"))[0]
		| .kept == 0 and .skipped_identical == $n' <<<"$output"
	# without it, everything is written again
	run -0 safecp -r --progress=json "$SRC/card" "$STICK_MNT"
	jq -s -e 'last | .event == "done" and .files == 5 and .skipped_identical == 0' <<<"$output"
}

@test "the mode is given with '=': a separate word is a SOURCE; an unknown mode is refused" {
	stick_up --size 64 --rate 0
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	# 'hash' here is a source operand, not the mode
	mkdir "$BATS_TEST_TMPDIR/w" && cd "$BATS_TEST_TMPDIR/w"
	make_file hash 10
	run -0 safecp -r --skip-identical hash "$SRC/card" "$STICK_MNT"
	[[ -f $STICK_MNT/hash ]]
	run -2 safecp -r --skip-identical=fast "$SRC/card" "$STICK_MNT"
	[[ $output == "safecp: unknown mode 'fast' for --skip-identical: use quick or hash" ]]
}

@test "a rerun after kill -9 mid-copy copies only the files the first run did not publish" {
	stick_up --size 96 --rate $((4 * MIB))
	local i n_done n_left
	mkdir -p "$SRC/many"
	for i in $(seq -w 1 24); do make_file "$SRC/many/clip $i é.MP4" $((MIB + 10#$i)); done
	safecp -r --progress=json "$SRC/many" "$STICK_MNT" >"$EV" 2>"$ERR" &
	COPY_PID=$!
	# a few files published, most not yet
	wait_for 60 jq_files_finished_at_least 3
	kill -9 "$COPY_PID"
	wait "$COPY_PID" || true
	COPY_PID=
	assert_final_names_complete "$SRC" "$STICK_MNT"
	n_done=$(find "$STICK_MNT/many" -type f ! -name '.safecp-*' | wc -l)
	n_left=$((24 - n_done))
	echo "killed with $n_done of 24 files published"
	((n_done >= 3 && n_left > 0))
	# every file the first run said finished is among them
	((n_done >= $(jq -R -n '[inputs | fromjson? | select(.event == "file" and
		.state == "finished" and .type == "file")] | length' "$EV")))
	stick_throttle "$STICK_ID" 0
	run -0 --separate-stderr safecp -r --skip-identical --progress=json "$SRC/many" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(identical_events) == "$n_done" ]]
	[[ $(started_files) == "$n_left" ]]
	[[ $(ev_count '.event == "file" and .state == "finished" and .type == "file"') == "$n_left" ]]
	jq -s -e --argjson d "$n_done" --argjson l "$n_left" '
		(map(select(.event == "start"))[0] | .files == $l and .skipped_identical == $d)
		and (last | .event == "done" and .files == $l and .skipped_identical == $d)' "$EV"
	# the published ones were not read again
	jq -s -e --argjson l "$n_left" 'last | .source_bytes_read < ($l + 1) * 1048592' "$EV"
	diff <(tree_digest "$SRC/many") <(tree_digest "$STICK_MNT/many")
	assert_no_temporaries "$STICK_MNT"
}

# jq_files_finished_at_least N: $EV holds N finished file events (lines still being
# written are skipped)
jq_files_finished_at_least() {
	jq -R -n -e --argjson n "$1" '[inputs | fromjson?
		| select(.event == "file" and .state == "finished" and .type == "file")]
		| length >= $n' "$EV" >/dev/null 2>&1
}

@test "a source changed since (same size, another mtime) is copied again; quick trusts size and mtime, hash reads" {
	stick_up --size 64 --rate 0
	local img="DCIM/100 CANON/IMG 0001.JPG" clip="PRIVATE/M4ROOT/clip é ü.MP4"
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	# IMG: new bytes, same size, a later mtime
	make_file "$SRC/card/$img" 300001
	touch -d '+1 hour' "$SRC/card/$img"
	# clip: other bytes on the stick, same size, the source's mtime put back
	printf 'XXXX' | dd of="$STICK_MNT/card/$clip" bs=1 seek=1000 conv=notrunc status=none
	touch -r "$SRC/card/$clip" "$STICK_MNT/card/$clip"
	run -0 --separate-stderr safecp -r --skip-identical --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(started_files) == 1 && $(identical_events) == 4 ]]
	[[ $(file_events finished "card/$img") == 1 ]]
	cmp "$SRC/card/$img" "$STICK_MNT/card/$img"
	# quick took the clip for identical: it is not
	refute cmp -s "$SRC/card/$clip" "$STICK_MNT/card/$clip"
	run -0 --separate-stderr safecp -r --skip-identical=hash --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(started_files) == 1 && $(identical_events) == 4 ]]
	[[ $(ev_count '.judged == "content"') == 4 ]]
	[[ $(file_events finished "card/$clip") == 1 ]]
	diff <(tree_digest "$SRC/card") <(tree_digest "$STICK_MNT/card")
}

@test "hash with the --sums lists of the first run: judged by the list, never past it" {
	require_cmd xxhsum
	stick_up --size 64 --rate 0
	local img="DCIM/100 CANON/IMG 0001.JPG" quote="DCIM/100 CANON/it's a \"quote\".jpg"
	run -0 safecp -r --checksum=xxh128,sha256 --sums="$STICK_MNT/offload" "$SRC/card" "$STICK_MNT"
	[[ $(wc -l <"$STICK_MNT/offload.xxh128") == "$NFILES" ]]
	# the list no longer names IMG; the quote file's source changes (same size and mtime)
	grep -v "IMG 0001" "$STICK_MNT/offload.xxh128" >"$BATS_TEST_TMPDIR/l" &&
		cp "$BATS_TEST_TMPDIR/l" "$STICK_MNT/offload.xxh128"
	grep -v "IMG 0001" "$STICK_MNT/offload.sha256" >"$BATS_TEST_TMPDIR/l" &&
		cp "$BATS_TEST_TMPDIR/l" "$STICK_MNT/offload.sha256"
	cp -p "$SRC/card/$quote" "$BATS_TEST_TMPDIR/q"
	make_file "$SRC/card/$quote" 4097
	touch -r "$BATS_TEST_TMPDIR/q" "$SRC/card/$quote"
	run -0 --separate-stderr safecp -r --skip-identical=hash --checksum=xxh128,sha256 \
		--sums="$STICK_MNT/offload" --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	# 3 vouched for by the list; IMG (not listed) and the quote file (another digest) copied
	[[ $(ev_count '.judged == "list"') == 3 && $(started_files) == 2 ]]
	[[ $(file_events started "card/$img") == 1 ]]
	[[ $(file_events started "card/$quote") == 1 ]]
	# the lists written again name every file, and check
	[[ $(wc -l <"$STICK_MNT/offload.xxh128") == "$NFILES" ]]
	[[ $(wc -l <"$STICK_MNT/offload.sha256") == "$NFILES" ]]
	(cd "$STICK_MNT" && xxhsum --strict -c offload.xxh128 && sha256sum --strict -c offload.sha256)
	diff <(tree_digest "$SRC/card") <(tree_digest "$STICK_MNT/card")
	# a rerun on the rewritten lists: every file is the list's
	run -0 --separate-stderr safecp -r --skip-identical=hash --sums="$STICK_MNT/offload" \
		--progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "list"') == "$NFILES" && $(started_files) == 0 ]]
}

# no_fat_names: FAT and exFAT hold no '"' and no trailing space: those files go
no_fat_names() {
	rm "$SRC/card/DCIM/100 CANON/it's a \"quote\".jpg" "$SRC/card/PRIVATE/M4ROOT/ two  spaces "
	NFILES=3
}

@test "several destinations: each judged on its own; what all hold is not read" {
	local a b
	no_fat_names
	stick_up --size 64 --rate 0
	a=$STICK_MNT
	stick_up --fs exfat --size 64 --rate 0
	b=$STICK_MNT
	run -0 safecp -r -t "$a" "$SRC/card"
	run -0 --separate-stderr safecp -r --skip-identical --progress=json -t "$a" -t "$b" "$SRC/card"
	printf '%s\n' "$output" >"$EV"
	jq -s -e --arg a "$a" --arg b "$b" --argjson n "$NFILES" '
		(last | .event == "done"
			and (.destinations[] | select(.dest == $a) | .skipped_identical == $n and .files == 0)
			and (.destinations[] | select(.dest == $b) | .skipped_identical == 0 and .files == $n))' "$EV"
	diff <(tree_digest "$SRC/card") <(tree_digest "$b/card")
	# both hold everything (exfat-fuse: 1 s steps): nothing is read
	run -0 --separate-stderr safecp -r --skip-identical --progress=json -t "$a" -t "$b" "$SRC/card"
	jq -s -e '(last | .event == "done" and .source_bytes_read == 0
		and ([.destinations[].files] == [0, 0]))' <<<"$output"
}

@test "FAT32 (fusefat): the copy keeps the times 2 s coarser, and a rerun takes them for the same" {
	stick_up --fs fat32 --size 64 --rate 0 || skip "no FAT32 stick here (fusefat)"
	no_fat_names
	# fusefat cannot rename to a non-ASCII name (EPERM): an ASCII one with spaces
	mv "$SRC/card/PRIVATE/M4ROOT/clip é ü.MP4" "$SRC/card/PRIVATE/M4ROOT/clip 1.MP4"
	# odd seconds and a fraction, which FAT cannot store
	find "$SRC/card" -type f -exec touch -d '2024-05-05 10:00:01.7' {} +
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	# past FUSE's attribute cache (1 s): what the daemon holds, 2 s coarser (fusefat
	# gives a renamed file the rename's time: the engine sets the times again)
	sleep 1.5
	[[ $(stat -c %y "$STICK_MNT/card/empty") == "2024-05-05 10:00:00.000000000 +0000" ]]
	[[ $(stat -c %y "$STICK_MNT/card/PRIVATE/M4ROOT/clip 1.MP4") == "2024-05-05 10:00:00.000000000 +0000" ]]
	run -0 --separate-stderr safecp -r --skip-identical --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(identical_events) == "$NFILES" && $(started_files) == 0 ]]
	# two seconds off is another time
	touch -d '2024-05-05 10:00:03.7' "$SRC/card/empty"
	run -0 --separate-stderr safecp -r --skip-identical --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(identical_events) == $((NFILES - 1)) && $(started_files) == 1 ]]
}

# make_history DEST FAILED OMITTED: DEST/ascmhl with one generation listing every file
# below DEST (but OMITTED, and ascmhl) by its xxh128, FAILED with action failed; the
# chain holds the generation's C4 ID
make_history() {
	python3 - "$1" "$2" "$3" "$SAFECP_BUILD/tests/mhl_gen" <<'PY'
import hashlib, os, subprocess, sys
dest, failed, omitted, gen = sys.argv[1:]
tok = [b"1700000000", b"host", b"safecp-test", b"1"]
for root, dirs, files in os.walk(dest):
    dirs[:] = [d for d in dirs if d != "ascmhl"]
    for f in sorted(files):
        p = os.path.join(root, f)
        rel = os.path.relpath(p, dest)
        if rel == omitted:
            continue
        h = subprocess.run(["xxhsum", "-H2", p], capture_output=True, check=True).stdout.split()[0]
        st = os.stat(p)
        tok += [b"file", rel.encode(), str(st.st_size).encode(), str(int(st.st_mtime)).encode(),
                b"1", b"xxh128", h, b"failed" if rel == failed else b"original", b"1700000000"]
xml = subprocess.run([gen, "gen"], input=b"".join(t + b"\0" for t in tok),
                     capture_output=True, check=True).stdout
name = "0001_dest_2023-11-14_221320Z.mhl"
os.makedirs(os.path.join(dest, "ascmhl"), exist_ok=True)
open(os.path.join(dest, "ascmhl", name), "wb").write(xml)
n = int.from_bytes(hashlib.sha512(xml).digest(), "big")
alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
b58 = ""
while n:
    n, r = divmod(n, 58)
    b58 = alphabet[r] + b58
c4 = "c4" + b58.rjust(88, "1")
chain = subprocess.run([gen, "chain", "1", name, c4], capture_output=True, check=True).stdout
open(os.path.join(dest, "ascmhl", "ascmhl_chain.xml"), "wb").write(chain)
PY
}

@test "hash with an ASC MHL history: judged by its newest generation, failed and unlisted copied" {
	require_cmd xxhsum
	[[ -x $SAFECP_BUILD/tests/mhl_gen ]] || skip "tests/mhl_gen not built"
	stick_up --size 64 --rate 0
	local img="card/DCIM/100 CANON/IMG 0001.JPG" clip="card/PRIVATE/M4ROOT/clip é ü.MP4"
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	make_history "$STICK_MNT" "$img" "$clip"
	run -0 --separate-stderr safecp -r --skip-identical=hash --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "manifest"') == $((NFILES - 2)) && $(started_files) == 2 ]]
	[[ $(file_events started "$img") == 1 && $(file_events started "$clip") == 1 ]]
	# the generation changed on the stick (still well formed): its C4 ID is not the
	# chain's, so it is passed over and both copies are read
	sed -i 's/safecp-test/safecp-tamper/' "$STICK_MNT"/ascmhl/0001_*.mhl
	run -0 --separate-stderr safecp -r --skip-identical=hash --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "content"') == "$NFILES" && $(started_files) == 0 ]]
	grep -q "warning: the ASC MHL generation '0001_dest_2023-11-14_221320Z.mhl' in '$STICK_MNT'/ascmhl is not the one its ascmhl_chain.xml records" <<<"$stderr"
	# a chain cut short: named, passed over
	truncate -s 20 "$STICK_MNT/ascmhl/ascmhl_chain.xml"
	run -0 --separate-stderr safecp -r --skip-identical=hash "$SRC/card" "$STICK_MNT"
	grep -q "warning: cannot use the ASC MHL history '$STICK_MNT/ascmhl/ascmhl_chain.xml.*': not well-formed XML" <<<"$stderr"
}

@test "with --mhl, a rerun lists what hash vouched for; hash asks the whole history" {
	require_cmd xmllint
	stick_up --size 64 --rate 0
	local m
	run -0 safecp -r --mhl "$SRC/card" "$STICK_MNT"
	# every file is in generation 1: quick reads nothing, its generation lists nothing
	run -0 safecp -r --mhl --skip-identical "$SRC/card" "$STICK_MNT"
	[[ $(grep -c '<hash>' "$STICK_MNT"/ascmhl/0002_*.mhl) == 0 ]]
	# hash finds every file in the first generation, the newest that lists it;
	# without --verify only the stick's record was compared: listed nowhere new
	run -0 --separate-stderr safecp -r --mhl --skip-identical=hash --progress=json \
		"$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "manifest"') == "$NFILES" && $(started_files) == 0 ]]
	[[ $(grep -c '<hash>' "$STICK_MNT"/ascmhl/0003_*.mhl) == 0 ]]
	# with --verify each copy is read back: its generation lists them, verified
	run -0 --separate-stderr safecp -r --mhl --skip-identical=hash --verify --progress=json \
		"$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "manifest"') == "$NFILES" && $(started_files) == 0 ]]
	[[ $(grep -c '<hash>' "$STICK_MNT"/ascmhl/0004_*.mhl) == "$NFILES" ]]
	[[ $(grep -c 'action="verified"' "$STICK_MNT"/ascmhl/0004_*.mhl) == "$NFILES" ]]
	for m in "$STICK_MNT"/ascmhl/000[1234]_*.mhl; do
		xmllint --noout --schema "$SAFECP_SRC/tests/tools/ascmhl.xsd" "$m"
	done
	if /usr/bin/python3 -c 'import lxml, xxhash' 2>/dev/null; then
		"$SAFECP_SRC/tests/tools/mhl_check.py" "$STICK_MNT"
	fi
	# an older generation changed on the stick is not asked: the files it alone
	# lists are compared by... nothing: the history is there, so they are copied
	sed -i 's/safecp/safecq/' "$STICK_MNT"/ascmhl/0001_*.mhl
	run -0 safecp -r --mhl --skip-identical "$SRC/card" "$STICK_MNT" # gen 5: empty
	run -0 --separate-stderr safecp -r --skip-identical=hash --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "manifest"') == "$NFILES" ]] # gen 4 lists them all
}

# mhl_listed DEST: the paths some generation of DEST/ascmhl lists, sorted, once each
# (the <path> texts; the test's names hold no markup)
mhl_listed() {
	cat "$1"/ascmhl/*.mhl | sed -n 's|.*<path[^>]*>\(.*\)</path>.*|\1|p' | LC_ALL=C sort -u
}

# files_below DIR: the regular files below DIR but its ascmhl folder, relative, sorted
files_below() {
	(cd "$1" && find . -path ./ascmhl -prune -o -type f -printf '%P\n' | LC_ALL=C sort)
}

require_mhl_check() {
	/usr/bin/python3 -c 'import lxml, xxhash' 2>/dev/null ||
		skip "needs python3-lxml and python3-xxhash for tests/tools/mhl_check.py"
}

@test "--mhl: a rerun after kill -9 mid-copy lists every file; a no-op rerun reads nothing and still checks out" {
	require_mhl_check
	stick_up --size 96 --rate $((4 * MIB))
	local i n_done n_left m
	mkdir -p "$SRC/many"
	for i in $(seq -w 1 24); do make_file "$SRC/many/clip $i é.MP4" $((MIB + 10#$i)); done
	safecp -r --mhl --progress=json "$SRC/many" "$STICK_MNT" >"$EV" 2>"$ERR" &
	COPY_PID=$!
	wait_for 60 jq_files_finished_at_least 3
	kill -9 "$COPY_PID"
	wait "$COPY_PID" || true
	COPY_PID=
	n_done=$(find "$STICK_MNT/many" -type f ! -name '.safecp-*' | wc -l)
	n_left=$((24 - n_done))
	echo "killed with $n_done of 24 files published"
	((n_done >= 3 && n_left > 0))
	# its epilogue never ran: no generation
	[[ ! -e $STICK_MNT/ascmhl/ascmhl_chain.xml ]]
	stick_throttle "$STICK_ID" 0
	run -0 --separate-stderr safecp -r --mhl --skip-identical --progress=json "$SRC/many" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	# only the missing files copied; the others, in no generation, read to be listed
	[[ $(started_files) == "$n_left" && $(identical_events) == "$n_done" ]]
	[[ $(ev_count '.judged == "content"') == "$n_done" ]]
	jq -s -e --argjson d "$n_done" --argjson l "$n_left" 'last | .event == "done"
		and .files == $l and .skipped_identical == $d' "$EV"
	# every file in the (one) generation: copied ones and the ones left alone, original
	diff <(files_below "$STICK_MNT") <(mhl_listed "$STICK_MNT")
	m=("$STICK_MNT"/ascmhl/0001_*.mhl)
	[[ $(grep -c '<xxh128 action="original"' "${m[0]}") == 24 ]]
	"$SAFECP_SRC/tests/tools/mhl_check.py" "$STICK_MNT"
	diff <(tree_digest "$SRC/many") <(tree_digest "$STICK_MNT/many")
	# a no-op rerun: all listed, so nothing is read, and its empty generation is fine
	run -0 --separate-stderr safecp -r --mhl --skip-identical --progress=json "$SRC/many" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	jq -s -e 'last | .event == "done" and .files == 0 and .skipped_identical == 24
		and .source_bytes_read == 0' "$EV"
	[[ $(ev_count '.judged == "size-mtime"') == 24 ]]
	m=("$STICK_MNT"/ascmhl/0002_*.mhl)
	[[ $(grep -c '<hash>' "${m[0]}") == 0 ]]
	"$SAFECP_SRC/tests/tools/mhl_check.py" "$STICK_MNT"
}

@test "--mhl with hash and no history: what content or a --sums list judged is listed, original" {
	require_cmd xxhsum
	require_mhl_check
	stick_up --size 64 --rate 0
	local m img="card/DCIM/100 CANON/IMG 0001.JPG"
	# a copy without its history (as a killed --mhl run leaves it), its lists kept
	# off the stick (files in scope of the history)
	run -0 safecp -r --checksum=xxh128,md5 --sums="$BATS_TEST_TMPDIR/offload" "$SRC/card" \
		"$STICK_MNT"
	# by reading both copies: xxh128 and md5 (the run's MHL formats) listed
	run -0 --separate-stderr safecp -r --mhl --checksum=xxh128,md5 --skip-identical=hash \
		--progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "content"') == "$NFILES" && $(started_files) == 0 ]]
	m=("$STICK_MNT"/ascmhl/0001_*.mhl)
	[[ $(grep -c '<xxh128 action="original"' "${m[0]}") == "$NFILES" ]]
	[[ $(grep -c '<md5 action="original"' "${m[0]}") == "$NFILES" ]]
	grep -qF "<path size=\"300001\"" "${m[0]}"
	grep -qF ">$img</path>" "${m[0]}"
	"$SAFECP_SRC/tests/tools/mhl_check.py" "$STICK_MNT"
	# by the --sums list, the history gone again: the list's algorithms
	rm -r "$STICK_MNT/ascmhl"
	run -0 --separate-stderr safecp -r --mhl --checksum=xxh128,md5 --skip-identical=hash \
		--sums="$BATS_TEST_TMPDIR/offload" --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "list"') == "$NFILES" && $(started_files) == 0 ]]
	m=("$STICK_MNT"/ascmhl/0001_*.mhl)
	[[ $(grep -c '<xxh128 action="original"' "${m[0]}") == "$NFILES" ]]
	[[ $(grep -c '<md5 action="original"' "${m[0]}") == "$NFILES" ]]
	"$SAFECP_SRC/tests/tools/mhl_check.py" "$STICK_MNT"
	# a rerun by the history now, each copy read back: every file vouched for, verified
	run -0 --separate-stderr safecp -r --mhl --checksum=xxh128,md5 --skip-identical=hash \
		--verify --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	[[ $(ev_count '.judged == "manifest"') == "$NFILES" ]]
	m=("$STICK_MNT"/ascmhl/0002_*.mhl)
	[[ $(grep -c 'action="verified"' "${m[0]}") == $((2 * NFILES)) ]]
	"$SAFECP_SRC/tests/tools/mhl_check.py" "$STICK_MNT"
}

# corrupt_kept FILE: ten bytes of FILE changed in place, its size and mtime kept (a stick
# that rotted, or someone who changed the copy and kept or forged its record)
corrupt_kept() {
	/usr/bin/python3 - "$1" <<'PY'
import os, sys
p = sys.argv[1]
st = os.stat(p)
with open(p, "r+b") as f:
    f.seek(5000)
    f.write(b"CORRUPTED!")
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
PY
	if cmp -s "$SRC/$2" "$1"; then return 1; fi
}

# reread_done: the last event of $EV is done, one file copied again, every other file
# left alone read back from the device, and the warning names the file
reread_done() {
	[[ $stderr == *"warning: '$STICK_MNT/$1' read back from the device is not the source"*"it is copied again"* ]]
	[[ $(started_files) == 1 && $(file_events started "$1") == 1 ]]
	jq -s -e --argjson n $((NFILES - 1)) 'last | .event == "done" and .files == 1
		and .skipped_identical == $n and .skipped_verified == $n
		and .verify_cache_bypassed == true and .files_mismatched == 0' "$EV"
	cmp "$SRC/$1" "$STICK_MNT/$1"
}

@test "a copy changed on the stick behind its record: --verify reads back what it leaves alone, and copies it again" {
	require_mhl_check
	stick_up --size 64 --rate 0
	local img="card/DCIM/100 CANON/IMG 0001.JPG" m
	run -0 safecp -r --mhl --sums="$BATS_TEST_TMPDIR/offload" "$SRC/card" "$STICK_MNT"
	corrupt_kept "$STICK_MNT/$img" "$img"
	# without --verify the stick's record is compared, not its bytes: the -v line says
	# so, and the generation lists none of the files left alone (verified least of all)
	run -0 --separate-stderr safecp -v -r --mhl --skip-identical=hash "$SRC/card" "$STICK_MNT"
	[[ $output == *"IMG 0001.JPG' (the source's checksum is the one the stick's ASC MHL manifest records; the stick's bytes were not read): not copied"* ]]
	m=("$STICK_MNT"/ascmhl/0002_*.mhl)
	[[ $(grep -c '<hash>' "${m[0]}") == 0 ]]
	# hash (the ASC MHL history) with --verify: read back, found different, copied again
	run -0 --separate-stderr safecp -r --mhl --skip-identical=hash --verify --progress=json \
		"$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	reread_done "$img"
	[[ $(ev_count '.judged == "manifest"') == $((NFILES - 1)) ]]
	# every file listed verified: the ones read back, and the one copied again
	m=("$STICK_MNT"/ascmhl/0003_*.mhl)
	[[ $(grep -c '<xxh128 action="verified"' "${m[0]}") == "$NFILES" ]]
	"$SAFECP_SRC/tests/tools/mhl_check.py" "$STICK_MNT"
	# quick (size and mtime), the offload-card rerun
	corrupt_kept "$STICK_MNT/$img" "$img"
	run -0 --separate-stderr safecp -r --skip-identical --verify --progress=json \
		"$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	reread_done "$img"
	[[ $(ev_count '.judged == "size-mtime"') == $((NFILES - 1)) ]]
	# hash by the --sums list (the history moved away)
	rm -r "$STICK_MNT/ascmhl"
	corrupt_kept "$STICK_MNT/$img" "$img"
	run -0 --separate-stderr safecp -r --skip-identical=hash --verify \
		--sums="$BATS_TEST_TMPDIR/offload" --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	reread_done "$img"
	[[ $(ev_count '.judged == "list"') == $((NFILES - 1)) ]]
	# without --verify the done event has no verify figures, skipped_verified among them
	run -0 --separate-stderr safecp -r --skip-identical --progress=json "$SRC/card" "$STICK_MNT"
	jq -s -e 'last | .event == "done" and (has("skipped_verified") | not)' <<<"$output"
}

@test "a copy swapped for a symlink to a FIFO while it is judged is not opened" {
	require_hooks
	stick_up --size 64 --rate 0
	local img="card/DCIM/100 CANON/IMG 0001.JPG" pid rc=0 opener t=$BATS_TEST_TMPDIR
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	mkfifo "$t/fifo"
	# a writer that gets past its open only when someone opens the FIFO to read: before
	# the test lets it go ("released"), only safecp can have
	( exec 3>"$t/fifo"; if [[ -e $t/released ]]; then echo late; else echo early; fi >"$t/when" ) \
		</dev/null >/dev/null 2>&1 &
	opener=$!
	SAFECP_TEST_PAUSE="identical:IMG 0001" safecp -r --skip-identical=hash "$SRC/card" \
		"$STICK_MNT" >"$t/out" 2>&1 &
	pid=$!
	wait_paused "$pid" || { kill "$pid" "$opener"; cat "$t/out"; false; }
	mv "$STICK_MNT/$img" "$STICK_MNT/moved"
	ln -s "$t/fifo" "$STICK_MNT/$img"
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$t/out"
	# the writer was still waiting: nobody opened the FIFO; let it go
	touch "$t/released"
	exec 4<>"$t/fifo"
	wait "$opener" || true
	exec 4<&-
	[[ $(cat "$t/when") == late ]]
	# judged not identical (no longer the file the plan saw): copied by the engine
	((rc == 0 || rc == 1))
}
