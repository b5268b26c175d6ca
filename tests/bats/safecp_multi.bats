#!/usr/bin/env bats
# tests/bats/safecp_multi.bats: one source, several destinations (-t DIR -t DIR ...),
# each at its own pace, on simulated sticks of different rates and filesystems:
# - every destination ends with the same content; JSON events carry "dest", each
#   destination says dest-done, and done lists every outcome;
# - each destination's bytes_on_device is never ahead of its own device's sector counter;
# - a slow destination does not hold a fast one back: it is detached and reads the
#   source again (source_bytes_reread > 0), with the same result;
# - a destination that fails (pulled stick) stops alone: the others finish, exit 1;
# - a refusal for one destination refuses the whole job before the first byte;
# - SIGINT stops them all with no partial file under a final name anywhere;
# - -n keeps what each destination has, destination by destination.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	EV=$BATS_TEST_TMPDIR/events
	ERR=$BATS_TEST_TMPDIR/stderr
	mkdir -p "$SRC"
	SAMPLER_PID= SAMPLER2_PID= COPY_PID=
}

teardown() {
	[[ -z $COPY_PID ]] || kill -9 "$COPY_PID" 2>/dev/null || true
	[[ -z $SAMPLER2_PID ]] || { kill "$SAMPLER2_PID" 2>/dev/null; wait "$SAMPLER2_PID" 2>/dev/null; } || true
	stop_sampler
	stick_down_all
}

# stick_as NAME STICK_UP_ARGS...: a stick whose variables are kept as NAME_MNT,
# NAME_MAJMIN, NAME_DISK, NAME_CTL.
stick_as() {
	local name=$1
	shift
	stick_up "$@"
	printf -v "${name}_MNT" %s "$STICK_MNT"
	printf -v "${name}_MAJMIN" %s "$STICK_MAJMIN"
	printf -v "${name}_DISK" %s "$STICK_DISK"
	printf -v "${name}_CTL" %s "${STICK_CTL-}"
}

# progress_never_ahead EVENTS DEST SAMPLES BASE: DEST's bytes_on_device at time t <=
# its device's completed sectors at the first sample at or after t.
progress_never_ahead() {
	local ev=$1 dest=$2 samples=$3 base=$4 joined=$BATS_TEST_TMPDIR/joined.$RANDOM
	jq -r --arg d "$dest" 'select((.event == "progress" or .event == "dest-done")
		and .dest == $d) | "E \(.t) \(.bytes_on_device)"' "$ev" >"$joined"
	awk '{ print "S", $1, $2 }' "$samples" >>"$joined"
	never_ahead "$joined" "$base" 3
}

@test "two sticks (ext4 20 MiB/s, exfat 8 MiB/s): same content, per-destination events and truth" {
	stick_as A --size 96 --rate $((20 * MIB))
	stick_as B --fs exfat --size 96 --rate $((8 * MIB))
	mkdir -p "$SRC/t/sub"
	make_file "$SRC/t/big" $((20 * MIB + 7))
	make_file "$SRC/t/sub/small" 4097
	make_file "$SRC/t/empty" 0
	local sa=$BATS_TEST_TMPDIR/sa sb=$BATS_TEST_TMPDIR/sb basea baseb
	basea=$(disk_sectors_written "$A_MAJMIN")
	baseb=$(disk_sectors_written "$B_MAJMIN")
	sample_sectors "$A_MAJMIN" "$sa"
	SAMPLER2_PID=$SAMPLER_PID
	sample_sectors "$B_MAJMIN" "$sb"
	safecp -r --progress=json "$SRC/t" -t "$A_MNT" -t "$B_MNT" >"$EV"
	sleep 0.1
	stop_sampler
	kill "$SAMPLER2_PID"; wait "$SAMPLER2_PID" 2>/dev/null || true; SAMPLER2_PID=
	assert_final_names_complete "$SRC/t" "$A_MNT/t"
	assert_final_names_complete "$SRC/t" "$B_MNT/t"
	[[ $(tree_digest "$SRC/t") == $(tree_digest "$A_MNT/t") ]]
	[[ $(tree_digest "$SRC/t") == $(tree_digest "$B_MNT/t") ]]
	assert_no_temporaries "$A_MNT"
	assert_no_temporaries "$B_MNT"
	# every event but the job's done names its destination, as given
	jq -s -e --arg a "$A_MNT" --arg b "$B_MNT" '
		map(select(.event != "done")) | all(.dest == $a or .dest == $b)' "$EV"
	jq -s -e --arg a "$A_MNT" --arg b "$B_MNT" '
		(map(select(.event == "dest-done")) | map(.dest) | sort) == ([$a, $b] | sort)
		and (map(select(.event == "start")) | length == 2)
		and last.event == "done"
		and (last.destinations | length == 2)
		and (last.destinations | all(.outcome == "ok" and .error == null and .files == 3
			and .bytes_on_device == '$((20 * MIB + 7 + 4097))'))
		and (last.source_bytes_read >= '$((20 * MIB + 7 + 4097))')' "$EV"
	progress_never_ahead "$EV" "$A_MNT" "$sa" "$basea"
	progress_never_ahead "$EV" "$B_MNT" "$sb" "$baseb"
	# the faster stick was not held to the slower one: it ended first
	jq -s -e --arg a "$A_MNT" 'map(select(.event == "dest-done")) | first.dest == $a' "$EV"
}

@test "three destinations (ext4, exfat, xfs) of a tree: identical everywhere" {
	stick_as A --size 64 --rate $((20 * MIB))
	stick_as B --fs exfat --size 64 --rate $((16 * MIB))
	stick_as C --fs xfs --rate $((12 * MIB))
	local s
	mkdir -p "$SRC/t/a/b" "$SRC/t/empty"
	for s in $AWKWARD_SIZES; do make_file "$SRC/t/f$s" "$s"; done
	make_file "$SRC/t/a/x" 70000
	make_file "$SRC/t/a/b/y" $((2 * MIB + 3))
	run -0 safecp -r -q "$SRC/t" -t "$A_MNT" -t "$B_MNT" -t "$C_MNT"
	[[ -z $output ]]
	local d
	for d in "$A_MNT" "$B_MNT" "$C_MNT"; do
		[[ $(tree_digest "$SRC/t") == $(tree_digest "$d/t") ]]
		assert_no_temporaries "$d"
	done
}

@test "three destinations (ext4, ntfs, fat32) of a tree: identical everywhere, fat32 never ahead" {
	require_cmd fusefat
	require_cmd ntfs-3g
	stick_as A --size 64 --rate $((20 * MIB))
	stick_as B --fs ntfs --size 64 --rate $((16 * MIB))
	# last, so that fat_readback judges it
	stick_as C --fs fat32 --size 64 --rate $((12 * MIB))
	local s sc=$BATS_TEST_TMPDIR/sc basec
	mkdir -p "$SRC/t/a/b" "$SRC/t/empty"
	for s in $AWKWARD_SIZES; do make_file "$SRC/t/f$s" "$s"; done
	make_file "$SRC/t/a/x" 70000
	make_file "$SRC/t/a/b/y" $((12 * MIB + 3))
	basec=$(disk_sectors_written "$C_MAJMIN")
	sample_sectors "$C_MAJMIN" "$sc"
	safecp -r --progress=json "$SRC/t" -t "$A_MNT" -t "$B_MNT" -t "$C_MNT" >"$EV"
	sleep 0.1
	stop_sampler
	local d
	for d in "$A_MNT" "$B_MNT" "$C_MNT"; do
		[[ $(tree_digest "$SRC/t") == $(tree_digest "$d/t") ]]
		assert_no_temporaries "$d"
	done
	# fusefat's fsync writes nothing: what counts there is the device's own syncs
	progress_never_ahead "$EV" "$C_MNT" "$sc" "$basec"
	fat_readback "$SRC/t" /t
}

@test "a slow destination is detached and reads the source again; both copies are right" {
	stick_as A --size 96 --rate 0
	stick_as B --size 96 --rate $((3 * MIB))
	make_file "$SRC/f" $((48 * MIB + 3))
	make_file "$SRC/g" $((1 * MIB))
	safecp --progress=json "$SRC/f" "$SRC/g" -t "$A_MNT" -t "$B_MNT" >"$EV"
	cmp "$SRC/f" "$A_MNT/f"
	cmp "$SRC/f" "$B_MNT/f"
	cmp "$SRC/g" "$B_MNT/g"
	# the 32 MiB ring cannot hold the distance: the slow one read again
	jq -s -e 'last.source_bytes_reread > 0
		and last.source_bytes_read > '$((48 * MIB + 3 + MIB))'' "$EV"
	jq -s -e 'last.destinations | all(.outcome == "ok")' "$EV"
}

@test "one stick pulled mid-copy: it stops with its device named, the other completes, exit 1" {
	stick_as A --size 64 --rate $((20 * MIB))
	stick_as B --faulty --size 64 --rate $((4 * MIB))
	local i
	mkdir -p "$SRC/t"
	for i in 1 2 3 4 5 6; do make_file "$SRC/t/f$i" $((3 * MIB + i)); done
	safecp -r --progress=json "$SRC/t" -t "$A_MNT" -t "$B_MNT" >"$EV" 2>"$ERR" &
	COPY_PID=$!
	wait_for 60 json_confirmed_at_least "$EV" $((4 * MIB))
	echo vanish >"$B_CTL"
	local rc=0
	wait "$COPY_PID" || rc=$?
	COPY_PID=
	((rc == 1)) || { cat "$ERR" >&2; return 1; }
	grep -q "$B_MNT" "$ERR"
	grep -q "the other destinations go on" "$ERR"
	[[ $(tree_digest "$SRC/t") == $(tree_digest "$A_MNT/t") ]]
	assert_no_temporaries "$A_MNT"
	jq -s -e --arg a "$A_MNT" --arg b "$B_MNT" 'last.event == "done"
		and (last.destinations | map({(.dest): .outcome}) | add) == {($a): "ok", ($b): "failed"}
		and (last.destinations[] | select(.dest == $b) | .error | type == "string")' "$EV"
}

@test "a refusal for one destination refuses the whole job before the first byte" {
	stick_as A --size 64 --rate 0
	stick_as B --size 16 --rate 0
	make_file "$SRC/f" $((24 * MIB))
	local before
	before=$(disk_sectors_written "$A_MAJMIN")
	run -2 safecp --progress=json "$SRC/f" -t "$A_MNT" -t "$B_MNT"
	[[ $output == *'"event":"refused"'* ]]
	[[ $output == *no-space* ]]
	[[ ! -e $A_MNT/f && ! -e $B_MNT/f ]]
	assert_no_temporaries "$A_MNT"
	# nothing was written to the stick with room either
	(($(disk_sectors_written "$A_MAJMIN") == before))
}

@test "SIGINT stops every destination: no partial file under a final name anywhere, exit 130" {
	stick_as A --size 64 --rate $((6 * MIB))
	stick_as B --fs exfat --size 64 --rate $((3 * MIB))
	local i
	mkdir -p "$SRC/t"
	for i in 1 2 3 4 5 6; do make_file "$SRC/t/f$i" $((3 * MIB + i)); done
	safecp -r --progress=json "$SRC/t" -t "$A_MNT" -t "$B_MNT" >"$EV" 2>"$ERR" &
	COPY_PID=$!
	wait_for 60 json_confirmed_at_least "$EV" $((2 * MIB))
	kill -INT "$COPY_PID"
	local rc=0
	wait "$COPY_PID" || rc=$?
	COPY_PID=
	((rc == 130)) || { cat "$ERR" >&2; return 1; }
	grep -q "interrupted by SIGINT" "$ERR"
	local d n
	for d in "$A_MNT" "$B_MNT"; do
		assert_no_temporaries "$d"
		[[ ! -d $d/t ]] || assert_final_names_complete "$SRC/t" "$d/t"
		# one line names each destination with what is complete on it
		n=$(find "$d/t" -type f 2>/dev/null | wc -l)
		grep -q "on '$d' $n of 6 files (" "$ERR" || { cat "$ERR" >&2; return 1; }
	done
	grep -q "^safecp: interrupted by SIGINT: on '$A_MNT' .* complete, on '$B_MNT' .* complete; nothing partial" "$ERR"
	jq -s -e 'map(select(.event == "interrupted")) | length == 1' "$EV"
}

@test "-n keeps each destination's own files and copies the rest to each" {
	stick_as A --size 64 --rate 0
	stick_as B --size 64 --rate 0
	mkdir -p "$SRC/t"
	make_file "$SRC/t/a" 100000
	make_file "$SRC/t/b" 200000
	make_file "$SRC/t/c" 300000
	mkdir -p "$A_MNT/t" "$B_MNT/t"
	echo mine >"$A_MNT/t/a"
	echo mine >"$B_MNT/t/b"
	run -0 safecp -r -n "$SRC/t" -t "$A_MNT" -t "$B_MNT"
	[[ $(cat "$A_MNT/t/a") == mine && $(cat "$B_MNT/t/b") == mine ]]
	cmp "$SRC/t/b" "$A_MNT/t/b"
	cmp "$SRC/t/c" "$A_MNT/t/c"
	cmp "$SRC/t/a" "$B_MNT/t/a"
	cmp "$SRC/t/c" "$B_MNT/t/c"
}

@test "usage: -t twice with the same directory, -t with -T" {
	stick_as A --size 32 --rate 0
	make_file "$SRC/f" 10
	run -2 safecp "$SRC/f" -t "$A_MNT" -t "$A_MNT"
	[[ $output == *"given twice"* ]]
	run -2 safecp -T "$SRC/f" -t "$A_MNT" -t /tmp
	[[ $output == *"cannot combine"* ]]
}

@test "--events FILE: the bar on a terminal (a row per stick and the source's), the JSON events in FILE" {
	require_cmd script
	stick_as A --size 64 --rate $((4 * MIB))
	stick_as B --fs exfat --size 64 --rate $((2 * MIB))
	make_file "$SRC/a.bin" $((3 * MIB))
	make_file "$SRC/b.bin" $((2 * MIB + 7))
	mkdir "$A_MNT/d" "$B_MNT/d"
	local log=$BATS_TEST_TMPDIR/typescript rc=0
	TERM=xterm COLUMNS=80 script -qfec "stty cols 80; exec safecp -r --events='$EV' -t '$A_MNT/d' -t '$B_MNT/d' -- '$SRC/a.bin' '$SRC/b.bin'" \
		/dev/null >"$log" 2>&1 </dev/null || rc=$?
	cat -A "$log" | tail -20
	[ "$rc" -eq 0 ]
	# the bar: two destination rows, the source's last, the cursor back up over them
	grep -q "/ 5.00 MiB read  source"$'\e\\[K\e\\[2A' "$log"
	grep -q "2 of 2 destinations complete" "$log"
	# the events: each destination's files and done, the job's done with both
	[[ $(jq -r 'select(.event == "done") | .destinations | map(.outcome) | join(",")' "$EV") == ok,ok ]]
	[[ $(jq -r --arg d "$A_MNT/d" 'select(.event == "dest-done" and .dest == $d) | .files' "$EV") == 2 ]]
	[[ $(jq -r --arg d "$B_MNT/d" 'select(.event == "dest-done" and .dest == $d) | .files' "$EV") == 2 ]]
	[[ $(jq -s 'map(select(.event == "file" and .state == "finished")) | length' "$EV") == 4 ]]
	cmp "$SRC/a.bin" "$A_MNT/d/a.bin"
	cmp "$SRC/b.bin" "$B_MNT/d/b.bin"
	# usage: not beside --progress=json, a FILE that cannot be opened
	run -2 safecp --events="$EV" --progress=json "$SRC/a.bin" "$A_MNT/e"
	run -2 safecp --events=/nonexistent/dir/ev "$SRC/a.bin" "$A_MNT/e"
	[[ $output == *"cannot open '/nonexistent/dir/ev'"* ]]
	# a FIFO nobody reads is refused at once, not waited on
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	run -2 timeout 20 safecp --events="$BATS_TEST_TMPDIR/fifo" "$SRC/a.bin" "$A_MNT/e"
	[[ $output == *"cannot open '$BATS_TEST_TMPDIR/fifo' for the events: No such device or address"* ]]
	[[ ! -e $A_MNT/e ]]
}
