#!/usr/bin/env bats
# tests/bats/safecp_unpack.bats: safecp --unpack ARCHIVE... DEST (issue 11) on loop-device
# sticks.
#
# Hostile archives (tests/tools/hostile_archive.py: Python's tarfile and zipfile) for
# each rule of lib/archive/unpack_list.h and the extraction bugs the issue names: every
# one must leave the stick outside DEST and a victim tree off the stick as they were
# (checksummed before and after), name the entry in its message, and exit 2 (nothing
# written) or, with --skip-unsafe, 1 with the rest written. Round trips of tar, tar.zst
# and zip made by bsdtar and Python, on ext4 and exfat-fuse: the same content and mtimes
# at the format's precision. Progress never ahead of the device; kill -9 leaves no
# partial file under a final name.

# shellcheck disable=SC2154

load helpers
load safecp_common

HOSTILE=$BATS_TEST_DIRNAME/../tools/hostile_archive.py
PY=/usr/bin/python3

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	require_cmd bsdtar
	[[ -x $PY ]] || skip "needs $PY"
	SRC=$BATS_TEST_TMPDIR/src
	A=$BATS_TEST_TMPDIR/archives
	mkdir -p "$SRC" "$A"
	SAMPLER_PID=
	VICTIM=$(mktemp -d /tmp/safecp-victim.XXXXXX)
	chmod 0755 "$VICTIM"
	echo "victim's secret" >"$VICTIM/secret"
	chmod 0600 "$VICTIM/secret"
	mkdir "$VICTIM/dir"
	touch -d '2001-02-03 04:05:06' "$VICTIM/secret" "$VICTIM/dir"
}

teardown() {
	stop_sampler
	[[ $VICTIM == /tmp/safecp-victim.* ]] && rm -rf "$VICTIM"
	stick_down_all
}

# ---------------------------------------------------------------------------- helpers

# outside_digest: the stick without DEST and the victim tree: every entry's type, mode,
# times and link, and every file's sha256.
outside_digest() {
	local root
	for root in "$STICK_MNT" "$VICTIM"; do
		(
			cd "$root" || exit 1
			find . -path ./dest -prune -o -printf '%y %m %T@ %P %l\n' | LC_ALL=C sort
			find . -path ./dest -prune -o -type f -print0 | LC_ALL=C sort -z |
				xargs -0 -r sha256sum
		)
	done
}

# hostile_stick [STICK_UP ARGS]: a small unthrottled stick with $DEST, and a file beside
# DEST that must stay as it is.
hostile_stick() {
	stick_up --size 64 --rate 0 "$@"
	DEST=$STICK_MNT/dest
	mkdir "$DEST"
	echo "beside DEST" >"$STICK_MNT/beside"
	BEFORE=$(outside_digest)
}

# hostile CASE: the archive of CASE in $A/CASE.
hostile() {
	"$PY" "$HOSTILE" "$1" "$A/$1" "$VICTIM"
}

assert_outside_unchanged() {
	local after
	after=$(outside_digest)
	[[ $after == "$BEFORE" ]] || { diff <(echo "$BEFORE") <(echo "$after") >&2; return 1; }
	[[ ! -e $VICTIM/planted && ! -e $VICTIM/dir/planted ]]
}

# refused CASE ENTRY WORDS: the default run refuses the whole archive: exit 2, nothing in
# DEST, the message names ENTRY and says WORDS; --skip-unsafe writes ok.txt and says it
# skipped ENTRY, exit 1. Nothing outside DEST changes in either run.
refused() {
	local case=$1 entry=$2 words=$3
	hostile "$case"
	run --separate-stderr safecp --unpack --progress=none "$A/$case" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 ]]
	[[ $stderr == *"unsafe entry '$entry'"*"$words"* ]]
	[[ $stderr == *"nothing was written; unpack the rest with --skip-unsafe"* ]]
	[[ -z $(ls -A "$DEST") ]]
	assert_outside_unchanged
	run --separate-stderr safecp --unpack --skip-unsafe --progress=none "$A/$case" "$DEST"
	echo "$stderr"
	[[ $status -eq 1 ]]
	[[ $stderr == *"skipping entry '$entry'"*"$words"* ]]
	[[ $(cat "$DEST/ok.txt") == fine ]]
	assert_no_temporaries "$DEST"
	assert_outside_unchanged
}

# ---------------------------------------------------------------------------- hostile archives

@test "unpack: an absolute path is refused" {
	hostile_stick
	refused absolute "$VICTIM/planted" "its path is absolute"
}

@test "unpack: '..' components are refused (tar and zip)" {
	hostile_stick
	refused dotdot "$(printf '../%.0s' {1..12})${VICTIM#/}/planted" "has a '..' component"
	rm -rf "${DEST:?}"/*
	refused zip-dotdot "$(printf '../%.0s' {1..12})${VICTIM#/}/planted" "has a '..' component"
}

@test "unpack: an empty component is refused" {
	hostile_stick
	refused empty "a//planted" "empty component"
}

@test "unpack: a control character in a name is refused, and printed quoted" {
	hostile_stick
	refused control "evil'\$'\\e''[31mred" "control character"
}

@test "unpack: a symlink out of DEST is refused (absolute, or '..' after a name)" {
	hostile_stick
	refused symlink-out out "symbolic link to '$VICTIM'"
	rm -rf "${DEST:?}"/*
	refused symlink-dotdot-middle d/e/up "symbolic link to 'b/..'"
}

@test "unpack: a symlink then a file through it is refused" {
	hostile_stick
	refused symlink-then-file via/planted "passes through 'via', a symbolic link"
	# --skip-unsafe wrote the link, inside DEST; nothing went through it
	[[ -L $DEST/via && -z $(ls -A "$DEST/real") ]]
}

@test "unpack: CVE-2021-31566: a directory replaced by a symlink; no metadata through it" {
	hostile_stick
	refused dir-replaced-by-symlink dir "which is absolute, empty or leads out"
	# the directory is a directory, with the archive's last mode for it; the victim's
	# modes and times (checked above) did not move
	[[ -d $DEST/dir && ! -L $DEST/dir && -f $DEST/dir/planted ]]
	[[ $(stat -c %a "$VICTIM") == 755 && $(stat -c %a "$VICTIM/secret") == 600 ]]
}

@test "unpack: CVE-2021-23177: a symlink's mode is never set on its target" {
	hostile_stick
	echo mine >"$DEST/target"
	chmod 0600 "$DEST/target"
	"$PY" - "$A/link.tar" <<-'EOF'
		import io, sys, tarfile
		with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:
		    i = tarfile.TarInfo('l'); i.type = tarfile.SYMTYPE; i.linkname = 'target'
		    i.mode = 0o777; t.addfile(i)
		    i = tarfile.TarInfo('other'); i.size = 3; i.mode = 0o777
		    t.addfile(i, io.BytesIO(b'ab\n'))
	EOF
	safecp --unpack --progress=none "$A/link.tar" "$DEST"
	[[ -L $DEST/l && $(readlink "$DEST/l") == target ]]
	[[ $(stat -c %a "$DEST/target") == 600 && $(cat "$DEST/target") == mine ]]
	[[ $(stat -c %a "$DEST/other") == 777 ]]
	assert_outside_unchanged
}

@test "unpack: one path twice (a file, then a symlink) is refused" {
	hostile_stick
	refused duplicate x "hold 'x' already"
	[[ -f $DEST/x && ! -L $DEST/x && $(cat "$DEST/x") == first ]]
}

@test "unpack: a path through a file of the archive is refused" {
	hostile_stick
	refused through-file plain/planted "which the archive holds as a file"
}

@test "unpack: hardlinks out of the archive, or to a later entry, are refused" {
	hostile_stick
	refused hardlink-out h "hard link to '$VICTIM/secret'"
	rm -rf "${DEST:?}"/*
	refused hardlink-dotdot h "no regular file earlier"
	rm -rf "${DEST:?}"/*
	refused hardlink-later h "comes later in the archive"
}

@test "unpack: devices and FIFOs are refused" {
	hostile_stick
	refused device null "a character device"
	rm -rf "${DEST:?}"/*
	refused block-device disk "a block device"
	rm -rf "${DEST:?}"/*
	refused fifo fifo "a FIFO"
}

@test "unpack: setuid, setgid and sticky modes are refused" {
	hostile_stick
	refused setuid suid "mode 04755 has setuid"
	rm -rf "${DEST:?}"/*
	refused setgid sgid/ "mode 02775"
	rm -rf "${DEST:?}"/*
	refused sticky tmp/ "mode 01777"
}

@test "unpack: a symlink already on DEST where a directory goes is not followed" {
	hostile_stick
	ln -s "$VICTIM/dir" "$DEST/d"
	"$PY" - "$A/d.tar" <<-'EOF'
		import io, sys, tarfile
		with tarfile.open(sys.argv[1], 'w') as t:
		    i = tarfile.TarInfo('d/planted'); i.size = 2; t.addfile(i, io.BytesIO(b'x\n'))
	EOF
	BEFORE=$(outside_digest)
	run --separate-stderr safecp --unpack --progress=none "$A/d.tar" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 && $stderr == *"$DEST/d"* ]]
	assert_outside_unchanged
}

@test "unpack: a zip bomb is refused before the first byte by the sizes in its headers" {
	hostile_stick
	BOMB_MIB=200 hostile zip-bomb
	# 200 MiB of zeros in a few hundred KiB
	(($(stat -c %s "$A/zip-bomb") < 2 * MIB))
	run --separate-stderr safecp --unpack --progress=none "$A/zip-bomb" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 && $stderr == *"need 200"*"free on"* ]]
	[[ -z $(ls -A "$DEST") ]]
	assert_outside_unchanged
}

@test "unpack: a zip whose headers lie about the size is not written past them" {
	hostile_stick
	hostile zip-liar
	run --separate-stderr safecp --unpack --progress=none "$A/zip-liar" "$DEST"
	echo "$stderr"
	[[ $status -eq 1 && $stderr == *"cannot read '$A/zip-liar:liar.bin'"*"not as long as its header says"* ]]
	[[ ! -e $DEST/liar.bin && $(cat "$DEST/ok.txt") == fine ]]
	assert_no_temporaries "$DEST"
	assert_outside_unchanged
}

@test "unpack: names exfat cannot hold, and case collisions, are refused before the first byte" {
	hostile_stick --fs exfat
	"$PY" - "$A/names.tar" <<-'EOF'
		import io, sys, tarfile
		with tarfile.open(sys.argv[1], 'w') as t:
		    for n in ('Photo.JPG', 'photo.jpg', 'a:b.txt'):
		        i = tarfile.TarInfo(n); i.size = 2; t.addfile(i, io.BytesIO(b'x\n'))
	EOF
	run --separate-stderr safecp --unpack --progress=none "$A/names.tar" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 && $stderr == *"photo.jpg"* && $stderr == *"a:b.txt"* ]]
	[[ -z $(ls -A "$DEST") ]]
	assert_outside_unchanged
}

@test "unpack: an archive that is not one, or is damaged, is refused" {
	hostile_stick
	head -c 5000 /dev/urandom >"$A/junk.tar"
	run --separate-stderr safecp --unpack --progress=json "$A/junk.tar" "$DEST"
	[[ $status -eq 2 && $stderr == *"cannot unpack '$A/junk.tar': not a tar or zip"* ]]
	jq -e 'select(.event == "refused") | .kind == "archive-format"' <<<"$output"
	make_file "$SRC/a" 2000
	make_file "$SRC/b" 2000
	bsdtar -C "$SRC" --format=ustar -cf "$A/cut.tar" a b
	# the second header's checksum
	printf 'XXXXXXXX' | dd of="$A/cut.tar" bs=1 seek=$((512 + 2048 + 148)) conv=notrunc status=none
	run --separate-stderr safecp --unpack --progress=none "$A/cut.tar" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 && $stderr == *"cannot unpack '$A/cut.tar': damaged after 1 entries"* ]]
	[[ -z $(ls -A "$DEST") ]]
	assert_outside_unchanged
}

# ---------------------------------------------------------------------------- audit turn 3

# py_archive KIND OUT: the archives of the audit's findings (design/audit-turn3.md), made
# with Python's tarfile, zipfile, gzip and zlib.
py_archive() {
	"$PY" - "$1" "$2" <<'PYEOF'
import gzip, io, sys, tarfile, zipfile, zlib
kind, out = sys.argv[1], sys.argv[2]
def tar(members, fmt=tarfile.PAX_FORMAT):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode='w', format=fmt) as t:
        for name, data in members:
            ti = tarfile.TarInfo(name); ti.size = len(data); ti.mtime = 1700000000
            t.addfile(ti, io.BytesIO(data))
    return b.getvalue()
good = [('ok.txt', b'fine\n'), ('photo.jpg', b'GOODDATA' * 1000)]
if kind == 'longnames':      # mkbig.py: 1000 entries of 1 MB names, plain tar on stdout
    with tarfile.open(fileobj=sys.stdout.buffer, mode='w|', format=tarfile.GNU_FORMAT) as t:
        for i in range(1000):
            ti = tarfile.TarInfo(('%08d' % i) + 'a' * (1000000 - 8)); ti.size = 0
            t.addfile(ti, io.BytesIO(b''))
    sys.exit(0)
if kind == 'first-too-long': # one 4 MB name: libarchive's "Special header too large"
    data = tar([('a' * 4000000, b'x')], tarfile.GNU_FORMAT)
elif kind == 'zip-crc':      # stored, one data byte changed after the CRC was taken
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', zipfile.ZIP_STORED) as z:
        for name, d in good:
            z.writestr(name, d)
    data = bytearray(b.getvalue()); data[data.find(b'GOODDATA' * 2) + 100] = ord('X')
elif kind == 'gz-trailer':   # the gzip trailer's CRC-32 changed
    data = bytearray(gzip.compress(tar(good))); data[-8] ^= 0xff
elif kind == 'gz-stored':    # deflate's stored blocks: one data byte changed, trailer kept
    c = zlib.compressobj(0, zlib.DEFLATED, 16 + 15)
    data = bytearray(c.compress(tar(good)) + c.flush())
    data[data.find(b'GOODDATA' * 2) + 100] = ord('X')
elif kind == 'gz-two':       # two gzip members, both right: one stream
    t = tar(good); data = gzip.compress(t[:1024]) + gzip.compress(t[1024:])
elif kind == 'unsafe-chars': # U+009B (CSI) and U+202E (right-to-left override)
    data = tar(good[:1] + [('x\u009b2Jy', b'c1\n'), ('gpj.\u202eexe', b'bidi\n')])
elif kind == 'mixed':        # the same headers as 'mixed-other', other bytes
    data = tar([('d/a', b'A' * 5000), ('e/b', b'B' * 5000), ('d/c', b'C' * 5000)])
elif kind == 'mixed-other':
    data = tar([('d/a', b'a' * 5000), ('e/b', b'b' * 5000), ('d/c', b'c' * 5000)])
elif kind == 'inter':        # mkinter.py 6000: every dN/x, then every dN/y
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode='w:gz', format=tarfile.PAX_FORMAT) as t:
        for part in ('x', 'y'):
            for i in range(6000):
                ti = tarfile.TarInfo('d%05d/%s' % (i, part)); d = (part * 10).encode()
                ti.size = len(d); ti.mtime = 1700000000
                t.addfile(ti, io.BytesIO(d))
    data = b.getvalue()
open(out, 'wb').write(data)
PYEOF
}

@test "unpack: 1000 names of 1 MB are refused, not kept: stderr and memory stay small (M2)" {
	hostile_stick
	py_archive longnames - | zstd -q -1 >"$A/long.tar.zst"
	# under ASan, freed blocks wait in its quarantine (256 MiB): not what safecp holds
	ASAN_OPTIONS="${ASAN_OPTIONS-}:quarantine_size_mb=8" \
		/usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/rss" safecp --unpack --progress=none \
		"$A/long.tar.zst" "$DEST" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
	head -c 2000 "$BATS_TEST_TMPDIR/err"
	tail -n 2 "$BATS_TEST_TMPDIR/err"
	echo "rc $rc, stderr $(stat -c %s "$BATS_TEST_TMPDIR/err") bytes, peak RSS $(tail -n 1 "$BATS_TEST_TMPDIR/rss") kB"
	[[ $rc -eq 2 ]]
	(($(stat -c %s "$BATS_TEST_TMPDIR/err") < 65536))
	(($(tail -n 1 "$BATS_TEST_TMPDIR/rss") < 200000))
	grep -q "^safecp: unsafe entry '00000000a*'\.\.\. (1000000 bytes) in '$A/long.tar.zst': its path, a component of it or its link target is too long$" "$BATS_TEST_TMPDIR/err"
	grep -qx "safecp: \.\.\. and 980 more unsafe entries" "$BATS_TEST_TMPDIR/err"
	grep -q "^safecp: 1000 unsafe entries: nothing was written" "$BATS_TEST_TMPDIR/err"
	[[ -z $(ls -A "$DEST") ]]
	assert_outside_unchanged
}

@test "unpack: a zip entry whose CRC is wrong is an error and is not written, also with --verify (M3)" {
	hostile_stick
	py_archive zip-crc "$A/crc.zip"
	local opts
	for opts in --progress=none "--verify --progress=none"; do
		rm -rf "${DEST:?}"/*
		# shellcheck disable=SC2086
		run --separate-stderr safecp --unpack $opts "$A/crc.zip" "$DEST"
		echo "$opts: rc $status: $stderr"
		[[ $status -eq 1 ]]
		[[ $stderr == *"cannot read '$A/crc.zip:photo.jpg'"* ]]
		[[ ! -e $DEST/photo.jpg ]]
		[[ $(cat "$DEST/ok.txt") == fine ]]
		assert_no_temporaries "$DEST"
	done
	assert_outside_unchanged
}

@test "unpack: a tar.gz whose gzip CRC is wrong is refused before the first byte (M3)" {
	hostile_stick
	local kind
	for kind in gz-trailer gz-stored; do
		py_archive "$kind" "$A/$kind.tar.gz"
		if gzip -t "$A/$kind.tar.gz" 2>/dev/null; then return 1; fi
		run --separate-stderr safecp --unpack --progress=none "$A/$kind.tar.gz" "$DEST"
		echo "$kind: rc $status: $stderr"
		[[ $status -eq 2 ]]
		[[ $stderr == *"cannot unpack '$A/$kind.tar.gz': damaged after 2 entries: incorrect data check; nothing was written"* ]]
		[[ -z $(ls -A "$DEST") ]]
	done
	# two members, both right, are one stream
	py_archive gz-two "$A/two.tar.gz"
	safecp --unpack --progress=none "$A/two.tar.gz" "$DEST"
	[[ $(cat "$DEST/ok.txt") == fine && $(stat -c %s "$DEST/photo.jpg") -eq 8000 ]]
	assert_outside_unchanged
}

@test "unpack: an archive that interleaves 6000 directories is opened once (M6)" {
	require_cmd strace
	stick_up --size 128 --rate 0
	py_archive inter "$A/inter.tar.gz"
	# LeakSanitizer cannot run under ptrace: off for this run of an ASan build
	ASAN_OPTIONS="${ASAN_OPTIONS-}:detect_leaks=0" \
		strace -f --seccomp-bpf -qq -e trace=openat -o "$BATS_TEST_TMPDIR/trace" \
		"$(command -v safecp)" --unpack --progress=none "$A/inter.tar.gz" "$STICK_MNT"
	# the path is opened once (O_PATH: the pin, unpack_open.h); each pass reads it
	# through /proc/self/fd/PIN: the scan and the data pass, whatever the order
	local opens pin reads
	opens=$(grep -c "\"$A/inter.tar.gz\"" "$BATS_TEST_TMPDIR/trace" || true)
	pin=$(grep "\"$A/inter.tar.gz\"" "$BATS_TEST_TMPDIR/trace" | sed -n 's/.* = \([0-9]*\)$/\1/p' | head -n 1)
	reads=$(grep -c "\"/proc/self/fd/$pin\"" "$BATS_TEST_TMPDIR/trace" || true)
	echo "opens of the archive by its path: $opens; through its pin (fd $pin): $reads"
	((opens == 1 && reads == 2))
	[[ $(find "$STICK_MNT/d00000" "$STICK_MNT/d05999" -type f -printf '%f ' | wc -w) -eq 4 ]]
	[[ $(cat "$STICK_MNT/d00000/y" "$STICK_MNT/d05999/x") == yyyyyyyyyyxxxxxxxxxx ]]
	[[ $(find "$STICK_MNT" -path "$STICK_MNT/lost+found" -prune -o -type f -print | wc -l) -eq 12000 ]]
}

@test "unpack: the data pass reads the archive the scan checked, whatever its path names by then (L3)" {
	require_hooks
	stick_up --size 64 --rate 0
	py_archive mixed "$A/mixed.tar"
	py_archive mixed-other "$A/other.tar"
	SAFECP_TEST_PAUSE=plan-done safecp --unpack --progress=none "$A/mixed.tar" "$STICK_MNT" &
	local pid=$! rc=0
	wait_paused "$pid" || { kill "$pid"; wait "$pid"; return 1; }
	# same headers, other bytes, behind a symlink where the archive was
	mv "$A/mixed.tar" "$A/mixed.orig"
	ln -s other.tar "$A/mixed.tar"
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	((rc == 0))
	[[ $(head -c 3 "$STICK_MNT/d/a") == AAA && $(head -c 3 "$STICK_MNT/e/b") == BBB ]]
	[[ $(head -c 3 "$STICK_MNT/d/c") == CCC ]]
}

@test "unpack: C1 controls and bidi characters in names are refused; --skip-unsafe drops them (L5)" {
	hostile_stick
	py_archive unsafe-chars "$A/chars.tar"
	run --separate-stderr safecp --unpack --progress=none "$A/chars.tar" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 ]]
	[[ $stderr == *"unsafe entry 'x'\$'\\xc2\\x9b''2Jy' in '$A/chars.tar': its path or link target holds a control character"* ]]
	[[ $stderr == *"unsafe entry 'gpj.'\$'\\xe2\\x80\\xae''exe' in '$A/chars.tar': its path or link target holds"*"invisible or bidirectional"* ]]
	[[ -z $(ls -A "$DEST") ]]
	run --separate-stderr safecp --unpack --skip-unsafe --progress=none "$A/chars.tar" "$DEST"
	echo "$stderr"
	[[ $status -eq 1 ]]
	[[ $(ls -A "$DEST") == ok.txt ]]
	assert_outside_unchanged
}

@test "unpack: 'not an archive' only when no format knows it; a damaged first header is damage (L6)" {
	hostile_stick
	head -c 5000 /dev/urandom >"$A/junk.tar"
	run --separate-stderr safecp --unpack --progress=none "$A/junk.tar" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 && $stderr == *"cannot unpack '$A/junk.tar': not a tar or zip archive"* ]]
	py_archive first-too-long "$A/first.tar"
	xz -0 -T1 "$A/first.tar"
	run --separate-stderr safecp --unpack --progress=json "$A/first.tar.xz" "$DEST"
	echo "$stderr"
	[[ $status -eq 2 ]]
	[[ $stderr == "safecp: cannot unpack '$A/first.tar.xz': damaged after 0 entries: "*"; nothing was written; check the archive or fetch it again" ]]
	jq -e 'select(.event == "refused") | .kind == "archive-damaged"' <<<"$output"
	[[ -z $(ls -A "$DEST") ]]
	assert_outside_unchanged
}

# ---------------------------------------------------------------------------- round trips

# tree_no_links DIR: make_tree without symlinks (exfat stores none), with mtimes that
# have nanoseconds.
tree_no_links() {
	make_tree "$1"
	find "$1" -type l -delete
	local f n=0
	while IFS= read -r -d '' f; do
		n=$((n + 1))
		touch -h -d "@$((1600000000 + n * 1001)).$(printf '%09d' $((n * 12345679 % 1000000000)))" "$f"
	done < <(find "$1" -mindepth 1 -print0)
}

# mtimes_close A B STEP: every entry of A has an entry in B whose mtime is within STEP
# seconds (a decimal).
mtimes_close() {
	local a=$1 b=$2 step=$3
	(cd "$a" && find . -mindepth 1 -printf '%P\t%T@\n') | LC_ALL=C sort >"$BATS_TEST_TMPDIR/ma"
	(cd "$b" && find . -mindepth 1 -printf '%P\t%T@\n') | LC_ALL=C sort >"$BATS_TEST_TMPDIR/mb"
	LC_ALL=C join -t $'\t' "$BATS_TEST_TMPDIR/ma" "$BATS_TEST_TMPDIR/mb" |
		awk -F '\t' -v s="$step" -v n="$(wc -l <"$BATS_TEST_TMPDIR/ma")" '
		{ d = $2 - $3; if (d < 0) d = -d; if (d > s) { print "mtime of " $1 ": " $2 " vs " $3; bad = 1 } c++ }
		END { if (c != n) { print c " of " n " entries compared"; bad = 1 } exit bad }'
}

# round_trip FS: tar (pax), tar.zst (bsdtar) and zip (Python) of one tree, each unpacked
# onto a stick of FS and compared.
round_trip() {
	local fs=$1 kind ns_step
	stick_up --fs "$fs" --size 128 --rate 0
	tree_no_links "$SRC/t"
	[[ $fs == ext4 ]] && make_tree "$SRC/links" # links too, where they can go
	bsdtar -C "$SRC" --format=pax -cf "$A/t.tar" t $([[ $fs == ext4 ]] && echo links)
	bsdtar -C "$SRC" --format=pax --zstd -cf "$A/t.tar.zst" t
	"$PY" - "$SRC" "$A/t.zip" <<-'EOF'
		import os, sys, zipfile
		src, out = sys.argv[1:3]
		with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
		    for root, dirs, files in os.walk(os.path.join(src, 't')):
		        dirs.sort()
		        for n in sorted(dirs) + sorted(files):
		            z.write(os.path.join(root, n), os.path.relpath(os.path.join(root, n), src))
	EOF
	# pax keeps nanoseconds, zip's DOS time 2 s; exfat-fuse keeps seconds
	# (lib/device/fs_traits.c)
	ns_step=0; [[ $fs == exfat ]] && ns_step=1
	for kind in tar tar.zst zip; do
		mkdir "$STICK_MNT/$kind"
		safecp --unpack --progress=none "$A/t.$kind" "$STICK_MNT/$kind"
		diff <(tree_digest "$SRC/t") <(tree_digest "$STICK_MNT/$kind/t")
		if [[ $kind == zip ]]; then
			mtimes_close "$SRC/t" "$STICK_MNT/$kind/t" 2
		else
			# directories too: their times are set at the end, through their fds
			mtimes_close "$SRC/t" "$STICK_MNT/$kind/t" "$ns_step"
		fi
		assert_no_temporaries "$STICK_MNT/$kind"
	done
	if [[ $fs == ext4 ]]; then
		diff <(tree_digest "$SRC/links") <(tree_digest "$STICK_MNT/tar/links")
	fi
}

@test "unpack round trip on ext4: tar, tar.zst, zip; content, links and mtimes" {
	round_trip ext4
}

@test "unpack round trip on exfat-fuse: tar, tar.zst, zip; content and mtimes" {
	round_trip exfat
}

@test "unpack: several archives and -t destinations; a hardlink becomes a copy" {
	stick_up --size 64 --rate 0
	mkdir -p "$SRC/one/d" "$SRC/two/d" "$STICK_MNT/x" "$STICK_MNT/y"
	make_file "$SRC/one/d/a" 5000
	ln "$SRC/one/d/a" "$SRC/one/d/a-hard"
	make_file "$SRC/two/d/b" 7000
	bsdtar -C "$SRC/one" -cf "$A/one.tar" d
	(cd "$SRC/two" && "$PY" -c 'import zipfile; z = zipfile.ZipFile("'"$A"'/two.zip", "w"); z.write("d"); z.write("d/b"); z.close()')
	safecp --unpack --progress=none "$A/one.tar" "$A/two.zip" -t "$STICK_MNT/x" -t "$STICK_MNT/y"
	for t in x y; do
		cmp "$SRC/one/d/a" "$STICK_MNT/$t/d/a"
		cmp "$SRC/one/d/a" "$STICK_MNT/$t/d/a-hard"
		cmp "$SRC/two/d/b" "$STICK_MNT/$t/d/b"
	done
	# a file in both archives is one path twice
	cp "$A/one.tar" "$A/again.tar"
	run --separate-stderr safecp --unpack --progress=none "$A/one.tar" "$A/again.tar" "$STICK_MNT/x"
	[[ $status -eq 2 && $stderr == *"unsafe entry 'd/a' in '$A/again.tar'"* ]]
}

@test "unpack: entries out of tree order wait in TMPDIR, and land right" {
	stick_up --size 64 --rate 0
	mkdir -p "$SRC/a" "$SRC/b"
	make_file "$SRC/a/x" 3000
	make_file "$SRC/b/y" 4000
	make_file "$SRC/a/z" 5000
	# a/x, b/y, a/z: the plan writes a/x, a/z, b/y; b/y waits in the spool
	bsdtar -C "$SRC" -cf "$A/mixed.tar" a/x b/y a/z
	run --separate-stderr env TMPDIR=/nonexistent safecp --unpack --progress=none "$A/mixed.tar" "$STICK_MNT"
	echo "$stderr"
	((status == 2))
	[[ $stderr == "safecp: cannot unpack: 3.91 KiB of entries come out of the archives' order and wait in '/nonexistent': No such file or directory; nothing was written; set TMPDIR to a directory with room" ]]
	[[ ! -e $STICK_MNT/a ]]
	# in depth-first order nothing waits: no TMPDIR needed
	bsdtar -C "$SRC" -cf "$A/depth.tar" a/x a/z
	env TMPDIR=/nonexistent safecp --unpack --progress=none "$A/depth.tar" "$STICK_MNT"
	cmp "$SRC/a/z" "$STICK_MNT/a/z"
	rm -rf "${STICK_MNT:?}/a"
	safecp --unpack --progress=none "$A/mixed.tar" "$STICK_MNT"
	cmp "$SRC/a/x" "$STICK_MNT/a/x"
	cmp "$SRC/a/z" "$STICK_MNT/a/z"
	cmp "$SRC/b/y" "$STICK_MNT/b/y"
}

@test "unpack: a sparse tar entry comes out whole, its holes as zeros" {
	stick_up --fs exfat --size 64 --rate 0
	truncate -s 8M "$SRC/sparse"
	printf 'middle' | dd of="$SRC/sparse" bs=1 seek=$((3 * MIB)) conv=notrunc status=none
	printf 'end' | dd of="$SRC/sparse" bs=1 seek=$((8 * MIB - 3)) conv=notrunc status=none
	truncate -s 10M "$SRC/sparse" # a hole at the end too
	bsdtar -C "$SRC" --format=pax -S -cf "$A/sparse.tar" sparse
	(($(stat -c %s "$A/sparse.tar") < MIB))
	safecp --unpack --progress=none "$A/sparse.tar" "$STICK_MNT"
	cmp "$SRC/sparse" "$STICK_MNT/sparse"
}

# ---------------------------------------------------------------------------- the engine's promises

@test "unpack: bytes_on_device is never ahead of the device" {
	stick_up --size 96
	make_file "$SRC/f" $((40 * MIB + 12345))
	make_file "$SRC/g" 4097
	bsdtar -C "$SRC" -cf "$A/f.tar" f g
	local ev=$BATS_TEST_TMPDIR/events samples=$BATS_TEST_TMPDIR/samples base
	base=$(disk_sectors_written "$STICK_MAJMIN")
	sample_sectors "$STICK_MAJMIN" "$samples"
	safecp --unpack --progress=json "$A/f.tar" "$STICK_MNT" >"$ev"
	sleep 0.1
	stop_sampler
	cmp "$SRC/f" "$STICK_MNT/f"
	events_never_ahead "$ev" "$samples" "$base" 5
	jq -s -e --argjson total $((40 * MIB + 12345 + 4097)) 'last.bytes_on_device == $total' "$ev"
}

@test "unpack: kill -9 at random moments leaves no partial file under a final name" {
	stick_up --size 128
	local round delay pid
	mkdir -p "$SRC/t/sub"
	for n in 1 2 3 4 5 6; do make_file "$SRC/t/f$n" $((3 * MIB + n)); done
	for n in 1 2 3 4 5 6 7 8; do make_file "$SRC/t/sub/s$n" $((100000 * n)); done
	bsdtar -C "$SRC" -cf "$A/t.tar" t
	for round in 1 2 3 4; do
		rm -rf "${STICK_MNT:?}/t"
		delay=$(printf '0.%03d' $((RANDOM % 1000)))
		((round % 2 == 0)) && delay=1${delay#0}
		safecp --unpack --progress=none "$A/t.tar" "$STICK_MNT" &
		pid=$!
		sleep "$delay"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" || true
		echo "round $round: killed after $delay s; $(find "$STICK_MNT/t" -type f 2>/dev/null | wc -l) files"
		[[ ! -d $STICK_MNT/t ]] || assert_final_names_complete "$SRC" "$STICK_MNT"
	done
}

@test "unpack: SIGINT mid-unpack on exfat: exit 130, temporaries removed, no partial file" {
	stick_up --fs exfat --size 96
	local ev=$BATS_TEST_TMPDIR/events err=$BATS_TEST_TMPDIR/err pid rc=0
	mkdir -p "$SRC/t"
	for n in 1 2 3 4; do make_file "$SRC/t/a-small$n" $((300 * 1024 + n)); done
	for n in 1 2; do make_file "$SRC/t/z-big$n" $((16 * MIB + n)); done
	bsdtar -C "$SRC" --zstd -cf "$A/t.tar.zst" t
	safecp --unpack --progress=json "$A/t.tar.zst" "$STICK_MNT" >"$ev" 2>"$err" &
	pid=$!
	wait_for 30 json_has_confirmed "$ev"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	cat "$err"
	((rc == 130))
	grep -q "interrupted by SIGINT" "$err"
	assert_no_temporaries "$STICK_MNT"
	assert_final_names_complete "$SRC" "$STICK_MNT"
	[[ ! -e $STICK_MNT/t/z-big2 ]]
}

@test "unpack: --verify reads every file back; -n keeps what DEST holds" {
	stick_up --size 64 --rate 0
	mkdir -p "$SRC/d" "$STICK_MNT/d"
	make_file "$SRC/d/new" 100000
	make_file "$SRC/d/old" 5000
	echo "kept" >"$STICK_MNT/d/old"
	bsdtar -C "$SRC" -cf "$A/d.tar" d
	run --separate-stderr safecp --unpack -n --verify --progress=json "$A/d.tar" "$STICK_MNT"
	[[ $status -eq 0 ]]
	cmp "$SRC/d/new" "$STICK_MNT/d/new"
	[[ $(cat "$STICK_MNT/d/old") == kept ]]
	jq -s -e 'last | .event == "done" and .files_verified == 1' <<<"$output"
}

# ---------------------------------------------------------------------------- usage

@test "unpack: options it cannot take, --skip-unsafe alone, a missing DEST are usage errors" {
	mkdir -p "$SRC/d" "$BATS_TEST_TMPDIR/out"
	echo x >"$SRC/d/x"
	bsdtar -C "$SRC" -cf "$A/d.tar" d
	run --separate-stderr safecp --skip-unsafe "$A/d.tar" "$BATS_TEST_TMPDIR/out"
	[[ $status -eq 2 && $stderr == *"--skip-unsafe goes with --unpack"* ]]
	for opt in --mhl --checksum=xxh128 --verify=source --skip-identical -L -T; do
		run --separate-stderr safecp --unpack "$opt" "$A/d.tar" "$BATS_TEST_TMPDIR/out"
		[[ $status -eq 2 && $stderr == *"--unpack takes"* ]] || { echo "$opt: $stderr"; false; }
	done
	run --separate-stderr safecp --unpack "$A/d.tar" "$BATS_TEST_TMPDIR/out/missing"
	[[ $status -eq 2 && $stderr == *"'$BATS_TEST_TMPDIR/out/missing' does not exist"* ]]
	# --dry-run writes nothing, and says what it would
	run --separate-stderr safecp --system-disk --unpack --dry-run "$A/d.tar" "$BATS_TEST_TMPDIR/out"
	[[ $status -eq 0 && $output == *"plan: 1 file, 1 directory"* ]]
	[[ -z $(ls -A "$BATS_TEST_TMPDIR/out") ]]
	# --progress=json: each unsafe entry is a refused event
	"$PY" "$HOSTILE" fifo "$A/fifo" "$VICTIM"
	run --separate-stderr safecp --system-disk --unpack --progress=json "$A/fifo" "$BATS_TEST_TMPDIR/out"
	[[ $status -eq 2 ]]
	jq -e 'select(.event == "refused") | .kind == "special-file" and (.message | test("fifo"))' <<<"$output"
}
