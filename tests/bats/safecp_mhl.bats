#!/usr/bin/env bats
# tests/bats/safecp_mhl.bats: --mhl, an ASC MHL generation in each destination.
# - the history checks out with tests/tools/mhl_check.py (our own checker: schema,
#   chain C4 IDs, every file re-hashed, every file in scope listed or ignored) and
#   each manifest validates with xmllint against tests/tools/ascmhl.xsd; names with
#   spaces, quotes, markup characters and non-ASCII;
# - a rerun appends a generation whose hashes are "verified" against the first;
# - a checksum list written in the destination is in the ignore patterns;
# - several destinations each get their own history;
# - a damaged or hostile history is refused before the first byte (exit 2);
# - a file that read back wrong (--verify) is not listed.

load helpers
load safecp_common

CHECK=$BATS_TEST_DIRNAME/../tools/mhl_check.py
XSD=$BATS_TEST_DIRNAME/../tools/ascmhl.xsd

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	require_cmd xmllint
	/usr/bin/python3 -c 'import lxml, xxhash' 2>/dev/null ||
		skip "needs python3-lxml and python3-xxhash for tests/tools/mhl_check.py"
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/A001/CLIP" "$SRC/A001/PRIVATE/M4ROOT"
	make_file "$SRC/A001/CLIP/A001C001 \"take 1\".MXF" $((2 * MIB + 3))
	make_file "$SRC/A001/CLIP/it's <b> & é.xml" 1000
	make_file "$SRC/A001/PRIVATE/M4ROOT/STATUS.BIN" 0
}

teardown() {
	stick_down_all
}

# history_ok DEST: the checker passes and every manifest is valid against the schema
history_ok() {
	"$CHECK" "$1"
	local m
	for m in "$1"/ascmhl/*.mhl; do
		xmllint --noout --schema "$XSD" "$m"
	done
}

@test "a copy's generation checks out: schema, chain, every file re-hashed; names with quotes, markup, non-ASCII" {
	stick_up --size 64 --rate 0
	run -0 --separate-stderr safecp -r --mhl --progress=json "$SRC/A001" "$STICK_MNT"
	history_ok "$STICK_MNT"
	local m=("$STICK_MNT"/ascmhl/0001_*_????-??-??_??????Z.mhl)
	[[ -f ${m[0]} ]]
	# xxh128 when no --checksum was asked for, every file listed as original
	[[ $(grep -c '<xxh128 action="original"' "${m[0]}") == 3 ]]
	grep -q '<process>transfer</process>' "${m[0]}"
	jq -s -e 'map(.event) | index("manifest") != null and index("manifest") < index("done")' \
		<<<"$output"
	jq -s -e 'map(select(.event == "manifest"))[0] | .sequence == 1 and .files == 3' <<<"$output"
	assert_no_temporaries "$STICK_MNT"
}

@test "a rerun appends generation 2, verified against the first; a list in DEST is ignored, not missing" {
	stick_up --size 64 --rate 0
	run -0 safecp -r --mhl --checksum=xxh128,md5,sha256 --sums="$STICK_MNT/sums" "$SRC/A001" "$STICK_MNT"
	history_ok "$STICK_MNT"
	grep -q '<pattern>/sums.sha256</pattern>' "$STICK_MNT"/ascmhl/0001_*.mhl
	# no sha256 in ASC MHL: md5 and xxh128 only
	run ! grep -q '<sha256' "$STICK_MNT"/ascmhl/0001_*.mhl
	run -0 safecp -r --mhl --checksum=xxh128 "$SRC/A001" "$STICK_MNT"
	history_ok "$STICK_MNT"
	[[ $(grep -c '<xxh128 action="verified"' "$STICK_MNT"/ascmhl/0002_*.mhl) == 3 ]]
	[[ $(grep -c '<hashlist sequencenr=' "$STICK_MNT/ascmhl/ascmhl_chain.xml") == 2 ]]
	# the earlier lists stay ignored in the rerun's generation
	grep -q '<pattern>/sums.sha256</pattern>' "$STICK_MNT"/ascmhl/0002_*.mhl
}

@test "two destinations: each gets its own history" {
	stick_up --size 64 --rate 0
	A=$STICK_MNT
	stick_up --size 64 --rate 0
	B=$STICK_MNT
	run -0 safecp -r --mhl "$SRC/A001" -t "$A" -t "$B"
	history_ok "$A"
	history_ok "$B"
}

@test "a damaged history is refused before the first byte" {
	stick_up --size 64 --rate 0
	run -0 safecp -r --mhl "$SRC/A001" "$STICK_MNT"
	mkdir "$SRC/B002"
	make_file "$SRC/B002/new.bin" 1000
	# the newest manifest changed: its chain C4 ID no longer matches
	sed -i 's/transfer/Transfer/' "$STICK_MNT"/ascmhl/0001_*.mhl
	run -2 --separate-stderr safecp -r --mhl "$SRC/B002" "$STICK_MNT"
	[[ $stderr == *"does not match its chain"* ]]
	[[ ! -e $STICK_MNT/B002 ]]
	# a DOCTYPE (entities) is refused as such
	printf '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "b">]>\n<ascmhldirectory/>\n' \
		>"$STICK_MNT/ascmhl/ascmhl_chain.xml"
	run -2 --separate-stderr safecp -r --mhl "$SRC/B002" "$STICK_MNT"
	[[ $stderr == *"DOCTYPE"* ]]
	[[ ! -e $STICK_MNT/B002 ]]
	# a symlinked ascmhl folder is not followed
	rm -rf "$STICK_MNT/ascmhl"
	mkdir "$BATS_TEST_TMPDIR/elsewhere"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$STICK_MNT/ascmhl"
	run -2 --separate-stderr safecp -r --mhl "$SRC/B002" "$STICK_MNT"
	[[ ! -e $STICK_MNT/B002 && -z $(ls -A "$BATS_TEST_TMPDIR/elsewhere") ]]
}

@test "a file that read back wrong is not listed; the history still checks out" {
	[[ -x $SAFECP_BUILD/tests/faultdev ]] || skip "needs $SAFECP_BUILD/tests/faultdev"
	stick_up --faulty --size 64 --rate 0
	echo flip-write 65536 >"$STICK_CTL"
	run -4 safecp -r --mhl --verify "$SRC/A001" "$STICK_MNT"
	[[ ! -e "$STICK_MNT/A001/CLIP/A001C001 \"take 1\".MXF" ]]
	run ! grep -q 'A001C001' "$STICK_MNT"/ascmhl/0001_*.mhl
	[[ $(grep -c '<xxh128 ' "$STICK_MNT"/ascmhl/0001_*.mhl) == 2 ]]
	history_ok "$STICK_MNT"
}
