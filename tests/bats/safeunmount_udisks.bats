#!/usr/bin/env bats
# tests/bats/safeunmount_udisks.bats: safeunmount without root, through the real udisks2
# stack (tests/lib/udisks.bash starts the system bus, udevd, polkitd and udisksd in
# setup_file and stops them in teardown_file, so that no udevd probes other tests' loop
# devices for longer than this file runs). A test user whom a polkit rule grants
# org.freedesktop.udisks2.* mounts a simulated stick through udisks, as a desktop does,
# and unmounts it with safeunmount: with the live bytes-left display, busy, loop delete;
# a second user without a rule is not allowed; root names the same stick by path, device,
# LABEL= and UUID= with --udisks; safecp --unmount as the test user.
#
# A udisks mount lives under /media/USER, which the stick harness does not know: each
# test's teardown unmounts what udisks mounted from its own sticks (while the loop device
# is still the stick's) before stick_down_all.
# tests/run: alone: the udevd started here probes every loop device, other suites' too

load helpers
# shellcheck source=../lib/udisks.bash
source "$SAFECP_SRC/tests/lib/udisks.bash"

EX_USAGE=2
EX_BUSY=3
MIB=1048576

setup_file() {
	require_root
	require_tool safeunmount
	if ! udisks_up; then
		echo "udisks_up: $UDISKS_WHY" >&2
		skip "$UDISKS_WHY"
	fi
}

teardown_file() {
	udisks_down
}

setup() {
	require_root
	UD_KILL='' UD_STICKS='' UD_ZRAM='' UD_NS=''
	UD_SRC=/dev/shm/safecp-udisks-src.$$
	mkdir -p "$UD_SRC" && chmod 755 "$UD_SRC"
}

teardown() {
	local p id n rc=0
	for p in ${UD_KILL-}; do
		kill "$p" 2>/dev/null
	done
	# a holder that is still there keeps the stick mounted
	for p in ${UD_KILL-}; do
		for ((n = 0; n < 100; n++)); do
			_udisks_alive "$p" || break
			sleep 0.1
		done
		if _udisks_alive "$p"; then
			echo "teardown: pid $p did not exit" >&2
			rc=1
		fi
	done
	for id in ${UD_STICKS-}; do
		ud_unmount_stick "$id" || rc=1
	done
	if [[ -n ${UD_ZRAM-} ]]; then
		echo 1 >"/sys/block/zram$UD_ZRAM/reset"
		echo "$UD_ZRAM" >/sys/class/zram-control/hot_remove
	fi
	stick_down_all || rc=1
	# empty here: what was mounted on it lived in another namespace, gone with it
	[[ -z ${UD_NS-} ]] || rmdir "$UD_NS" || rc=1
	rm -rf "$UD_SRC"
	return $rc
}

# ud_stick [stick_up options]: an unmounted stick that udisks knows the filesystem of.
ud_stick() {
	stick_up --no-mount "$@" || return 1
	UD_STICKS+=" $STICK_ID"
	# mkfs may have closed the device before udevd watched it: probe it again, now
	udevadm trigger --action=change "$STICK_DISK"
	udisks_settle
	# udisksd may be slow beside other tests' throttled devices, which it probes too
	wait_for 60 ud_knows_fs "$STICK_DISK"
}

ud_knows_dev() {
	udisksctl info -b "$1" >/dev/null 2>&1
}

ud_knows_fs() {
	udisksctl info -b "$1" 2>/dev/null | grep -qE '^ +IdType: +[a-z]'
}

# ud_mount USER: udisks mounts the stick for USER (under /media/USER); UD_MNT, and the
# filesystem's root made USER's, so that USER can write to it.
ud_mount() {
	udisks_as "$1" udisksctl mount --no-user-interaction -b "$STICK_DISK" >&2 || return 1
	UD_MNT=$(findmnt -n -o TARGET -S "$STICK_DISK" | head -n 1)
	[[ $UD_MNT == /media/* || $UD_MNT == /run/media/* ]] || { echo "udisks mounted on '$UD_MNT'" >&2; return 1; }
	[[ $1 == root ]] || chown "$1:" "$UD_MNT"
}

# What udisks mounted from stick ID, while its loop device is still the stick's: retried
# as the stick harness does (a process leaving it takes time), and an error when it stays.
ud_unmount_stick() {
	local STICK_DISK STICK_LOOPFILE mp rc=0
	stick_load "$1" 2>/dev/null || return 0
	_stick_loop_is_ours "$STICK_DISK" "$STICK_LOOPFILE" || return 0
	while read -r mp; do
		[[ -n $mp ]] || continue
		if _stick_undo_mount "$STICK_DISK" "$mp"; then
			rmdir "$mp" 2>/dev/null
		else
			rc=1
		fi
	done < <(findmnt -n -o TARGET -S "$STICK_DISK" | sort -u)
	return $rc
}

ud_mounted() {
	findmnt -S "$STICK_DISK" >/dev/null
}

# Before a loop delete: once detached, the loop device is no longer the stick's and
# stick_down leaves its settings alone (as in safeunmount.bats).
release_device_settings() {
	stick_throttle "$STICK_ID" 0
	echo 0 >"/sys/block/${STICK_DISK#/dev/}/queue/max_sectors_kb"
}

# holder_of FILE: the process that has FILE open on its descriptor 3
holder_of() {
	local p
	for p in /proc/[0-9]*; do
		[[ $(readlink "$p/fd/3" 2>/dev/null) == "$1" ]] && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}

@test "as the test user: udisks unmounts a stick it mounted, after a sync with the bytes-left display" {
	ud_stick --rate $((4 * MIB))
	ud_mount "$UDISKS_USER"
	udisks_as "$UDISKS_USER" dd if=/dev/urandom of="$UD_MNT/f" bs=1M count=24 status=none
	run -0 --separate-stderr udisks_as "$UDISKS_USER" safeunmount --progress=json "$UD_MNT"
	echo "$output" >&2
	echo "$stderr" >&2
	refute ud_mounted
	# while the throttled stick drained: bytes left shown, as the labelled estimate
	[ "$(jq -s '[.[] | select(.event == "progress" and .bytes_left > 0)] | length' <<<"$output")" -ge 3 ]
	[ "$(jq -s '[.[] | select(.event == "progress")] | all(.estimate)' <<<"$output")" = true ]
	[ "$(jq -s '[.[] | select(.event == "progress")] | last | .bytes_left' <<<"$output")" = 0 ]
	[ "$(jq -s '[.[] | select(.event == "progress")] | last | .bytes_written' <<<"$output")" -ge $((24 * MIB)) ]
	jq -se --arg m "$UD_MNT" '[.[] | select(.event == "unmounted")] | length == 1 and .[0].mountpoint == $m' <<<"$output"
	[[ $stderr != *"UDisks2 is not"* && $stderr != *"cannot reach UDisks2"* ]]
}

@test "as the test user: busy, with the process that holds a file open" {
	ud_stick --rate 0
	ud_mount "$UDISKS_USER"
	echo data >"$UD_MNT/f"
	udisks_as "$UDISKS_USER" sh -c 'exec 3<"$1"; exec sleep 60' sh "$UD_MNT/f" 3>&- &
	UD_KILL=$!
	wait_for 10 holder_of "$UD_MNT/f"
	local holder
	holder=$(holder_of "$UD_MNT/f")
	UD_KILL+=" $holder"
	run -$EX_BUSY udisks_as "$UDISKS_USER" safeunmount "$UD_MNT"
	echo "$output" >&2
	[[ $output == *"'$UD_MNT' is busy"* ]]
	[[ $output == *"pid $holder (sleep): open file $UD_MNT/f"* ]]
	ud_mounted
}

# The holder runs as root: the test user cannot see it, so our own check finds nothing
# and udisks is asked; its DeviceBusy is what says busy.
@test "as the test user: busy by udisks' DeviceBusy, the holder a root process the user cannot see" {
	ud_stick --rate 0
	ud_mount "$UDISKS_USER"
	echo data >"$UD_MNT/f"
	sh -c 'exec 3<"$1"; exec sleep 60' sh "$UD_MNT/f" 3>&- &
	UD_KILL=$!
	wait_for 10 holder_of "$UD_MNT/f"
	UD_KILL+=" $(holder_of "$UD_MNT/f")"
	run -$EX_BUSY udisks_as "$UDISKS_USER" env SAFECP_DEBUG=unmount safeunmount "$UD_MNT"
	echo "$output" >&2
	[[ $output == *"udisks: org.freedesktop.UDisks2.Error.DeviceBusy"* ]]
	[[ $output == *"'$UD_MNT' is busy"* ]]
	[[ $output =~ "  (pids "[0-9]+" ("[^$'\n']*" and "[0-9]+" more could not be inspected: Permission denied; run as root to see them)" ]]
	ud_mounted
}

# in_ns SCRIPT ARGS...: SCRIPT (bash) as root in a mount namespace of its own, which ends
# with it, taking its mounts along; $U runs the rest of a line as the test user.
# UD_NS: an empty directory to mount on there, not in a system place (/dev/shm is).
in_ns() {
	local script=$1
	shift
	unshare -m --propagation private env U="runuser -u $UDISKS_USER -- env PATH=$PATH DBUS_SYSTEM_BUS_ADDRESS=$UDISKS_BUS" \
		bash -c "$script" bash "$@"
}

@test "as the test user: udisks is not asked to unmount another device than the one mounted" {
	ud_stick --rate 0
	local a=$STICK_DISK a_mnt
	ud_mount "$UDISKS_USER"
	a_mnt=$UD_MNT
	ud_stick --rate 0
	UD_NS=/mnt/safecp-ud-ns.$$
	mkdir -m 755 "$UD_NS"
	# B mounted through A's node path: the mount's source says A, its device is B
	run in_ns 'mount --bind "$1" "$2" && mount "$2" "$3" || exit 9
		$U env SAFECP_DEBUG=unmount safeunmount "$3"' "$STICK_DISK" "$a" "$UD_NS"
	echo "$output" >&2
	[ "$status" = 1 ]
	[[ $output == *"refusing to unmount '$UD_NS' through udisks: udisks' device '$a' is not the device mounted there"* ]]
	[[ $output != *"Filesystem.Unmount"* ]]
	findmnt "$a_mnt" >/dev/null
}

@test "as the test user: udisks is not asked to unmount a mount it does not see (another namespace)" {
	ud_stick --rate 0
	ud_mount "$UDISKS_USER"
	UD_NS=/mnt/safecp-ud-ns.$$
	mkdir -m 755 "$UD_NS"
	run in_ns 'mount --bind "$1" "$2" || exit 9
		$U env SAFECP_DEBUG=unmount safeunmount "$2"' "$UD_MNT" "$UD_NS"
	echo "$output" >&2
	[ "$status" = 1 ]
	[[ $output == *"refusing to unmount '$UD_NS' through udisks: udisks' device '$STICK_DISK' is not mounted there for udisks"* ]]
	[[ $output != *"Filesystem.Unmount"* ]]
	ud_mounted
}

@test "a user without a polkit rule is not allowed, and the action is named" {
	stick_up --rate 0
	UD_STICKS+=" $STICK_ID"
	# as ud_stick: udisks must know the filesystem before it is asked
	udevadm trigger --action=change "$STICK_DISK"
	udisks_settle
	wait_for 60 ud_knows_fs "$STICK_DISK"
	run -$EX_USAGE udisks_as "$UDISKS_NOBODY" env SAFECP_DEBUG=unmount safeunmount "$STICK_MNT"
	echo "$output" >&2
	# polkit's answer as udisks gives it, then our words
	[[ $output == *"udisks: org.freedesktop.UDisks2.Error.NotAuthorized"* ]]
	[[ $output == *"cannot unmount '$STICK_MNT': not allowed: polkit does not grant this user org.freedesktop.udisks2.filesystem-unmount-others"* ]]
	findmnt "$STICK_MNT" >/dev/null
}

@test "as the test user: --power-off deletes the loop device (Loop.Delete)" {
	ud_stick --rate 0
	ud_mount "$UDISKS_USER"
	echo data >"$UD_MNT/f"
	release_device_settings
	run -0 --separate-stderr udisks_as "$UDISKS_USER" safeunmount --power-off --progress=json "$UD_MNT"
	echo "$output" >&2
	echo "$stderr" >&2
	jq -se --arg d "$STICK_DISK" '[.[] | select(.event == "powered-off")] | length == 1 and .[0].device == $d and .[0].method == "udisks-loop"' <<<"$output"
	run ! cat "/sys/block/${STICK_DISK#/dev/}/loop/backing_file"
}

@test "as the test user: --power-off of a disk udisks cannot power off is refused before the unmount" {
	[[ -w /sys/class/zram-control/hot_add ]] || skip "no zram-control to make a non-USB disk with"
	local z
	z=$(cat /sys/class/zram-control/hot_add) || skip "cannot add a zram device"
	UD_ZRAM=$z
	echo $((64 * MIB)) >"/sys/block/zram$z/disksize"
	udisks_settle
	wait_for 20 ud_knows_dev "/dev/zram$z"
	run -$EX_USAGE udisks_as "$UDISKS_USER" safeunmount --power-off "/dev/zram$z"
	echo "$output" >&2
	[[ $output == *"refusing to power off '/dev/zram$z': udisks cannot power it off"* ]]
}

@test "as root with --udisks: the same stick by path, device, LABEL= and UUID=" {
	ud_stick --rate 0 --label udroot
	local uuid form
	uuid=$(blkid -s UUID -o value "$STICK_DISK")
	for form in path "$STICK_DISK" LABEL=udroot "UUID=$uuid"; do
		ud_mount root
		[ "$form" = path ] && form=$UD_MNT
		run -0 env SAFECP_DEBUG=unmount safeunmount --udisks "$form"
		echo "$form: $output" >&2
		[[ $output == *"udisks: org.freedesktop.UDisks2.Filesystem.Unmount on /org/freedesktop/UDisks2/block_devices/"* ]]
		refute ud_mounted
	done
}

@test "as the test user: LABEL= and UUID=, found by udisks where libblkid cannot read the device" {
	ud_stick --rate 0 --label udlabel
	local uuid form key
	uuid=$(blkid -s UUID -o value "$STICK_DISK")
	for form in LABEL=udlabel "UUID=$uuid"; do
		ud_mount "$UDISKS_USER"
		# with udev's links libblkid finds the tag as any user; without them it must read
		# the device, which only root may: then udisks' Manager.ResolveDevice finds it
		run -0 udisks_as "$UDISKS_USER" env SAFECP_DEBUG=unmount safeunmount "$form"
		echo "$form: $output" >&2
		[[ $output == *"udisks: org.freedesktop.UDisks2.Filesystem.Unmount on "* ]]
		refute ud_mounted
		ud_mount "$UDISKS_USER"
		# our stick's links only
		[[ $(readlink -f /dev/disk/by-label/udlabel) != "$STICK_DISK" ]] || rm -f /dev/disk/by-label/udlabel
		rm -f "/dev/disk/by-uuid/$uuid"
		run -0 udisks_as "$UDISKS_USER" env SAFECP_DEBUG=unmount safeunmount "$form"
		echo "$form, no udev link: $output" >&2
		key=${form%%=*}
		[[ $output == *"udisks: ResolveDevice ${key,,}=${form#*=}: /org/freedesktop/UDisks2/block_devices/"* ]]
		refute ud_mounted
		udevadm trigger --action=change "$STICK_DISK" # the links back
		udisks_settle
	done
}

@test "as the test user: a LABEL= two sticks share is refused, naming both; both stay mounted" {
	local label="uddup$$" a_dev a_mnt
	ud_stick --rate 0 --label "$label"
	ud_mount "$UDISKS_USER"
	a_dev=$STICK_DISK a_mnt=$UD_MNT
	ud_stick --rate 0 --label "$label"
	ud_mount "$UDISKS_USER"
	# the user's libblkid reads no device and follows udev's one link; udisks knows both
	run -$EX_USAGE udisks_as "$UDISKS_USER" env SAFECP_DEBUG=unmount safeunmount "LABEL=$label"
	echo "$output" >&2
	[[ $output == *"udisks: ResolveDevice label=$label: "*"(2 object(s), 0)"* ]]
	[[ $output == *"safeunmount: refusing LABEL=$label: 2 devices have it, "*"; name the one to unmount by its device or mount point"* ]]
	[[ $output == *"'$a_dev'"* && $output == *"'$STICK_DISK'"* ]]
	[[ $output != *"Filesystem.Unmount"* ]]
	findmnt -S "$a_dev" >/dev/null
	ud_mounted
	[[ -d $a_mnt ]]
}

@test "without UDisks2 on the system bus: a note, and the kernel's own refusal" {
	stick_up --rate 0
	UD_STICKS+=" $STICK_ID"
	run -$EX_USAGE udisks_as "$UDISKS_USER" env DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent \
		safeunmount "$STICK_MNT"
	echo "$output" >&2
	[[ $output == *"safeunmount: note: cannot reach UDisks2"* ]]
	[[ $output == *"only root, or the user who mounted it, may do that"* ]]
	findmnt "$STICK_MNT" >/dev/null
}

@test "with a running bus that has no UDisks2: a note, and the kernel's own refusal" {
	stick_up --rate 0
	UD_STICKS+=" $STICK_ID"
	local bus addr pid
	# a bus of the test user's own, without udisks; stopped by its pid in the teardown
	mkdir -m 700 "$UD_SRC/bus" && chown "$UDISKS_USER:" "$UD_SRC/bus"
	bus=$(udisks_as "$UDISKS_USER" dbus-daemon --session --fork --nopidfile \
		--address="unix:path=$UD_SRC/bus/socket" --print-address=1 --print-pid=1 </dev/null)
	{ read -r addr && read -r pid; } <<<"$bus"
	[[ $pid =~ ^[0-9]+$ ]] || { echo "dbus-daemon said: $bus" >&2; false; }
	UD_KILL+=" $pid"
	udisks_as "$UDISKS_USER" env DBUS_SYSTEM_BUS_ADDRESS="$addr" \
		dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetId >/dev/null
	run -$EX_USAGE udisks_as "$UDISKS_USER" env DBUS_SYSTEM_BUS_ADDRESS="$addr" safeunmount "$STICK_MNT"
	echo "$output" >&2
	[[ $output == *"safeunmount: note: UDisks2 is not on the system bus; unmounting directly"* ]]
	[[ $output == *"only root, or the user who mounted it, may do that"* ]]
	findmnt "$STICK_MNT" >/dev/null
}

@test "safecp --unmount as the test user: the copy, then udisks unmounts the stick" {
	require_tool safecp
	ud_stick --rate 0
	ud_mount "$UDISKS_USER"
	head -c $((3 * MIB)) /dev/urandom >"$UD_SRC/a"
	chmod 644 "$UD_SRC/a"
	run -0 --separate-stderr udisks_as "$UDISKS_USER" safecp --unmount "$UD_SRC/a" "$UD_MNT/"
	echo "$stderr" >&2
	[[ $stderr == *"'$UD_MNT/' is unmounted; it can be removed"* ]]
	refute ud_mounted
	# what was written is there: mounted again, the file is the source's
	ud_mount "$UDISKS_USER"
	cmp "$UD_SRC/a" "$UD_MNT/a"
}

@test "safecp --unmount as the test user: a destination whose copy failed is left mounted" {
	require_tool safecp
	ud_stick --rate 0
	ud_mount "$UDISKS_USER"
	echo readable >"$UD_SRC/a"
	echo secret >"$UD_SRC/b"
	chmod 644 "$UD_SRC/a"
	chmod 600 "$UD_SRC/b"
	run -1 --separate-stderr udisks_as "$UDISKS_USER" safecp --unmount "$UD_SRC/a" "$UD_SRC/b" "$UD_MNT/"
	echo "$stderr" >&2
	[[ $stderr == *"'$UD_MNT/' is left mounted: its copy failed or read back different"* ]]
	ud_mounted
}

@test "safecp --power-off as the test user deletes the loop device" {
	require_tool safecp
	ud_stick --rate 0
	ud_mount "$UDISKS_USER"
	echo data >"$UD_SRC/a"
	chmod 644 "$UD_SRC/a"
	release_device_settings
	run -0 --separate-stderr udisks_as "$UDISKS_USER" safecp --power-off "$UD_SRC/a" "$UD_MNT/"
	echo "$stderr" >&2
	[[ $stderr == *"'$UD_MNT/' is unmounted and $STICK_DISK powered off; it can be removed"* ]]
	run ! cat "/sys/block/${STICK_DISK#/dev/}/loop/backing_file"
}

@test "safecp --unmount as root: the kernel's unmount, no udisks" {
	require_tool safecp
	stick_up --rate 0
	echo data >"$UD_SRC/a"
	run -0 --separate-stderr env SAFECP_DEBUG=unmount safecp --unmount "$UD_SRC/a" "$STICK_MNT/"
	echo "$stderr" >&2
	[[ $stderr == *"'$STICK_MNT/' is unmounted; it can be removed"* ]]
	[[ $stderr != *"udisks:"* ]]
	run ! findmnt "$STICK_MNT"
}

@test "safecp --unmount to the root filesystem is refused before anything is written" {
	require_tool safecp
	local dir=$BATS_TEST_TMPDIR/dest
	mkdir "$dir"
	echo data >"$UD_SRC/a"
	[ "$(findmnt -n -o TARGET -T "$dir")" = / ] || skip "$dir is not on the root filesystem"
	run -$EX_USAGE safecp --system-disk --unmount "$UD_SRC/a" "$dir/"
	echo "$output" >&2
	[[ $output == *"cannot unmount '$dir/': it is on the root filesystem"* ]]
	[ ! -e "$dir/a" ]
}
