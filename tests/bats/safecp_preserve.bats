#!/usr/bin/env bats
# tests/bats/safecp_preserve.bats: cp's metadata (issue 29): -p, --preserve=LIST,
# --no-preserve=LIST. Where a filesystem keeps it (ext4, xfs, btrfs) the copy is compared
# with what GNU cp makes of the same tree on the same stick: extended attributes
# (user.*, trusted.* and security.* as root), access and default ACLs, owner and group
# with setuid and setgid, atime and mtime to the ns of files, directories and symbolic
# links. Without -p the modes are cp's (the umask, a replaced file's own mode). Onto
# FAT32, exFAT and NTFS (ntfs-3g) -p is one note and exit 0; an attribute named there
# that the stick cannot hold is refused before the first byte; --preserve=links, all and
# -a are taken (hard links themselves: safecp_cp_options.bats). kill -9 rounds: no final name without its metadata.
#
# Each test was seen failing with the code it guards broken: the xattr copy, the ACL copy,
# the chown, a symbolic link's times, setuid kept with the owner (the ext4 comparison); a
# replaced file's own mode, the umask (the modes test); the session's note (FAT32: no
# note); the refusal of a named attribute (FAT32: the copy ran); the
# metadata of a directory merged into, and the metadata set after the name with 30 ms
# between (the kill rounds: a named file at mode 600).
#
# Source atimes are set a day ahead, last: relatime then never moves them when cp or
# safecp reads a file (atime already after mtime and ctime, and not a day old), so both
# copies see the same.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd setfattr
	require_cmd setfacl
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC"
	umask 022
}

teardown() {
	[[ -n ${SAFECP_PID-} ]] && { kill -9 "$SAFECP_PID" 2>/dev/null; wait "$SAFECP_PID" 2>/dev/null; }
	stick_down_all
}

# meta_tree DIR: files, directories and symbolic links with every kind of metadata
# -p --preserve=xattr keeps.
meta_tree() {
	local d=$1 future
	mkdir -p "$d/sub/deep" "$d/acl-dir" "$d/plain-dir"
	make_file "$d/f" 5000
	make_file "$d/ro" 70000
	make_file "$d/sub/g" 123
	make_file "$d/sub/deep/h" 0
	make_file "$d/setid" 100
	make_file "$d/acl-file" 10
	ln -s f "$d/link"
	ln -s sub/deep "$d/sub/link-dir"
	setfattr -n user.origin -v camera-1 "$d/f"
	setfattr -n user.empty "$d/f"
	setfattr -n user.bin -v 0x00ff10 "$d/sub/g"
	setfattr -n user.dir -v yes "$d/sub"
	setfattr -n user.ro -v 1 "$d/ro"
	setfattr -n trusted.safecp -v root-only "$d/f"
	setfattr -n security.safecp -v sec "$d/sub/g"
	setfacl -m u:nobody:rw,g:nogroup:r "$d/acl-file"
	setfacl -d -m u:nobody:rx "$d/acl-dir"
	setfacl -m u:nobody:rwx "$d/acl-dir"
	chown nobody:nogroup "$d/setid" "$d/sub/g" "$d/plain-dir"
	chown -h nobody:nogroup "$d/link"
	chmod 6755 "$d/setid"
	chmod 0444 "$d/ro"
	chmod 0750 "$d/sub/deep"
	chmod 1777 "$d/plain-dir"
	touch -m -d '2018-05-06 07:08:09.111111111' "$d/f" "$d/ro" "$d/sub/g" "$d/setid" "$d/acl-file"
	touch -h -m -d '2020-01-02 03:04:05.123456789' "$d/link" "$d/sub/link-dir"
	touch -m -d '2019-01-02 03:04:05.987654321' "$d/sub/deep" "$d/sub" "$d/acl-dir" \
		"$d/plain-dir" "$d/sub/deep/h" "$d"
	future="$(date -d '+1 day' '+%Y-%m-%d %H:%M:%S').123456789"
	find "$d" -exec touch -h -a -d "$future" {} +
}

# meta_of DIR: every entry's owner, group, mode, atime and mtime (of a symbolic link its
# own), then its extended attributes and ACLs, neither followed through a link. The
# stat comes first: reading directories after it cannot move what it saw.
meta_of() {
	(
		cd "$1" || exit 1
		find . -mindepth 1 -print0 | LC_ALL=C sort -z |
			xargs -0 stat -c '%n %F %u %g %a %X.%x %Y.%y'
		# one entry at a time, in name order: -R lists in readdir order (xfs: by hash)
		find . -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' f; do
			getfattr -h -d -m - -e hex "$f" 2>/dev/null
			[[ -L $f ]] || getfacl -p "$f" 2>/dev/null
		done | grep -v '^$'
	)
}

# same_as_cp FS: -p --preserve=xattr against GNU cp's same choice, on one stick.
same_as_cp() {
	local size=64
	[[ $1 == xfs ]] && size=320
	[[ $1 == btrfs ]] && size=160
	stick_up --fs "$1" --size "$size" --rate 0
	meta_tree "$SRC/t"
	run -0 --separate-stderr safecp -r -p --preserve=xattr "$SRC/t" "$STICK_MNT/safecp"
	echo "$stderr"
	[[ -z $stderr ]]
	cp -r -p --preserve=xattr "$SRC/t" "$STICK_MNT/cp"
	meta_of "$STICK_MNT/safecp" >"$BATS_TEST_TMPDIR/safecp.meta"
	meta_of "$STICK_MNT/cp" >"$BATS_TEST_TMPDIR/cp.meta"
	diff -u "$BATS_TEST_TMPDIR/cp.meta" "$BATS_TEST_TMPDIR/safecp.meta"
	# the comparison holds what it should (cp kept them: the tree has them)
	grep -q 'user.origin=0x63616d6572612d31' "$BATS_TEST_TMPDIR/safecp.meta"
	grep -q 'trusted.safecp=' "$BATS_TEST_TMPDIR/safecp.meta"
	grep -q 'security.safecp=' "$BATS_TEST_TMPDIR/safecp.meta"
	grep -q '^default:user:nobody:r-x' "$BATS_TEST_TMPDIR/safecp.meta"
	grep -q '^user:nobody:rw-' "$BATS_TEST_TMPDIR/safecp.meta"
	grep -q '^./setid regular file 65534 65534 6755 ' "$BATS_TEST_TMPDIR/safecp.meta"
	grep -q '^./plain-dir directory 65534 65534 1777 ' "$BATS_TEST_TMPDIR/safecp.meta"
	grep -q '^./link symbolic link 65534 65534 777 .*2020-01-02 03:04:05.123456789' \
		"$BATS_TEST_TMPDIR/safecp.meta"
	grep -q '^./sub/deep directory 0 0 750 .*2019-01-02 03:04:05.987654321' \
		"$BATS_TEST_TMPDIR/safecp.meta"
	[[ $(tree_digest "$SRC/t") == "$(tree_digest "$STICK_MNT/safecp")" ]]
}

@test "ext4: -p --preserve=xattr keeps what cp keeps: xattrs, ACLs, owners, setuid, times to the ns" {
	same_as_cp ext4
}

@test "xfs: -p --preserve=xattr keeps what cp keeps" {
	require_cmd mkfs.xfs
	same_as_cp xfs
}

@test "btrfs: -p --preserve=xattr keeps what cp keeps" {
	require_cmd mkfs.btrfs
	same_as_cp btrfs
}

# modes_after TOOL DEST...: TOOL copies onto a destination made afresh, as GNU cp's
# default would: new files and a file replaced.
modes_case() {
	local dst=$1
	shift
	rm -rf "$dst"
	mkdir -p "$dst/t"
	make_file "$dst/t/old600" 10
	chmod 0600 "$dst/t/old600"
	make_file "$dst/t/old755" 10
	chmod 0755 "$dst/t/old755"
	"$@" "$SRC/t" "$dst"/
	(cd "$dst" && find . -mindepth 1 | LC_ALL=C sort | xargs stat -c '%n %a')
}

@test "without -p the modes are cp's: the source's less the umask, and a replaced file keeps its own" {
	stick_up --size 64 --rate 0
	mkdir -p "$SRC/t/d775"
	chmod 0775 "$SRC/t/d775"
	make_file "$SRC/t/new664" 10
	make_file "$SRC/t/new755" 10
	make_file "$SRC/t/old600" 20
	make_file "$SRC/t/old755" 20
	chmod 0664 "$SRC/t/new664" "$SRC/t/old600"
	chmod 0755 "$SRC/t/new755"
	chmod 0640 "$SRC/t/old755"
	local opts
	for opts in "" "--no-preserve=mode" "--preserve=mode"; do
		# shellcheck disable=SC2086
		modes_case "$STICK_MNT/cp" cp -r $opts >"$BATS_TEST_TMPDIR/cp.modes"
		# shellcheck disable=SC2086
		modes_case "$STICK_MNT/safecp" safecp -q -r $opts >"$BATS_TEST_TMPDIR/safecp.modes"
		echo "options: '$opts'"
		diff -u "$BATS_TEST_TMPDIR/cp.modes" "$BATS_TEST_TMPDIR/safecp.modes"
	done
	# what the comparison covers (the last round: --preserve=mode)
	grep -qx './t/new664 664' "$BATS_TEST_TMPDIR/safecp.modes"
	modes_case "$STICK_MNT/safecp" safecp -q -r >"$BATS_TEST_TMPDIR/safecp.modes"
	grep -qx './t/new664 644' "$BATS_TEST_TMPDIR/safecp.modes"
	grep -qx './t/new755 755' "$BATS_TEST_TMPDIR/safecp.modes"
	grep -qx './t/old600 600' "$BATS_TEST_TMPDIR/safecp.modes"
	grep -qx './t/d775 755' "$BATS_TEST_TMPDIR/safecp.modes"
}

# one_note FS: -p onto a stick that keeps no owners or modes: one note, exit 0, the data
# whole and the mtimes within the filesystem's step.
one_note() {
	local step=$2 f
	stick_up --fs "$1" --size 64 --rate 0
	mkdir -p "$SRC/t/sub"
	for f in a b c; do make_file "$SRC/t/$f" 3000; done
	make_file "$SRC/t/sub/d" 5000
	chmod 0600 "$SRC/t/a"
	chmod 0750 "$SRC/t/sub"
	setfattr -n user.x -v 1 "$SRC/t/b"
	TZ=UTC touch -m -d '2021-03-04 05:06:07.891011121' "$SRC/t/a" "$SRC/t/sub/d" "$SRC/t/sub"
	run -0 --separate-stderr safecp -r -p "$SRC/t" "$STICK_MNT"/
	echo "$stderr"
	[[ $(grep -c 'note:' <<<"$stderr") == 1 ]]
	[[ $stderr == *"note: '$STICK_MNT' ($3): this filesystem does not store owners, file modes or ACLs: the copies get its defaults; data and times are copied"* ]]
	[[ $(tree_digest "$SRC/t") == "$(tree_digest "$STICK_MNT/t")" ]]
	for f in a sub/d sub; do
		local want got
		want=$(stat -c %Y "$SRC/t/$f")
		got=$(stat -c %Y "$STICK_MNT/t/$f")
		echo "$f: mtime $want, on the stick $got (step $step s)"
		((want - got < step && got - want < step))
	done
}

@test "-p onto FAT32: one note, exit 0, data and mtimes within 2 s" {
	require_cmd fusefat
	one_note fat32 2 FAT
}

@test "-p onto exFAT (exfat-fuse): one note, exit 0, data and mtimes within 1 s" {
	one_note exfat 1 exFAT
}

@test "-p onto NTFS (ntfs-3g, no user mapping): one note, exit 0, data, mtimes and user.* kept" {
	require_cmd ntfs-3g
	one_note ntfs 1 NTFS
	# ntfs-3g keeps user.* as named streams, but -p asks for none
	run -0 safecp -q -r -p --preserve=xattr "$SRC/t" "$STICK_MNT/x"
	[[ $(getfattr --only-values -n user.x "$STICK_MNT/x/b") == 1 ]]
	# NTFS keeps 100 ns
	[[ $(TZ=UTC stat -c %y "$STICK_MNT/x/a") == "2021-03-04 05:06:07.891011100 +0000" ]]
}

@test "--preserve=xattr onto FAT32 is refused before the first byte, naming the attribute and the filesystem" {
	require_cmd fusefat
	stick_up --fs fat32 --size 64 --rate 0
	mkdir -p "$SRC/t"
	make_file "$SRC/t/a" 3000
	setfattr -n user.x -v 1 "$SRC/t/a"
	local before
	before=$(disk_written_bytes "$STICK_MAJMIN")
	run -2 --separate-stderr safecp -r --preserve=xattr "$SRC/t" "$STICK_MNT"/
	echo "$stderr"
	[[ $stderr == "safecp: cannot preserve xattr on '$STICK_MNT' (FAT): this filesystem does not store extended attributes; leave it out of --preserve"* ]]
	[[ $(wc -l <<<"$stderr") == 1 ]]
	[[ -z $(ls -A "$STICK_MNT") ]]
	[[ $(disk_written_bytes "$STICK_MAJMIN") == "$before" ]]
	# -p asks what the stick can hold, named mode too: refused
	run -2 --separate-stderr safecp -r --preserve=mode,timestamps "$SRC/t" "$STICK_MNT"/
	[[ $stderr == "safecp: cannot preserve mode on '$STICK_MNT' (FAT): this filesystem does not store file modes or ACLs;"* ]]
	[[ -z $(ls -A "$STICK_MNT") ]]
}

@test "--preserve=links, all, -a are taken (hard links: safecp_cp_options.bats); a named context is refused" {
	stick_up --size 64 --rate 0
	mkdir -p "$SRC/t"
	make_file "$SRC/t/a" 10
	local args
	for args in "--preserve=links" "--preserve=all" "-a" "--archive" "-p --preserve=mode,links"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr safecp -q -r $args "$SRC/t" "$STICK_MNT"/
		cmp "$SRC/t/a" "$STICK_MNT/t/a"
		rm -r "${STICK_MNT:?}/t"
	done
	# as GNU cp 9.1 without SELinux: context named is refused, turned off is fine
	run -2 --separate-stderr safecp -r --preserve=context "$SRC/t" "$STICK_MNT"/
	[[ $stderr == "safecp: cannot preserve security context without an SELinux-enabled kernel"* ]]
	run -1 cp -r --preserve=context "$SRC/t" "$BATS_TEST_TMPDIR/cp-context"
	[[ ! -e $STICK_MNT/t ]]
	run -0 safecp -q -r --preserve=all --no-preserve=links,context "$SRC/t" "$STICK_MNT"/
	cmp "$SRC/t/a" "$STICK_MNT/t/a"
	# cp's names only
	run -2 --separate-stderr safecp -r --preserve=bogus "$SRC/t" "$STICK_MNT"/
	[[ $stderr == *"unknown attribute 'bogus' for --preserve"* ]]
}

@test "kill -9 during a -p --preserve=xattr copy: every file under a final name has its xattrs and mode" {
	local rounds=${SAFECP_KILL_ROUNDS:-$( ((${SAFECP_SANITIZE:-0})) && echo 3 || echo 6)}
	local seed=${SAFECP_KILL_SEED:-$((($$ * 7919 + ${EPOCHSECONDS:-0}) % 32768))}
	local round delay i t0 span_ms f rel named
	echo "kill -9 rounds: $rounds, seed $seed (SAFECP_KILL_SEED=$seed replays them)"
	RANDOM=$seed
	stick_up --fs ext4 --size 64 --rate $((8 * MIB))
	mkdir -p "$SRC/t/d"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		make_file "$SRC/t/s$i" $((60 * 1024 + i))
		setfattr -n user.n -v "$i" "$SRC/t/s$i"
		chmod 0640 "$SRC/t/s$i"
	done
	for i in 1 2; do
		make_file "$SRC/t/d/big$i" $((2 * MIB + i))
		setfattr -n user.n -v "big$i" "$SRC/t/d/big$i"
		chmod 0604 "$SRC/t/d/big$i"
	done
	setfattr -n user.n -v dir "$SRC/t/d"
	chmod 0710 "$SRC/t/d"
	t0=${EPOCHREALTIME/./}
	safecp -q -r -p --preserve=xattr "$SRC/t" "$STICK_MNT"/
	span_ms=$(((${EPOCHREALTIME/./} - t0) * 12 / 10000 + 1))
	echo "a whole copy: $((span_ms * 10 / 12)) ms; kills within $span_ms ms"
	for ((round = 1; round <= rounds; round++)); do
		rm -rf "${STICK_MNT:?}/t"
		sync -f "$STICK_MNT"
		stick_throttle "$STICK_ID" $((8 * MIB))
		delay=$(((RANDOM * 32768 + RANDOM) % span_ms))
		delay=$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))
		safecp -q -r -p --preserve=xattr "$SRC/t" "$STICK_MNT"/ &
		SAFECP_PID=$!
		sleep "$delay"
		kill -9 "$SAFECP_PID" 2>/dev/null || true
		wait "$SAFECP_PID" 2>/dev/null || true
		SAFECP_PID=
		stick_reattach "$STICK_ID"
		((STICK_FSCK_RC == 0)) || { echo "$STICK_FSCK_OUT"; return 1; }
		named=0
		while IFS= read -r -d '' f; do
			rel=${f#"$STICK_MNT"/}
			named=$((named + 1))
			cmp -s "$SRC/$rel" "$f" || { echo "'$f' differs" >&2; return 1; }
			[[ $(stat -c %a "$f") == "$(stat -c %a "$SRC/$rel")" ]] ||
				{ echo "'$f': mode $(stat -c %a "$f")" >&2; return 1; }
			[[ $(getfattr --only-values -n user.n "$f" 2>/dev/null) == \
				"$(getfattr --only-values -n user.n "$SRC/$rel")" ]] ||
				{ echo "'$f': no user.n" >&2; return 1; }
		done < <(find "$STICK_MNT/t" -type f ! -name '.safecp-*' -print0 2>/dev/null)
		echo "round $round: killed after $delay s: $named files named, each with its xattr and mode"
		safecp -q -r -p --preserve=xattr "$SRC/t" "$STICK_MNT"/
		diff <(cd "$SRC/t" && find . -mindepth 1 | LC_ALL=C sort | xargs stat -c '%n %a %Y.%y') \
			<(cd "$STICK_MNT/t" && find . -mindepth 1 | LC_ALL=C sort | xargs stat -c '%n %a %Y.%y')
		[[ $(getfattr --only-values -n user.n "$STICK_MNT/t/d") == dir ]]
		assert_no_temporaries "$STICK_MNT"
	done
}

@test "--unpack -p keeps the entries' modes and times quietly; --preserve=xattr is refused there" {
	require_cmd tar
	stick_up --size 64 --rate 0
	mkdir -p "$SRC/t"
	make_file "$SRC/t/a" 100
	chmod 0640 "$SRC/t/a"
	touch -m -d '2017-01-02 03:04:05' "$SRC/t/a"
	tar -C "$SRC" -cf "$BATS_TEST_TMPDIR/t.tar" t
	run -0 --separate-stderr safecp --unpack -p "$BATS_TEST_TMPDIR/t.tar" "$STICK_MNT"
	echo "$stderr"
	[[ -z $stderr ]]
	[[ $(stat -c '%a %Y' "$STICK_MNT/t/a") == "640 $(stat -c %Y "$SRC/t/a")" ]]
	run -2 --separate-stderr safecp --unpack --preserve=xattr "$BATS_TEST_TMPDIR/t.tar" "$STICK_MNT/u"
	[[ $stderr == "safecp: --unpack keeps the entries' modes and times: it does not take --preserve=ownership or xattr; leave them out" ]]
	[[ ! -e $STICK_MNT/u ]]
}

@test "-a --verify: reading the copies back leaves them the source's access time (O_NOATIME)" {
	stick_up --size 64 --rate 0
	mkdir -p "$SRC/t"
	make_file "$SRC/t/a" 70000
	touch -a -d '2001-02-03 04:05:06.123456789' "$SRC/t/a"
	touch -m -d '2002-02-03 04:05:06' "$SRC/t/a"
	run -0 safecp -q -a --verify "$SRC/t" "$STICK_MNT"/
	[[ $(stat -c %x "$STICK_MNT/t/a") == "2001-02-03 04:05:06.123456789 "* ]]
	# --skip-identical=hash reads the copy back too
	touch -a -d '2001-02-03 04:05:06.123456789' "$SRC/t/a"
	run -0 safecp -q -a --skip-identical=hash "$SRC/t" "$STICK_MNT"/
	[[ $(stat -c %x "$STICK_MNT/t/a") == "2001-02-03 04:05:06.123456789 "* ]]
}
