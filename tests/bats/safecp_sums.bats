#!/usr/bin/env bats
# tests/bats/safecp_sums.bats: --checksum and --sums, the checksum lists.
# - every list passes its own tool's check from inside the destination
#   (xxhsum -c, sha256sum -c, sha1sum -c, md5sum -c), with names holding spaces,
#   quotes and non-ASCII; names xxhsum cannot list (newline, backslash) are left out
#   of the xxHash lists only, with a warning naming each, and kept (escaped) in the
#   coreutils lists;
# - a byte changed on the stick after the copy fails the check (the digests are real);
# - a list on the stick is written before the copy says done (JSON "list" before
#   "done"), through a temporary, and leaves none; one outside any destination too;
# - one list serves several destinations (-t A -t B);
# - what cannot work is refused before the first byte (exit 2, nothing written).

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	require_cmd xxhsum
	SRC=$BATS_TEST_TMPDIR/src
	EV=$BATS_TEST_TMPDIR/events
	ERR=$BATS_TEST_TMPDIR/stderr
	mkdir -p "$SRC/card/DCIM" "$SRC/card/PRIVATE/M4ROOT"
	make_file "$SRC/card/DCIM/C0001.MP4" $((3 * MIB + 17))
	make_file "$SRC/card/DCIM/it's a \"quote\".jpg" 4097
	make_file "$SRC/card/PRIVATE/M4ROOT/clip é ü.xml" 1000
	make_file "$SRC/card/PRIVATE/M4ROOT/ two  spaces " 0
}

teardown() {
	stick_down_all
}

# add_unlistable: names xxhsum cannot list
add_unlistable() {
	make_file "$SRC/card/DCIM/new"$'\n'"line" 100
	make_file "$SRC/card/DCIM/back\\slash" 200
}

# listed LIST: how many lines the list holds
listed() {
	wc -l <"$1"
}

@test "every list passes its tool's check in DEST; unlistable names only left out of xxHash lists" {
	stick_up --size 64 --rate 0
	add_unlistable
	run -0 --separate-stderr safecp -r --checksum=xxh128,xxh3,xxh64,md5,sha1,sha256 \
		--sums="$STICK_MNT/offload" "$SRC/card" "$STICK_MNT"
	(
		cd "$STICK_MNT"
		xxhsum --strict -c offload.xxh128
		xxhsum --strict -c offload.xxh3
		xxhsum --strict -c offload.xxh64
		md5sum --strict -c offload.md5
		sha1sum --strict -c offload.sha1
		sha256sum --strict -c offload.sha256
	)
	cd "$STICK_MNT"
	# 6 files: all in the coreutils lists, the 4 listable ones in the xxHash lists
	[[ $(listed offload.sha256) == 6 && $(listed offload.md5) == 6 ]]
	[[ $(listed offload.xxh128) == 4 && $(listed offload.xxh3) == 4 ]]
	grep -q 'back\\\\slash' offload.sha256
	# one warning per left-out name and xxHash list, naming both
	[[ $(grep -c "left out of '$STICK_MNT/offload.xxh128'" <<<"$stderr") == 2 ]]
	grep -q "'card/DCIM/back\\\\slash' is left out of '$STICK_MNT/offload.xxh64'" <<<"$stderr"
	# the lists are not in the copy, and nothing temporary is left
	[[ ! -e card/offload.sha256 ]]
	cd /
	assert_no_temporaries "$STICK_MNT"
}

@test "a byte changed on the stick after the copy fails the list check" {
	stick_up --size 64 --rate 0
	run -0 safecp -r --checksum=sha256,xxh128 --sums="$STICK_MNT/sums" "$SRC/card" "$STICK_MNT"
	flip_byte "$STICK_MNT/card/DCIM/C0001.MP4" 2000000
	run sh -c 'cd "$1" && sha256sum --quiet -c sums.sha256' - "$STICK_MNT"
	[[ $status != 0 && $output == *"C0001.MP4: FAILED"* ]]
	run sh -c 'cd "$1" && xxhsum --quiet -c sums.xxh128' - "$STICK_MNT"
	[[ $status != 0 && $output == *"C0001.MP4: FAILED"* ]]
}

@test "--sums alone writes xxh128; a list on the stick comes before done, one elsewhere too" {
	stick_up --size 64 --rate 0
	mkdir "$BATS_TEST_TMPDIR/lists"
	run -0 safecp -r --progress=json --sums="$STICK_MNT/card-sums" "$SRC/card" "$STICK_MNT"
	[[ -f $STICK_MNT/card-sums.xxh128 && ! -e $STICK_MNT/card-sums.sha256 ]]
	(cd "$STICK_MNT" && xxhsum --strict -c card-sums.xxh128)
	jq -s -e 'map(.event) | index("list") != null and index("list") < index("done")' <<<"$output"
	jq -s -e 'map(select(.event == "list"))[0] | .algorithm == "xxh128" and .files == 4' <<<"$output"
	# a list on no destination's filesystem: paths still relative to DEST
	rm -rf "${STICK_MNT:?}/card"
	run -0 safecp -r --progress=json --checksum=sha256 --sums="$BATS_TEST_TMPDIR/lists/x" \
		"$SRC/card" "$STICK_MNT"
	jq -s -e 'map(.event) | index("list") != null and index("list") < index("done")' <<<"$output"
	(cd "$STICK_MNT" && sha256sum --strict -c "$BATS_TEST_TMPDIR/lists/x.sha256")
	assert_no_temporaries "$BATS_TEST_TMPDIR/lists"
}

@test "one list serves two destinations; a list on one is written before that one is done" {
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	stick_up --size 64 --rate 0
	B=$STICK_MNT
	run -0 --separate-stderr safecp -r --progress=json --checksum=sha256 --sums="$B/both" \
		"$SRC/card" -t "$A" -t "$B"
	(cd "$A" && sha256sum --strict -c "$B/both.sha256")
	(cd "$B" && sha256sum --strict -c both.sha256)
	jq -s -e --arg b "$B" 'map(select(.dest == $b) | .event) | index("list") != null and index("list") < index("dest-done")' \
		<<<"$output"
}

@test "refused before the first byte: a list directory that is missing, a list over a copied file, an unknown algorithm" {
	stick_up --size 64 --rate 0
	run -2 --separate-stderr safecp -r --sums="$STICK_MNT/no/such/dir/x" "$SRC/card" "$STICK_MNT"
	[[ $stderr == *"cannot write the checksum list '$STICK_MNT/no/such/dir/x.xxh128'"* ]]
	[[ ! -e $STICK_MNT/card ]]
	run -2 --separate-stderr safecp -r --checksum=md5 --sums="$STICK_MNT/card/DCIM/C0001.MP4" \
		"$SRC/card" "$STICK_MNT"
	[[ ! -e $STICK_MNT/card ]]
	mkdir -p "$STICK_MNT/card/DCIM"
	make_file "$SRC/card/DCIM/notes.md5" 10
	run -2 --separate-stderr safecp -r --checksum=md5 --sums="$STICK_MNT/card/DCIM/notes" \
		"$SRC/card" "$STICK_MNT"
	[[ $stderr == *"the checksum list '$STICK_MNT/card/DCIM/notes.md5' would replace a file the copy writes"* ]]
	[[ ! -e $STICK_MNT/card/DCIM/C0001.MP4 ]]
	run -2 --separate-stderr safecp -r --checksum=sha256,crc32 "$SRC/card" "$STICK_MNT"
	[[ $stderr == *"unknown checksum 'crc32'"* ]]
	run -2 --separate-stderr safecp -r --checksum=sha256,,md5 "$SRC/card" "$STICK_MNT"
	[[ $stderr == *"empty name"* ]]
	[[ -z $(find "$STICK_MNT/card" -type f) ]]
}

@test "a dry run refuses the lists too; a prefix naming a folder; each a JSON refused event of its kind" {
	stick_up --size 64 --rate 0
	run -2 --separate-stderr safecp -r --dry-run --sums="$STICK_MNT/no/dir/x" "$SRC/card" "$STICK_MNT"
	[[ $stderr == *"cannot write the checksum list '$STICK_MNT/no/dir/x.xxh128': its directory '$STICK_MNT/no/dir'"* ]]
	[[ -z $(ls "$STICK_MNT" | grep -v lost+found) ]]
	run -2 --separate-stderr safecp -r --sums="$STICK_MNT/" "$SRC/card" "$STICK_MNT"
	[[ $stderr == *"--sums '$STICK_MNT/' names a directory: give a prefix such as '$STICK_MNT/offload'"* ]]
	run -2 --separate-stderr safecp -r --progress=json --sums="$STICK_MNT/no/dir/x" "$SRC/card" "$STICK_MNT"
	jq -e -s 'map(select(.event == "refused")) | length == 1 and .[0].kind == "sums-unwritable"' <<<"$output"
	mkdir -p "$STICK_MNT/card/DCIM"
	make_file "$SRC/card/DCIM/notes.md5" 10
	run -2 --separate-stderr safecp -r --progress=json --checksum=md5 \
		--sums="$STICK_MNT/card/DCIM/notes" "$SRC/card" "$STICK_MNT"
	jq -e -s 'map(select(.event == "refused")) | length == 1 and .[0].kind == "sums-clash"' <<<"$output"
	[[ -z $(find "$STICK_MNT/card" -type f) ]]
}
