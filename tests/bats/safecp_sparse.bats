#!/usr/bin/env bats
# tests/bats/safecp_sparse.bats: holes stay holes (issue 29, man safecp --sparse).
# A 64 MiB file with 4 MiB of data in three extents (truncate, dd conv=notrunc at
# offsets) copied to ext4, xfs, btrfs and ntfs-3g: equal bytes, the source's allocated
# blocks within a few, the same map of data and holes (SEEK_DATA/SEEK_HOLE); the JSON
# start event gives the data as bytes_total and the length as bytes_apparent, and the
# bar ends at the data. --sparse=never allocates every block; --sparse=always turns
# blocks of zeros into holes. exFAT (exfat-fuse) keeps no holes: zeros are written,
# counted as bytes. Two destinations from one read, --verify, --sums lists (sha256sum -c,
# xxhsum -c), and kill -9 inside a large sparse file: the rerun resumes it and the file
# ends whole, with its holes.

load helpers
load safecp_common

SIZE=$((64 * MIB))

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	require_cmd python3
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC"
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
}

teardown() {
	[[ -n ${SAFECP_PID-} ]] && { kill -9 "$SAFECP_PID" 2>/dev/null; wait "$SAFECP_PID" 2>/dev/null; }
	stick_down_all
}

# make_sparse PATH SIZE OFFSET_MIB:COUNT_MIB...: a file of SIZE bytes, holes but for
# random data of COUNT MiB at each OFFSET MiB.
make_sparse() {
	local path=$1 size=$2 x
	shift 2
	truncate -s "$size" "$path"
	for x in "$@"; do
		dd if=/dev/urandom of="$path" bs=1M seek="${x%%:*}" count="${x##*:}" conv=notrunc \
			status=none
	done
}

# the test file: 4 MiB of data in three extents, the last one 1 MiB before the end
make_image() {
	make_sparse "$SRC/vm.img" "$SIZE" 1:1 20:2 62:1
}

# hole_map FILE: "DATA_START DATA_END" a line, from SEEK_DATA and SEEK_HOLE.
hole_map() {
	python3 - "$1" <<-'EOF'
		import os, sys
		fd = os.open(sys.argv[1], os.O_RDONLY)
		size, off = os.fstat(fd).st_size, 0
		while off < size:
		    try:
		        d = os.lseek(fd, off, os.SEEK_DATA)
		    except OSError:
		        break
		    h = os.lseek(fd, d, os.SEEK_HOLE)
		    print(d, h)
		    off = h
	EOF
}

blocks() {
	stat -c %b "$1"
}

# assert_holes_kept SRC COPY: equal bytes, allocated blocks within 64 sectors (32 KiB:
# an extent tree block, a filesystem's rounding), the same hole map where the
# filesystem reports one (FUSE reports all data).
assert_holes_kept() {
	local a b
	cmp "$1" "$2"
	a=$(blocks "$1")
	b=$(blocks "$2")
	echo "blocks: source $a, copy $b"
	((b <= a + 64 && b + 64 >= a))
	if [[ ${3-} != fuse ]]; then
		diff <(hole_map "$1") <(hole_map "$2")
	fi
}

# copy_sparse FS: the image to a stick of FS; its holes kept, the events truthful.
copy_sparse() {
	local data
	stick_up --fs "$1" --size 320 --rate 0
	make_image
	data=$(($(blocks "$SRC/vm.img") * 512))
	run -0 --separate-stderr safecp --progress=json "$SRC/vm.img" "$STICK_MNT"/
	echo "$stderr"
	assert_holes_kept "$SRC/vm.img" "$STICK_MNT/vm.img" "${2-}"
	jq -s -e --argjson d "$data" --argjson s "$SIZE" '.[0] | .event == "start"
		and .bytes_total == $d and .bytes_apparent == $s and .holes' <<<"$output"
	# the bar's last figures: the data written, all of it on the device
	jq -s -e 'map(select(.event == "done"))[0] | .bytes_on_device == 4194304
		and .bytes_total == 4194304' <<<"$output"
	assert_no_temporaries "$STICK_MNT"
}

@test "ext4: holes stay holes, the start event gives data and length" {
	copy_sparse ext4
}

@test "xfs: holes stay holes" {
	copy_sparse xfs
}

@test "btrfs: holes stay holes" {
	copy_sparse btrfs
}

@test "ntfs-3g: holes stay holes (its FUSE mount reports no hole map: blocks only)" {
	copy_sparse ntfs fuse
}

@test "--sparse=never: every block allocated, bytes_total the length" {
	stick_up --size 160 --rate 0
	make_image
	run -0 --separate-stderr safecp --progress=json --sparse=never "$SRC/vm.img" "$STICK_MNT"/
	cmp "$SRC/vm.img" "$STICK_MNT/vm.img"
	(($(blocks "$STICK_MNT/vm.img") * 512 >= SIZE))
	jq -s -e --argjson s "$SIZE" '.[0] | .bytes_total == $s and (.holes | not)' <<<"$output"
	jq -s -e --argjson s "$SIZE" 'map(select(.event == "done"))[0].bytes_on_device == $s' \
		<<<"$output"
}

@test "--sparse=always: blocks of zeros become holes, the rest is written" {
	stick_up --size 160 --rate 0
	# 8 MiB of written zeros around 1 MiB of data, and a short zero tail
	{
		head -c $((4 * MIB)) /dev/zero
		head -c "$MIB" /dev/urandom
		head -c $((4 * MIB)) /dev/zero
		head -c 1000 /dev/zero
	} >"$SRC/zeros.bin"
	(($(blocks "$SRC/zeros.bin") * 512 >= 9 * MIB))
	run -0 --separate-stderr safecp --progress=json --sparse=always "$SRC/zeros.bin" \
		"$STICK_MNT"/
	cmp "$SRC/zeros.bin" "$STICK_MNT/zeros.bin"
	echo "blocks: $(blocks "$STICK_MNT/zeros.bin")"
	(($(blocks "$STICK_MNT/zeros.bin") * 512 <= MIB + 64 * 1024))
	[[ $(hole_map "$STICK_MNT/zeros.bin") == "$((4 * MIB)) $((5 * MIB))" ]]
	# the bar ends at what was written
	jq -s -e 'map(select(.event == "done"))[0].bytes_on_device == 1048576' <<<"$output"
	# auto leaves explicit zeros as they are
	run -0 safecp -f "$SRC/zeros.bin" "$STICK_MNT"/
	(($(blocks "$STICK_MNT/zeros.bin") * 512 >= 9 * MIB))
}

@test "exfat-fuse keeps no holes: zeros written and counted, the copy equal" {
	stick_up --fs exfat --size 160 --rate 0
	make_image
	run -0 --separate-stderr safecp --progress=json "$SRC/vm.img" "$STICK_MNT"/
	cmp "$SRC/vm.img" "$STICK_MNT/vm.img"
	jq -s -e --argjson s "$SIZE" '.[0] | .bytes_total == $s and .bytes_apparent == $s
		and (.holes | not)' <<<"$output"
	jq -s -e --argjson s "$SIZE" 'map(select(.event == "done"))[0].bytes_on_device == $s' \
		<<<"$output"
}

@test "two destinations from one read, ext4 and exfat: one keeps the holes, one gets zeros" {
	stick_up --fs ext4 --size 160 --rate 0
	local a=$STICK_MNT
	stick_up --fs exfat --size 160 --rate 0
	local b=$STICK_MNT
	make_image
	run -0 --separate-stderr safecp -t "$a" -t "$b" "$SRC/vm.img"
	echo "$stderr"
	assert_holes_kept "$SRC/vm.img" "$a/vm.img"
	cmp "$SRC/vm.img" "$b/vm.img"
}

@test "--verify reads the holes back as zeros; --sums lists hash them as zeros" {
	require_cmd xxhsum
	stick_up --size 160 --rate 0
	make_image
	run -0 --separate-stderr safecp --progress=json --verify --checksum=xxh128,sha256 \
		--sums="$STICK_MNT/list" "$SRC/vm.img" "$STICK_MNT"/
	echo "$stderr"
	jq -s -e 'map(select(.event == "done"))[0] | .files_verified == 1
		and .files_mismatched == 0' <<<"$output"
	assert_holes_kept "$SRC/vm.img" "$STICK_MNT/vm.img"
	(
		cd "$STICK_MNT"
		sha256sum --strict -c list.sha256
		xxhsum --strict -c list.xxh128
	)
	[[ $(cut -d' ' -f1 "$STICK_MNT/list.sha256") == $(sha256sum <"$SRC/vm.img" | cut -d' ' -f1) ]]
}

@test "kill -9 inside a large sparse file: the rerun resumes it, the file whole with its holes" {
	stick_up --size 160 --rate $((16 * MIB))
	# 48 MiB of data: 16 MiB, a 32 MiB hole, 32 MiB, a 16 MiB hole
	make_sparse "$SRC/big.img" $((96 * MIB)) 0:16 48:32
	local ev=$BATS_TEST_TMPDIR/ev kept
	safecp --progress=json "$SRC/big.img" "$STICK_MNT"/ >"$ev" 2>"$BATS_TEST_TMPDIR/err" &
	SAFECP_PID=$!
	# past the hole, inside the second extent
	wait_for 60 json_confirmed_at_least "$ev" $((30 * MIB))
	kill -9 "$SAFECP_PID"
	wait "$SAFECP_PID" || true
	SAFECP_PID=''
	[[ ! -e $STICK_MNT/big.img ]]
	stick_throttle "$STICK_ID" 0
	run -0 --separate-stderr safecp --progress=json "$SRC/big.img" "$STICK_MNT"/
	echo "$stderr"
	kept=$(jq -s '.[0].bytes_resumed' <<<"$output")
	echo "resumed from $kept"
	# the first 16 MiB digest chunks, the hole among them, were kept
	((kept >= 48 * MIB))
	[[ $stderr == *"an interrupted copy kept "*" of it: the copy goes on from there"* ]]
	assert_holes_kept "$SRC/big.img" "$STICK_MNT/big.img"
	assert_no_temporaries "$STICK_MNT"
}

@test "--sparse takes auto, always or never" {
	run -2 --separate-stderr safecp --sparse=sometimes a b
	[[ $stderr == "safecp: unknown value 'sometimes' for --sparse: use auto, always or never" ]]
}
