#!/usr/bin/env bats
# tests/bats/safecp_progress.bats: progress that is the device's truth, and the dirty
# bound, measured from outside safecp with the kernel's own counters on simulated
# 20 MiB/s sticks:
# - the JSON events parse, come in the documented order and carry the documented fields;
# - bytes_on_device never exceeds what the device's sector counter had completed by the
#   event's time t (a sampler reads /sys/dev/block/MAJ:MIN/stat in the background);
# - "done" comes only when the device's bdi has nothing dirty or under writeback left;
# - debugfs BdiReclaimable+BdiWriteback sampled every 50 ms stays within 24 MiB;
# - on ext4, xfs, btrfs and through FUSE (exfat, fat32, ntfs) where the rows apply;
# - the bar and the plain lines never show 100% before the end.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC"
	SAMPLER_PID=
}

teardown() {
	stop_sampler
	stick_down_all
}

@test "JSON events parse, in order, with every documented field" {
	stick_up --size 96
	mkdir -p "$SRC/t/sub"
	make_file "$SRC/t/big" $((24 * MIB + 1))
	make_file "$SRC/t/sub/small" 4097
	make_file "$SRC/t/empty" 0
	ln -s big "$SRC/t/link"
	local ev=$BATS_TEST_TMPDIR/events total nfiles
	total=$(find "$SRC/t" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	nfiles=$(find "$SRC/t" -type f -o -type l | wc -l)
	safecp -r --progress=json "$SRC/t" "$STICK_MNT"/ >"$ev"
	# one object per line, each valid JSON
	[[ $(jq -c . "$ev" | wc -l) == $(wc -l <"$ev") ]]
	jq -s -e 'first.event == "start" and last.event == "done"
		and (map(select(.event == "done")) | length == 1)' "$ev"
	jq -s -e 'all(.[]; (.t | type == "number") and (.event | type == "string"))' "$ev"
	jq -s -e 'map(.t) as $t | $t == ($t | sort)' "$ev"
	jq -s -e --argjson total "$total" 'first | .bytes_total == $total
		and ([.files, .directories, .symlinks, .skipped, .kept, .window, .chunk,
		      .space_needed, .space_free] | all(type == "number"))
		and ([.dest, .mountpoint, .fstype, .device, .disk, .strategy, .reason]
		     | all(type == "string"))' "$ev"
	# progress: the fields and their types, and it moves forward
	jq -s -e --argjson total "$total" 'map(select(.event == "progress")) as $p
		| ($p | length) >= 2
		and ($p | all(.bytes_total == $total
			and (.bytes_on_device | type == "number")
			and .bytes_on_device <= .bytes_written and .bytes_written <= .bytes_total
			and (.file | type == "string" or type == "null")
			and (.phase == "copying" or .phase == "flushing")
			and (.rate | type == "number" or type == "null")
			and (.eta | type == "number" or type == "null")
			and (.waiting_other_bytes | type == "number")))
		and ($p | map(.bytes_on_device) | . == sort)' "$ev"
	# each regular file started and finished, in that order
	jq -s -e '[.[] | select(.event == "file" and .type == "file")] as $f
		| ($f | map(select(.state == "started")) | length) == 3
		and ($f | map(select(.state == "finished")) | length) == 3
		and ($f | all((.file | type == "string") and (.source | type == "string")
			and (.dest | type == "string") and (.bytes | type == "number")))' "$ev"
	jq -s -e --argjson total "$total" --argjson n "$nfiles" 'last
		| .bytes_total == $total and .bytes_on_device == $total
		and .files == $n and .errors == 0' "$ev"
}

@test "JSON error events for a source that cannot be read" {
	stick_up --size 64
	make_file "$SRC/a" 3000
	local ev=$BATS_TEST_TMPDIR/events
	run -1 --separate-stderr safecp --progress=json /proc/self/mem "$SRC/a" "$STICK_MNT"/
	printf '%s\n' "$output" >"$ev"
	jq -s -e 'map(select(.event == "error"))[0]
		| .step == "read" and .errno == 5 and .fatal == false
		and .file == "mem" and (.error | type == "string")
		and (.message | test("cannot read"))' "$ev"
	jq -s -e 'last | .event == "done" and .errors == 1 and .files == 1' "$ev"
	[[ $stderr == *"cannot read '/proc/self/mem'"* ]]
}

# progress_vs_device STRATEGY [STICK_UP ARGS...]: bytes_on_device at time t <= the
# device's completed sector count at the first sample taken at or after t.
progress_vs_device() {
	local strategy=$1
	shift
	stick_up --size 96 "$@"
	make_file "$SRC/f" $((40 * MIB + 12345))
	local ev=$BATS_TEST_TMPDIR/events samples=$BATS_TEST_TMPDIR/samples base
	base=$(disk_sectors_written "$STICK_MAJMIN")
	sample_sectors "$STICK_MAJMIN" "$samples"
	safecp --progress=json --strategy="$strategy" "$SRC/f" "$STICK_MNT"/ >"$ev"
	sleep 0.1
	stop_sampler
	cmp "$SRC/f" "$STICK_MNT/f"
	# by time; at equal times the sample sorts last (it was read after t)
	events_never_ahead "$ev" "$samples" "$base" 5
	# and it did count: the device held everything at the end
	jq -s -e --argjson total $((40 * MIB + 12345)) 'last.bytes_on_device == $total' "$ev"
}

@test "bytes_on_device is never ahead of the device (window strategy)" {
	progress_vs_device window
	# the window strategy writes ahead of the device, and the events show it
	jq -s -e 'any(.[]; .event == "progress" and .bytes_written > .bytes_on_device)' \
		"$BATS_TEST_TMPDIR/events"
}

@test "bytes_on_device is never ahead of the device (direct strategy)" {
	progress_vs_device direct
}

# fusefat's fsync writes nothing (doc/kernel.md 1.5): without the device sync after each
# window every event would claim bytes still dirty in the device's cache
@test "bytes_on_device is never ahead of the device (fat32, fusefat)" {
	require_cmd fusefat
	progress_vs_device sync-window --fs fat32
	fat_readback "$SRC" ""
}

@test "bytes_on_device is never ahead of the device (ntfs, ntfs-3g)" {
	require_cmd ntfs-3g
	progress_vs_device sync-window --fs ntfs
}

# done_when_clean [STICK_UP ARGS...]: reads the device's pending bytes the moment the
# done event arrives.
done_when_clean() {
	stick_up --size 128 "$@"
	make_file "$SRC/f" $((32 * MIB + 1))
	local before at_done=$BATS_TEST_TMPDIR/at_done slack
	before=$(disk_written_bytes "$STICK_MAJMIN")
	safecp --progress=json "$SRC/f" "$STICK_MNT"/ | while IFS= read -r line; do
		if [[ $line == *'"event":"done"'* ]]; then
			echo "$(stick_pending_bytes "$STICK_MAJMIN") $(disk_written_bytes "$STICK_MAJMIN")" >"$at_done"
		fi
	done
	((PIPESTATUS[0] == 0))
	read -r pending written <"$at_done"
	slack=$(percpu_slack)
	echo "pending at done: $pending (slack $slack); written $((written - before))"
	((pending <= slack))
	((written - before >= 32 * MIB + 1))
	cmp "$SRC/f" "$STICK_MNT/f"
}

@test "done comes only when the device is clean (ext4)" {
	done_when_clean --fs ext4
}

@test "done comes only when the device is clean (exfat through FUSE)" {
	require_cmd mount.exfat-fuse
	done_when_clean --fs exfat
}

@test "done comes only when the device is clean (fat32 through fusefat)" {
	require_cmd fusefat
	done_when_clean --fs fat32
}

@test "done comes only when the device is clean (ntfs through ntfs-3g)" {
	require_cmd ntfs-3g
	done_when_clean --fs ntfs
}

# dirty_bound STRATEGY [STICK_UP ARGS...]: peak BdiReclaimable+BdiWriteback of the
# stick's disk during a 64 MiB copy at 20 MiB/s.
dirty_bound() {
	local strategy=$1
	shift
	stick_up --size 128 "$@"
	make_file "$SRC/f" $((64 * MIB))
	local samples=$BATS_TEST_TMPDIR/pending peak n
	sample_pending "$(stick_data_bdi)" "$samples"
	safecp -v --strategy="$strategy" "$SRC/f" "$STICK_MNT"/ >"$BATS_TEST_TMPDIR/verbose" 2>&1
	stop_sampler
	cmp "$SRC/f" "$STICK_MNT/f"
	n=$(wc -l <"$samples")
	peak=$(sort -n "$samples" | tail -1)
	echo "$n samples, peak $((peak / 1024)) KiB"
	((n >= 20))
	((peak <= ${DIRTY_LIMIT:-24 * MIB}))
	PEAK=$peak
}

@test "dirty data stays within 24 MiB: window on ext4" {
	dirty_bound window --fs ext4
	# the sampler does see the data the window strategy keeps in flight
	((PEAK >= MIB))
}

@test "dirty data stays within 24 MiB: auto on ext4" {
	dirty_bound auto --fs ext4
}

@test "dirty data stays within 24 MiB: auto on xfs" {
	dirty_bound auto --fs xfs --size 320
}

@test "dirty data stays within 24 MiB: auto on btrfs (data accounted on its own bdi)" {
	dirty_bound auto --fs btrfs --size 256
	[[ $(stick_data_bdi) == btrfs-* ]]
	# the window strategy keeps data in flight, so the sampler on btrfs-N must see it
	((PEAK >= MIB))
}

@test "window forced on FUSE switches to sync-window when the device's cache fills" {
	require_cmd mount.exfat-fuse
	# sync_file_range on a FUSE file is a no-op: the daemon's writes pile up dirty in
	# the loop device's cache until the writer's check sees it and switches.
	DIRTY_LIMIT=$((40 * MIB)) dirty_bound window --fs exfat
	grep -q 'switching to the sync-window strategy' "$BATS_TEST_TMPDIR/verbose" || {
		cat "$BATS_TEST_TMPDIR/verbose" >&2
		false
	}
	# three 8 MiB windows pile up in the device's cache before the check sees
	# more than two and drains at once; without it, the whole 64 MiB would
	((PEAK <= 28 * MIB))
}

@test "dirty data stays within 24 MiB: auto on exfat through FUSE" {
	require_cmd mount.exfat-fuse
	dirty_bound auto --fs exfat
}

# fusefat's fsync writes nothing: only the device sync after each window bounds it
@test "dirty data stays within 24 MiB: auto on fat32 through fusefat" {
	require_cmd fusefat
	dirty_bound auto --fs fat32
	fat_readback "$SRC" ""
}

@test "dirty data stays within 24 MiB: auto on ntfs through ntfs-3g" {
	require_cmd ntfs-3g
	dirty_bound auto --fs ntfs
}

@test "plain progress never shows 100% before the end, then says where the data is" {
	stick_up --size 96
	make_file "$SRC/f" $((40 * MIB))
	run -0 --separate-stderr safecp --progress=plain --strategy=window "$SRC/f" "$STICK_MNT"/
	echo "$stderr"
	local lines
	mapfile -t lines <<<"$stderr"
	((${#lines[@]} >= 3))
	[[ ${lines[-1]} == "40.0 MiB in 1 file is on $STICK_DISK and the device is idle" ]]
	[[ ${lines[-2]} == "100%"* ]]
	local i
	for ((i = 0; i < ${#lines[@]} - 2; i++)); do
		[[ ${lines[i]} =~ ^\ *[0-9]+% ]]
		[[ ${lines[i]} != 100%* ]]
	done
}

@test "the bar on a terminal reaches 100% only in its last drawing" {
	require_cmd script
	stick_up --size 96
	make_file "$SRC/f" $((24 * MIB))
	local log=$BATS_TEST_TMPDIR/typescript
	COLUMNS=120 script -qec "safecp '$SRC/f' '$STICK_MNT/'" "$log" >/dev/null
	cmp "$SRC/f" "$STICK_MNT/f"
	local draws
	draws=$(tr '\r' '\n' <"$log" | grep -E '^\[[#.]+\] +[0-9]+%')
	echo "$draws"
	(($(wc -l <<<"$draws") >= 2))
	[[ $(tail -1 <<<"$draws") == *" 100% "* ]]
	[[ $(head -n -1 <<<"$draws" | grep -c ' 100% ') == 0 ]]
	grep -q "24.0 MiB in 1 file is on $STICK_DISK and the device is idle" "$log"
}

# other_data_dirty MIB: a plain cp of MIB MiB to the stick, not synced, as a user's cp
# just before safecp leaves it; then checks the premise, at least 8 MiB of it still to
# reach the device. 24 MiB keep safecp waiting 3 s at 8 MiB/s, several progress events
# and redraws.
other_data_dirty() {
	make_file "$BATS_TEST_TMPDIR/other.bin" $(($1 * MIB))
	cp "$BATS_TEST_TMPDIR/other.bin" "$STICK_MNT/other.bin"
	local pending
	pending=$(bdi_pending_bytes "$STICK_MAJMIN")
	echo "other data pending: $pending"
	((pending >= 8 * MIB))
}

# no_eta_zero_before_end FILE: no line or redraw below 100% says "0:00" (an ETA rounded
# to nothing while the final sync still runs, ux 15).
no_eta_zero_before_end() {
	local bad
	bad=$(tr '\r' '\n' <"$1" | grep -E '^(\[[#.]*\] +)? *[0-9]{1,2}%.* 0:00( |$)' || true)
	[[ -z $bad ]] || { echo "before 100% and 0:00: $bad" >&2; return 1; }
}

@test "a stick busy with other data: the plain lines say what they wait for, on which device" {
	stick_up --size 128 --rate $((8 * MIB))
	make_file "$SRC/small" $((2 * MIB))
	other_data_dirty 24
	run --separate-stderr safecp --progress=plain "$SRC/small" "$STICK_MNT/"
	echo "$stderr"
	((status == 0))
	cmp "$SRC/small" "$STICK_MNT/small"
	# "waiting  for 21.0 MiB of other data on /dev/loop0 ahead of ours (7.98 MiB/s, 0:03)"
	grep -qE "  waiting  for [0-9.]+ [KMG]iB of other data on $STICK_DISK ahead of ours( \(|\$)" \
		<<<"$stderr"
	no_eta_zero_before_end <(printf '%s\n' "$stderr")
	[[ $(tail -1 <<<"$stderr") == *" is on $STICK_DISK and the device is idle"* ]]
}

@test "a stick busy with other data: JSON progress events carry waiting_other_bytes" {
	stick_up --size 128 --rate $((8 * MIB))
	make_file "$SRC/small" $((2 * MIB))
	other_data_dirty 24
	local ev=$BATS_TEST_TMPDIR/events
	safecp --progress=json "$SRC/small" "$STICK_MNT/" >"$ev"
	jq -s -e 'map(select(.event == "progress")) | length >= 2
		and all(.waiting_other_bytes | type == "number")
		and any(.waiting_other_bytes >= 1048576)' "$ev"
	# the figure falls as the device drains, and ends at nothing
	jq -s -e 'map(select(.event == "progress") | .waiting_other_bytes) | first > last' "$ev"
}

@test "the bar at 60 columns with TERM=dumb: waiting or syncing, never ETA 0:00 before 100%" {
	require_cmd script
	stick_up --size 128 --rate $((8 * MIB))
	make_file "$SRC/small" $((2 * MIB))
	other_data_dirty 24
	local log=$BATS_TEST_TMPDIR/typescript
	TERM=dumb COLUMNS=60 script -qfec "stty cols 60; safecp '$SRC/small' '$STICK_MNT/'" \
		"$log" >/dev/null
	cmp "$SRC/small" "$STICK_MNT/small"
	local draws
	draws=$(tr '\r' '\n' <"$log" | grep -E '^\[[#.]+\] +[0-9]+%')
	echo "$draws"
	grep -qE ' [0-9]{1,2}% .*(waiting|syncing)' <<<"$draws"
	no_eta_zero_before_end "$log"
	# a line fits the 60 columns: 59 at most
	(($(awk '{ if (length > m) m = length } END { print m }' <<<"$draws") <= 59))
}

# bar_draws WIDTH: copies $SRC/DCIM to the stick in a pty of WIDTH columns with
# TERM=dumb and prints each drawing of the bar on a line of its own.
bar_draws() {
	local log=$BATS_TEST_TMPDIR/typescript.$1
	TERM=dumb script -qfec "stty cols $1; safecp -r '$SRC/DCIM' '$STICK_MNT/'" "$log" >/dev/null
	tr '\r' '\n' <"$log" | grep -E '^(\[[#.]+\] +)? *[0-9]+%'
}

# no_bare_pending DRAWS: the bytes written and not yet on the device are never a bare
# "+543 B" (ux 14): the field says "pending".
no_bare_pending() {
	local bad
	bad=$(grep -E '  \+[0-9.]+ ([KMGT]i)?B( |$)' <<<"$1" | grep -v ' pending' || true)
	[[ -z $bad ]] || { echo "a bare pending field: $bad" >&2; return 1; }
}

@test "the bar at 80 columns keeps the file name over the pending bytes; 40 columns fit" {
	require_cmd script
	stick_up --size 128 --rate $((8 * MIB))
	mkdir -p "$SRC/DCIM"
	local i draws
	for i in 1 2 3 4; do make_file "$SRC/DCIM/IMG_000$i.JPG" $((5 * MIB + 543)); done
	draws=$(bar_draws 80)
	echo "$draws"
	no_bare_pending "$draws"
	# the name is there while the copy moves, not only before the first byte
	grep -qE '^\[[#.]+\] +([1-9]|[1-9][0-9])% .*  DCIM/IMG_000[1-4]\.JPG *$' <<<"$draws"
	(($(awk '{ sub(/ +$/, ""); if (length > m) m = length } END { print m }' <<<"$draws") <= 79))
	rm -rf "${STICK_MNT:?}/DCIM"
	sync
	draws=$(bar_draws 40)
	echo "$draws"
	no_bare_pending "$draws"
	(($(awk '{ if (length > m) m = length } END { print m }' <<<"$draws") <= 39))
	cmp "$SRC/DCIM/IMG_0004.JPG" "$STICK_MNT/DCIM/IMG_0004.JPG"
}

@test "the FAT/exFAT modes note names the stick and its filesystem, once, not a file" {
	stick_up --fs exfat --size 64 --rate 0
	mkdir -p "$SRC/DCIM"
	local i
	for i in 1 2 3; do make_file "$SRC/DCIM/IMG_003$i.JPG" 3000; done
	run -0 --separate-stderr safecp -r -p "$SRC/DCIM" "$STICK_MNT/"
	echo "$stderr"
	[[ $(grep -c 'does not store owners, file modes' <<<"$stderr") == 1 ]]
	grep -qF "note: '$STICK_MNT' (exFAT): this filesystem does not store owners, file modes" <<<"$stderr"
	refute grep -q 'IMG_003' <<<"$stderr"
}
