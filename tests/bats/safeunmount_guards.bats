#!/usr/bin/env bats
# tests/bats/safeunmount_guards.bats: safeunmount never takes "/" or the disk under it,
# asks for --system before the other system mounts, powers off only USB and loop devices
# (MMC with -f), and unmounts a disk's filesystems all or none.
#
# Nothing here may act on the machine's own "/" or /boot: on the code before the guards
# these tests would have unmounted them. So every test either reads a captured tree
# (SAFECP_SYSROOT=tests/fixtures/unmount-system, where safeunmount only checks and acts
# on nothing), or runs safeunmount inside a private mount namespace (unshare -m
# --propagation private), where an unmount, even a lazy one of "/", changes that
# namespace only. In the namespace, "/" is either the real root disk (device forms) or a
# simulated stick made the namespace's root with pivot_root (LABEL=, UUID=, partitions,
# a /boot of its own).

load helpers

FIX=$SAFECP_SRC/tests/fixtures/unmount-system

setup() {
	require_tool safeunmount
}

teardown() {
	local p
	for p in ${GUARD_KILL-}; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[[ -n ${GUARD_SWAP-} ]] && swapoff "$GUARD_SWAP" 2>/dev/null
	stick_down_all
}

# fixture_su ARGS...: safeunmount on the captured tree (checks only).
fixture_su() {
	SAFECP_SYSROOT=$FIX "$SAFECP_BUILD/cmd/safeunmount" "$@"
}

# in_namespace CMD...: CMD in a private mount namespace of its own.
in_namespace() {
	unshare -m --propagation private "$@"
}

# in_stick_root NEWROOT SCRIPT: a private mount namespace whose "/" is the filesystem
# mounted on NEWROOT (a stick); the host's /usr, /etc, /work... are bound into it so that
# the tools run, the old root stays below /old. SCRIPT runs there in bash.
in_stick_root() {
	local new=$1
	shift
	unshare -m --propagation private bash -c '
		set -e
		new=$1 script=$2
		mount --make-rprivate /
		for d in /*; do
			n=${d#/}
			case $n in old | lost+found | boot) continue ;; esac
			if [[ -L $d ]]; then
				ln -sfn "$(readlink "$d")" "$new/$n"
			elif [[ -d $d ]]; then
				mkdir -p "$new/$n"
				mount --rbind "$d" "$new/$n"
			fi
		done
		mkdir -p "$new/old" "$new/boot"
		cd "$new"
		pivot_root . old
		cd /
		bash -c "$script"
	' in_stick_root "$new" "$1"
}

# ---- "/" in every form --------------------------------------------------------------

@test "the real root disk as a device target is refused, also with --system and --lazy (private namespace)" {
	require_root
	local root
	root=$(findmnt -no SOURCE /)
	[[ -b $root ]] || skip "'/' is not on a block device ($root)"
	run -2 in_namespace "$SAFECP_BUILD/cmd/safeunmount" "$root"
	[[ $output == *"refusing to unmount '/' on $root: it is the root filesystem"* ]]
	run -2 in_namespace "$SAFECP_BUILD/cmd/safeunmount" --system "$root"
	[[ $output == *"refusing to unmount '/'"* ]]
	run -2 in_namespace bash -c '"$1" --lazy --system --progress=json "$2"; s=$?; findmnt -n / >/dev/null || exit 99; exit $s' \
		x "$SAFECP_BUILD/cmd/safeunmount" "$root"
	[[ $output == *'"event":"error"'*"refusing to unmount '/'"* ]]
	[[ $output == *'"event":"done"'*'"exit":2'* ]]
}

@test "a stick as the namespace's /: UUID=, LABEL=, the partition and the whole disk are refused" {
	require_root
	local parts uuid label="SUROOT$$"
	stick_up --partitions 2 --size 200 --rate 0
	read -r -a parts <<<"$STICK_PARTS"
	e2label "${parts[0]}" "$label"
	uuid=$(blkid -p -s UUID -o value "${parts[0]}")
	[[ -n $uuid ]]
	run -0 in_stick_root "${STICK_MNTS%% *}" "
		set -e
		mount ${parts[1]} /boot
		[ \"\$(findmnt -no SOURCE /)\" = ${parts[0]} ]
		s=0; $SAFECP_BUILD/cmd/safeunmount UUID=$uuid || s=\$?; echo \"uuid=\$s\"
		s=0; $SAFECP_BUILD/cmd/safeunmount LABEL=$label || s=\$?; echo \"label=\$s\"
		s=0; $SAFECP_BUILD/cmd/safeunmount -l ${parts[0]} || s=\$?; echo \"part=\$s\"
		s=0; $SAFECP_BUILD/cmd/safeunmount --system $STICK_DISK || s=\$?; echo \"disk=\$s\"
		s=0; $SAFECP_BUILD/cmd/safeunmount --system -P /boot || s=\$?; echo \"poweroff=\$s\"
		findmnt -no SOURCE / ; findmnt -no SOURCE /boot
	"
	[[ $output == *"refusing to unmount '/' on ${parts[0]}: it is the root filesystem"* ]]
	[[ $output == *"uuid=2"* && $output == *"label=2"* && $output == *"part=2"* ]]
	[[ $output == *"disk=2"* ]] # the whole disk holds "/": refused, even with --system
	[[ $output == *"refusing to power off the disk of '/boot': it holds the root filesystem"* ]]
	[[ $output == *"poweroff=2"* ]]
	# both still mounted in the namespace at the end
	[[ $output == *"${parts[0]}"$'\n'"${parts[1]}" ]]
}

# ---- a tag several devices have ------------------------------------------------------

@test "LABEL= or UUID= that two sticks share is refused before anything, naming both; both stay mounted" {
	require_root
	local label="SUDUP$$" a_dev a_mnt b_dev b_mnt uuid
	stick_up --size 32 --rate 0 --label "$label"
	a_dev=$STICK_DEV a_mnt=$STICK_MNT
	stick_up --size 32 --rate 0 --label "$label"
	b_dev=$STICK_DEV b_mnt=$STICK_MNT
	echo data >"$a_mnt/a" # something to sync: the refusal comes before the sync
	run -2 safeunmount -v "LABEL=$label"
	echo "$output"
	[[ $output == *"refusing LABEL=$label: 2 devices have it, "*"; name the one to unmount by its device or mount point"* ]]
	[[ $output == *"'$a_dev'"* && $output == *"'$b_dev'"* ]]
	mountpoint -q "$a_mnt"
	mountpoint -q "$b_mnt"
	# and as JSON: the error event, nothing synced or unmounted
	run -2 --separate-stderr safeunmount --progress=json "LABEL=$label"
	echo "$output"
	jq -s -e --arg l "LABEL=$label" 'map(select(.event == "error")) | length == 1 and
		.[0].device == $l and .[0].errno_name == "ENOTUNIQ"' <<<"$output"
	[[ $output != *'"event":"unmounted"'* ]]
	# the same UUID on a third, unmounted, filesystem
	uuid=$(blkid -p -s UUID -o value "$a_dev")
	stick_up --size 32 --rate 0 --no-mount
	tune2fs -U "$uuid" "$STICK_DEV"
	run -2 safeunmount "UUID=$uuid"
	echo "$output"
	[[ $output == *"refusing UUID=$uuid: 2 devices have it"*"; name the one"* ]]
	[[ $output == *"'$a_dev'"* && $output == *"'$STICK_DEV'"* ]]
	mountpoint -q "$a_mnt"
	# with one match left, the tag is taken
	e2label "$b_dev" "${label}b"
	run -0 safeunmount "LABEL=$label"
	refute mountpoint -q "$a_mnt"
	mountpoint -q "$b_mnt"
}

@test "fixtures: '/' through its partition or its whole disk is refused whatever the options" {
	run -2 fixture_su /dev/vda2
	[ "$output" = "safeunmount: refusing to unmount '/' on /dev/vda2: it is the root filesystem" ]
	run -2 fixture_su --system --lazy --force /dev/vda
	[ "$output" = "safeunmount: refusing to unmount '/' on /dev/vda2: it is the root filesystem" ]
	run -2 fixture_su --system -P /boot
	[ "$output" = "safeunmount: refusing to power off the disk of '/boot': it holds the root filesystem ('/' on /dev/vda2)" ]
	# "/" on dm-0 over sda1 and sdb1: the disks below it are root disks too
	export SAFECP_SYSROOT=$SAFECP_SRC/tests/fixtures/unmount-dmroot
	run -2 "$SAFECP_BUILD/cmd/safeunmount" --system /dev/sda
	[ "$output" = "safeunmount: refusing to unmount '/dev/sda': it is the disk that holds the root filesystem ('/' on /dev/dm-0); name one of its other filesystems instead" ]
	run -2 "$SAFECP_BUILD/cmd/safeunmount" /dev/sda3
	[ "$output" = "safeunmount: refusing to unmount '/mnt/data' on /dev/sda3: it is on the disk that holds the root filesystem; use --system if you really mean it" ]
	run -2 "$SAFECP_BUILD/cmd/safeunmount" -P --system --force /dev/sdb1
	[ "$output" = "safeunmount: refusing to power off the disk of '/dev/sdb1': it holds the root filesystem ('/' on /dev/dm-0)" ]
	run -0 "$SAFECP_BUILD/cmd/safeunmount" --system /dev/sda3
}

# ---- system mounts need --system ----------------------------------------------------

@test "a stick mounted on /srv and /opt needs --system, as path and as device (private namespace)" {
	require_root
	# mounted in the namespace only: nothing else holds it after the unmount there
	stick_up --size 200 --rate 0 --no-mount
	run -0 in_namespace bash -c "
		mount $STICK_DEV /srv && mount $STICK_DEV /opt || exit 90
		s=0; $SAFECP_BUILD/cmd/safeunmount /srv || s=\$?; echo path=\$s
		s=0; $SAFECP_BUILD/cmd/safeunmount $STICK_DEV || s=\$?; echo device=\$s
		findmnt -n /srv >/dev/null && findmnt -n /opt >/dev/null && echo still-mounted
		s=0; $SAFECP_BUILD/cmd/safeunmount -q --system $STICK_DEV || s=\$?; echo system=\$s
		findmnt -n /srv >/dev/null || findmnt -n /opt >/dev/null || echo gone
	"
	[[ $output == *"refusing to unmount '/srv' on $STICK_DEV: it is a system mount; use --system if you really mean it"* ]]
	[[ $output == *"refusing to unmount '/opt' on $STICK_DEV: it is a system mount; use --system if you really mean it"* ]]
	[[ $output == *$'path=2\n'* && $output == *$'device=2\nstill-mounted\n'* ]]
	[[ $output == *$'system=0\ngone'* ]]
}

@test "a disk with active swap needs --system, and is not powered off" {
	require_root
	require_cmd swapon
	local parts
	stick_up --partitions 2 --size 200 --rate 0
	read -r -a parts <<<"$STICK_PARTS"
	umount "${STICK_MNTS#* }"
	mkswap -q "${parts[1]}"
	swapon -p -5 "${parts[1]}" || skip "cannot swapon '${parts[1]}' here"
	GUARD_SWAP=${parts[1]}
	run -2 in_namespace "$SAFECP_BUILD/cmd/safeunmount" "$STICK_MNT"
	[ "$output" = "safeunmount: refusing to unmount '$STICK_MNT' on ${parts[0]}: its disk has active swap ('${parts[1]}'); use --system if you really mean it" ]
	run -3 in_namespace "$SAFECP_BUILD/cmd/safeunmount" --system -P "$STICK_DISK"
	[[ $output == *"cannot power off the disk of '$STICK_DISK': '${parts[1]}' on it is active swap; run swapoff '${parts[1]}' first"* ]]
	findmnt "$STICK_MNT"
	# our own stick, in our namespace (in another one the host's mount would hold it)
	run -0 "$SAFECP_BUILD/cmd/safeunmount" -q --system "$STICK_MNT"
}

@test "fixtures: /dev and /tmp (API filesystems) are system mounts: refused without --system" {
	local m
	for m in /dev /tmp; do
		run -2 fixture_su "$m"
		[ "$output" = "safeunmount: refusing to unmount '$m' on $([[ $m == /dev ]] && echo udev || echo tmpfs): it is a system mount; use --system if you really mean it" ]
	done
	run -0 fixture_su --system /tmp
	[ "$output" = "would unmount '/tmp' (SAFECP_SYSROOT is set: nothing is done)" ]
}

@test "fixtures: /boot, /srv, the root disk's other filesystems and a swap disk need --system" {
	run -2 fixture_su /boot
	[ "$output" = "safeunmount: refusing to unmount '/boot' on /dev/vda1: it is a system mount; use --system if you really mean it" ]
	run -2 fixture_su /dev/vda1
	[ "$output" = "safeunmount: refusing to unmount '/boot' on /dev/vda1: it is a system mount; use --system if you really mean it" ]
	run -2 fixture_su /dev/sda1
	[ "$output" = "safeunmount: refusing to unmount '/srv' on /dev/sda1: it is a system mount; use --system if you really mean it" ]
	run -2 fixture_su /mnt/rootbind
	[ "$output" = "safeunmount: refusing to unmount '/mnt/rootbind' on /dev/vda2: it is on the disk that holds the root filesystem; use --system if you really mean it" ]
	run -2 fixture_su /dev/sda3
	[ "$output" = "safeunmount: refusing to unmount '/mnt/data' on /dev/sda3: its disk has active swap ('/dev/sda2'); use --system if you really mean it" ]
	run -0 fixture_su --system /dev/vda1
	[ "$output" = "would unmount '/boot' (SAFECP_SYSROOT is set: nothing is done)" ]
	run -0 fixture_su --system /dev/sda
	[[ $output == *"would unmount '/srv'"* && $output == *"would unmount '/mnt/data'"* ]]
	run -0 fixture_su /media/stick1
}

# ---- --power-off: USB and loop only -------------------------------------------------

@test "fixtures: -P refuses SATA, FireWire and Thunderbolt disks, also with --force and --system" {
	require_root # -P needs root before any plan is made
	run -2 fixture_su -P --system --force /mnt/data
	[ "$output" = "safeunmount: refusing to power off '/dev/sda': it is a SATA disk; only USB and loop devices are powered off (and, with --force, an SD card in a built-in reader)" ]
	run -2 fixture_su -P --force /dev/sdb1
	[ "$output" = "safeunmount: refusing to power off '/dev/sdb': it is a FireWire disk; only USB and loop devices are powered off (and, with --force, an SD card in a built-in reader)" ]
	run -2 fixture_su -P --force /media/tb
	[[ $output == "safeunmount: refusing to power off '/dev/nvme1n1': it is a Thunderbolt disk;"* ]]
	run -2 fixture_su -P /media/card
	[[ $output == *"an SD card in a built-in reader may not come back"*"use --force"* ]]
	run -0 fixture_su -P -f /media/card
	[[ $output == *"would power off the disk of '/media/card'"* ]]
	run -0 fixture_su -P /dev/loop0
	[[ $output == *"would power off the disk of '/dev/loop0'"* ]]
	run -3 fixture_su -P /dev/sdc1 # the USB stick: planned, but its sdc2 stays mounted
	[[ $output == *"'/dev/sdc2' is mounted on '/media/stick2'"* ]]
	# a card reader whose other slot holds "/": that slot would go too
	SAFECP_SYSROOT=$SAFECP_SRC/tests/fixtures/unmount-usbroot run -2 "$SAFECP_BUILD/cmd/safeunmount" -P --system /media/usb
	[ "$output" = "safeunmount: refusing to power off '/dev/sdb': /dev/sdc, which goes with it, holds the root filesystem ('/' on /dev/sdc)" ]
}

# ---- all or nothing ----------------------------------------------------------------

@test "a disk with two filesystems, one busy: neither is unmounted, exit 3 (private namespace)" {
	require_root
	local m1=$BATS_TEST_TMPDIR/m1 m2=$BATS_TEST_TMPDIR/m2 parts
	stick_up --partitions 2 --size 200 --rate 0 --no-mount
	read -r -a parts <<<"$STICK_PARTS"
	mkdir -p "$m1" "$m2"
	# each is busy in turn (the holder lives in the namespace, where the mounts are):
	# the innermost-first order must not matter
	run -0 in_namespace bash -c "
		mount ${parts[0]} $m1 && mount ${parts[1]} $m2 || exit 90
		for busy in $m1 $m2; do
			(cd \$busy && exec sleep 300) &
			pid=\$!
			for i in \$(seq 600); do [ \"\$(readlink /proc/\$pid/cwd)\" = \$busy ] && break; sleep 0.05; done
			echo holder=\$pid
			s=0; $SAFECP_BUILD/cmd/safeunmount $STICK_DISK 2>&1 || s=\$?; echo status=\$s
			findmnt -n $m1 >/dev/null && findmnt -n $m2 >/dev/null && echo both-mounted
			kill \$pid; wait \$pid
		done
		s=0; $SAFECP_BUILD/cmd/safeunmount -q $STICK_DISK || s=\$?; echo free=\$s
		findmnt -n $m1 >/dev/null || findmnt -n $m2 >/dev/null || echo none-mounted
	"
	[[ $output == *"'$m1' is busy:"*"(sleep): working directory $m1"* ]]
	[[ $output == *"'$m2' is busy:"*"(sleep): working directory $m2"* ]]
	[[ $output == *"nothing was unmounted: every filesystem of '$STICK_DISK' must be free before any is unmounted"* ]]
	[[ $output == *$'status=3\nboth-mounted\n'*$'status=3\nboth-mounted\n'* ]]
	[[ $output == *$'free=0\nnone-mounted' ]]
}

@test "--wait on a disk with a busy filesystem waits with all of them mounted (private namespace)" {
	require_root
	local m1=$BATS_TEST_TMPDIR/m1 m2=$BATS_TEST_TMPDIR/m2 log=$BATS_TEST_TMPDIR/log parts
	stick_up --partitions 2 --size 200 --rate 0 --no-mount
	read -r -a parts <<<"$STICK_PARTS"
	mkdir -p "$m1" "$m2"
	run -0 in_namespace bash -c "
		mount ${parts[0]} $m1 && mount ${parts[1]} $m2 || exit 90
		(cd $m1 && exec sleep 300) &
		holder=\$!
		for i in \$(seq 600); do [ \"\$(readlink /proc/\$holder/cwd)\" = $m1 ] && break; sleep 0.05; done
		$SAFECP_BUILD/cmd/safeunmount --wait=60 $STICK_DISK 2>$log &
		su=\$!
		for i in \$(seq 600); do grep -q 'waiting for it to be free' $log && break; sleep 0.05; done
		findmnt -n $m1 >/dev/null && findmnt -n $m2 >/dev/null && echo both-mounted-while-waiting
		kill \$holder
		s=0; wait \$su || s=\$?; echo status=\$s
		findmnt -n $m1 >/dev/null || findmnt -n $m2 >/dev/null || echo none-mounted
	"
	[[ $output == *$'both-mounted-while-waiting\nstatus=0\nnone-mounted' ]]
	grep -q "'$m1' is busy; waiting for it to be free" "$log"
}

@test "fixtures: a busy partition keeps the whole USB stick mounted" {
	run -3 fixture_su /dev/sdc
	[[ $output == *"'/media/stick2' is busy:"*"pid 200 (gphoto2): working directory /media/stick2/DCIM"* ]]
	[[ $output == *"nothing was unmounted"* ]]
	[[ $output != *"would unmount"* ]]
}

# ---- SIGPIPE and lost output ----------------------------------------------------------

# closed_pipe CMD...: CMD with its stdout on a pipe whose reader is already gone, so the
# first write meets EPIPE (or SIGPIPE) for certain. perl-base is in every Debian system.
closed_pipe() {
	perl -e 'pipe(R, W) or die; close R; open(STDOUT, ">&W") or die; close W; exec @ARGV or exit 127' "$@"
}

@test "a closed pipe on stdout does not kill safeunmount: --help, and JSON events of a real unmount" {
	run -0 closed_pipe "$SAFECP_BUILD/cmd/safeunmount" --help
	run -0 bash -c "'$SAFECP_BUILD/cmd/safeunmount' --help | head -1"
	[[ $output == "Write out what is still cached"* ]]
	require_root
	stick_up --size 200 --rate 0
	head -c 4M /dev/urandom >"$STICK_MNT/f"
	run -0 closed_pipe "$SAFECP_BUILD/cmd/safeunmount" -q --progress=json "$STICK_MNT"
	run ! findmnt "$STICK_MNT"
	stick_up --size 200 --rate 0
	run -0 bash -c "'$SAFECP_BUILD/cmd/safeunmount' -q --progress=json '$STICK_MNT' | head -c1; exit \${PIPESTATUS[0]}"
	[ "$output" = "{" ]
	run ! findmnt "$STICK_MNT"
}

@test "lost output on stdout does not hide exit 2 (safeunmount, safecp)" {
	run -2 bash -c "'$SAFECP_BUILD/cmd/safeunmount' --progress=json /nonexistent/safecp-$$ >/dev/full"
	[[ $output == *"cannot access '/nonexistent/safecp-$$'"* ]]
	[[ $output == *"cannot write to standard output"* ]]
	[[ -x $SAFECP_BUILD/cmd/safecp ]] || skip "safecp is not built"
	run -2 bash -c "'$SAFECP_BUILD/cmd/safecp' --progress=json /nonexistent/safecp-$$ '$BATS_TEST_TMPDIR/d' >/dev/full"
	[[ $output == *"cannot write to standard output"* ]]
	# and a success with lost output is still a failure
	run -1 bash -c "'$SAFECP_BUILD/cmd/safeunmount' --help >/dev/full"
}
