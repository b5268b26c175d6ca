#!/usr/bin/env bats
# tests/bats/safecp_cp_options.bats: cp's options safecp takes with cp's meaning (issue 29),
# on simulated sticks:
# - -R is -r;
# - -u replaces a copy only when it is older than its source, copies the missing, and keeps
#   (inode unchanged) one as new or newer; onto a FAT32 stick (fusefat: times to 2 s) a
#   rerun with -u copies nothing, where times rounded by FAT would make cp -u copy again;
# - -x copies a directory that is another filesystem (a tmpfs mounted inside the source)
#   as an empty directory; without -x its files are copied;
# - hard links (--preserve=links, -d, -a): a tree with 200 hard-linked pairs, a group of
#   three and a file whose other name is outside the tree arrives with each group one
#   inode (du of the copy equals du of the source), the -v and JSON events naming every
#   name; -a onto exFAT copies each name as a file, with one note naming hard links, exit
#   0; --preserve=links named onto FAT32 is refused before the first byte;
# - -P copies a symlink named without -r as a link, -H follows one with -r, -L -P -H: the
#   last counts.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	EV=$BATS_TEST_TMPDIR/events
	INNER=
	mkdir -p "$SRC/card/sub"
	make_file "$SRC/card/older" 5000
	make_file "$SRC/card/newer" 6000
	make_file "$SRC/card/same" 7000
	make_file "$SRC/card/sub/missing" 8000
}

teardown() {
	[[ -z $INNER ]] || umount "$INNER" 2>/dev/null || true
	stick_down_all
}

ino() {
	stat -c %i "$1"
}

@test "-R copies a tree as -r does" {
	stick_up --size 32 --rate 0
	run -0 safecp -R "$SRC/card" "$STICK_MNT"
	diff -r "$SRC/card" "$STICK_MNT/card"
}

@test "-u: an older copy is replaced, a missing one copied, one as new or newer kept" {
	stick_up --size 32 --rate 0
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	rm "$STICK_MNT/card/sub/missing"
	make_file "$SRC/card/older" 5000
	make_file "$SRC/card/newer" 6000
	touch -d '2030-01-01 00:00:00' "$SRC/card/older"
	touch -d '2020-01-01 00:00:00' "$SRC/card/newer"
	local newer same
	newer=$(ino "$STICK_MNT/card/newer") same=$(ino "$STICK_MNT/card/same")
	run -0 --separate-stderr safecp -r -u --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	cmp "$SRC/card/older" "$STICK_MNT/card/older"
	cmp "$SRC/card/sub/missing" "$STICK_MNT/card/sub/missing"
	run ! cmp -s "$SRC/card/newer" "$STICK_MNT/card/newer"
	[ "$(ino "$STICK_MNT/card/newer")" = "$newer" ]
	[ "$(ino "$STICK_MNT/card/same")" = "$same" ]
	jq -s -e 'last | .event == "done" and .files == 2' "$EV"
	jq -s -e '[.[] | select(.event == "file" and .state == "kept")] | length == 2' "$EV"
}

@test "-u onto FAT32 (times kept to 2 s): a rerun copies nothing" {
	stick_up --fs fat32 --size 64 --rate 0
	touch -d '2024-05-05 10:00:01.700000000' "$SRC/card/older" "$SRC/card/newer" \
		"$SRC/card/same" "$SRC/card/sub/missing"
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	run -0 --separate-stderr safecp -r -u --progress=json "$SRC/card" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	jq -s -e 'last | .event == "done" and .files == 0 and .bytes_on_device == 0' "$EV"
}

@test "-x: a directory on another filesystem inside the source is copied empty" {
	stick_up --size 32 --rate 0
	INNER=$SRC/card/inner
	mkdir "$INNER"
	mount -t tmpfs -o size=1m tmpfs "$INNER"
	make_file "$INNER/on-tmpfs" 3000
	run -0 safecp -r -x "$SRC/card" "$STICK_MNT"
	[ -d "$STICK_MNT/card/inner" ]
	[ -z "$(ls -A "$STICK_MNT/card/inner")" ]
	cmp "$SRC/card/older" "$STICK_MNT/card/older"
	rm -r "${STICK_MNT:?}/card"
	run -0 safecp -r "$SRC/card" "$STICK_MNT"
	cmp "$INNER/on-tmpfs" "$STICK_MNT/card/inner/on-tmpfs"
}

make_links() {
	mkdir -p "$SRC/lk/a" "$SRC/lk/b"
	for ((i = 0; i < 200; i++)); do
		head -c $((1000 + i)) /dev/urandom >"$SRC/lk/a/f$i"
		ln "$SRC/lk/a/f$i" "$SRC/lk/b/g$i"
	done
	make_file "$SRC/lk/three" 5000
	ln "$SRC/lk/three" "$SRC/lk/a/three2"
	ln "$SRC/lk/three" "$SRC/lk/b/three3"
	make_file "$SRC/lk/out" 3000
	ln "$SRC/lk/out" "$BATS_TEST_TMPDIR/outside"
}

@test "hard links: --preserve=links, -d and -a keep each group one file; du as the source's" {
	stick_up --size 64 --rate 0
	make_links
	run -0 --separate-stderr safecp -r --preserve=links --progress=json "$SRC/lk" "$STICK_MNT"
	printf '%s\n' "$output" >"$EV"
	diff -r "$SRC/lk" "$STICK_MNT/lk"
	[ "$(stat -c %i "$STICK_MNT/lk/a/f7")" = "$(stat -c %i "$STICK_MNT/lk/b/g7")" ]
	[ "$(stat -c %h "$STICK_MNT/lk/three")" = 3 ]
	[ "$(stat -c %h "$STICK_MNT/lk/out")" = 1 ]
	# each group once: the files' blocks (each inode counted once) as those of cp -a's
	# copy on the same stick (its block size is not the source's); copies would
	# double them. (du of the whole trees differs by the directories' blocks.)
	local ref ours
	cp -a "$SRC/lk" "$STICK_MNT/ref"
	ref=$(find "$STICK_MNT/ref" -type f -printf '%i %b\n' | sort -u | awk '{ s += $2 } END { print s }')
	ours=$(find "$STICK_MNT/lk" -type f -printf '%i %b\n' | sort -u | awk '{ s += $2 } END { print s }')
	echo "file blocks: cp -a's copy $ref, safecp's $ours"
	[ "$ours" = "$ref" ]
	rm -r "${STICK_MNT:?}/ref"
	jq -s -e '[.[] | select(.event == "file" and .state == "finished" and .type == "file")]
		| length == 404' "$EV"
	rm -r "${STICK_MNT:?}/lk"
	run -0 safecp -a "$SRC/lk" "$STICK_MNT"
	[ "$(stat -c %i "$STICK_MNT/lk/a/f0")" = "$(stat -c %i "$STICK_MNT/lk/b/g0")" ]
	rm -r "${STICK_MNT:?}/lk"
	run -0 safecp -r -d "$SRC/lk" "$STICK_MNT"
	[ "$(stat -c %i "$STICK_MNT/lk/a/three2")" = "$(stat -c %i "$STICK_MNT/lk/b/three3")" ]
}

@test "hard links: -a onto exFAT copies each name, one note; --preserve=links onto FAT32 is refused" {
	stick_up --fs exfat --size 64 --rate 0
	make_links
	run -0 --separate-stderr safecp -a "$SRC/lk" "$STICK_MNT"
	diff -r "$SRC/lk" "$STICK_MNT/lk"
	[ "$(grep -c "note:" <<<"$stderr")" = 1 ]
	grep -q "hard links" <<<"$stderr"
	stick_up --fs fat32 --size 64 --rate 0
	run -2 --separate-stderr safecp -r --preserve=links "$SRC/lk" "$STICK_MNT"
	grep -q "links" <<<"$stderr"
	[ -z "$(ls -A "$STICK_MNT")" ]
}

@test "-P copies a link named without -r as a link, -H follows one with -r; the last counts" {
	stick_up --size 32 --rate 0
	ln -s card "$SRC/dirlink"
	ln -s card/older "$SRC/filelink"
	run -0 safecp -P "$SRC/filelink" "$STICK_MNT"
	[ -L "$STICK_MNT/filelink" ]
	run -0 safecp -r -H "$SRC/dirlink" "$STICK_MNT"
	[ -d "$STICK_MNT/dirlink" ] && [ ! -L "$STICK_MNT/dirlink" ]
	cmp "$SRC/card/older" "$STICK_MNT/dirlink/older"
	rm -rf "${STICK_MNT:?}/filelink"
	run -0 safecp -H -P "$SRC/filelink" "$STICK_MNT"
	[ -L "$STICK_MNT/filelink" ]
}

@test "cp's options without a library part: accepted ones copy, refused ones say why before the first byte" {
	stick_up --size 32 --rate 0
	ln -s card "$SRC/dirlink"
	local opt
	# accepted: copy as without them
	for opt in --remove-destination --reflink --reflink=auto --reflink=never -Z --context; do
		run -0 safecp -r "$opt" "$SRC/card" "$STICK_MNT"
		diff -r "$SRC/card" "$STICK_MNT/card"
	done
	run -0 --separate-stderr safecp -r --context=system_u:object_r:tmp_t:s0 "$SRC/card" "$STICK_MNT"
	grep -q "ignoring --context" <<<"$stderr"
	rm -r "${STICK_MNT:?}/card"
	# refused: exit 2, one line naming the option, nothing written
	for opt in -l --link -s --symbolic-link --reflink=always --attributes-only --copy-contents \
		--keep-directory-symlink; do
		# shellcheck disable=SC2086 # -S takes its word
		run -2 --separate-stderr safecp -r $opt "$SRC/card" "$STICK_MNT"
		[ "$(wc -l <<<"$stderr")" = 1 ] || { echo "$opt: $stderr"; false; }
		[[ $stderr == "safecp: "* ]]
		[ ! -e "$STICK_MNT/card" ] || { echo "$opt wrote"; false; }
	done
	# --strip-trailing-slashes: "dirlink/" is the link, copied as a link with -r
	run -0 safecp -r "$SRC/dirlink/" "$STICK_MNT"
	[ -d "$STICK_MNT/dirlink" ] && [ ! -L "$STICK_MNT/dirlink" ]
	rm -r "${STICK_MNT:?}/dirlink"
	run -0 safecp -r --strip-trailing-slashes "$SRC/dirlink/" "$STICK_MNT"
	[ -L "$STICK_MNT/dirlink" ]
}

@test "--debug: -v's line and cp's line of how each file is written, holes found by SEEK_HOLE" {
	stick_up --size 32 --rate 0
	truncate -s 4M "$SRC/card/sparse"
	echo end >>"$SRC/card/sparse"
	run -0 safecp --debug "$SRC/card/same" "$SRC/card/sparse" "$STICK_MNT"
	echo "$output"
	grep -qxF "'$SRC/card/same' -> '$STICK_MNT/same'" <<<"$output"
	grep -qxF "copy offload: avoided, reflink: unsupported, sparse detection: no, writes: direct" <<<"$output"
	grep -qxF "'$SRC/card/sparse' -> '$STICK_MNT/sparse'" <<<"$output"
	grep -qxF "copy offload: avoided, reflink: unsupported, sparse detection: SEEK_HOLE, writes: direct" <<<"$output"
	cmp "$SRC/card/sparse" "$STICK_MNT/sparse"
	# --sparse=never: no holes looked for
	run -0 safecp --debug --sparse=never "$SRC/card/sparse" "$STICK_MNT/s2"
	grep -qF "sparse detection: no" <<<"$output"
}

# listing DIR: each entry's path, type and mode (and with "times" its mtime to the ns)
listing() {
	(cd "$1" && find . -mindepth 1 -printf "%p %y %m${2:+ %T@}\n" | LC_ALL=C sort)
}

@test "--parents: each operand at DEST/its path, the directories on it made as cp makes them" {
	stick_up --size 32 --rate 0
	local D=$STICK_MNT/pp
	mkdir -p "$D" "$SRC/p/a/b/c" "$SRC/p/a/x" "$BATS_TEST_TMPDIR/cp"
	echo f >"$SRC/p/a/b/c/f"
	echo g >"$SRC/p/a/x/g"
	echo t >"$SRC/p/top"
	chmod 750 "$SRC/p/a/b"
	chmod 705 "$SRC/p/a/x"
	touch -d '2001-02-03 04:05:06.789' "$SRC/p/a/b" "$SRC/p/a"
	cd "$SRC/p"
	# operands out of order, sharing directories, with "./" and "//"
	cp --parents a/x/g top ./a//b/c/f "$BATS_TEST_TMPDIR/cp/"
	run -0 safecp --parents a/x/g top ./a//b/c/f "$D/"
	diff <(listing "$BATS_TEST_TMPDIR/cp") <(listing "$D")
	cmp a/b/c/f "$D/a/b/c/f"
	# -p: the directories on the path keep their times too; -r: a directory's tree
	rm -rf "${D:?}"/* "$BATS_TEST_TMPDIR/cp"/*
	cp -p -r --parents a/b a/x "$BATS_TEST_TMPDIR/cp/"
	run -0 safecp -p -r --parents a/b a/x "$D/"
	# but a's time: cp sets it with a/b's copy, and a/x's copy then changes it; safecp
	# sets each directory's after its last entry
	diff <(listing "$BATS_TEST_TMPDIR/cp" times | grep -v '^\./a d') \
		<(listing "$D" times | grep -v '^\./a d')
	[[ $(stat -c %y "$D/a") == "2001-02-03 04:05:06.789000000 "* ]]
	# merged into what is there; an absolute path keeps its directories
	run -0 safecp --parents "$SRC/p/top" a/b/c/f "$D/"
	cmp top "$D/$SRC/p/top"
	[[ -d $D/tmp && -f $D/a/b/c/f ]]
	# two destinations, each the same tree (a directory operand, then one beside it)
	mkdir "$STICK_MNT/d1" "$STICK_MNT/d2"
	run -0 safecp -r --parents -t "$STICK_MNT/d1" -t "$STICK_MNT/d2" a/x a/b/c/f top
	diff <(listing "$STICK_MNT/d1") <(listing "$STICK_MNT/d2")
	[[ $(listing "$STICK_MNT/d1" | wc -l) == 7 ]]
}

@test "--parents refused before the first byte: '..' on the path, DEST not a directory, a tree and a path in it" {
	stick_up --size 32 --rate 0
	mkdir -p "$SRC/p/a/b"
	echo t >"$SRC/p/top"
	cd "$SRC/p"
	run -2 --separate-stderr safecp --parents ../p/top "$STICK_MNT/"
	[[ $stderr == "safecp: refusing to copy '../p/top' with --parents: the '..' on its path would lead out of '$STICK_MNT/'"* ]]
	run -2 --separate-stderr safecp --parents top "$STICK_MNT/new"
	[[ $stderr == *"'$STICK_MNT/new' is not a directory"* ]]
	# cp copies a, then a/b over its own copy; safecp says it once, whole
	run -2 --separate-stderr safecp -r --parents a a/b "$STICK_MNT/"
	[[ $stderr == "safecp: 'a/b' would overwrite '$STICK_MNT/a', copied from another source"* ]]
	mkdir -p a/b/c
	run -2 --separate-stderr safecp -r --parents a/b a/b/c "$STICK_MNT/"
	[[ $stderr == "safecp: 'a/b/c' would overwrite '$STICK_MNT/a/b', copied from another source"* ]]
	[[ -z $(ls -A "$STICK_MNT" | grep -v lost+found) ]]
}

@test "-a over 600 directories with hard links: every directory keeps its mtime (more done directories than the fd budget)" {
	stick_up --size 64 --rate 0
	local i
	for i in $(seq -w 1 600); do
		mkdir -p "$SRC/h/d$i/a" "$SRC/h/d$i/b"
		echo "$i" >"$SRC/h/d$i/a/f"
		ln "$SRC/h/d$i/a/f" "$SRC/h/d$i/b/g"
	done
	find "$SRC/h" -type d -exec touch -d '2001-01-01 01:02:03.456' {} +
	run -0 safecp -q -a "$SRC/h" "$STICK_MNT"/
	[[ -z $(find "$STICK_MNT/h" -type d -newermt '2001-01-02' | head -3) ]]
	[[ $(stat -c %h "$STICK_MNT/h/d600/b/g") == 2 ]]
}

@test "hard links: a further name whose first name failed says so, naming that file" {
	require_hooks
	stick_up --size 32 --rate 0
	mkdir -p "$SRC/l"
	make_file "$SRC/l/f" 5000
	ln "$SRC/l/f" "$SRC/l/g"
	SAFECP_TEST_PAUSE=source-open:/l/f safecp -a "$SRC/l" "$STICK_MNT"/ \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$! rc=0
	wait_paused "$pid" || { kill "$pid"; wait "$pid"; cat "$BATS_TEST_TMPDIR/out"; return 1; }
	# the first name changes before it is read: not copied, nor its other name
	echo more >>"$SRC/l/f"
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	((rc == 1))
	grep -qF "'$SRC/l/f' changed while it was copied" "$BATS_TEST_TMPDIR/out"
	grep -qF "cannot make '$STICK_MNT/l/g', another name of '$STICK_MNT/l/f', which was not copied" \
		"$BATS_TEST_TMPDIR/out"
	[[ ! -e $STICK_MNT/l/f && ! -e $STICK_MNT/l/g ]]
	assert_no_temporaries "$STICK_MNT"
}
