#!/usr/bin/env bats
# tests/bats/safecp_powercut.bats: the promise itself. The moment safecp exits 0 the
# stick is pulled: its image is copied as the device holds it, and that copy must hold
# the whole tree. The loop device writes with direct I/O into its backing file, so the
# file holds exactly what the device completed, and a loop device has no volatile cache
# that a real pull could lose on top. The copy is mounted as at the next plug-in
# (journal or log replay allowed), compared with the source, unmounted, and checked by
# the filesystem's own fsck. Nothing syncs between safecp's exit and the copy: no
# umount, no sync, no freeze (freezing would sync).

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/t/deep/er" "$SRC/t/empty"
	local s
	for s in $AWKWARD_SIZES; do make_file "$SRC/t/f$s" "$s"; done
	for s in 1 2 3 4 5 6 7 8; do make_file "$SRC/t/deep/s$s" $((s * 7000)); done
	make_file "$SRC/t/deep/er/big" $((9 * MIB + 5))
	PC_IMG=/dev/shm/safecp-powercut.$$.img PC_LOOP='' PC_MNT=$BATS_TEST_TMPDIR/pulled
}

teardown() {
	if [[ -n ${PC_MNT-} ]] && mountpoint -q "$PC_MNT"; then umount "$PC_MNT"; fi
	if [[ -n ${PC_LOOP-} ]]; then losetup -d "$PC_LOOP"; fi
	rm -f "${PC_IMG-}"
	stick_down_all
}

# content_digest DIR: the sha256 of every regular file, by relative path.
content_digest() {
	(cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# pull_after_safecp FS [STICK OPTIONS]: copy $SRC/t with safecp, take the image, mount it.
pull_after_safecp() {
	local fs=$1
	shift
	stick_up --fs "$fs" "$@"
	run -0 safecp -r "$SRC/t" "$STICK_MNT"/
	pull_image
	# the stick goes (its umount syncs, but the image is already taken)
	stick_down_all
	mount_pulled "$fs"
}

# pull_image: the stick's image as its device holds it now
pull_image() {
	cp --sparse=always "$STICK_BACKING_DIR/safecp-$STICK_ID.img" "$PC_IMG"
}

# mount_pulled FS: the pulled image, mounted as at the next plug-in
mount_pulled() {
	local fs=$1
	PC_LOOP=$(losetup --show -f "$PC_IMG")
	mkdir -p "$PC_MNT"
	case $fs in
	exfat)
		# "volume was not unmounted cleanly": true of any pulled stick, and no error
		mount.exfat-fuse "$PC_LOOP" "$PC_MNT" >/dev/null
		PC_FUSE=$(pgrep -n -f "^mount.exfat-fuse $PC_LOOP $PC_MNT\$")
		;;
	# read-only: fusefat writes nothing then (no dirty flag), ntfs-3g replays nothing
	fat32)
		fusefat -o "ro,blkdev,fsname=$PC_LOOP" "$PC_LOOP" "$PC_MNT" >/dev/null 2>&1 </dev/null 3>&-
		# (fusefat rewrites its argv: found by its mount point, as the stick finds it)
		PC_FUSE=$(_stick_fuse_pid "$PC_MNT" fusefat)
		;;
	ntfs)
		ntfs-3g -o ro "$PC_LOOP" "$PC_MNT" >/dev/null </dev/null 3>&-
		PC_FUSE=$(_stick_fuse_pid "$PC_MNT" ntfs-3g)
		;;
	xfs) mount -o nouuid "$PC_LOOP" "$PC_MNT" ;;
	*) mount "$PC_LOOP" "$PC_MNT" ;;
	esac
}

# fat_fsck_pulled: fsck.vfat -n of the pulled image finds nothing but what any pulled
# stick shows: the dirty flag fusefat sets while mounted (it clears it, and writes the
# FSInfo free count, only when it exits).
fat_fsck_pulled() {
	local out rest rc=0
	out=$(fsck.vfat -n "$PC_LOOP" 2>&1) || rc=$?
	echo "$out"
	((rc == 0)) && return 0
	rest=$(grep -v -e '^fsck.fat ' -e '^Dirty bit is set' -e 'Automatically removing dirty bit' \
		-e '^Leaving filesystem unchanged' -e '^ *$' -e "^$PC_LOOP: [0-9]* files" \
		-e '^Free cluster summary wrong' -e '^ *Auto-correcting' <<<"$out" || true)
	[[ -z $rest ]] || { echo "fsck.vfat -n found more than a pulled stick's flag: $rest" >&2; return 1; }
}

# unmount_and_fsck FS: the pulled filesystem, after its replay, is consistent.
unmount_and_fsck() {
	umount "$PC_MNT"
	# the FUSE daemon lets go of the device a moment after umount returns
	if [[ $1 == exfat || $1 == fat32 || $1 == ntfs ]]; then wait_for 10 test ! -e "/proc/$PC_FUSE"; fi
	case $1 in
	fat32) fat_fsck_pulled ;;
	ntfs) ntfsfix -n "$PC_LOOP" ;;
	ext4) e2fsck -fn "$PC_LOOP" ;;
	xfs) xfs_repair -n "$PC_LOOP" ;;
	btrfs) btrfs check --readonly "$PC_LOOP" ;;
	exfat) fsck.exfat -n "$PC_LOOP" ;;
	esac
}

# pulled_tree_is_whole FS SIZE: the tree, links and modes included, and its timestamps
# (made durable with it), then fsck.
pulled_tree_is_whole() {
	pull_after_safecp "$1" --size "$2"
	diff <(tree_digest "$SRC/t") <(tree_digest "$PC_MNT/t")
	[[ $(stat -c %Y "$PC_MNT/t/deep/er/big") == $(stat -c %Y "$SRC/t/deep/er/big") ]]
	unmount_and_fsck "$1"
}

@test "ext4: pulled the moment safecp exits, the stick holds the whole tree" {
	pulled_tree_is_whole ext4 64
}

@test "xfs: pulled the moment safecp exits, the stick holds the whole tree" {
	pulled_tree_is_whole xfs 320
}

@test "btrfs: pulled the moment safecp exits, the stick holds the whole tree" {
	pulled_tree_is_whole btrfs 256
}

@test "exfat-fuse: pulled the moment safecp exits, the stick holds the whole tree" {
	require_cmd mount.exfat-fuse
	pull_after_safecp exfat --size 64
	# exfat stores neither symlinks nor modes: content and names
	diff <(content_digest "$SRC/t") <(content_digest "$PC_MNT/t")
	[[ -d $PC_MNT/t/empty ]]
	[[ $(stat -c %Y "$PC_MNT/t/deep/er/big") == $(stat -c %Y "$SRC/t/deep/er/big") ]]
	unmount_and_fsck exfat
}

# fusefat's fsync writes nothing (doc/kernel.md 1.5): only safecp's syncs of the device
# put the tree on it before it exits
@test "fat32 (fusefat): pulled the moment safecp exits, the stick holds the whole tree" {
	require_cmd fusefat
	require_cmd mcopy
	pull_after_safecp fat32 --size 64
	# FAT stores neither symlinks nor modes: content and names, read by mtools from the
	# image, not by fusefat
	local f n=0
	while IFS= read -r -d '' f; do
		MTOOLS_SKIP_CHECK=1 mcopy -n -i "$PC_LOOP" "::/t/${f#"$SRC/t/"}" - 2>/dev/null | cmp - "$f"
		n=$((n + 1))
	done < <(find "$SRC/t" -type f -print0)
	echo "$n files read back by mtools"
	MTOOLS_SKIP_CHECK=1 mdir -i "$PC_LOOP" ::/t/empty >/dev/null 2>&1
	# 2 s steps: the source's mtime, rounded down to even seconds
	[[ $(stat -c %Y "$PC_MNT/t/deep/er/big") == $(($(stat -c %Y "$SRC/t/deep/er/big") / 2 * 2)) ]]
	unmount_and_fsck fat32
}

@test "ntfs (ntfs-3g): pulled the moment safecp exits, the stick holds the whole tree" {
	require_cmd ntfs-3g
	pull_after_safecp ntfs --size 64
	diff <(content_digest "$SRC/t") <(content_digest "$PC_MNT/t")
	[[ -d $PC_MNT/t/empty ]]
	[[ $(stat -c %Y "$PC_MNT/t/deep/er/big") == $(stat -c %Y "$SRC/t/deep/er/big") ]]
	unmount_and_fsck ntfs
}

# backup_pulled_at_first_name FS: onto a stick holding t/a and t/b, safecp -b pauses where
# the new a is to get its name (the batch's backups made) and the stick is pulled then:
# it holds each old file under its backup name, whole (read by mtools on FAT).
backup_pulled_at_first_name() {
	local fs=$1 pid rc=0 f
	require_hooks
	stick_up --fs "$fs" --size 64 --rate 0
	mkdir -p "$STICK_MNT/t" "$SRC/u"
	make_file "$STICK_MNT/t/a" 70000
	make_file "$STICK_MNT/t/b" 9000
	cp "$STICK_MNT/t/a" "$SRC/old-a"
	cp "$STICK_MNT/t/b" "$SRC/old-b"
	sync
	make_file "$SRC/u/a" 50000
	make_file "$SRC/u/b" 5000
	SAFECP_TEST_PAUSE=publish:/t/a safecp -b "$SRC/u/a" "$SRC/u/b" "$STICK_MNT/t/" \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_paused "$pid" || { kill "$pid"; wait "$pid"; cat "$BATS_TEST_TMPDIR/out"; return 1; }
	pull_image
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	((rc == 0))
	stick_down_all
	mount_pulled "$fs"
	for f in a b; do
		if [[ $fs == fat32 ]]; then
			MTOOLS_SKIP_CHECK=1 mcopy -n -i "$PC_LOOP" "::/t/$f~" - 2>/dev/null | cmp - "$SRC/old-$f"
		else
			cmp "$PC_MNT/t/$f~" "$SRC/old-$f"
		fi
	done
	unmount_and_fsck "$fs"
}

# without a journal the two renames are ordered only by a sync between them
@test "--backup on fat32 (fusefat), pulled as the first new file is to be named: each old file is under its backup name" {
	require_cmd fusefat
	require_cmd mcopy
	backup_pulled_at_first_name fat32
}

@test "--backup on exfat-fuse, pulled as the first new file is to be named: each old file is under its backup name" {
	require_cmd mount.exfat-fuse
	backup_pulled_at_first_name exfat
}
