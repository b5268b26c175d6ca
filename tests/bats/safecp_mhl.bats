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
# - a file that read back wrong (--verify) is not listed;
# - a source entry copied to DEST/ascmhl is refused before the first byte (exit 2);
# - one manifest hard-linked as 20 generations costs the memory of one;
# - ignore patterns planted in the newest generation are not carried into the next.

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

# rechain DIR NAME...: DIR/ascmhl_chain.xml written anew for the generations NAME... (in
# that order), each with the C4 ID of its bytes, as a forger with a text editor would
rechain() {
	/usr/bin/python3 - "$@" <<'PY'
import hashlib, os, sys
A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
def c4(b):
    n = int.from_bytes(hashlib.sha512(b).digest(), "big"); s = ""
    while n:
        n, r = divmod(n, 58); s = A[r] + s
    return "c4" + s.rjust(88, "1")
d, names = sys.argv[1], sys.argv[2:]
out = ['<?xml version="1.0" encoding="UTF-8"?>',
       '<ascmhldirectory xmlns="urn:ASC:MHL:DIRECTORY:v2.0">']
for i, n in enumerate(names, 1):
    out.append('  <hashlist sequencenr="%d">\n    <path>%s</path>\n    <c4>%s</c4>\n  </hashlist>'
               % (i, n, c4(open(os.path.join(d, n), "rb").read())))
out.append("</ascmhldirectory>\n")
open(os.path.join(d, "ascmhl_chain.xml"), "w").write("\n".join(out))
PY
}

# bigmhl DEST N GENS: DEST/ascmhl with one manifest of N entries hard-linked as
# generations 1..GENS, its chain with their C4 IDs (the audit's bigmhl.py)
bigmhl() {
	/usr/bin/python3 - "$@" <<'PY'
import os, sys
d, n, gens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d + "/ascmhl", exist_ok=True)
head = '<?xml version="1.0" encoding="UTF-8"?>\n<hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">\n<hashes>\n'
ent = ('<hash><path size="1">p/%09d</path><xxh128 action="original">'
       '0123456789abcdef0123456789abcdef</xxh128></hash>\n')
first = "0001_x_2020-01-01_000000Z.mhl"
with open(d + "/ascmhl/" + first, "w") as f:
    f.write(head)
    for i in range(n):
        f.write(ent % i)
    f.write("</hashes>\n</hashlist>\n")
for g in range(2, gens + 1):
    os.link(d + "/ascmhl/" + first, d + "/ascmhl/%04d_x_2020-01-01_000000Z.mhl" % g)
PY
	local names=() g
	for ((g = 1; g <= $3; g++)); do names+=("$(printf '%04d' "$g")_x_2020-01-01_000000Z.mhl"); done
	rechain "$1/ascmhl" "${names[@]}"
}

@test "a source entry copied to DEST/ascmhl is refused before the first byte" {
	stick_up --size 64 --rate 0
	local card=$BATS_TEST_TMPDIR/card before
	mkdir -p "$card"
	cp -r "$SRC/A001" "$card/DCIM"
	# a card that carries the history of an earlier offload
	run -0 safecp -q -r --mhl "$card/DCIM" "$STICK_MNT"
	cp -r "$STICK_MNT/ascmhl" "$card/"
	rm -rf "${STICK_MNT:?}"/*
	run -0 safecp -q -r --mhl "$SRC/A001" "$STICK_MNT"
	before=$(cd "$STICK_MNT/ascmhl" && sha256sum -- *)
	run -2 --separate-stderr safecp -r --mhl -t "$STICK_MNT" -- "$card/ascmhl" "$card/DCIM"
	[[ $stderr == *"'$card/ascmhl' would be copied to '$STICK_MNT/ascmhl', where --mhl writes the ASC MHL history of '$STICK_MNT'"*"copy without --mhl"* ]]
	[[ ! -e $STICK_MNT/DCIM ]]
	[[ $(cd "$STICK_MNT/ascmhl" && sha256sum -- *) == "$before" ]]
	history_ok "$STICK_MNT"
}

@test "a history of one manifest hard-linked as 20 generations costs what one generation costs" {
	require_cmd /usr/bin/time
	stick_up --size 64 --rate 0
	local one twenty d
	mkdir -p "$BATS_TEST_TMPDIR/src"
	make_file "$BATS_TEST_TMPDIR/src/f" 1000
	for d in one twenty; do mkdir "$STICK_MNT/$d"; done
	bigmhl "$STICK_MNT/one" 200000 1
	bigmhl "$STICK_MNT/twenty" 200000 20
	/usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/rss1" \
		safecp -q -r --skip-identical=hash "$BATS_TEST_TMPDIR/src" "$STICK_MNT/one/"
	/usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/rss20" \
		safecp -q -r --skip-identical=hash "$BATS_TEST_TMPDIR/src" "$STICK_MNT/twenty/"
	one=$(tail -1 "$BATS_TEST_TMPDIR/rss1")
	twenty=$(tail -1 "$BATS_TEST_TMPDIR/rss20")
	echo "max RSS: one generation ${one} kB, twenty ${twenty} kB"
	((twenty < 3 * one))
	# --check reads the history too
	/usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/rss20" \
		safecp --check="$STICK_MNT/twenty" >/dev/null 2>&1 || true
	twenty=$(tail -1 "$BATS_TEST_TMPDIR/rss20")
	echo "--check: max RSS ${twenty} kB"
	((twenty < 3 * one))
}

@test "ignore patterns planted in the newest generation are not carried into the next" {
	stick_up --size 64 --rate 0
	local m
	run -0 safecp -r --mhl --sums="$STICK_MNT/sums" "$SRC/A001" "$STICK_MNT"
	m=("$STICK_MNT"/ascmhl/0001_*.mhl)
	sed -i 's|<pattern>/sums.xxh128</pattern>|&<pattern>*</pattern><pattern>**/*.MXF</pattern><pattern>/x.md5</pattern>|' "${m[0]}"
	grep -q '<pattern>\*</pattern>' "${m[0]}"
	rechain "$STICK_MNT/ascmhl" "$(basename "${m[0]}")"
	run -0 safecp -r --mhl "$SRC/A001" "$STICK_MNT"
	m=("$STICK_MNT"/ascmhl/0002_*.mhl)
	run ! grep -q '<pattern>\*</pattern>' "${m[0]}"
	run ! grep -qF '<pattern>**/*.MXF</pattern>' "${m[0]}"
	# the defaults and the lists' patterns (the form safecp writes) stay
	grep -q '<pattern>/sums.xxh128</pattern>' "${m[0]}"
	grep -q '<pattern>/x.md5</pattern>' "${m[0]}"
	grep -q '<pattern>ascmhl</pattern>' "${m[0]}"
	history_ok "$STICK_MNT"
}
