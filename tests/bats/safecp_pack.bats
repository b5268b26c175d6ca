#!/usr/bin/env bats
# tests/bats/safecp_pack.bats: --pack=FORMAT writes the sources as one archive through
# the safe writer (issue 11), judged from outside: the archive read back with Python's
# tarfile and zipfile (tests/tools/archive_check.py: content, types, modes, symlink
# targets, mtimes at the format's precision) on real loop-device sticks; progress
# against the device's sector counter; kill -9 mid-pack; several -t; --verify;
# --checksum lists checked by xxhsum -c and sha256sum -c; FAT32's 4 GiB - 1 refused
# before the first byte; Zip64 past 4 GiB; SIGINT; the naming rules; the options refused.

load helpers
load safecp_common

CHECK=$SAFECP_SRC/tests/tools/archive_check.py

setup() {
	require_tool safecp
	require_cmd python3
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC"
	SAMPLER_PID=
}

teardown() {
	[[ -z ${PAUSED_PID-} ]] || kill -9 "$PAUSED_PID" 2>/dev/null || true
	stop_sampler
	stick_down_all
}

# pack_tree DIR: make_tree's awkward sizes and links, modes of every kind and times
# with nanoseconds, non-ASCII names, and a FIFO (left out, with a warning).
pack_tree() {
	make_tree "$1"
	chmod 600 "$1/f1"
	chmod 755 "$1/a/x"
	chmod 700 "$1/a/b"
	touch -h -d '2021-03-04 05:06:07.123456789' "$1/f511" "$1/a/link-to-f1"
	touch -d '1999-12-31 23:59:58.999999999' "$1/a/b/c"
	# UTF-8 names: pax's path as it is, zip's UTF-8 flag (zipfile decodes by it)
	make_file "$1/a/café ü.txt" 300
	ln -s "café ü.txt" "$1/a/lien → café"
	mkfifo "$1/a/fifo"
}

# round_trip FS: tar, tar.zst and zip of one tree on a stick of FS, each read back.
round_trip() {
	require_root
	stick_up --fs "$1" --size 64 --rate 0
	pack_tree "$SRC/tree"
	local f
	for f in tar tar.zst zip; do
		run --separate-stderr safecp --pack=$f "$SRC/tree" "$STICK_MNT"/
		echo "$f: $status: $stderr"
		((status == 0))
		[[ $stderr == *"skipping '$SRC/tree/a/fifo': a FIFO is not copied"* ]]
		python3 "$CHECK" "$STICK_MNT/tree.$f" "$SRC/tree"
	done
	assert_no_temporaries "$STICK_MNT"
	# what the device holds, not the page cache
	stick_reattach "$STICK_ID"
	for f in tar tar.zst zip; do
		python3 "$CHECK" "$STICK_MNT/tree.$f" "$SRC/tree"
	done
	bsdtar -tf "$STICK_MNT/tree.tar.zst" >/dev/null
}

@test "round trip on ext4: tar, tar.zst and zip hold the tree (pax: ns; zip: 2 s)" {
	round_trip ext4
}

@test "round trip on exfat-fuse: tar, tar.zst and zip hold the tree" {
	require_cmd mount.exfat-fuse
	round_trip exfat
}

@test "bytes_on_device of an archive is never ahead of the device; the source bytes are a second figure" {
	require_root
	require_cmd jq
	stick_up --size 128
	make_file "$SRC/f" $((40 * MIB + 12345))
	make_file "$SRC/g" 4097
	local ev=$BATS_TEST_TMPDIR/events samples=$BATS_TEST_TMPDIR/samples base size
	base=$(disk_sectors_written "$STICK_MAJMIN")
	sample_sectors "$STICK_MAJMIN" "$samples"
	safecp --pack=tar --progress=json "$SRC/f" "$SRC/g" "$STICK_MNT"/ >"$ev"
	sleep 0.1
	stop_sampler
	python3 "$CHECK" "$STICK_MNT/f.tar" "$SRC" ""
	events_never_ahead "$ev" "$samples" "$base" 5
	size=$(stat -c %s "$STICK_MNT/f.tar")
	# the end counts the archive as it is, every byte of it on the device
	jq -s -e --argjson size "$size" 'last | .bytes_total == $size and .bytes_on_device == $size' "$ev"
	# the sources' bytes: counted up to all of them, never more
	jq -s -e --argjson src $((40 * MIB + 12345 + 4097)) 'map(select(.event == "progress")) as $p
		| ($p | length) >= 2
		and ($p | all(.source_bytes_total == $src and .source_bytes_packed <= $src))
		and ($p | map(.source_bytes_packed) | . == sort)
		and ($p | last.source_bytes_packed == $src)' "$ev"
}

@test "kill -9 mid-pack leaves nothing under the archive's name (ext4, exfat)" {
	require_root
	require_cmd jq
	make_file "$SRC/big" $((24 * MIB))
	local fs pid ev=$BATS_TEST_TMPDIR/ev
	for fs in ext4 exfat; do
		[[ $fs == exfat ]] && ! command -v mount.exfat-fuse >/dev/null && continue
		stick_up --fs $fs --size 64
		safecp --pack=tar.zst --progress=json "$SRC" "$STICK_MNT"/ >"$ev" &
		pid=$!
		wait_for 30 json_has_confirmed "$ev"
		kill -9 "$pid"
		wait "$pid" || true
		echo "$fs: $(ls -A "$STICK_MNT")"
		[[ ! -e $STICK_MNT/src.tar.zst ]]
		# the next pack removes the dead one's temporary (exfat has no unnamed files)
		safecp -q --pack=tar.zst "$SRC" "$STICK_MNT"/
		python3 "$CHECK" "$STICK_MNT/src.tar.zst" "$SRC"
		assert_no_temporaries "$STICK_MNT"
		stick_down "$STICK_ID"
	done
}

@test "two -t destinations get the same archive, each at its own device's pace" {
	require_root
	stick_up --size 64
	local one=$STICK_MNT
	stick_up --size 64 --rate $((10 * MIB))
	local two=$STICK_MNT
	pack_tree "$SRC/tree"
	make_file "$SRC/tree/big" $((12 * MIB))
	run --separate-stderr safecp --pack=zip -t "$one" -t "$two" "$SRC/tree"
	echo "$stderr"
	((status == 0))
	cmp "$one/tree.zip" "$two/tree.zip"
	python3 "$CHECK" "$two/tree.zip" "$SRC/tree"
}

@test "--verify reads the archive back; --checksum lists pass xxhsum -c and sha256sum -c" {
	require_root
	require_cmd xxhsum
	stick_up --fs exfat --size 64 --rate 0
	pack_tree "$SRC/tree"
	run --separate-stderr safecp --pack=tar.xz --progress=plain --verify --checksum=xxh128,sha256 \
		--sums="$STICK_MNT/offload" "$SRC/tree" "$STICK_MNT"/
	echo "$stderr"
	((status == 0))
	[[ $stderr == *"(1 read back from the device and matched)"* ]]
	[[ $stderr != *"does not store file modes"* ]]
	stick_reattach "$STICK_ID"
	(cd "$STICK_MNT" && xxhsum -c offload.xxh128 && sha256sum -c offload.sha256)
	grep -q ' tree.tar.xz$' "$STICK_MNT/offload.sha256"
	python3 "$CHECK" "$STICK_MNT/tree.tar.xz" "$SRC/tree"
}

@test "FAT32: an archive that could pass 4 GiB - 1 is refused before the first byte" {
	require_root
	stick_up --fs fat32 --size 64 --rate 0
	truncate -s $((5 * 1024 * MIB)) "$SRC/sparse.img"
	make_file "$SRC/small" 1000
	local before after
	sync
	before=$(disk_sectors_written "$STICK_MAJMIN")
	run --separate-stderr safecp --pack=tar "$SRC/sparse.img" "$SRC/small" "$STICK_MNT"/
	echo "$stderr"
	((status == 2))
	[[ $stderr == *"the archive '$STICK_MNT/sparse.img.tar' could be up to"* ]]
	[[ $stderr == *"at most 4294967295 bytes"*"exFAT"* ]]
	after=$(disk_sectors_written "$STICK_MAJMIN")
	((after == before))
	[[ -z $(ls -A "$STICK_MNT") ]]
	# small enough: packed
	safecp -q --pack=tar "$SRC/small" "$STICK_MNT"/
	python3 "$CHECK" "$STICK_MNT/small.tar" "$SRC/small" small
}

@test "naming: into a directory DIR/<first source>.FORMAT, else DEST is the name" {
	local d=$BATS_TEST_TMPDIR/d
	mkdir -p "$d" "$SRC/one" "$SRC/two"
	make_file "$SRC/one/a" 10
	make_file "$SRC/two/b" 20
	safecp --system-disk -q --pack=tar "$SRC/one" "$SRC/two" "$d"
	[[ -f $d/one.tar ]]
	python3 - "$d/one.tar" <<-'EOF'
		import sys, tarfile
		names = tarfile.open(sys.argv[1]).getnames()
		assert names == ["one", "one/a", "two", "two/b"], names
	EOF
	safecp --system-disk -q --pack=zip -t "$d" "$SRC/two/b"
	[[ -f $d/b.zip ]]
	safecp --system-disk -q --pack=tar.gz "$SRC/one" "$d/custom name.tgz"
	python3 "$CHECK" "$d/custom name.tgz" "$SRC/one"
	# "." packs the contents, named after the directory
	(cd "$SRC/one" && safecp --system-disk -q --pack=tar . "$d"/)
	python3 "$CHECK" "$d/one.tar" "$SRC/one" ""
	# an existing archive is replaced, never written through
	ln -s "$SRC/one/a" "$d/link.tar"
	safecp --system-disk -q --pack=tar "$SRC/two" "$d/link.tar"
	[[ ! -L $d/link.tar && $(cat "$SRC/one/a" | wc -c) == 10 ]]
	# refused: onto a directory (-T), a missing parent, two sources with one name
	mkdir "$d/dir.tar"
	run -2 safecp --system-disk --pack=tar -T "$SRC/one" "$d/dir.tar"
	[[ $output == *"cannot overwrite directory '$d/dir.tar'"* ]]
	run -2 safecp --system-disk --pack=tar "$SRC/one" "$d/nowhere/x.tar"
	[[ $output == *"does not exist"* ]]
	mkdir -p "$SRC/other/one"
	run -2 safecp --system-disk --pack=tar "$SRC/one" "$SRC/other/one" "$d"
	[[ $output == *"would both be 'one' in the archive"* ]]
	# the archive as one of its own sources
	safecp --system-disk -q --pack=tar "$SRC/two/b" "$d/self.tar"
	run -2 safecp --system-disk --pack=tar "$d/self.tar" "$d/self.tar"
	[[ $output == *"same file"* || $output == *"are the same"* ]]
}

@test "options with nothing to act on are refused (exit 2); a bad FORMAT too" {
	local o
	make_file "$SRC/a" 10
	for o in --skip-identical --verify=source --mhl -n --no-preserve=mode --rename-invalid; do
		run -2 safecp --pack=tar "$o" "$SRC/a" "$BATS_TEST_TMPDIR"/
		echo "$o: $output"
		[[ $output == *"--pack writes one archive file"*"has nothing to act on"* ]]
	done
	run -2 safecp --pack=rar "$SRC/a" "$BATS_TEST_TMPDIR"/
	[[ $output == *"unknown archive format 'rar' for --pack: use tar, tar.gz, tar.xz, tar.zst or zip"* ]]
	[[ ! -e $BATS_TEST_TMPDIR/a.tar && ! -e $BATS_TEST_TMPDIR/a.rar ]]
}

@test "names --unpack would refuse are refused before the first byte, each by name (exit 2)" {
	require_root
	stick_up --size 64 --rate 0
	local out=$STICK_MNT/out
	mkdir -p "$SRC/t" "$out"
	make_file "$SRC/t/ok.txt" 10
	make_file "$SRC/t/esc"$'\e]0;pwn\a' 10
	make_file "$SRC/t/nl"$'\n'"x" 10
	ln -s $'\u202egpj.exe' "$SRC/t/link"
	run --separate-stderr safecp --pack=tar "$SRC/t" "$out"/
	echo "$stderr"
	((status == 2))
	[[ $stderr == *"cannot pack '$SRC/t/esc'\$'\\e'']0;pwn'\$'\\a': its name holds a control character"*"; rename it"* ]]
	[[ $stderr == *"cannot pack '$SRC/t/nl'\$'\\n''x': its name holds a control character"* ]]
	[[ $stderr == *"cannot pack '$SRC/t/link': it is a symbolic link to "\$"'\\xe2\\x80\\xae''gpj.exe', which holds"*"; change the link"* ]]
	[[ $stderr == *"3 unsafe names: nothing was written"* ]]
	[[ -z $(ls -A "$out") ]]
	# without them the same tree packs
	rm "$SRC/t/esc"$'\e]0;pwn\a' "$SRC/t/nl"$'\n'"x" "$SRC/t/link"
	safecp --pack=tar "$SRC/t" "$out"/
	[[ -s $out/t.tar ]]
}

# stopped PID: the process is at its pause point (SIGSTOP).
stopped() {
	[[ $(proc_state "$1") == T ]]
}

@test "a source that cannot be read or changes fails the archive, which is not written" {
	require_hooks
	local d=$BATS_TEST_TMPDIR/d pid
	mkdir -p "$d" "$SRC/t"
	make_file "$SRC/t/a" 5000
	make_file "$SRC/t/b" $((3 * MIB))
	run -1 --separate-stderr safecp --system-disk --pack=tar /proc/self/mem "$SRC/t" "$d/x.tar"
	echo "$stderr"
	[[ $stderr == *"cannot read '/proc/self/mem'"*"the archive '$d/x.tar' was not written"* ]]
	[[ ! -e $d/x.tar ]]
	# b grows, or is rewritten in place (same size, another mtime), after the walk saw
	# it: GNU tar's "file changed as we read it"
	local how rc
	for how in grows rewritten; do
		SAFECP_TEST_PAUSE=source-open:t/b safecp --system-disk --pack=zip "$SRC/t" "$d/y.zip" \
			2>"$BATS_TEST_TMPDIR/err" &
		pid=$!
		PAUSED_PID=$pid
		wait_for 20 stopped "$pid"
		if [[ $how == grows ]]; then
			echo more >>"$SRC/t/b"
		else
			touch -d '2001-01-01' "$SRC/t/b"
		fi
		kill -CONT "$pid"
		rc=0
		wait "$pid" || rc=$?
		echo "$how: $rc: $(cat "$BATS_TEST_TMPDIR/err")"
		((rc == 1))
		grep -q "'$SRC/t/b' changed while it was packed; the archive '$d/y.zip' was not written" \
			"$BATS_TEST_TMPDIR/err"
		[[ ! -e $d/y.zip ]]
	done
	assert_no_temporaries "$d"
}

@test "SIGINT while the compressor runs: exit 130, nothing under the archive's name" {
	require_cmd jq
	local d=$BATS_TEST_TMPDIR/d ev=$BATS_TEST_TMPDIR/ev pid rc=0
	mkdir -p "$d"
	# xz is slower than any disk: the engine waits for the pack feed when the signal comes
	make_file "$SRC/big" $((48 * MIB))
	safecp --system-disk --pack=tar.xz --progress=json "$SRC" "$d"/ >"$ev" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_for 30 grep -q '"event":"progress"' "$ev"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	((rc == 130))
	grep -q "interrupted by SIGINT" "$BATS_TEST_TMPDIR/err"
	refute grep -q '"step":"write"' "$ev"
	[[ ! -e $d/src.tar.xz ]]
	assert_no_temporaries "$d"
}

@test "zip: an entry past 4 GiB gets Zip64 and reads back whole" {
	local d=$BATS_TEST_TMPDIR/d
	mkdir -p "$d"
	# sparse: 4 GiB of zeros and a tail, deflated to a few MiB
	truncate -s $((4 * 1024 * MIB + 12345)) "$SRC/huge"
	echo tail >>"$SRC/huge"
	safecp --system-disk -q --pack=zip "$SRC/huge" "$d"/
	# zipfile checks each entry's CRC at its end, and needs Zip64 for these sizes
	python3 - "$d/huge.zip" $((4 * 1024 * MIB + 12345 + 5)) <<-'EOF2'
		import sys, zipfile
		z = zipfile.ZipFile(sys.argv[1])
		(i,) = z.infolist()
		assert i.file_size == int(sys.argv[2]), i.file_size
		n, last = 0, b""
		with z.open(i) as f:
		    while b := f.read(1 << 24):
		        n, last = n + len(b), b
		assert n == i.file_size and last[-5:] == b"tail\n", (n, last[-5:])
	EOF2
}
