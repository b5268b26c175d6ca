#!/usr/bin/env bats
# tests/bats/safecp_names.bats: the destination's name rules (issue 7, item 11) on real
# sticks: names FAT, exFAT and NTFS cannot hold, and names that differ only in case,
# are refused before the first byte (every one of them named), or with --rename-invalid
# copied under the names safecp(1) documents; on ext4 the same names are just copied.

load helpers
load safecp_common

setup() {
	require_root
	require_tool safecp
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/d"
}

# The stick has nothing on it: not a file, not a directory, not a temporary.
assert_stick_empty() {
	local left
	left=$(find "$STICK_MNT" -mindepth 1 -print)
	[[ -z $left ]] || { echo "on the stick: $left" >&2; return 1; }
}

# clash_refused FS: A.JPG and a.jpg in one directory.
clash_refused() {
	echo upper >"$SRC/d/A.JPG"
	echo lower >"$SRC/d/a.jpg"
	stick_up --fs "$1" --rate 0 --size 64
	run -2 safecp -r "$SRC/d" "$STICK_MNT/"
	echo "$output"
	[[ $output == *"'$SRC/d/a.jpg'"*"'$STICK_MNT/d/A.JPG'"* ]]
	[[ $output == *"ignores case"* ]]
	assert_stick_empty
}

@test "exfat: A.JPG and a.jpg in one directory are refused before the first byte" {
	require_cmd mount.exfat-fuse
	clash_refused exfat
}

@test "ntfs: A.JPG and a.jpg in one directory are refused (Windows cannot tell them apart)" {
	require_cmd ntfs-3g
	clash_refused ntfs
	[[ $output == *"Windows ignores case in NTFS names"* ]]
}

@test "fat32: A.JPG and a.jpg in one directory are refused" {
	require_cmd fusefat
	clash_refused fat32
	[[ $output == *"FAT ignores case"* ]]
}

# case_clash_on_stick FS: a name that differs only in case from a file already there.
case_clash_on_stick() {
	echo new >"$SRC/d/Photo.jpg"
	echo mine >"$SRC/d/other"
	stick_up --fs "$1" --rate 0 --size 64
	mkdir "$STICK_MNT/d"
	echo old >"$STICK_MNT/d/photo.JPG"
	run -2 safecp -r "$SRC/d" "$STICK_MNT/"
	echo "$output"
	[[ $output == *"'$SRC/d/Photo.jpg'"*"'$STICK_MNT/d/photo.JPG' is already there"* ]]
	[ "$(ls "$STICK_MNT/d")" = photo.JPG ]
	[ "$(cat "$STICK_MNT/d/photo.JPG")" = old ]
	# the same name byte for byte is the file being replaced, not a clash
	mv "$SRC/d/Photo.jpg" "$SRC/d/photo.JPG"
	run -0 safecp -q -r "$SRC/d" "$STICK_MNT/"
	[ "$(cat "$STICK_MNT/d/photo.JPG")" = new ]
}

@test "exfat: a name that differs only in case from a file on the stick is refused" {
	require_cmd mount.exfat-fuse
	case_clash_on_stick exfat
}

@test "fat32: a name that differs only in case from a file on the stick is refused" {
	require_cmd fusefat
	case_clash_on_stick fat32
	fat_readback "$SRC/d" /d
}

@test "ntfs: a name that differs only in case from a file on the stick is refused" {
	require_cmd ntfs-3g
	case_clash_on_stick ntfs
}

# invalid_listed FS FORMAT: refused characters, device names and trailing dots, each
# named, all at once; FORMAT is how the message names the filesystem's rules.
invalid_listed() {
	local name fs=$1 format=$2
	for name in 'a:b.txt' 'CON' 'nul.txt' 'x.' 'tail ' 'q?' 'ok.txt'; do
		echo "$name" >"$SRC/d/$name"
	done
	echo latin1 >"$SRC/d/caf"$'\xe9'
	mkdir "$SRC/d/sub"
	echo deep >"$SRC/d/sub/why|not"
	stick_up --fs "$fs" --rate 0 --size 64
	run -2 safecp -r "$SRC/d" "$STICK_MNT/"
	echo "$output"
	[ "$(grep -c '^safecp: cannot copy' <<<"$output")" = 8 ]
	[[ $output == *"not valid UTF-8"* ]]
	[[ $output == *"'$SRC/d/a:b.txt'"*"$format does not allow ':' in names"* ]]
	[[ $output == *"'$SRC/d/CON'"*"'CON' is a device name on Windows"* ]]
	[[ $output == *"'$SRC/d/nul.txt'"*"device name"* ]]
	[[ $output == *"'$SRC/d/x.'"*"cannot end in '.' or ' '"* ]]
	[[ $output == *"'$SRC/d/tail '"*"cannot end in"* ]]
	[[ $output == *"'$SRC/d/q?'"*"'?'"* ]]
	[[ $output == *"'$SRC/d/sub/why|not'"*"'|'"* ]]
	[[ $output != *"ok.txt"* ]]
	assert_stick_empty
	# and for scripts: one refused event per problem, with its kind
	run -2 --separate-stderr safecp -r --progress=json "$SRC/d" "$STICK_MNT/"
	[ "$(jq -r 'select(.event == "refused") | .kind' <<<"$output" | sort | uniq -c |
		awk '{ printf "%s %s,", $1, $2 }')" = "6 name-invalid,2 name-reserved," ]
	assert_stick_empty
}

@test "exfat: refused characters, device names and trailing dots are all listed at once" {
	require_cmd mount.exfat-fuse
	invalid_listed exfat exFAT
}

@test "fat32: refused characters, device names and trailing dots are all listed at once" {
	require_cmd fusefat
	invalid_listed fat32 FAT
}

@test "ntfs: refused characters, device names and trailing dots are all listed at once" {
	require_cmd ntfs-3g
	invalid_listed ntfs NTFS
}

# The names of the tree rename_tree makes, as --rename-invalid gives them (safecp(1)).
RENAMED='A.JPG
CON_
a (2).jpg
a_b.txt
q_
sub (2)
x'

rename_tree() {
	echo upper >"$SRC/d/A.JPG"
	echo lower >"$SRC/d/a.jpg"
	echo colon >"$SRC/d/a:b.txt"
	echo con >"$SRC/d/CON"
	echo dot >"$SRC/d/x."
	echo ask >"$SRC/d/q?"
	mkdir "$SRC/d/Sub" "$SRC/d/sub"
	echo S >"$SRC/d/Sub/f"
	echo s >"$SRC/d/sub/f"
}

# rename_copies FS: everything is copied, each renamed file with a note; a rerun picks
# the same names and adds nothing.
rename_copies() {
	rename_tree
	stick_up --fs "$1" --rate 0 --size 64
	run -0 safecp -r --rename-invalid "$SRC/d" "$STICK_MNT/"
	echo "$output"
	[ "$(ls "$STICK_MNT/d" | LC_ALL=C sort | grep -vx Sub)" = "$RENAMED" ]
	[ "$(cat "$STICK_MNT/d/A.JPG")" = upper ]
	[ "$(cat "$STICK_MNT/d/a (2).jpg")" = lower ]
	[ "$(cat "$STICK_MNT/d/a_b.txt")" = colon ]
	[ "$(cat "$STICK_MNT/d/CON_")" = con ]
	[ "$(cat "$STICK_MNT/d/x")" = dot ]
	[ "$(cat "$STICK_MNT/d/q_")" = ask ]
	[ "$(cat "$STICK_MNT/d/Sub/f")" = S ]
	[ "$(cat "$STICK_MNT/d/sub (2)/f")" = s ]
	[[ $output == *"'$SRC/d/a:b.txt' is written as '$STICK_MNT/d/a_b.txt': "*"does not allow ':'"* ]]
	[[ $output == *"'$SRC/d/a.jpg' is written as '$STICK_MNT/d/a (2).jpg'"* ]]
	[ "$(grep -c 'is written as' <<<"$output")" = 6 ]
	assert_no_temporaries "$STICK_MNT"
	run -0 --separate-stderr safecp -r --rename-invalid --progress=json "$SRC/d" "$STICK_MNT/"
	[ "$(jq -r 'select(.event == "start") | .renamed[] | "\(.reason) \(.dest)"' <<<"$output" |
		sed "s|$STICK_MNT/d/||" | LC_ALL=C sort)" = "$(printf '%s\n' 'character a_b.txt' \
		'character q_' 'clash a (2).jpg' 'clash sub (2)' 'reserved CON_' 'trailing x')" ]
	[ "$(ls "$STICK_MNT/d" | LC_ALL=C sort | grep -vx Sub)" = "$RENAMED" ]
}

@test "exfat: --rename-invalid copies everything under the documented names and says so" {
	require_cmd mount.exfat-fuse
	rename_copies exfat
}

@test "ntfs: --rename-invalid copies everything under the documented names" {
	require_cmd ntfs-3g
	rename_copies ntfs
}

@test "fat32: --rename-invalid copies everything under the documented names" {
	require_cmd fusefat
	require_cmd mcopy
	rename_copies fat32
	# mtools reads the long names back as safecp documents them
	stick_reattach "$STICK_ID"
	((STICK_FSCK_RC == 0)) || { echo "$STICK_FSCK_OUT"; false; }
	[ "$(MTOOLS_SKIP_CHECK=1 LC_ALL=C.UTF-8 mdir -i "$STICK_IMG" -b ::/d | sed 's|^::/d/||; s|/$||' |
		LC_ALL=C sort | grep -vx Sub)" = "$RENAMED" ]
	[ "$(MTOOLS_SKIP_CHECK=1 mcopy -n -i "$STICK_IMG" '::/d/a (2).jpg' -)" = lower ]
}

@test "--rename-invalid --dry-run lists the new names and writes nothing" {
	require_cmd mount.exfat-fuse
	rename_tree
	stick_up --fs exfat --rate 0 --size 64
	run -0 safecp -r --rename-invalid --dry-run "$SRC/d" "$STICK_MNT/"
	echo "$output"
	[[ $output == *"renamed: 6 names (--rename-invalid)"* ]]
	[[ $output == *"rename "*"'$SRC/d/CON' is written as '$STICK_MNT/d/CON_'"* ]]
	assert_stick_empty
}

@test "ext4: the same names copy as they are (no rules, case-sensitive)" {
	rename_tree
	echo res >"$SRC/d/nul.txt"
	stick_up --fs ext4 --rate 0
	run -0 safecp -r "$SRC/d" "$STICK_MNT/"
	[ "$(tree_digest "$SRC/d")" = "$(tree_digest "$STICK_MNT/d")" ]
	[[ $output != *"written as"* ]]
}
