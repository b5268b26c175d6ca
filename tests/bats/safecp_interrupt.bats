#!/usr/bin/env bats
# tests/bats/safecp_interrupt.bats: stopping safecp never leaves a partial file under a
# final name. SIGINT, SIGTERM and SIGHUP in the middle of a copy: exit 130, temporaries
# removed, files already under their final names complete. kill -9 at random moments:
# nothing can clean up, but every file under a final name is still complete. (A large
# file's copy keeps a resumable partial instead: safecp_resume.bats.)
#
# The signal is sent once the device has confirmed some bytes (a progress event with
# bytes_on_device > 0), so it lands mid-copy on the 20 MiB/s stick.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/t"
	local i
	# small files first (plan order is by name), so some may be complete when the
	# signal comes, then two big ones
	for i in 1 2 3 4; do make_file "$SRC/t/a-small$i" $((300 * 1024 + i)); done
	for i in 1 2; do make_file "$SRC/t/z-big$i" $((16 * MIB + i)); done
}

# assert_interrupted_line ERR SIGNAL MNT: ERR says it once, in one line: how many of the
# 6 files are complete on the stick (as many as are there) and how to finish.
assert_interrupted_line() {
	local n verb=are
	n=$(find "$3/t" -type f 2>/dev/null | wc -l)
	((n == 1)) && verb=is
	[[ $(grep -c interrupted "$1") == 1 ]]
	grep -qxF "safecp: interrupted by SIG$2: $n of 6 files ($(complete_size "$3")) $verb complete on '$3/'; nothing partial is left under a final name; run the same command with --skip-identical to copy the rest" "$1"
}

# complete_size MNT: the bytes of the files under MNT/t as safecp writes sizes.
complete_size() {
	local sum
	sum=$(find "$1/t" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	format_size "$sum"
}

# interrupt_with SIGNAL
interrupt_with() {
	stick_up --size 96
	local ev=$BATS_TEST_TMPDIR/events err=$BATS_TEST_TMPDIR/err pid rc=0
	safecp -r --progress=json "$SRC/t" "$STICK_MNT"/ >"$ev" 2>"$err" &
	pid=$!
	wait_for 30 json_has_confirmed "$ev"
	kill -"$1" "$pid"
	wait "$pid" || rc=$?
	cat "$err"
	((rc == 130))
	jq -s -e --arg sig "$1" 'last | .event == "interrupted" and .signal == $sig' "$ev"
	assert_no_temporaries "$STICK_MNT"
	assert_interrupted_line "$err" "$1" "$STICK_MNT"
	assert_final_names_complete "$SRC" "$STICK_MNT"
	# it stopped in the middle: the last big file is not there
	[[ ! -e $STICK_MNT/t/z-big2 ]]
}

@test "SIGINT mid-copy: exit 130, no temporaries, no partial file" {
	interrupt_with INT
}

@test "SIGTERM mid-copy: exit 130, no temporaries, no partial file" {
	interrupt_with TERM
}

@test "SIGHUP mid-copy: exit 130, no temporaries, no partial file" {
	interrupt_with HUP
}

@test "Ctrl-C on a terminal: the bar stops where it is, one line says what is complete and what to run" {
	require_cmd script
	stick_up --size 96
	local log=$BATS_TEST_TMPDIR/typescript pidf=$BATS_TEST_TMPDIR/pid pid rc=0 line
	# the shell's pid is safecp's after exec: the signal goes to it alone
	TERM=xterm COLUMNS=80 script -qfec "stty cols 80; echo \$\$ >'$pidf'; exec safecp -r '$SRC/t' '$STICK_MNT/'" \
		"$log" >/dev/null </dev/null &
	pid=$!
	wait_for 30 grep -qs ' [1-9][0-9.]* [KM]iB / ' "$log"
	kill -INT "$(cat "$pidf")"
	wait "$pid" || rc=$?
	cat -v "$log"
	((rc == 130))
	assert_no_temporaries "$STICK_MNT"
	tr -d '\r' <"$log" >"$log.lines"
	assert_interrupted_line "$log.lines" INT "$STICK_MNT"
	# the message starts its own line, and nothing is drawn after it
	line=$(grep -a 'interrupted' "$log")
	[[ ${line%$'\r'} == "safecp: interrupted by SIGINT: "* ]]
	[[ -z $(sed -n '/interrupted by SIGINT/,$p' "$log.lines" | sed 1d | grep -v '^Script done' | tr -d '\n') ]]
}

@test "kill -9 at random moments leaves no partial file under a final name" {
	stick_up --size 128
	local round delay pid
	for round in 1 2 3 4; do
		rm -rf "${STICK_MNT:?}/t"
		# 0.1 to 2.0 s into a ~1.7 s copy: before, during and after the big files
		delay=$(printf '0.%03d' $((RANDOM % 1000)))
		((round % 2 == 0)) && delay=1${delay#0}
		safecp -r "$SRC/t" "$STICK_MNT"/ &
		pid=$!
		sleep "$delay"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" || true
		echo "round $round: killed after $delay s; $(find "$STICK_MNT/t" -type f 2>/dev/null | wc -l) entries"
		[[ ! -d $STICK_MNT/t ]] || assert_final_names_complete "$SRC" "$STICK_MNT"
	done
}

# used_kib MNT: the filesystem's used space, after its pending writes are counted.
used_kib() {
	sync -f "$1"
	df -k --output=used "$1" | tail -1
}

@test "kill -9 on ext4 leaves no temporary and gives back the space (unnamed O_TMPFILE files)" {
	stick_up --size 256
	local pid before after
	# below a resumable partial's chunk (17280 KiB here): a larger file keeps its
	# partial for the next run (safecp_resume.bats)
	make_file "$SRC/huge" $((16 * MIB))
	before=$(used_kib "$STICK_MNT")
	safecp --progress=json "$SRC/huge" "$STICK_MNT"/ >"$BATS_TEST_TMPDIR/ev" &
	pid=$!
	wait_for 30 json_has_confirmed "$BATS_TEST_TMPDIR/ev"
	kill -9 "$pid"
	wait "$pid" || true
	[[ ! -e $STICK_MNT/huge ]]
	assert_no_temporaries "$STICK_MNT"
	[[ -z $(ls -A "$STICK_MNT" | grep -v '^lost+found$') ]]
	# the killed copy's blocks were freed with its last file descriptor
	after=$(used_kib "$STICK_MNT")
	echo "used before $before KiB, after $after KiB"
	((after < before + 1024))
}

# stale_temp_reused FS: a named temporary left by kill -9 (no O_TMPFILE there) is
# removed by the next copy, which may use its space.
stale_temp_reused() {
	stick_up --fs "$1" --size 64
	local pid stale live avail
	# killed at 16 MiB on the device, 32 MiB (1.6 s at 20 MiB/s) before the end
	make_file "$SRC/big" $((48 * MIB))
	# a plain temporary, not a resumable partial (safecp_resume.bats)
	safecp --no-resume --progress=json "$SRC/big" "$STICK_MNT"/ >"$BATS_TEST_TMPDIR/ev" &
	pid=$!
	wait_for 30 json_confirmed_at_least "$BATS_TEST_TMPDIR/ev" $((16 * MIB))
	kill -9 "$pid"
	wait "$pid" || true
	[[ ! -e $STICK_MNT/big ]]
	# its sequence number starts at random: one temporary of that PID
	stale=$(compgen -G "$STICK_MNT/.safecp-$pid-*.tmp")
	[[ $(wc -l <<<"$stale") == 1 && -f $stale ]]
	# a running process's temporary is not stale: this shell's PID is alive
	live=$STICK_MNT/.safecp-$$-7.tmp
	echo keep >"$live"
	avail=$(df -B1 --output=avail "$STICK_MNT" | tail -1)
	echo "free with the temporary: $avail bytes"
	# without the temporary's space the 48 MiB would not fit (fusefat says 0 of 0
	# on a stick this small: the space check takes its cluster counts instead)
	((avail < 48 * MIB))

	run -0 safecp --dry-run -v "$SRC/big" "$STICK_MNT"/
	echo "$output"
	[[ $output == *$'\n'"stale: 1 temporary file of interrupted copies, "*", would be removed"$'\n'* ]]
	[[ $output == *"  remove "*"'$stale'"* ]]
	[[ -f $stale ]]

	run -0 --separate-stderr safecp --progress=json "$SRC/big" "$STICK_MNT"/
	echo "$stderr"
	[[ $stderr == *"safecp: note: '$stale': removed a temporary file left by an interrupted copy ("*" MiB)"* ]]
	jq -s -e '.[0].event == "start" and .[0].stale_temps == 1 and .[0].stale_bytes >= 16 * 1048576' \
		<<<"$output"
	jq -s -e --arg p "$stale" 'map(select(.event == "note" and .path == $p)) | length == 1' \
		<<<"$output"
	[[ ! -e $stale ]]
	[[ $(cat "$live") == keep ]]
	cmp "$SRC/big" "$STICK_MNT/big"
	rm "$live"
}

@test "kill -9 on exfat leaves a named temporary; the next copy removes it and may use its space" {
	stale_temp_reused exfat
}

@test "kill -9 on fat32 leaves a named temporary; the next copy removes it and may use its space" {
	require_cmd fusefat
	stale_temp_reused fat32
	# the stick's root holds the one file, and the stale temporary is gone
	mkdir "$BATS_TEST_TMPDIR/want"
	cp "$SRC/big" "$BATS_TEST_TMPDIR/want/"
	fat_readback "$BATS_TEST_TMPDIR/want" ""
}

@test "kill -9 on ntfs leaves a named temporary; the next copy removes it and may use its space" {
	require_cmd ntfs-3g
	stale_temp_reused ntfs
}
