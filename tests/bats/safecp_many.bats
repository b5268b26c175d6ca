#!/usr/bin/env bats
# tests/bats/safecp_many.bats: a tree of 20,000 small files (issue 28: entries keep names, not
# paths, and paths are built back from them), on an unthrottled ext4 stick:
# - with -v and --progress=json every file arrives whole, each "finished" event and each -v
#   line names one file of the source, and every file exactly once;
# - names at the limits are rebuilt exactly: a relative path of PATH_MAX - 1 bytes (4095)
#   made of 255-byte names, and 255-byte file names along the way, arrive under the same
#   names, and the events give those names byte for byte;
# - the dry run counts them all before the first byte.
# The stick is reached through a short relative name (a symlink in the working directory),
# so that the destination paths of the deepest files fit PATH_MAX as their sources do.

load helpers
load safecp_common

NDIRS=200
PER_DIR=100

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	require_cmd python3
	W=$BATS_TEST_TMPDIR/w
	EV=$BATS_TEST_TMPDIR/events
	OUT=$BATS_TEST_TMPDIR/out
	mkdir -p "$W"
	make_many "$W/src"
}

teardown() {
	stick_down_all
}

# make_many DIR: NDIRS x PER_DIR files of 0-4096 bytes (seeded), plus a chain of 255-byte
# directory names whose deepest file has a relative path ("src/...") of exactly 4095
# bytes, and a 255-byte file name at every level of the chain.
make_many() {
	python3 - "$1" "$NDIRS" "$PER_DIR" <<'EOF'
import os, random, sys
root, ndirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(28)
for d in range(ndirs):
    dd = os.path.join(root, "d%03d" % d)
    os.makedirs(dd)
    for f in range(per):
        with open(os.path.join(dd, "IMG_%05d.JPG" % (d * per + f)), "wb") as fh:
            fh.write(rng.randbytes(rng.randint(0, 4096)))
fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
rel = "src"
for level in range(15):
    os.mkdir(("%02d" % level) + "n" * 253, dir_fd=fd)
    nfd = os.open(("%02d" % level) + "n" * 253, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
    rel += "/" + ("%02d" % level) + "n" * 253
    if level < 14:
        wfd = os.open("f" * 254 + "%x" % level, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(wfd, b"level %d\n" % level)
        os.close(wfd)
leaf = "x" * (4095 - len(rel) - 1)
assert len(rel) + 1 + len(leaf) == 4095 and len(leaf) <= 255, len(leaf)
wfd = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
os.write(wfd, b"the deepest file\n")
os.close(wfd)
os.close(fd)
EOF
}

# files_rel: every regular file of src as its relative name ("src/..."), sorted. From the
# working directory (paths deeper than PATH_MAX from / cannot be named by find's output
# consumers otherwise): find prints them relative.
files_rel() {
	(cd "$W" && find src -type f -printf '%p\n' | LC_ALL=C sort)
}

# the same of the copy, named as the source names them
copied_rel() {
	(cd "$W/m" && find s -type f -printf '%p\n' | sed 's|^s/|src/|; s|^s$|src|' | LC_ALL=C sort)
}

# same_bytes: the copy holds the source's bytes, file by file (diff -r opens each by its
# path from W: none is longer than PATH_MAX - 1)
same_bytes() {
	(cd "$W" && diff -rq src m/s)
}

@test "20,000 files with -v and --progress=json: every file whole, each named once, names at the limits exact" {
	stick_up --size 256 --rate 0
	ln -s "$STICK_MNT" "$W/m"
	local n
	n=$(files_rel | wc -l)
	((n == NDIRS * PER_DIR + 15)) # the chain's 14 wide names and its deepest file
	# the deepest relative name is exactly PATH_MAX - 1 bytes
	files_rel | awk 'length($0) == 4095 { found = 1 } END { exit !found }'

	cd "$W"
	run safecp --dry-run -r -T src m/s
	[ "$status" -eq 0 ]
	[[ $output == *"$n files"* ]] || { echo "$output" | tail -5; false; }

	run bash -c 'safecp -v -r -T --progress=json src m/s >"$1" 2>"$2"' _ "$EV" "$OUT"
	[ "$status" -eq 0 ] || { tail -5 "$OUT"; false; }

	# every file arrived, under the same names, whole
	diff <(files_rel) <(copied_rel)
	same_bytes
	assert_no_temporaries "$W/m/s"

	# the events: one "finished" per file, each file of the source exactly once
	jq -r 'select(.event == "file" and .state == "finished" and .type == "file") | .file' "$EV" |
		LC_ALL=C sort >"$BATS_TEST_TMPDIR/finished"
	diff <(files_rel) "$BATS_TEST_TMPDIR/finished"
	[ "$(LC_ALL=C sort -u "$BATS_TEST_TMPDIR/finished" | wc -l)" -eq "$n" ]
	jq -r 'select(.event == "file" and .state == "started" and .type == "file") | .file' "$EV" |
		LC_ALL=C sort | uniq -d >"$BATS_TEST_TMPDIR/twice"
	[ ! -s "$BATS_TEST_TMPDIR/twice" ]
	# the deepest name, byte for byte, in the events and in the -v lines
	local deepest
	deepest=$(files_rel | awk 'length($0) == 4095')
	jq -s -e --arg f "$deepest" \
		'[.[] | select(.event == "file" and .state == "finished" and .file == $f)] | length == 1' \
		"$EV" >/dev/null
	jq -e '.event == "done" and .files == 20015 and .errors == 0' <(tail -1 "$EV") >/dev/null ||
		{ tail -1 "$EV"; false; }
	# -v: one line per file and directory, none twice
	local dirs
	dirs=$(cd "$W" && find src -type d | wc -l)
	[ "$(grep -c " -> " "$OUT")" -eq $((n + dirs)) ] || { grep -c " -> " "$OUT"; false; }
	[ -z "$(grep " -> " "$OUT" | LC_ALL=C sort | uniq -d)" ]
	grep -qF "$deepest" "$OUT"
}
