# tests/lib/stick.bash: the simulated USB stick used by bats tests, ./try and benchmarks.
#
# A stick is a sparse backing file on /dev/shm, a loop device with --direct-io=on (so the
# backing tmpfs adds no page cache of its own), queue/max_sectors_kb capped like a USB
# mass-storage device, a cgroup-v1 root blkio write throttle (the slow flash), and a
# filesystem mounted on a fresh directory. Bash library; needs root.
#
#   source tests/lib/stick.bash
#   stick_up [--fs ext4|xfs|btrfs|exfat|fat32|ntfs|none] [--size MIB] [--rate BYTES_PER_S] [--iops N]
#            [--read-rate BYTES_PER_S] [--max-sectors-kb N] [--partitions N] [--no-mount] [--faulty]
#            [--mount-opts OPTS] [--label LABEL] [--owner PID]
#       sets STICK_ID, STICK_DISK (/dev/loopN), STICK_DEV (device the fs is on: the disk, or
#       the first partition), STICK_MNT (mount point, empty with --no-mount or --fs none),
#       STICK_MAJMIN (the disk, "7:N"), STICK_FS, STICK_RATE; with --partitions N also
#       STICK_PARTS and STICK_MNTS (space-separated, one per partition).
#       Defaults: ext4, 256 MiB (xfs: 300 MiB per filesystem, its minimum), rate 20971520
#       (0 = no throttle), no IOPS limit, max_sectors_kb 240, owner = this shell ($BASHPID).
#       --read-rate: a blkio read_bps_device rule too (a camera card read at its own
#       pace; default 0, none); like the write rule, gone after stick_reattach.
#       The FUSE filesystems, all mounted as fuseblk on the device: exfat (exfat-fuse),
#       fat32 (mkfs.vfat -F 32, Debian's fusefat -o rw+,blkdev: this kernel has no vfat;
#       labelled only with an explicit --label, which fusefat lists as a file in the root),
#       ntfs (mkntfs -Q, ntfs-3g with its defaults: case-sensitive, no windows_names).
#       Always sets STICK_IMG (the backing image) and STICK_LOOPFILE (the loop device's
#       file: the image, or with --faulty the faultdev file).
#       --faulty: the loop device sits on tests/faultdev (FUSE) serving the image, so the
#       filesystem sees real block-layer errors on command: `echo vanish >"$STICK_CTL"`
#       (commands in tests/faultdev/faultdev.c: fail-read, fail-write, fail-write-after,
#       vanish, readonly, counterfeit, clear; reading it gives counters). Also sets
#       STICK_CTL and STICK_SNAPSHOT (where counterfeit mode copies the image at its first
#       write past the real size). Not with --partitions. Needs $SAFECP_BUILD/tests/faultdev.
#   stick_reattach ID [FILE]               a fresh look at what the device holds: unmount,
#       detach the loop device (dropping every cache), attach FILE (default: the backing
#       image, so faultdev is out of the way; e.g. $STICK_SNAPSHOT) on a new loop device,
#       mount (replaying a journal), unmount, fsck read-only, mount again. Sets STICK_DISK,
#       STICK_DEV, STICK_MNT, STICK_MAJMIN, STICK_LOOPFILE, and STICK_FSCK_RC and
#       STICK_FSCK_OUT (0: clean; fat32: fsck.vfat -n, ntfs: ntfsfix -n). No throttle. Not for sticks with partitions.
#   stick_throttle ID BYTES_PER_S [IOPS]   change or lift (0) the write throttle
#   stick_down ID                          undo everything stick_up ID did; idempotent
#   stick_down_all                         every stick owned by this shell
#   stick_load ID                          set the STICK_* variables of an existing stick
#   stick_trap                             EXIT/INT/TERM/HUP traps that call stick_down_all
#   stick_list_ids [--stale]               ids in the registry (--stale: owner is dead)
#   stick_pending_bytes MAJ:MIN            debugfs BdiReclaimable+BdiWriteback, in bytes
#   stick_written_bytes MAJ:MIN            bytes the block device has completed writing
#
# Every step is appended to $STICK_REGISTRY/ID/steps *before* it is carried out, so an
# interruption at any point leaves a record that covers it. stick_down replays the log in
# reverse; each undo first checks that the resource still is ours (the loop device's
# backing file is this stick's file, the directory is mounted from our device) and is a
# no-op otherwise, which makes it idempotent and safe beside other people's sticks. The
# registry entry disappears only when every undo succeeded, so a failed teardown can be
# retried (tests/stick cleanup does that for sticks whose owner process has died).
#
# Environment: STICK_REGISTRY (/run/safecp-sticks), STICK_BACKING_DIR (/dev/shm),
# STICK_MNT_BASE (/run/safecp-mnt), STICK_FAULTDEV (faultdev binary; default
# $SAFECP_BUILD/tests/faultdev).
#
# Kernel facts relied on (doc/kernel.md 4, 10): writing "MAJ:MIN 0" to a blkio throttle file
# removes the rule; throttle rules exist only for whole disks, so partitions are throttled
# through their disk; BLKPG (addpart) adds partitions to a loop device without any
# partition table, and without LO_FLAGS_PARTSCAN they outlive losetup -d and make the next
# addpart on that loop device fail with EBUSY, so we always attach with -P (which drops
# stale partitions on attach and ours on detach); queue/max_sectors_kb survives losetup
# -d too, and writing 0 restores the default, so we reset it before detaching.

# shellcheck disable=SC2034 # the STICK_* variables are for the caller
STICK_REGISTRY=${STICK_REGISTRY:-/run/safecp-sticks}
STICK_BACKING_DIR=${STICK_BACKING_DIR:-/dev/shm}
STICK_MNT_BASE=${STICK_MNT_BASE:-/run/safecp-mnt}
_STICK_BLKIO=/sys/fs/cgroup/blkio

_stick_err() { printf 'stick: %s\n' "$*" >&2; }

# "PID STARTTIME": the start time guards against a recycled pid.
_stick_pid_id() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split into fields on purpose
	set -- $stat
	printf '%s\n' "${20}"
}

_stick_owner_alive() {
	local reg=$1 pid start now
	read -r pid start 2>/dev/null <"$reg/owner" || return 1
	now=$(_stick_pid_id "$pid") || return 1
	[[ $now == "$start" ]]
}

_stick_log() { printf '%s\n' "$*" >>"$_STICK_REG/steps"; }

# The loop device's backing file, as the kernel reports it ("PATH (deleted)" after rm).
_stick_loop_backing() {
	local name=${1#/dev/}
	cat "/sys/block/$name/loop/backing_file" 2>/dev/null
}

_stick_loop_is_ours() {
	local b
	b=$(_stick_loop_backing "$1") || return 1
	[[ $b == "$2" || $b == "$2 (deleted)" ]]
}

# ---------------------------------------------------------------------------- stick_up

_stick_parse_up() {
	_S_FS=ext4 _S_SIZE='' _S_RATE=20971520 _S_IOPS=0 _S_MSKB=240 _S_PARTS=0 _S_MOUNT=1
	_S_MOPTS='' _S_LABEL=safecp _S_LABEL_SET=0 _S_OWNER=$BASHPID _S_FAULTY=0 _S_RRATE=0
	local opt val
	while (($#)); do
		opt=$1
		shift
		case $opt in
		--no-mount) _S_MOUNT=0; continue ;;
		--faulty) _S_FAULTY=1; continue ;;
		--*=*) val=${opt#*=} opt=${opt%%=*} ;;
		--*)
			(($#)) || { _stick_err "option '$opt' needs a value"; return 2; }
			val=$1
			shift ;;
		esac
		case $opt in
		--fs) _S_FS=$val ;;
		--size) _S_SIZE=$val ;;
		--rate) _S_RATE=$val ;;
		--iops) _S_IOPS=$val ;;
		--read-rate) _S_RRATE=$val ;;
		--max-sectors-kb) _S_MSKB=$val ;;
		--partitions) _S_PARTS=$val ;;
		--mount-opts) _S_MOPTS=$val ;;
		--label) _S_LABEL=$val _S_LABEL_SET=1 ;;
		--owner) _S_OWNER=$val ;;
		*) _stick_err "unknown option '$opt'"; return 2 ;;
		esac
	done
	_stick_check_up
}

_stick_check_up() {
	local v
	case $_S_FS in ext4 | xfs | btrfs | exfat | fat32 | ntfs | none) ;;
	*) _stick_err "unknown filesystem '$_S_FS' (ext4, xfs, btrfs, exfat, fat32, ntfs, none)"; return 2 ;;
	esac
	for v in "$_S_RATE" "$_S_IOPS" "$_S_RRATE" "$_S_MSKB" "$_S_PARTS" "$_S_OWNER" ${_S_SIZE:+"$_S_SIZE"}; do
		[[ $v =~ ^[0-9]+$ ]] || { _stick_err "'$v' is not a number"; return 2; }
	done
	[[ $_S_FS == none ]] && _S_MOUNT=0
	if ((_S_FAULTY)); then
		((_S_PARTS == 0)) || { _stick_err "--faulty does not take --partitions"; return 2; }
		[[ -x $(_stick_faultdev_bin) ]] ||
			{ _stick_err "--faulty needs $(_stick_faultdev_bin) (built when libfuse3-dev is installed)"; return 2; }
	fi
	local nfs=$((_S_PARTS > 0 ? _S_PARTS : 1)) min=16
	[[ $_S_FS == xfs ]] && min=300    # xfsprogs >= 5.19 refuses smaller filesystems
	[[ $_S_FS == btrfs ]] && min=128
	[[ $_S_FS == fat32 ]] && min=40   # FAT32 needs 65525 clusters (512 bytes each at least)
	if [[ -z $_S_SIZE ]]; then
		_S_SIZE=$((min * nfs + 1 > 256 ? min * nfs + 1 : 256))
	elif ((_S_SIZE < min * nfs + (_S_PARTS > 0))); then
		_stick_err "--size $_S_SIZE is too small for $nfs $_S_FS filesystem(s) (need $((min * nfs + 1)) MiB)"
		return 2
	fi
	return 0
}

# Makes the registry entry; the owner is written before anything else exists.
_stick_new_entry() {
	mkdir -p "$STICK_REGISTRY" "$STICK_MNT_BASE" || return 1
	_STICK_REG=$(mktemp -d "$STICK_REGISTRY/stick.XXXXXX") || return 1
	local start
	start=$(_stick_pid_id "$_S_OWNER") || { _stick_err "owner pid $_S_OWNER is not running"; rmdir "$_STICK_REG"; return 1; }
	# renamed into place: another run's stick_list_ids --stale never reads it half written
	printf '%s %s\n' "$_S_OWNER" "$start" >"$_STICK_REG/owner.new" &&
		mv "$_STICK_REG/owner.new" "$_STICK_REG/owner" || return 1
	: >"$_STICK_REG/steps"
	STICK_ID=${_STICK_REG##*/}
}

_stick_make_disk() {
	local img="$STICK_BACKING_DIR/safecp-$STICK_ID.img"
	STICK_IMG=$img STICK_LOOPFILE=$img STICK_CTL='' STICK_SNAPSHOT=''
	_stick_log backing "$img"
	truncate -s "${_S_SIZE}M" "$img" || return 1
	if ((_S_FAULTY)); then
		_stick_faultdev_up "$img" || return 1
	fi
	_stick_attach "$STICK_LOOPFILE" || return 1
	_stick_log maxsect "$STICK_DISK" "$STICK_LOOPFILE"
	echo "$_S_MSKB" >"/sys/block/${STICK_DISK#/dev/}/queue/max_sectors_kb" || return 1
}

_stick_attach() {
	local file=$1 name
	_stick_log loop "$file"
	STICK_DISK=$(losetup --direct-io=on --partscan --show -f "$file") || return 1
	_stick_log loopdev "$STICK_DISK"
	name=${STICK_DISK#/dev/}
	STICK_MAJMIN=$(<"/sys/block/$name/dev")
	[[ $(<"/sys/block/$name/loop/dio") == 1 ]] ||
		_stick_err "warning: $STICK_DISK has no direct I/O; the backing file's page cache will blur measurements"
	_stick_bdi_reset "$STICK_MAJMIN"
}

# A loop device's bdi (/sys/class/bdi/MAJ:MIN) keeps strict_limit, min_ratio and
# max_ratio (max_bytes is max_ratio in bytes) after losetup -d: knobs an earlier user set
# would make this stick unlike a stick (cp leaving 7 MiB dirty instead of 500). Back to
# the kernel's defaults, said on stderr when anything was changed.
_stick_bdi_reset() {
	local bdi=/sys/class/bdi/$1 knob want now changed=()
	for knob in strict_limit:0 min_ratio_fine:0 max_ratio_fine:1000000; do
		want=${knob#*:} knob=${knob%%:*}
		[[ -w $bdi/$knob ]] || continue
		now=$(<"$bdi/$knob")
		[[ $now == "$want" ]] && continue
		echo "$want" >"$bdi/$knob" || { _stick_err "cannot reset $bdi/$knob (is $now)"; return 1; }
		changed+=("$knob=$now")
	done
	((${#changed[@]} == 0)) || _stick_err "reset the bdi knobs an earlier user of $1 left: ${changed[*]} (now the kernel's defaults)"
	return 0
}

# ---------------------------------------------------------------------------- faultdev

_stick_faultdev_bin() {
	echo "${STICK_FAULTDEV:-${SAFECP_BUILD:-$(dirname "${BASH_SOURCE[0]}")/../../build}/tests/faultdev}"
}

# The daemon serves IMG as DIR/disk; it runs in the foreground, detached from our
# descriptors (bats waits for anything holding its fd 3), and goes when DIR is unmounted.
_stick_faultdev_up() {
	local img=$1 dir="$STICK_MNT_BASE/$STICK_ID-fault" snap="$STICK_BACKING_DIR/safecp-$STICK_ID.snap" n
	_stick_log backing "$snap"
	_stick_log mkdir "$dir"
	mkdir "$dir" || return 1
	_stick_log faultdev "$dir"
	setsid -w "$(_stick_faultdev_bin)" --snapshot "$snap" "$img" "$dir" \
		</dev/null >>"$_STICK_REG/faultdev.log" 2>&1 3>&- 4>&- &
	local pid=$!
	# it stays in the foreground (-f), and setsid -w with it even when setsid must fork:
	# once that pid is gone, nothing will come up
	for ((n = 0; n < 100; n++)); do
		[[ $(findmnt -n -o FSTYPE --mountpoint "$dir" 2>/dev/null) == fuse.faultdev ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[[ -e $dir/disk ]] || { _stick_err "faultdev did not come up on '$dir': $(cat "$_STICK_REG/faultdev.log")"; return 1; }
	STICK_LOOPFILE="$dir/disk" STICK_CTL="$dir/ctl" STICK_SNAPSHOT=$snap
}

# The daemon whose argv ends with DIR.
_stick_faultdev_pid() {
	local p args
	for p in /proc/[0-9]*; do
		[[ $(cat "$p/comm" 2>/dev/null) == faultdev ]] || continue
		mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
		((${#args[@]})) && [[ ${args[-1]} == "$1" ]] && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}

# Unmounting makes the daemon exit; one that does not (or lost its mount) is killed.
_stick_undo_faultdev() {
	local dir=$1 pid n
	if [[ $(findmnt -n -o FSTYPE --mountpoint "$dir" 2>/dev/null) == fuse.faultdev ]]; then
		umount "$dir" || { _stick_err "cannot unmount faultdev '$dir': $(umount "$dir" 2>&1)"; return 1; }
	fi
	for ((n = 0; n < 50; n++)); do
		pid=$(_stick_faultdev_pid "$dir") || return 0
		((n == 20)) && kill "$pid" 2>/dev/null
		((n == 40)) && kill -9 "$pid" 2>/dev/null
		sleep 0.1
	done
	_stick_err "the faultdev daemon for '$dir' did not exit"
	return 1
}

# Partitions without a partition table (no parser on this kernel): BLKPG via addpart,
# 1 MiB aligned, the disk split evenly.
_stick_make_parts() {
	local i start len node img="$STICK_BACKING_DIR/safecp-$STICK_ID.img"
	len=$(((_S_SIZE - 1) / _S_PARTS))  # whole MiB each, after the first MiB
	len=$((len * 2048))
	STICK_PARTS=''
	for ((i = 1; i <= _S_PARTS; i++)); do
		start=$((2048 + (i - 1) * len))
		node="${STICK_DISK}p$i"
		_stick_log part "$STICK_DISK" "$i" "$img"
		addpart "$STICK_DISK" "$i" "$start" "$len" || return 1
		_stick_wait_node "$node" || return 1
		STICK_PARTS+="${STICK_PARTS:+ }$node"
	done
}

_stick_wait_node() {
	local n
	for ((n = 0; n < 50; n++)); do
		[[ -b $1 ]] && return 0
		sleep 0.1
	done
	_stick_err "device node '$1' did not appear"
	return 1
}

# lazy_*_init=0: no ext4lazyinit thread writing inode tables behind the test's back.
_stick_mkfs() {
	local dev=$1 out rc=0
	case $_S_FS in
	ext4) out=$(mkfs.ext4 -q -F -L "$_S_LABEL" -E lazy_itable_init=0,lazy_journal_init=0 "$dev" 2>&1) || rc=$? ;;
	xfs) out=$(mkfs.xfs -q -f -L "$_S_LABEL" "$dev" 2>&1) || rc=$? ;;
	btrfs) out=$(mkfs.btrfs -q -f -L "$_S_LABEL" "$dev" 2>&1) || rc=$? ;;
	exfat) out=$(mkfs.exfat -L "$_S_LABEL" "$dev" 2>&1) || rc=$? ;;
	fat32)
		local label=()
		((_S_LABEL_SET)) && label=(-n "${_S_LABEL^^}")
		out=$(mkfs.vfat -F 32 "${label[@]}" "$dev" 2>&1) || rc=$? ;;
	ntfs) out=$(mkntfs -Q -F -L "$_S_LABEL" "$dev" 2>&1) || rc=$? ;;
	none) return 0 ;;
	esac
	((rc == 0)) || { _stick_err "mkfs.$_S_FS '$dev' failed: $out"; return 1; }
	# fsync of the block device: mkfs output must not be dirty when the stick is handed out.
	sync "$dev"
}

_stick_mount() {
	local dev=$1 dir=$2 opts=()
	[[ -n $_S_MOPTS ]] && opts=(-o "$_S_MOPTS")
	_stick_log mkdir "$dir"
	mkdir "$dir" || return 1
	_stick_log mount "$dev" "$dir"
	if [[ $_S_FS == exfat ]]; then
		mount.exfat-fuse "${opts[@]}" "$dev" "$dir" >/dev/null || return 1
		_stick_log fuse "$dir" "$(_stick_fuse_pid "$dir" mount.exfat-fu)" mount.exfat-fu
	elif [[ $_S_FS == fat32 ]]; then
		# blkdev,fsname: fuseblk on the device, as exfat-fuse and ntfs-3g mount.  The
		# daemons keep the descriptors they start with: none of bats' (its fd 3 held
		# open makes a run wait for the daemon), and fusefat prints its superblock
		fusefat -o "rw+,blkdev,fsname=$dev${_S_MOPTS:+,$_S_MOPTS}" "$dev" "$dir" \
			>/dev/null 2>&1 </dev/null 3>&- || { _stick_err "fusefat '$dev' '$dir' failed"; return 1; }
		_stick_log fuse "$dir" "$(_stick_fuse_pid "$dir" fusefat)" fusefat
	elif [[ $_S_FS == ntfs ]]; then
		ntfs-3g "${opts[@]}" "$dev" "$dir" >/dev/null </dev/null 3>&- || return 1
		_stick_log fuse "$dir" "$(_stick_fuse_pid "$dir" ntfs-3g)" ntfs-3g
	else
		mount -t "$_S_FS" "${opts[@]}" "$dev" "$dir" || return 1
	fi
	sync -f "$dir"
	sync "$dev"
}

# The FUSE daemon (its comm starts with COMM) serving DIR (its argv ends with the mount point).
_stick_fuse_pid() {
	local p args
	for p in /proc/[0-9]*; do
		[[ $(cat "$p/comm" 2>/dev/null) == "$2"* ]] || continue
		mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
		# an exiting daemon has an empty cmdline, and args[-1] of an empty array errs
		((${#args[@]})) && [[ ${args[-1]} == "$1" ]] && { echo "${p#/proc/}"; return 0; }
	done
	echo 0
}

_stick_make_fs() {
	local devs=("$STICK_DISK") i dir
	((_S_PARTS > 0)) && read -r -a devs <<<"$STICK_PARTS"
	STICK_DEV=${devs[0]} STICK_MNT='' STICK_MNTS=''
	for ((i = 0; i < ${#devs[@]}; i++)); do
		_stick_mkfs "${devs[i]}" || return 1
		((_S_MOUNT)) || continue
		dir="$STICK_MNT_BASE/$STICK_ID"
		((_S_PARTS > 0)) && dir+="-p$((i + 1))"
		_stick_mount "${devs[i]}" "$dir" || return 1
		STICK_MNTS+="${STICK_MNTS:+ }$dir"
	done
	STICK_MNT=${STICK_MNTS%% *}
}

# Tests read per-bdi stats; debugfs is shared and stays mounted.
_stick_debugfs() {
	mountpoint -q /sys/kernel/debug && return 0
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null ||
		_stick_err "warning: cannot mount debugfs on /sys/kernel/debug; bdi stats unavailable"
	return 0
}

_stick_save_vars() {
	_stick_save_vars_to "$_STICK_REG"
}

_stick_save_vars_to() {
	local v _STICK_REG=$1
	STICK_FS=$_S_FS STICK_RATE=$_S_RATE
	for v in STICK_ID STICK_DISK STICK_DEV STICK_MNT STICK_MAJMIN STICK_FS STICK_RATE \
		STICK_PARTS STICK_MNTS STICK_IMG STICK_LOOPFILE STICK_CTL STICK_SNAPSHOT; do
		printf '%s=%q\n' "$v" "${!v-}"
	done >"$_STICK_REG/vars"
}

stick_up() {
	local _STICK_REG
	(($(id -u) == 0)) || { _stick_err "stick_up needs root (loop devices, mounts, blkio throttle)"; return 1; }
	_stick_parse_up "$@" || return
	_stick_debugfs
	_stick_new_entry || return 1
	STICK_PARTS='' STICK_MNTS='' STICK_MNT='' STICK_DEV='' STICK_DISK='' STICK_MAJMIN=''
	STICK_IMG='' STICK_LOOPFILE='' STICK_CTL='' STICK_SNAPSHOT=''
	if _stick_make_disk && { ((_S_PARTS == 0)) || _stick_make_parts; } && _stick_make_fs &&
		_stick_throttle_apply "$STICK_MAJMIN" "$_S_RATE" "$_S_IOPS" &&
		_stick_read_throttle_apply "$STICK_MAJMIN" "$_S_RRATE"; then
		_stick_save_vars
		return 0
	fi
	_stick_err "stick_up failed; removing the half-made stick $STICK_ID"
	stick_down "$STICK_ID" || true
	STICK_ID='' STICK_DISK='' STICK_DEV='' STICK_MNT='' STICK_MAJMIN='' STICK_PARTS='' STICK_MNTS=''
	STICK_IMG='' STICK_LOOPFILE='' STICK_CTL='' STICK_SNAPSHOT=''
	return 1
}

# ---------------------------------------------------------------------------- throttle

# Rules are logged before they are written, so even an interrupted write gets lifted.
_stick_throttle_apply() {
	local majmin=$1 bps=$2 iops=${3:-0}
	if ! grep -qx "throttle $majmin" "$_STICK_REG/steps"; then
		_stick_log throttle "$majmin"
	fi
	echo "$majmin $bps" >"$_STICK_BLKIO/blkio.throttle.write_bps_device" || return 1
	echo "$majmin $iops" >"$_STICK_BLKIO/blkio.throttle.write_iops_device" || return 1
}

# The read rule is a step of its own, logged only when there is one: sticks made before
# it existed, and those without it, have nothing to lift.
_stick_read_throttle_apply() {
	local majmin=$1 bps=$2
	((bps > 0)) || return 0
	_stick_log rthrottle "$majmin"
	echo "$majmin $bps" >"$_STICK_BLKIO/blkio.throttle.read_bps_device"
}

stick_throttle() {
	local id=${1-} bps=${2-} iops=${3:-0} _STICK_REG
	_STICK_REG="$STICK_REGISTRY/$id"
	[[ -n $id && -f $_STICK_REG/vars ]] || { _stick_err "no stick '$id'"; return 1; }
	[[ $bps =~ ^[0-9]+$ && $iops =~ ^[0-9]+$ ]] || { _stick_err "usage: stick_throttle ID BYTES_PER_S [IOPS]"; return 2; }
	local STICK_MAJMIN STICK_DISK STICK_LOOPFILE
	eval "$(grep -E '^STICK_(MAJMIN|DISK|LOOPFILE)=' "$_STICK_REG/vars")"
	_stick_loop_is_ours "$STICK_DISK" "${STICK_LOOPFILE:-$STICK_BACKING_DIR/safecp-$id.img}" ||
		{ _stick_err "stick '$id' has no loop device"; return 1; }
	_stick_throttle_apply "$STICK_MAJMIN" "$bps" "$iops" || return 1
	sed -i "s/^STICK_RATE=.*/STICK_RATE=$bps/" "$_STICK_REG/vars"
}

# ---------------------------------------------------------------------------- stick_down

# Each undo is a no-op when there is nothing (left) of ours to undo.
_stick_undo() {
	local kind=$1
	shift
	case $kind in
	throttle) _stick_undo_throttle "$@" ;;
	rthrottle) _stick_undo_read_throttle "$@" ;;
	fuse) _stick_undo_fuse "$@" ;;
	faultdev) _stick_undo_faultdev "$@" ;;
	mount) _stick_undo_mount "$@" ;;
	mkdir) [[ ! -d $1 ]] || mountpoint -q "$1" || rmdir "$1" ;;
	part) _stick_undo_part "$@" ;;
	maxsect) ! _stick_loop_is_ours "$1" "$2" || echo 0 >"/sys/block/${1#/dev/}/queue/max_sectors_kb" ;;
	loopdev) : ;;
	loop) _stick_undo_loop "$@" ;;
	backing) rm -f "$1" ;;
	*) _stick_err "unknown step '$kind' in the registry"; return 1 ;;
	esac
}

# The rule is keyed by MAJ:MIN; lift it only while that number is still our loop device.
_stick_undo_throttle() {
	local majmin=$1 dev
	dev=$(readlink -f "/sys/dev/block/$majmin" 2>/dev/null) || return 0
	_stick_loop_is_ours_any "/dev/${dev##*/}" || return 0
	echo "$majmin 0" >"$_STICK_BLKIO/blkio.throttle.write_bps_device" &&
		echo "$majmin 0" >"$_STICK_BLKIO/blkio.throttle.write_iops_device"
}

_stick_undo_read_throttle() {
	local majmin=$1 dev
	dev=$(readlink -f "/sys/dev/block/$majmin" 2>/dev/null) || return 0
	_stick_loop_is_ours_any "/dev/${dev##*/}" || return 0
	echo "$majmin 0" >"$_STICK_BLKIO/blkio.throttle.read_bps_device"
}

_stick_mounted_from() {
	local src
	src=$(findmnt -n -o SOURCE --mountpoint "$1" 2>/dev/null) || return 1
	[[ $src == "$2" || ($(stat -L -c %t:%T "$src" 2>/dev/null) == "$(stat -L -c %t:%T "$2" 2>/dev/null)" && -b $src) ]]
}

# Retries for a while: writeback of a dirty stick or a process leaving it takes time.
_stick_undo_mount() {
	local dev=$1 dir=$2 n
	for ((n = 0; n < 20; n++)); do
		_stick_mounted_from "$dir" "$dev" || return 0
		umount "$dir" 2>/dev/null && continue
		sleep 0.5
	done
	_stick_mounted_from "$dir" "$dev" || return 0
	_stick_err "cannot unmount '$dir': $(umount "$dir" 2>&1)"
	return 1
}

# After umount the FUSE daemon still holds the device open for a moment; partitions
# and loop devices cannot go away before it exits.
# A zombie has closed everything: it counts as gone.  Steps logged before fat32 and ntfs
# existed have no COMM field: they were exfat-fuse.
_stick_undo_fuse() {
	local dir=$1 pid=${2:-0} comm=${3:-mount.exfat-fu} n stat
	_stick_undo_mount_any "$dir" || return 1
	((pid > 0)) || return 0
	for ((n = 0; n < 100; n++)); do
		[[ -d /proc/$pid && $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm"* ]] || return 0
		stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 0
		stat=${stat##*) }
		[[ ${stat%% *} == Z ]] && return 0
		sleep 0.1
	done
	_stick_err "the FUSE daemon $comm (pid $pid) for '$dir' did not exit"
	return 1
}

# The fuse step comes after its mount step in the log, so it runs first on the way down.
_stick_undo_mount_any() {
	local dev
	dev=$(awk -v d="$1" '$1 == "mount" && $3 == d { print $2 }' "$_STICK_REG/steps")
	[[ -z $dev ]] || _stick_undo_mount "$dev" "$1"
}

_stick_undo_part() {
	local disk=$1 nr=$2 img=$3 n
	_stick_loop_is_ours "$disk" "$img" || return 0
	for ((n = 0; n < 20; n++)); do
		[[ -b ${disk}p$nr ]] || return 0
		delpart "$disk" "$nr" 2>/dev/null && return 0
		sleep 0.25
	done
	[[ -b ${disk}p$nr ]] || return 0
	_stick_err "cannot remove partition ${disk}p$nr: $(delpart "$disk" "$nr" 2>&1)"
	return 1
}

# Any loop device bound to our (uniquely named) backing file is ours, also one that
# losetup attached just before an interruption stopped us from logging its name.
_stick_undo_loop() {
	local img=$1 dev rc=0 b
	for b in /sys/block/loop*/loop/backing_file; do
		[[ -r $b ]] || continue
		dev=${b#/sys/block/}
		dev=/dev/${dev%%/*}
		_stick_loop_is_ours "$dev" "$img" || continue
		losetup -d "$dev" || rc=1
	done
	return $rc
}

# Bound to any file this stick attached (its image, faultdev's file, a reattached copy).
_stick_loop_is_ours_any() {
	local f
	while read -r f; do
		_stick_loop_is_ours "$1" "$f" && return 0
	done < <(awk '$1 == "loop" { print $2 }' "$_STICK_REG/steps")
	_stick_loop_is_ours "$1" "$_STICK_IMG"
}

_stick_down_locked() {
	local _STICK_REG=$1 _STICK_IMG line i steps=()
	_STICK_IMG="$STICK_BACKING_DIR/safecp-${1##*/}.img"
	[[ -f $_STICK_REG/steps ]] && mapfile -t steps <"$_STICK_REG/steps"
	# A step that cannot be undone stops the way down: what came before it (partition,
	# loop device, backing file) is still in use, and a later retry picks up from here.
	for ((i = ${#steps[@]} - 1; i >= 0; i--)); do
		line=${steps[i]}
		# shellcheck disable=SC2086 # fields are paths we made, without blanks
		_stick_undo $line || return 1
	done
	rm -f "$_STICK_REG/steps" "$_STICK_REG/vars" "$_STICK_REG/owner" "$_STICK_REG/owner.new" \
		"$_STICK_REG/lock" "$_STICK_REG/faultdev.log"
	rmdir "$_STICK_REG" 2>/dev/null || true
	return 0
}

stick_down() {
	local id=${1-} reg fd rc
	[[ $id =~ ^stick\.[A-Za-z0-9]+$ ]] || { _stick_err "'$id' is not a stick id"; return 2; }
	reg="$STICK_REGISTRY/$id"
	[[ -d $reg ]] || return 0
	exec {fd}>>"$reg/lock" || return 1
	flock -w 120 "$fd" || { exec {fd}>&-; _stick_err "stick '$id' is locked by another teardown"; return 1; }
	rc=0
	_stick_down_locked "$reg" || rc=1
	exec {fd}>&-
	((rc == 0)) || _stick_err "teardown of stick '$id' incomplete; retry with: tests/stick down $id"
	return $rc
}

# ---------------------------------------------------------------------------- reattach

_stick_fsck() {
	local dev=$1 rc=0
	case $STICK_FS in
	ext4) STICK_FSCK_OUT=$(e2fsck -fn "$dev" 2>&1) || rc=$? ;;
	exfat) STICK_FSCK_OUT=$(fsck.exfat -n "$dev" 2>&1) || rc=$? ;;
	xfs) STICK_FSCK_OUT=$(xfs_repair -n "$dev" 2>&1) || rc=$? ;;
	btrfs) STICK_FSCK_OUT=$(btrfs check --readonly "$dev" 2>&1) || rc=$? ;;
	fat32) STICK_FSCK_OUT=$(fsck.vfat -n "$dev" 2>&1) || rc=$? ;;
	ntfs) STICK_FSCK_OUT=$(ntfsfix -n "$dev" 2>&1) || rc=$? ;;
	*) STICK_FSCK_OUT="no fsck for '$STICK_FS'" rc=0 ;;
	esac
	STICK_FSCK_RC=$rc
}

# Undoes the steps from the last one back to the first loop step, then forgets them:
# what is left in the log is exactly what still exists.
_stick_reattach_steps() {
	local file=$1 i first=-1 line steps=() _S_FS _S_MOPTS='' dir mskb
	# the new loop device gets the old one's request size, as stick_up set it
	mskb=$(cat "/sys/block/${STICK_DISK#/dev/}/queue/max_sectors_kb") || return 1
	mapfile -t steps <"$_STICK_REG/steps"
	for ((i = 0; i < ${#steps[@]}; i++)); do
		[[ ${steps[i]} == "loop "* ]] && { first=$i; break; }
	done
	((first >= 0)) || { _stick_err "stick $STICK_ID has no loop device"; return 1; }
	for ((i = ${#steps[@]} - 1; i >= first; i--)); do
		line=${steps[i]}
		# shellcheck disable=SC2086 # fields are paths we made, without blanks
		_stick_undo $line || return 1
	done
	printf '%s\n' "${steps[@]:0:first}" >"$_STICK_REG/steps"
	STICK_LOOPFILE=$file STICK_MNT='' STICK_MNTS=''
	_stick_attach "$file" || return 1
	_stick_log maxsect "$STICK_DISK" "$file"
	echo "$mskb" >"/sys/block/${STICK_DISK#/dev/}/queue/max_sectors_kb" || return 1
	STICK_DEV=$STICK_DISK
	_S_FS=$STICK_FS
	[[ $STICK_FS == none ]] && { STICK_FSCK_RC=0 STICK_FSCK_OUT=''; return 0; }
	dir="$STICK_MNT_BASE/$STICK_ID"
	# mounting replays the journal, so fsck judges the filesystem, not the replay
	_stick_mount "$STICK_DEV" "$dir" || return 1
	_stick_undo_last_mount "$dir" || return 1
	_stick_fsck "$STICK_DEV"
	_stick_mount "$STICK_DEV" "$dir" || return 1
	STICK_MNT=$dir STICK_MNTS=$dir
}

# Unmount DIR as the undo of its mount (and fuse) steps would, keeping the steps.
_stick_undo_last_mount() {
	local line
	line=$(awk -v d="$1" '$1 == "fuse" && $2 == d' "$_STICK_REG/steps" | tail -n 1)
	if [[ -n $line ]]; then
		# shellcheck disable=SC2086
		_stick_undo $line || return 1
	else
		_stick_undo_mount "$STICK_DEV" "$1" || return 1
	fi
	# the next _stick_mount logs its own steps; drop these two so the log stays exact
	awk -v d="$1" '!(($1 == "mount" && $3 == d) || ($1 == "fuse" && $2 == d) || ($1 == "mkdir" && $2 == d))' \
		"$_STICK_REG/steps" >"$_STICK_REG/steps.new" && mv "$_STICK_REG/steps.new" "$_STICK_REG/steps"
	rmdir "$1"
}

stick_reattach() {
	local id=${1-} file=${2-} _STICK_REG _STICK_IMG rc=0
	_STICK_REG="$STICK_REGISTRY/$id"
	_STICK_IMG="$STICK_BACKING_DIR/safecp-$id.img"
	[[ -n $id && -f $_STICK_REG/vars ]] || { _stick_err "no stick '$id'"; return 1; }
	stick_load "$id" || return 1
	[[ -z $STICK_PARTS ]] || { _stick_err "stick_reattach: stick '$id' has partitions"; return 2; }
	[[ -n $file ]] || file=$STICK_IMG
	[[ -f $file ]] || { _stick_err "stick_reattach: no file '$file'"; return 1; }
	# No lock: the daemons mounted here would inherit it (only the owner reattaches; a
	# teardown by anyone else needs the owner dead).
	_stick_reattach_steps "$file" || rc=1
	local _S_FS=$STICK_FS _S_RATE=0
	_stick_save_vars_to "$_STICK_REG"
	return $rc
}

stick_list_ids() {
	local reg
	for reg in "$STICK_REGISTRY"/stick.*; do
		[[ -d $reg ]] || continue
		if [[ ${1-} == --stale ]]; then
			# The owner file is looked for first: one written between a failed
			# _stick_owner_alive and that look made a new stick of a live owner
			# (another run's stick_up, mid-mktemp) stale, and cleanup took it down.
			if [[ -f $reg/owner ]]; then
				_stick_owner_alive "$reg" && continue
			else
				# no owner file yet: stick_up may be between mktemp and writing it
				[[ $(find "$reg" -maxdepth 0 -mmin +1) ]] || continue
			fi
		fi
		echo "${reg##*/}"
	done
}

stick_down_all() {
	local reg pid start me rc=0 self=$BASHPID
	me=$(_stick_pid_id "$self")
	for reg in "$STICK_REGISTRY"/stick.*; do
		read -r pid start 2>/dev/null <"$reg/owner" || continue
		[[ $pid == "$self" && $start == "$me" ]] || continue
		stick_down "${reg##*/}" || rc=1
	done
	return $rc
}

stick_load() {
	local f="$STICK_REGISTRY/${1-}/vars"
	[[ -n ${1-} && -f $f ]] || { _stick_err "no stick '${1-}'"; return 1; }
	eval "$(<"$f")"
}

# For scripts (not bats, which has its own traps): tear down on any way out.
stick_trap() {
	trap 'stick_down_all' EXIT
	trap 'stick_down_all; trap - INT; kill -INT $BASHPID' INT
	trap 'stick_down_all; trap - TERM; kill -TERM $BASHPID' TERM
	trap 'stick_down_all; trap - HUP; kill -HUP $BASHPID' HUP
}

# ---------------------------------------------------------------------------- measuring

# debugfs counters are kB; per-cpu approximations (doc/kernel.md 4.1).
stick_pending_bytes() {
	awk '/^BdiReclaimable:|^BdiWriteback:/ { kb += $2 } END { if (NR) print kb * 1024; else exit 1 }' \
		"/sys/kernel/debug/bdi/$1/stats" 2>/dev/null
}

# Field 7 of the block stat file: sectors written, counted on completion.
stick_written_bytes() {
	local s
	read -r -a s <"/sys/dev/block/$1/stat" || return 1
	echo $((s[6] * 512))
}
