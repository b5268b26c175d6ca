#!/usr/bin/env bats
# tests/bats/stick.bats: the simulated stick (tests/lib/stick.bash, tests/stick) tested
# from outside: what stick_up builds, that stick_down leaves nothing behind, and that
# interrupted owners are cleaned up without touching live sticks.
# tests/run: alone: stale-stick cleanup and listing see every owner's sticks

load helpers

BLKIO=/sys/fs/cgroup/blkio

setup() {
	require_root
	KNOB_BDI=''
}

teardown() {
	# a test that set bdi knobs and failed before stick_up reset them
	if [[ -n $KNOB_BDI ]]; then
		echo 0 >"$KNOB_BDI/strict_limit"
		echo 0 >"$KNOB_BDI/min_ratio"
		echo 100 >"$KNOB_BDI/max_ratio"
	fi
	stick_down_all
}

# throttle_rule MAJ:MIN bps|iops: the rule's value, empty when there is none.
throttle_rule() {
	awk -v d="$1" '$1 == d { print $2 }' "$BLKIO/blkio.throttle.write_$2_device"
}

# Remembers what a stick is made of, to check after stick_down that all of it is gone.
snapshot() {
	S_ID=$STICK_ID S_DISK=$STICK_DISK S_MAJMIN=$STICK_MAJMIN S_MNTS=$STICK_MNTS
	S_PARTS=$STICK_PARTS S_IMG=$STICK_BACKING_DIR/safecp-$STICK_ID.img
}

# The loop number may be reused at once by someone else's stick: judge the loop device,
# its throttle rule and its queue limit only while it is not bound to another file.
loop_reused() {
	local b
	b=$(cat "/sys/block/${S_DISK#/dev/}/loop/backing_file" 2>/dev/null) || return 1
	[[ $b != "$S_IMG"* ]]
}

assert_gone() {
	local m p
	[ ! -e "$S_IMG" ]
	[ ! -d "$STICK_REGISTRY/$S_ID" ]
	[ -z "$(losetup -j "$S_IMG")" ]
	for m in $S_MNTS; do
		refute findmnt --mountpoint "$m" >/dev/null
		[ ! -e "$m" ]
	done
	loop_reused && return 0
	for p in $S_PARTS; do [ ! -e "$p" ]; done
	[ -z "$(throttle_rule "$S_MAJMIN" bps)" ]
	[ -z "$(throttle_rule "$S_MAJMIN" iops)" ]
}

# check_fs FS FSTYPE: a stick of that fs comes up mounted as FSTYPE and writable.
check_fs() {
	stick_up --fs "$1"
	snapshot
	[ "$STICK_FS" = "$1" ]
	[ "$(findmnt -n -o FSTYPE --mountpoint "$STICK_MNT")" = "$2" ]
	[ "$(findmnt -n -o SOURCE --mountpoint "$STICK_MNT")" = "$STICK_DEV" ]
	echo hello >"$STICK_MNT/probe"
	[ "$(cat "$STICK_MNT/probe")" = hello ]
	stick_down "$STICK_ID"
	assert_gone
}

@test "stick_up: loop device with direct I/O, queue limit, throttle, ext4 on /dev/shm" {
	stick_up
	local name=${STICK_DISK#/dev/}
	[ "$STICK_FS" = ext4 ]
	[ "$STICK_DEV" = "$STICK_DISK" ]
	[ "$STICK_MAJMIN" = "$(cat "/sys/block/$name/dev")" ]
	[ "$(cat "/sys/block/$name/loop/backing_file")" = "/dev/shm/safecp-$STICK_ID.img" ]
	[ "$(cat "/sys/block/$name/loop/dio")" = 1 ]
	[ "$(cat "/sys/block/$name/queue/max_sectors_kb")" = 240 ]
	[ "$(blockdev --getsize64 "$STICK_DISK")" = $((256 << 20)) ]
	[ "$(throttle_rule "$STICK_MAJMIN" bps)" = 20971520 ]
	[ -z "$(throttle_rule "$STICK_MAJMIN" iops)" ]
	[ "$(findmnt -n -o FSTYPE --mountpoint "$STICK_MNT")" = ext4 ]
	[ "$STICK_MNTS" = "$STICK_MNT" ]
	[ -z "$STICK_PARTS" ]
}

@test "stick_up: the stick is handed out with nothing dirty" {
	stick_up
	# 256 KiB: two CPUs' worth of per-cpu counter slack (doc/kernel.md 4.1).
	[ "$(bdi_pending_bytes "$STICK_MAJMIN")" -le 262144 ]
}

@test "stick_up: the bdi knobs an earlier user of the loop device left are reset, and said" {
	local dev bdi
	dev=$(losetup -f) || skip "no free loop device"
	[[ -e /sys/block/${dev#/dev/}/dev ]] || skip "$dev does not exist yet: it has no bdi to inherit"
	bdi=/sys/class/bdi/$(<"/sys/block/${dev#/dev/}/dev")
	KNOB_BDI=$bdi
	echo 1 >"$bdi/strict_limit"
	echo 1000 >"$bdi/min_ratio_fine"
	echo 17129607 >"$bdi/max_bytes"
	stick_up --size 16 --rate 0 2>"$BATS_TEST_TMPDIR/err"
	cat "$BATS_TEST_TMPDIR/err"
	[[ /sys/class/bdi/$STICK_MAJMIN -ef $bdi ]] || skip "losetup took another loop device than $dev"
	grep -q "reset the bdi knobs an earlier user of $STICK_MAJMIN left: strict_limit=1 min_ratio_fine=1000 max_ratio_fine=" "$BATS_TEST_TMPDIR/err"
	[ "$(<"$bdi/strict_limit")" = 0 ]
	[ "$(<"$bdi/min_ratio")" = 0 ]
	[ "$(<"$bdi/max_ratio_fine")" = 1000000 ]
	KNOB_BDI=''
	# a second stick on clean knobs says nothing
	stick_down "$STICK_ID"
	stick_up --size 16 --rate 0 2>"$BATS_TEST_TMPDIR/err2"
	refute grep -q "bdi knobs" "$BATS_TEST_TMPDIR/err2"
}

@test "stick_up: options set size, queue limit, rate and IOPS" {
	stick_up --size 64 --max-sectors-kb 64 --rate 1048576 --iops 20 --label probe
	[ "$(blockdev --getsize64 "$STICK_DISK")" = $((64 << 20)) ]
	[ "$(cat "/sys/block/${STICK_DISK#/dev/}/queue/max_sectors_kb")" = 64 ]
	[ "$(throttle_rule "$STICK_MAJMIN" bps)" = 1048576 ]
	[ "$(throttle_rule "$STICK_MAJMIN" iops)" = 20 ]
	[ "$(blkid -o value -s LABEL "$STICK_DEV")" = probe ]
}

@test "stick_up --read-rate: a read rule on the disk, lifted by stick_reattach and stick_down" {
	stick_up --size 64 --read-rate 4194304
	snapshot
	read_rule() { awk -v d="$1" '$1 == d { print $2 }' "$BLKIO/blkio.throttle.read_bps_device"; }
	[ "$(read_rule "$STICK_MAJMIN")" = 4194304 ]
	stick_reattach "$STICK_ID"
	loop_reused || [ -z "$(read_rule "$S_MAJMIN")" ]
	stick_down "$STICK_ID"
	snapshot
	stick_up --size 64 --read-rate 4194304
	snapshot
	stick_down "$STICK_ID"
	assert_gone
	loop_reused || [ -z "$(read_rule "$S_MAJMIN")" ]
}

@test "stick_down: leaves no loop device, mount, throttle rule, backing file" {
	stick_up --max-sectors-kb 120 --iops 100
	snapshot
	echo data >"$STICK_MNT/f"
	stick_down "$STICK_ID"
	assert_gone
	loop_reused || [ "$(cat "/sys/block/${S_DISK#/dev/}/queue/max_sectors_kb")" != 120 ]
}

@test "stick_down: idempotent, and refuses what is not a stick id" {
	stick_up
	snapshot
	stick_down "$STICK_ID"
	stick_down "$STICK_ID"
	assert_gone
	run stick_down ../etc
	[ "$status" -eq 2 ]
	[[ $output == *"not a stick id"* ]]
}

@test "stick_down: a stick with dirty data is taken down (throttle lifted first)" {
	stick_up --rate 1048576
	snapshot
	dd if=/dev/zero of="$STICK_MNT/big" bs=1M count=32 status=none
	[ "$(bdi_pending_bytes "$STICK_MAJMIN")" -gt $((16 << 20)) ]
	stick_down "$STICK_ID"
	assert_gone
}

@test "fs xfs" { check_fs xfs xfs; }
@test "fs btrfs" { check_fs btrfs btrfs; }
@test "fs exfat mounts through exfat-fuse as fuseblk" {
	require_cmd mount.exfat-fuse
	check_fs exfat fuseblk
	# The daemon for the mount must be gone, not just detached from it (pgrep, unlike
	# grep over /proc/*/cmdline, does not find itself).
	run ! pgrep -f "mount.exfat-fuse.*$S_ID"
}

# check_fuse_fs FS DAEMON BLKID_TYPE: a FUSE stick comes up as fuseblk on its device,
# holds a file and a directory, and on the way down its daemon exits and nothing stays.
check_fuse_fs() {
	local pid
	stick_up --fs "$1" --rate 0
	snapshot
	[ "$(findmnt -n -o FSTYPE --mountpoint "$STICK_MNT")" = fuseblk ]
	[ "$(findmnt -n -o SOURCE --mountpoint "$STICK_MNT")" = "$STICK_DEV" ]
	[ "$(blkid -o value -s TYPE "$STICK_DEV")" = "$3" ]
	pid=$(awk '$1 == "fuse" { print $3 }' "$STICK_REGISTRY/$STICK_ID/steps")
	[[ $pid -gt 0 && $(cat "/proc/$pid/comm") == "$2"* ]]
	mkdir "$STICK_MNT/dir"
	head -c 3145728 /dev/urandom >"$BATS_TEST_TMPDIR/data"
	cp "$BATS_TEST_TMPDIR/data" "$STICK_MNT/dir/data"
	sync -f "$STICK_MNT"
	cmp "$BATS_TEST_TMPDIR/data" "$STICK_MNT/dir/data"
	stick_down "$STICK_ID"
	assert_gone
	run ! grep -qs "$S_ID" /proc/[0-9]*/cmdline
	[[ ! -d /proc/$pid || $(cut -d' ' -f3 "/proc/$pid/stat") == Z ]] ||
		[[ $(cat "/proc/$pid/comm") != "$2"* ]]
}

@test "fs fat32: mkfs.vfat -F 32, fusefat mounts it rw as fuseblk, the daemon exits" {
	require_cmd fusefat
	require_cmd mkfs.vfat
	check_fuse_fs fat32 fusefat vfat
}

@test "fs ntfs: mkntfs -Q, ntfs-3g mounts it as fuseblk, the daemon exits" {
	require_cmd ntfs-3g
	require_cmd mkntfs
	check_fuse_fs ntfs ntfs-3g ntfs
}

@test "fs none and --no-mount: a device without mount point" {
	stick_up --fs none
	[ -z "$STICK_MNT" ]
	[ -z "$(blkid -o value -s TYPE "$STICK_DEV")" ]
	stick_up --fs xfs --no-mount
	[ -z "$STICK_MNT" ]
	[ "$(blkid -o value -s TYPE "$STICK_DEV")" = xfs ]
	run ! findmnt -S "$STICK_DEV"
}

@test "stick_up: bad options fail with a message and create nothing" {
	local before
	before=$(ls "$STICK_REGISTRY" 2>/dev/null | wc -l)
	run stick_up --fs vfat
	[ "$status" -eq 2 ]
	[[ $output == *"unknown filesystem 'vfat'"* ]]
	run stick_up --rate fast
	[ "$status" -eq 2 ]
	run stick_up --fs xfs --size 100
	[ "$status" -eq 2 ]
	[[ $output == *"too small"* ]]
	[ "$(ls "$STICK_REGISTRY" 2>/dev/null | wc -l)" -eq "$before" ]
}

@test "stick_up: a step failing half-way removes what was made so far" {
	run stick_up --fs ext4 --mount-opts no_such_mount_option
	[ "$status" -eq 1 ]
	[[ $output =~ half-made\ stick\ (stick\.[A-Za-z0-9]+) ]]
	S_ID=${BASH_REMATCH[1]} S_DISK=/dev/nonexistent S_MNTS=$STICK_MNT_BASE/$S_ID
	S_IMG=$STICK_BACKING_DIR/safecp-$S_ID.img S_PARTS='' S_MAJMIN=0:0
	assert_gone
}

@test "a bats test that fails half-way still has its stick taken down" {
	local t=$BATS_TEST_TMPDIR/failing.bats vars=$BATS_TEST_TMPDIR/vars
	# printf, not a here-document: bats would rewrite an @test line in this file.
	printf '%s\n' "load '$SAFECP_SRC/tests/bats/helpers'" '@test "fails with a stick up" {' \
		'stick_up --fs exfat --partitions 2' \
		"declare -p STICK_ID STICK_DISK STICK_MAJMIN STICK_MNTS STICK_PARTS >'$vars'" \
		'echo x >"$STICK_MNT/f"' 'false' '}' >"$t"
	# A clean environment: the outer bats exports its state and puts its libexec first.
	run env -i PATH="${PATH#"$BATS_ROOT"/libexec/bats-core:}" HOME="$HOME" \
		"$BATS_ROOT/bin/bats" --tap "$t"
	[ "$status" -eq 1 ]
	[[ $output == *"not ok 1 fails with a stick up"* ]]
	source "$vars"
	snapshot
	assert_gone
}

@test "two sticks at once are independent" {
	stick_up --fs ext4 --rate 1048576
	local a_id=$STICK_ID a_disk=$STICK_DISK a_mm=$STICK_MAJMIN a_mnt=$STICK_MNT
	stick_up --fs xfs --rate 2097152
	snapshot
	[ "$STICK_DISK" != "$a_disk" ]
	[ "$STICK_MNT" != "$a_mnt" ]
	[ "$(throttle_rule "$a_mm" bps)" = 1048576 ]
	[ "$(throttle_rule "$STICK_MAJMIN" bps)" = 2097152 ]
	stick_down "$STICK_ID"
	assert_gone
	# The first one is untouched.
	[ "$(findmnt -n -o FSTYPE --mountpoint "$a_mnt")" = ext4 ]
	[ "$(throttle_rule "$a_mm" bps)" = 1048576 ]
	stick_load "$a_id"
	[ "$STICK_DISK" = "$a_disk" ]
}

@test "partitions: one filesystem per partition, throttled through the disk" {
	stick_up --partitions 2 --fs ext4
	snapshot
	local parts mnts p name
	read -r -a parts <<<"$STICK_PARTS"
	read -r -a mnts <<<"$STICK_MNTS"
	[ "${#parts[@]}" -eq 2 ] && [ "${#mnts[@]}" -eq 2 ]
	[ "$STICK_DEV" = "${parts[0]}" ] && [ "$STICK_MNT" = "${mnts[0]}" ]
	for i in 0 1; do
		p=${parts[i]} name=${p#/dev/}
		[ "$p" = "${STICK_DISK}p$((i + 1))" ]
		[ "$(stat -c %t "$p")" = "$(printf %x 259)" ]
		[ -e "/sys/block/${STICK_DISK#/dev/}/$name/partition" ]
		[ "$(findmnt -n -o SOURCE,FSTYPE --mountpoint "${mnts[i]}")" = "$p ext4" ]
	done
	[ "$(throttle_rule "$STICK_MAJMIN" bps)" = 20971520 ]
	stick_down "$STICK_ID"
	assert_gone
}

@test "partitions with exfat: the FUSE daemons are gone before the partitions" {
	require_cmd mount.exfat-fuse
	stick_up --partitions 2 --fs exfat
	snapshot
	[ "$(findmnt -n -o FSTYPE --mountpoint "${STICK_MNTS##* }")" = fuseblk ]
	stick_down "$STICK_ID"
	assert_gone
}

@test "stick_throttle: changes and lifts the rule" {
	stick_up
	stick_throttle "$STICK_ID" 1048576 10
	[ "$(throttle_rule "$STICK_MAJMIN" bps)" = 1048576 ]
	[ "$(throttle_rule "$STICK_MAJMIN" iops)" = 10 ]
	stick_load "$STICK_ID"
	[ "$STICK_RATE" = 1048576 ]
	stick_throttle "$STICK_ID" 0
	[ -z "$(throttle_rule "$STICK_MAJMIN" bps)" ]
	[ -z "$(throttle_rule "$STICK_MAJMIN" iops)" ]
}

@test "the throttle holds writeback back, and lifting it lets the data through" {
	stick_up --rate 1048576
	dd if=/dev/zero of="$STICK_MNT/f" bs=1M count=32 status=none
	# 32 MiB at 1 MiB/s needs about 32 s: if syncfs is done within 3 s, the throttle is
	# not in effect (an order-of-magnitude check, not a speed measurement).
	sync -f "$STICK_MNT" &
	local pid=$!
	sleep 3
	kill -0 "$pid"
	[ "$(bdi_pending_bytes "$STICK_MAJMIN")" -gt $((8 << 20)) ]
	stick_throttle "$STICK_ID" 0
	wait "$pid"
	[ "$(bdi_pending_bytes "$STICK_MAJMIN")" -le 262144 ]
	[ "$(disk_written_bytes "$STICK_MAJMIN")" -ge $((32 << 20)) ]
}

@test "bdi_stat and disk counters read the stick's device" {
	stick_up --rate 0
	local w0
	w0=$(disk_sectors_written "$STICK_MAJMIN")
	dd if=/dev/zero of="$STICK_MNT/f" bs=1M count=8 status=none
	[ "$(bdi_stat "$STICK_MAJMIN" BdiReclaimable)" -ge $((7 << 20)) ]
	sync -f "$STICK_MNT"
	[ $(($(disk_sectors_written "$STICK_MAJMIN") - w0)) -ge $((8 << 11)) ]
	run bdi_stat 0:0 BdiReclaimable
	[ "$status" -ne 0 ]
}

@test "a killed owner's stick is stale, and cleanup removes it without touching live ones" {
	stick_up
	local live_id=$STICK_ID live_mnt=$STICK_MNT vars
	vars=$BATS_TEST_TMPDIR/vars
	bash -c 'source "$1/tests/lib/stick.bash"; stick_up --fs exfat --partitions 2 || exit 1
		declare -p STICK_ID STICK_DISK STICK_MAJMIN STICK_MNTS STICK_PARTS >"$2"
		exec sleep 60 >/dev/null 2>&1' \
		_ "$SAFECP_SRC" "$vars" &
	local pid=$!
	wait_for 30 test -s "$vars"
	kill -9 "$pid"
	wait "$pid" || true
	source "$vars"
	snapshot
	run "$SAFECP_SRC/tests/stick" list
	[[ $output == *"$S_ID"*stale* ]]
	[[ $output == *"$live_id"*live* ]]
	run "$SAFECP_SRC/tests/stick" cleanup
	[ "$status" -eq 0 ]
	assert_gone
	[ -d "$STICK_REGISTRY/$live_id" ]
	findmnt --mountpoint "$live_mnt" >/dev/null
}

@test "stick_trap: a script killed by a signal takes its sticks down" {
	local vars=$BATS_TEST_TMPDIR/vars
	bash -c 'source "$1/tests/lib/stick.bash"; stick_trap; stick_up || exit 1
		declare -p STICK_ID STICK_DISK STICK_MAJMIN STICK_MNTS STICK_PARTS >"$2"
		dd if=/dev/zero of="$STICK_MNT/f" bs=1M count=16 status=none
		sleep 60 >/dev/null 2>&1 & echo $! >"$2.sleep"; wait $!' _ "$SAFECP_SRC" "$vars" &
	local pid=$!
	wait_for 30 test -s "$vars.sleep"
	kill -TERM "$pid"
	local status=0
	wait "$pid" || status=$?
	kill "$(cat "$vars.sleep")"
	[ "$status" -eq 143 ]
	source "$vars"
	snapshot
	assert_gone
}

@test "tests/stick up prints variables to eval; down removes the stick" {
	local out me=$BASHPID
	out=$("$SAFECP_SRC/tests/stick" up --fs btrfs --owner "$me")
	eval "$out"
	snapshot
	[ "$(findmnt -n -o FSTYPE --mountpoint "$STICK_MNT")" = btrfs ]
	run "$SAFECP_SRC/tests/stick" list
	[[ $output == *"$STICK_ID"*live*btrfs* ]]
	"$SAFECP_SRC/tests/stick" down "$STICK_ID"
	assert_gone
}

require_faultdev() {
	[[ -x $SAFECP_BUILD/tests/faultdev ]] ||
		skip "needs $SAFECP_BUILD/tests/faultdev (built when libfuse3-dev is installed)"
}

ctl_value() {
	awk -v k="$1" '$1 == k { print $2 }' "$STICK_CTL"
}

@test "--faulty: the loop device sits on faultdev, faults reach the filesystem, stick_down removes it all" {
	require_faultdev
	stick_up --faulty --size 64 --rate 0
	snapshot
	local fdir=${STICK_CTL%/ctl} snap=$STICK_SNAPSHOT
	[ "$(cat "/sys/block/${STICK_DISK#/dev/}/loop/backing_file")" = "$fdir/disk" ]
	[ "$STICK_LOOPFILE" = "$fdir/disk" ]
	[ "$(findmnt -n -o FSTYPE --mountpoint "$fdir")" = fuse.faultdev ]
	[ "$(blockdev --getsize64 "$STICK_DISK")" = $((64 << 20)) ]
	echo hello >"$STICK_MNT/a"
	sync -f "$STICK_MNT"
	echo vanish >"$STICK_CTL"
	head -c 1048576 /dev/zero >"$STICK_MNT/b"
	run ! sync -f "$STICK_MNT/b"
	(($(ctl_value failed_writes) > 0))
	echo clear >"$STICK_CTL"
	[ "$(ctl_value vanished)" = 0 ]
	run ! bash -c "echo frobnicate >'$STICK_CTL'"
	stick_down "$STICK_ID"
	assert_gone
	refute findmnt --mountpoint "$fdir" >/dev/null
	[ ! -e "$fdir" ] && [ ! -e "$snap" ]
	run ! pgrep -f "faultdev .*$S_ID"
}

@test "stick_reattach: the image on a fresh loop device, fsck'd, at the same mount point" {
	require_faultdev
	stick_up --faulty --fs exfat --size 64 --rate 0
	local mnt=$STICK_MNT fdir=${STICK_CTL%/ctl}
	echo hello >"$STICK_MNT/a"
	stick_reattach "$STICK_ID"
	[ "$STICK_FSCK_RC" = 0 ]
	[ "$STICK_MNT" = "$mnt" ]
	[ "$(cat "/sys/block/${STICK_DISK#/dev/}/loop/backing_file")" = "$STICK_IMG" ]
	[ "$(findmnt -n -o SOURCE --mountpoint "$STICK_MNT")" = "$STICK_DISK" ]
	[ "$(cat "$STICK_MNT/a")" = hello ]
	# the stick's request size, as stick_up set it (else the kernel's 1280)
	[ "$(cat "/sys/block/${STICK_DISK#/dev/}/queue/max_sectors_kb")" = 240 ]
	# once more, the vars saved in the registry follow
	stick_reattach "$STICK_ID"
	stick_load "$STICK_ID"
	[ "$(cat "/sys/block/${STICK_DISK#/dev/}/loop/backing_file")" = "$STICK_IMG" ]
	snapshot
	S_IMG=$STICK_IMG
	stick_down "$STICK_ID"
	assert_gone
	[ ! -e "$fdir" ]
}

@test "--faulty whose daemon does not come up: stick_up fails and leaves nothing" {
	require_faultdev
	local err=$BATS_TEST_TMPDIR/err id
	STICK_FAULTDEV=/bin/false stick_up --faulty --size 64 2>"$err" && false
	cat "$err"
	grep -q "faultdev did not come up" "$err"
	id=$(grep -o 'removing the half-made stick stick\.[A-Za-z0-9]*' "$err" | awk '{ print $NF }')
	[ -n "$id" ]
	[ ! -d "$STICK_REGISTRY/$id" ]
	[ ! -e "$STICK_BACKING_DIR/safecp-$id.img" ]
	[ ! -e "$STICK_MNT_BASE/$id-fault" ]
}
