#!/usr/bin/env bats
# tests/bats/dirtystat.bats: dirtystat against the kernel's own counters on simulated
# sticks (ext4, xfs, btrfs, and the FUSE daemons exfat-fuse, fusefat, ntfs-3g), against
# captured /proc and /sys trees
# (--sysroot, no root needed), and its command-line contract (options, exit codes,
# --help versus the man page and the completions).
#
# Sticks write through a 20 MiB/s throttle. 200 MiB copied with plain cp stays dirty:
# it is far below the background threshold here and younger than dirty_expire (30 s),
# so the kernel holds it while we compare; the throttle is then lifted and `sync FILE`
# drains it at once.
# tests/run: alone: plain cp's dirty data must stay unwritten while it is compared, and
# another suite's writes can start background writeback on every device

load helpers

FIX=$SAFECP_SRC/tests/fixtures/dirtystat-usb
MAN=$SAFECP_SRC/man/dirtystat.1.scd
MIB=1048576

setup_file() {
	# the data to copy lives on tmpfs, so making it dirties no disk
	export DS_SRC=/dev/shm/dirtystat-bats.$$
	if ((EUID == 0)); then
		head -c $((200 * MIB)) /dev/urandom >"$DS_SRC"
	fi
}

teardown_file() {
	rm -f "$DS_SRC"
}

setup() {
	require_tool dirtystat
}

# The per-cpu error of one bdi counter is nr_cpu_ids * 8 * (1 + ilog2(nr_cpu_ids)) pages
# (doc/kernel.md 4.1); dirty + writeback sums two counters.
percpu_slack() {
	local n l=0
	n=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
	while (((1 << (l + 1)) <= n)); do l=$((l + 1)); done
	echo $((2 * n * 8 * (1 + l) * $(getconf PAGESIZE)))
}

# The bdi that accounts a stick's data, found without dirtystat: btrfs has its own
# (sysfs fs/btrfs/UUID/bdi), everything else (fuseblk too) the disk's.
stick_bdi() {
	local uuid
	if [[ $STICK_FS == btrfs ]]; then
		uuid=$(blkid -s UUID -o value "$STICK_DEV")
		basename "$(readlink "/sys/fs/btrfs/$uuid/bdi")"
	else
		echo "$STICK_MAJMIN"
	fi
}

# jq_num JSON FILTER: a number out of a JSON line, failing on null.
jq_num() {
	jq -e "$2 | numbers" <<<"$1"
}

# The main check, for one filesystem: figures of a freshly copied file and its device
# against debugfs, then after fsync and sync.
check_cp_fsync_sync() {
	local fs=$1 bdi before after json pending file_pending tol=0
	require_root
	# room to spare: ext4 starts writeback early when dirty delalloc data nears half the
	# free space (fs/ext4/inode.c ext4_nonda_switch), which a 400 MiB stick reaches
	stick_up --fs "$fs" --size 1024
	bdi=$(stick_bdi)
	cp "$DS_SRC" "$STICK_MNT/f"

	before=$(bdi_pending_bytes "$bdi")
	json=$(dirtystat --json "$STICK_MNT" "$STICK_MNT/f")
	after=$(bdi_pending_bytes "$bdi")
	echo "bdi $bdi: debugfs before $before, after $after; dirtystat: $json"
	# the copy is still in memory, or the comparison below proves nothing
	((before > 150 * MIB))
	[ "$(jq -r '.devices[0].bdi' <<<"$json")" = "$bdi" ]
	[ "$(jq -r '.devices[0].source' <<<"$json")" = debugfs ]
	# dirtystat read between the two debugfs reads; the data only drains meanwhile
	# (nothing else writes to the stick), and only does if someone runs sync
	pending=$(jq_num "$json" '.devices[0].dirty_bytes + .devices[0].writeback_bytes')
	((pending >= after - 2 * MIB && pending <= before + 2 * MIB))

	file_pending=$(jq_num "$json" '.files[0].dirty_bytes + .files[0].writeback_bytes')
	if [[ $fs == exfat || $fs == fat32 || $fs == ntfs ]]; then
		# write-through FUSE: the file's pages are never dirty (and cached only as the
		# kernel sees fit), the device's are
		[ "$file_pending" -eq 0 ]
		[ "$(jq -r '.files[0].blockdev.path' <<<"$json")" = "$STICK_DEV" ]
		file_pending=$(jq_num "$json" '.files[0].blockdev.dirty_bytes + .files[0].blockdev.writeback_bytes')
		tol=$((2 * MIB)) # the bdev cache holds exfat's metadata blocks too
	else
		[ "$(jq '.files[0].blockdev' <<<"$json")" = null ]
		[ "$(jq_num "$json" '.files[0].cached_bytes')" -eq $((200 * MIB)) ]
	fi
	# the file is all the stick's dirty data (exfat: plus a few metadata blocks)
	assert_within "$file_pending" "$pending" $((2 * MIB))
	if ((before >= 200 * MIB)); then # no writeback had started: all of it is pending
		assert_within "$file_pending" $((200 * MIB)) "$tol"
	fi

	# the figures above needed the data held back; draining it needs no slow device
	# (10 s a filesystem at 20 MiB/s, twice per CI run), but on fusefat the fsync
	# below must be seen to leave it in place: there the stick slows to 1 MiB/s
	if [[ $fs == fat32 ]]; then
		stick_throttle "$STICK_ID" "$MIB"
	else
		stick_throttle "$STICK_ID" 0
	fi
	sync "$STICK_MNT/f" # fsync(2)
	json=$(dirtystat --json "$STICK_MNT/f")
	[ "$(jq_num "$json" '.files[0].dirty_bytes + .files[0].writeback_bytes')" -eq 0 ]
	if [[ $fs == fat32 ]]; then
		# fusefat's fsync is a stub (doc/kernel.md 1.5): the data is still in the
		# device's cache, and dirtystat shows it there. Writeback may have begun, but
		# it drains little at 1 MiB/s, while a real flush leaves nothing.
		pending=$(jq_num "$json" '.files[0].blockdev.dirty_bytes + .files[0].blockdev.writeback_bytes')
		echo "after fsync on fusefat: $pending bytes still pending on $STICK_DEV, $after before it"
		((pending >= after / 2))
		stick_throttle "$STICK_ID" 0
	elif [[ $fs == exfat || $fs == ntfs ]]; then
		[ "$(jq_num "$json" '.files[0].blockdev.dirty_bytes + .files[0].blockdev.writeback_bytes')" -eq 0 ]
	fi

	sync
	json=$(dirtystat --json "$STICK_MNT")
	pending=$(jq_num "$json" '.devices[0].dirty_bytes + .devices[0].writeback_bytes')
	((pending <= $(percpu_slack)))
	jq -e '.devices[0].eta_s == 0' <<<"$json"
}

@test "ext4 stick: device and file figures agree with debugfs, clean after fsync and sync" {
	check_cp_fsync_sync ext4
}

@test "xfs stick: device and file figures agree with debugfs, clean after fsync and sync" {
	check_cp_fsync_sync xfs
}

@test "btrfs stick: the btrfs bdi's figures, clean after fsync and sync" {
	check_cp_fsync_sync btrfs
}

@test "exfat-fuse stick: the dirty data shows on the underlying block device" {
	check_cp_fsync_sync exfat
}

@test "fat32 (fusefat) stick: the dirty data shows on the block device, and stays there after fsync" {
	require_cmd fusefat
	check_cp_fsync_sync fat32
}

@test "ntfs (ntfs-3g) stick: the dirty data shows on the underlying block device" {
	require_cmd ntfs-3g
	check_cp_fsync_sync ntfs
}

@test "no arguments: a stick with dirty data has its row, with its mount point" {
	require_root
	stick_up --size 400
	head -c $((40 * MIB)) "$DS_SRC" >"$STICK_MNT/g"
	run -0 dirtystat --json
	jq -e --arg m "$STICK_MAJMIN" --arg p "$STICK_MNT" \
		'.devices[] | select(.majmin == $m) | .mountpoints == [$p] and .fstype == "ext4"
		 and .dirty_bytes + .writeback_bytes >= 39 * 1048576' <<<"$output"
	run -0 dirtystat
	[[ $output =~ ${STICK_DISK#/dev/}\ +$STICK_MNT\ +ext4\  ]]
}

@test "--watch --json --count during cp: dirty rises, then drains to zero" {
	require_root
	stick_up --size 400
	local log=$BATS_TEST_TMPDIR/watch.jsonl pid slack
	slack=$(percpu_slack)
	dirtystat --json --watch=0.2 --count=300 "$STICK_MNT" >"$log" &
	pid=$!
	sleep 0.5
	head -c $((40 * MIB)) "$DS_SRC" >"$STICK_MNT/g"
	sync
	# the watch's readings after the sync: on a loaded machine a reading
	# may come late, so wait (up to 10 s) for one that shows the drain
	local i
	for ((i = 0; i < 50; i++)); do
		sleep 0.2
		tail -n 1 "$log" | jq -e --argjson s "$slack" \
			'.devices[0].dirty_bytes + .devices[0].writeback_bytes <= $s' >/dev/null 2>&1 && break
	done
	sleep 0.3
	kill -INT "$pid"
	wait "$pid" # SIGINT ends --watch with status 0

	jq -c '[.t, .devices[0].dirty_bytes + .devices[0].writeback_bytes]' "$log" >"$log.series"
	cat "$log.series"
	# timestamps increase; the series rises from near 0 to most of the 40 MiB, and ends drained
	jq -se 'map(.[0]) | . == sort and (. | unique | length) == length' "$log.series"
	jq -se --argjson s "$slack" --argjson m $MIB '
		(map(.[1]) | index(max)) as $top
		| (.[0][1] <= $s) and (.[$top][1] >= 30 * $m) and (.[-1][1] <= $s)
		and ([.[$top:][] | .[1]] | length > 1)' "$log.series"
	jq -se 'any(.[]; .devices[0].write_bytes_per_s > 0)' "$log"
}

@test "--json has the documented fields, each documented in the man page" {
	local keys json k
	json=$(dirtystat --json --sysroot "$FIX" /media/user/STICK)
	keys=$(jq -r '[paths | map(strings) | last // empty] | unique | .[]' <<<"$json")
	for k in t interval_s system dirty_bytes writeback_bytes writeback_tmp_bytes \
		dirty_threshold_bytes background_threshold_bytes throttle_threshold_bytes vm \
		dirty_ratio dirty_background_ratio dirty_background_bytes \
		dirty_expire_centisecs dirty_writeback_centisecs devices majmin name bdi \
		mountpoints fstype removable write_bytes_per_s eta_s source \
		bdi_dirty_threshold_bytes inflight_writes files; do
		grep -qx -- "$k" <<<"$keys" || { echo "no field $k in $json"; false; }
	done
	# and nothing undocumented
	while read -r k; do
		grep -q -- "\*$k\*" "$MAN" || { echo "field $k is not in dirtystat(1)"; false; }
	done <<<"$keys"
}

@test "file figures: the documented fields, and blockdev null off fuseblk" {
	local f=$BATS_TEST_TMPDIR/file k
	printf 'hello' >"$f"
	run -0 dirtystat --json "$f"
	for k in path fstype cached_bytes dirty_bytes writeback_bytes error blockdev; do
		jq -e --arg k "$k" '.files[0] | has($k)' <<<"$output"
		grep -q -- "\*$k\*" "$MAN"
	done
	[ "$(jq -r '.files[0].path' <<<"$output")" = "$f" ]
	[ "$(jq '.files[0].blockdev' <<<"$output")" = null ]
}

@test "a missing path exits 2 with the error" {
	run -2 dirtystat /nonexistent/x
	[ "$output" = "dirtystat: cannot access '/nonexistent/x': No such file or directory" ]
	run -2 dirtystat / "$BATS_TEST_TMPDIR/missing"
	[ "$output" = "dirtystat: cannot access '$BATS_TEST_TMPDIR/missing': No such file or directory" ]
}

@test "bad options and values exit 2 and name the culprit" {
	run -2 dirtystat --frobnicate
	[[ $output == "dirtystat: unknown option '--frobnicate'"* ]]
	run -2 dirtystat --watch=soon
	[[ $output == *"invalid interval 'soon'"* ]]
	run -2 dirtystat --watch=0
	run -2 dirtystat --count=0
	run -2 dirtystat --count=-1
	run -2 dirtystat --count
}

@test "--watch takes a following number as the interval and anything else as a PATH" {
	run -0 dirtystat --sysroot "$FIX" --json --watch 0.1 --count 2
	[ "${#lines[@]}" -eq 2 ]
	run -0 dirtystat --sysroot "$FIX" --json --watch /media/user/STICK --count=1
	[ "$(jq -r '.devices[0].mountpoints[0]' <<<"$output")" = /media/user/STICK ]
}

# The one human form of rates and durations (cmd/common/format.h) in dirtystat's output,
# on a stick that is writing: RATE a size per second, ETA M:SS (H:MM:SS from an hour).
@test "a device writing: RATE as '19.8 MiB/s', ETA as M:SS, in the --watch lines and the table" {
	require_root
	stick_up --size 400 --rate 20971520
	local log=$BATS_TEST_TMPDIR/lines spid
	head -c $((60 * MIB)) "$DS_SRC" >"$STICK_MNT/g"
	sync "$STICK_MNT/g" &
	spid=$!
	dirtystat --watch=0.2 --count=8 "$STICK_MNT" >"$log"
	run -0 dirtystat "$STICK_MNT"
	wait "$spid"
	cat "$log"
	echo "$output"
	# every rate and ETA of the lines is in the one form; at least one is a running ETA
	refute grep -vE " rate ([0-9.]+ (B|KiB|MiB|GiB)/s|-) eta (-|waiting|\?|[0-9]+:[0-5][0-9](:[0-5][0-9])?)\$" "$log"
	grep -qE " rate [0-9.]+ (KiB|MiB)/s eta [0-9]+:[0-5][0-9]\$" "$log"
	# the table's RATE and ETA cells, in the same form
	[[ ${lines[-1]} =~ \ ([0-9.]+\ (B|KiB|MiB|GiB)/s|-)\ +(-|waiting|\?|[0-9]+:[0-5][0-9](:[0-5][0-9])?)$ ]]
	# not the old forms (9s, 3m05s, 2h07m)
	refute grep -qE " eta [0-9]+[smh]" "$log"
}

@test "--count=N prints N readings, one per line, into a pipe" {
	run -0 dirtystat --sysroot "$FIX" --count=3 --watch=0.05
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[2]} == *"system dirty "*" | dm-0 dirty "*" | sdb dirty 150 MiB writeback 12.0 MiB"* ]]
}

# The fixture: a USB stick sdb (vfat on sdb1, 150 MiB dirty, 12 MiB under writeback), an
# encrypted /srv on dm-0 (40 MiB dirty), the internal disk sda (64 KiB dirty: within the
# counters' error, so not shown), NFS /home, tmpfs /tmp.
fixture_kib() { # FILE KEY: the kB figure of a "Key: N kB" line
	awk -v k="$2:" '$1 == k { print $2 }' "$1"
}

run_as_nobody() {
	if ((EUID == 0)); then
		run setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	else
		run "$@"
	fi
}

@test "--sysroot: figures come from the captured tree, stable, without root" {
	local json sys dm
	run_as_nobody "$SAFECP_BUILD/cmd/dirtystat" --sysroot "$FIX" --json
	[ "$status" -eq 0 ]
	json=$output
	[ "$(jq -c '[.devices[].name]' <<<"$json")" = '["dm-0","sdb"]' ]
	sys=$FIX/proc
	[ "$(jq '.system.dirty_bytes' <<<"$json")" -eq $(($(fixture_kib "$sys/meminfo" Dirty) * 1024)) ]
	[ "$(jq '.system.dirty_threshold_bytes' <<<"$json")" -eq \
		$(($(awk '$1 == "nr_dirty_threshold" { print $2 }' "$sys/vmstat") * 4096)) ]
	[ "$(jq '.system.vm.dirty_ratio' <<<"$json")" -eq "$(cat "$sys/sys/vm/dirty_ratio")" ]
	dm=$FIX/sys/kernel/debug/bdi/253:0/stats
	[ "$(jq '.devices[0].dirty_bytes' <<<"$json")" -eq $(($(fixture_kib "$dm" BdiReclaimable) * 1024)) ]
	jq -e '.devices[1] | .majmin == "8:16" and .removable and .fstype == "vfat"
		and .mountpoints == ["/media/user/STICK"] and .dirty_bytes == 150 * 1048576
		and .writeback_bytes == 12 * 1048576 and .source == "debugfs"
		and .write_bytes_per_s == 0 and .eta_s == null and .inflight_writes == 1' <<<"$json"

	run_as_nobody "$SAFECP_BUILD/cmd/dirtystat" --sysroot "$FIX"
	[ "$status" -eq 0 ]
	local first=$output
	run_as_nobody "$SAFECP_BUILD/cmd/dirtystat" --sysroot "$FIX"
	[ "$output" = "$first" ]
	[[ $output == *"sdb     /media/user/STICK  vfat   150 MiB   12.0 MiB  0 B/s  waiting"* ]]
	[[ $output != *sda* ]]
	run -0 dirtystat --sysroot "$FIX" --bytes
	[[ $output == *"157286400   12582912"* ]]
}

@test "--sysroot PATH: NFS and tmpfs rows, and a PATH that is no mount point exits 2" {
	run -0 dirtystat --sysroot "$FIX" --json /home /tmp
	jq -e '.devices[0] | .name == "fileserver:/export/home" and .bdi == "0:52"
		and .dirty_bytes == 1048576 and .majmin == null' <<<"$output"
	jq -e '.devices[1] | .fstype == "tmpfs" and .dirty_bytes == null and .source == null' <<<"$output"
	run -2 dirtystat --sysroot "$FIX" /media/user/STICK/DCIM
	[[ $output == *"cannot access '/media/user/STICK/DCIM': not a mount point"* ]]
}

@test "without debugfs: estimates, labelled, with one note, and still exit 0" {
	local root=$BATS_TEST_TMPDIR/nodebugfs
	cp -a "$FIX" "$root"
	rm -r "$root/sys/kernel/debug"
	run -0 --separate-stderr dirtystat --sysroot "$root" --json
	[ "$(grep -c 'note: debugfs' <<<"$stderr")" -eq 1 ]
	# only the removable stick is shown: an estimate singles out no device
	jq -e '.devices == [.devices[] | select(.name == "sdb")] and .devices[0].source == "estimate"
		and .devices[0].dirty_bytes == .system.dirty_bytes
		and .devices[0].bdi_dirty_threshold_bytes == null' <<<"$output"
	run -0 --separate-stderr dirtystat --sysroot "$root"
	[[ $output == *"sdb     /media/user/STICK  vfat  <=190 MiB  <=12.0 MiB"* ]]
}

@test "without permission for cachestat: the file's figures are null, with a note, exit 0" {
	[[ -w /etc/passwd && EUID -ne 0 ]] && skip "this user may write /etc/passwd"
	run_as_nobody "$SAFECP_BUILD/cmd/dirtystat" --json /etc/passwd
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *"note: cannot read the page cache state of '/etc/passwd'"* ]]
	jq -e '.files[0] | .dirty_bytes == null and .error == "Operation not permitted"' <<<"${lines[-1]}"
}

@test "output that cannot be written is an error" {
	run -1 bash -c "'$SAFECP_BUILD/cmd/dirtystat' --sysroot '$FIX' >/dev/full"
	[[ $output == "dirtystat: cannot write to standard output: No space left on device" ]]
	run -1 bash -c "'$SAFECP_BUILD/cmd/dirtystat' --help >/dev/full"
}

@test "every long option in --help is in the man page and both completions, and no other" {
	local help opts o
	run -0 dirtystat --help
	help=$output
	opts=$(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | sort -u)
	[ -n "$opts" ]
	for o in $opts; do
		grep -q -- "$o\*" "$MAN" || { echo "$o not in dirtystat(1)"; false; }
		grep -qw -- "$o" "$SAFECP_SRC/completions/bash/dirtystat" || { echo "$o not in bash"; false; }
		grep -q -- "$o" "$SAFECP_SRC/completions/zsh/_dirtystat" || { echo "$o not in zsh"; false; }
	done
	for f in "$SAFECP_SRC/completions/bash/dirtystat" "$SAFECP_SRC/completions/zsh/_dirtystat"; do
		diff <(grep -v '^#' "$f" | grep -oE -- '--[a-z][a-z-]*' | sort -u) <(echo "$opts")
	done
}

@test "a FIFO or a character device as PATH is refused without opening it, exit 2" {
	local fifo=$BATS_TEST_TMPDIR/fifo dev
	mkfifo "$fifo"
	# O_PATH: no open(2) of the FIFO, so nothing can block (timeout is only a safety net)
	run -2 timeout 10 "$SAFECP_BUILD/cmd/dirtystat" "$fifo"
	[ "$output" = "dirtystat: cannot show '$fifo': it is a FIFO; give a regular file, a block device or a directory" ]
	run -2 --separate-stderr timeout 10 "$SAFECP_BUILD/cmd/dirtystat" --json /dev/null
	[ "$stderr" = "dirtystat: cannot show '/dev/null': it is a character device; give a regular file, a block device or a directory" ]
	# with --json the error is an event too; no system call failed, so no errno
	jq -e '.event == "error" and .path == "/dev/null" and .errno == null
		and (.message | startswith("cannot show"))' <<<"$output"
	# regular files and directories as before
	echo data >"$BATS_TEST_TMPDIR/file"
	run -0 --separate-stderr timeout 10 "$SAFECP_BUILD/cmd/dirtystat" --json "$BATS_TEST_TMPDIR/file" "$BATS_TEST_TMPDIR"
	jq -e --arg f "$BATS_TEST_TMPDIR/file" '.files | length == 1 and .[0].path == $f' <<<"$output"
	# and a block device, read through the checked descriptor
	dev=$(findmnt -no SOURCE /)
	[[ -b $dev ]] || skip "no block device under /"
	run -0 --separate-stderr timeout 10 "$SAFECP_BUILD/cmd/dirtystat" --json "$dev"
	jq -e --arg d "$dev" '.files | length == 1 and .[0].path == $d' <<<"$output"
}

@test "SAFECP_SYSROOT, a test seam, is ignored by a setuid copy (secure_getenv)" {
	require_root
	require_cmd setpriv
	local dir=$BATS_TEST_TMPDIR/suid
	mkdir -m 755 "$dir"
	chmod 755 "$BATS_TEST_TMPDIR"
	cp "$SAFECP_BUILD/cmd/dirtystat" "$dir/dirtystat"
	chmod 4755 "$dir/dirtystat"
	# honoured, the captured tree (which has no /proc/meminfo) would fail the reading
	SAFECP_SYSROOT=$SAFECP_SRC/tests/fixtures/unmount-system \
		run -0 --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups "$dir/dirtystat" --json
	jq -e '.system.dirty_bytes >= 0' <<<"$output"
	rm -f "$dir/dirtystat"
}

@test "--watch on a terminal with TERM=dumb or no TERM: plain lines, no cursor codes" {
	require_cmd script
	local log=$BATS_TEST_TMPDIR/typescript term
	for term in dumb ""; do
		TERM=$term script -qfec "stty cols 40; dirtystat --sysroot '$FIX' --watch=0.05 --count=3" \
			"$log" >/dev/null
		cat -v "$log"
		refute grep -q $'\033' "$log"
		[[ $(grep -c 'system dirty ' "$log") == 3 ]]
	done
	# a terminal that has them still gets the screen redrawn in place
	TERM=xterm script -qfec "stty cols 40; dirtystat --sysroot '$FIX' --watch=0.05 --count=2" \
		"$log" >/dev/null
	grep -q $'\033\\[H' "$log"
	# 40 columns: the redrawn screen is clipped to them
	(($(tr '\r' '\n' <"$log" | grep -v '^Script ' | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' |
		awk '{ if (length > m) m = length } END { print m }') <= 40))
}

@test "--watch at 60 columns: a long mount point is shortened, RATE and ETA stay" {
	require_cmd script
	local root=$BATS_TEST_TMPDIR/longmnt log=$BATS_TEST_TMPDIR/typescript
	local long=/run/media/someone/CAMERA_CARD_BACKUP_2026_12_05
	cp -a "$FIX" "$root"
	sed -i "s| /media/user/STICK | $long |" "$root/proc/self/mountinfo"
	TERM=xterm script -qfec "stty cols 60; dirtystat --sysroot '$root' --watch=0.05 --count=2" \
		"$log" >/dev/null
	local screen
	screen=$(tr '\r' '\n' <"$log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | grep -v '^Script ')
	echo "$screen"
	grep -q '^DEVICE  *MOUNTPOI[A-Z]*  *FS .* RATE  *ETA$' <<<"$screen"
	grep -q '^sdb  *\.\.\.[^ ]*_12_05  *vfat  *150 MiB  *12.0 MiB  *0 B/s  *waiting$' <<<"$screen"
	(($(awk '{ if (length > m) m = length } END { print m }' <<<"$screen") <= 60))
	# not on a screen: nothing is shortened (scripts read it)
	run -0 dirtystat --sysroot "$root"
	[[ $output == *"$long"* ]]
}

@test "an exFAT stick (fuseblk) is named exfat, as lsblk names it" {
	require_root
	stick_up --fs exfat --size 64
	run -0 dirtystat --json "$STICK_MNT"
	jq -e --arg m "$STICK_MAJMIN" '.devices[] | select(.majmin == $m) | .fstype == "exfat"' <<<"$output"
	run -0 dirtystat "$STICK_MNT"
	[[ $output =~ ${STICK_DISK#/dev/}\ +$STICK_MNT\ +exfat\  ]]
}

@test "an estimate of nothing reads '0 B', not '<=0 B'" {
	local root=$BATS_TEST_TMPDIR/nodebugfs
	cp -a "$FIX" "$root"
	rm -r "$root/sys/kernel/debug"
	sed -i 's/^Writeback: .*/Writeback:             0 kB/' "$root/proc/meminfo"
	run -0 --separate-stderr dirtystat --sysroot "$root"
	echo "$output"
	[[ $output =~ "sdb     /media/user/STICK  vfat  <=190 MiB"\ +"0 B  " ]]
	[[ $output != *"<=0 B"* ]]
}
